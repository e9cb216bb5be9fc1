//! How a batch is worked (issue 9): concurrency, the rate limit per host and the assertions every
//! item's final response must pass. Stored with the batch, so a resumed batch runs as it began.

use super::response_matcher::ResponseMatcher;
use serde::{Deserialize, Serialize};

/// Items of a batch in flight at once when nothing else is said.
pub const DEFAULT_CONCURRENCY: usize = 4;

/// Most items in flight at once a batch accepts.
pub const MAX_CONCURRENCY: usize = 256;

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
        if let Some(r) = self.rate_per_host
            && !(r.is_finite() && r > 0.0)
        {
            return Some(format!(
                "the rate per host must be a number of requests per second above 0, found {r}"
            ));
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
