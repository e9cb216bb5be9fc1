//! How a batch is worked: concurrency, the rate limit per host and the assertions every
//! item's final response must pass. Stored with the batch, so a resumed batch runs as it began.

use super::response_matcher::ResponseMatcher;
use serde::{Deserialize, Serialize};

/// Items of a batch in flight at once when nothing else is said.
pub const DEFAULT_CONCURRENCY: usize = 4;

/// Most items in flight at once a batch accepts.
pub const MAX_CONCURRENCY: usize = 256;

/// The lowest rate per host a batch accepts: one item start per hour (in starts per second).
/// Below it an item can wait days or years for its host's turn, which is a typo, not a plan.
pub const MIN_RATE_PER_HOST: f64 = 1.0 / 3600.0;

/// Why `rate` (item starts per second per host) is not accepted, if it is not: not a number,
/// 0 or below, or under [`MIN_RATE_PER_HOST`] (saying how long an item would wait).
///
/// ```
/// use retryscope::model::rate_per_host_problem as problem;
/// assert_eq!(problem(0.5), None);
/// assert_eq!(problem(1.0 / 3600.0), None);
/// assert!(problem(0.0000001).is_some_and(|p| p.contains("at least 1 per hour")));
/// assert!(problem(1e-300).is_some_and(|p| p.contains("more than a million years") && p.len() < 200));
/// ```
pub fn rate_per_host_problem(rate: f64) -> Option<String> {
    if !(rate.is_finite() && rate > 0.0) {
        return Some(format!(
            "expected a number of requests per second above 0 (e.g. 10 or 0.5), found {rate}"
        ));
    }
    if rate < MIN_RATE_PER_HOST * (1.0 - 1e-9) {
        let hours = 1.0 / rate / 3600.0;
        let years = hours / (24.0 * 365.0);
        let wait = if years >= 1e6 {
            "more than a million years".to_owned()
        } else if years >= 1.0 {
            format!("{years:.0} years")
        } else if hours >= 24.0 {
            format!("{:.0} days", hours / 24.0)
        } else {
            format!("{hours:.1} hours")
        };
        // Rust writes 1e-300 out in full: tiny rates in exponent form.
        let shown = if rate < 1e-6 {
            format!("{rate:e}")
        } else {
            rate.to_string()
        };
        return Some(format!(
            "{shown} per second is one item start every {wait}; the rate must be at least 1 per hour ({MIN_RATE_PER_HOST:.6} per second)"
        ));
    }
    None
}

/// Options of one batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchOptions {
    /// Items in flight at once, 1..=[`MAX_CONCURRENCY`] (default [`DEFAULT_CONCURRENCY`]).
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    /// Most item starts per second against one scheme + host + port (`None`: no limit). Counts
    /// each item's first attempt; its retries are paced by the profile's backoff and the shared
    /// retry budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_per_host: Option<f64>,
    /// Conditions every item's final response must meet (all of them, in order); an item whose
    /// final response fails one ends `error` naming it in the user's words (`--expect-json
    /// /state="done"`, see `policy::assertion_label`). Each is one §8
    /// matcher (all its keys must hold).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assertions: Vec<ResponseMatcher>,
    /// Send every item an `Idempotency-Key` derived from the batch and the item
    /// ([`batch_idempotency_key`]), the same on every attempt and on every resume, so a server
    /// that honours the header runs an item in flight at a crash only once. An item that sets
    /// its own key keeps it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub idempotency_keys: bool,
}

/// The `Idempotency-Key` of item `position` (0-based, as stored) of batch `batch_id`:
/// `retryscope-{batch}-{position}`,
/// stable across attempts and resumes.
pub fn batch_idempotency_key(batch_id: &str, position: u64) -> String {
    format!("retryscope-{batch_id}-{position}")
}

fn default_concurrency() -> usize {
    DEFAULT_CONCURRENCY
}

impl Default for BatchOptions {
    /// Concurrency 4, no rate limit, no assertions.
    fn default() -> Self {
        Self {
            concurrency: DEFAULT_CONCURRENCY,
            rate_per_host: None,
            assertions: Vec::new(),
            idempotency_keys: false,
        }
    }
}

impl BatchOptions {
    /// The problem with these options, if any, in words (`concurrency must be 1 to 256, found 0`).
    pub fn problem(&self) -> Option<String> {
        if !(1..=MAX_CONCURRENCY).contains(&self.concurrency) {
            return Some(format!(
                "concurrency must be 1 to {MAX_CONCURRENCY}, found {}",
                self.concurrency
            ));
        }
        if let Some(problem) = self.rate_per_host.and_then(rate_per_host_problem) {
            return Some(format!("the rate per host: {problem}"));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_problems() {
        let o: BatchOptions = serde_json::from_str("{}").expect("parses");
        assert_eq!(o, BatchOptions::default());
        assert_eq!(o.problem(), None);
        let zero = BatchOptions {
            concurrency: 0,
            ..BatchOptions::default()
        };
        assert!(zero.problem().is_some_and(|p| p.contains("found 0")));
        let nan = BatchOptions {
            rate_per_host: Some(f64::NAN),
            ..BatchOptions::default()
        };
        assert!(nan.problem().is_some());
    }
}
