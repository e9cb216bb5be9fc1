//! What the lab warns about in a profile: later retries pinned at the cap, a worst case past the
//! deadline, a jitter window wider than the base, a header strategy without fallback, and a
//! retry budget that runs dry under a given failure rate.

use super::budget_check::{BudgetDry, budget_dry};
use crate::model::{Backoff, RetryProfile, Strategy};
use crate::policy::{self, max_wait_bound};
use std::fmt;

/// One warning about a profile. [`fmt::Display`] gives the sentence the lab and the CLI show.
#[derive(Debug, Clone, PartialEq)]
pub enum LabWarning {
    /// From retry `from_retry` on, the formula's largest wait no longer grows: the max delay
    /// caps it (`count` retries, `None` = unlimited).
    PinnedAtCap {
        /// Which backoff (`backoff`, `backoff.fallback`, `throttling.backoff`).
        path: String,
        /// First pinned retry n.
        from_retry: u32,
        /// Retries from `from_retry` to the last one (`None` for unlimited retries).
        count: Option<u64>,
        /// The max delay, ms.
        cap_ms: u64,
    },
    /// Every wait at its maximum plus every attempt at its time limit passes the deadline.
    WorstCaseBeyondDeadline {
        /// Worst-case total, ms.
        worst_ms: u64,
        /// The profile's deadline, ms.
        deadline_ms: u64,
    },
    /// Without a deadline, every wait at its maximum plus every attempt at its time limit takes
    /// longer than a day.
    LongerThanADay {
        /// Worst-case total, ms.
        worst_ms: u64,
    },
    /// The additive jitter window `w` is larger than the base delay `b`.
    JitterWindowAboveBase {
        /// Which backoff.
        path: String,
        /// `w`, ms.
        window_ms: u64,
        /// `b`, ms.
        base_ms: u64,
    },
    /// A `response_header` backoff without a fallback: a missing or unusable header gives no
    /// computed wait.
    NoHeaderFallback {
        /// Which backoff.
        path: String,
    },
    /// The retry budget refuses retries under the given failure rate ([`BudgetDry`]).
    BudgetRunsDry(BudgetDry),
}

impl fmt::Display for LabWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PinnedAtCap {
                path,
                from_retry,
                count,
                cap_ms,
            } => match count {
                Some(c) => write!(
                    f,
                    "{path}: retries {from_retry} on ({c} of them) are pinned at the {cap_ms} ms max delay"
                ),
                None => write!(
                    f,
                    "{path}: every retry from {from_retry} on is pinned at the {cap_ms} ms max delay"
                ),
            },
            Self::WorstCaseBeyondDeadline {
                worst_ms,
                deadline_ms,
            } => write!(
                f,
                "worst case {} (every wait at its maximum, every attempt at its time limit) passes the {} deadline: the last retries may never happen",
                crate::model::units::format_ms_human(*worst_ms),
                crate::model::units::format_ms_human(*deadline_ms)
            ),
            Self::LongerThanADay { worst_ms } => write!(
                f,
                "worst case {} (every wait at its maximum, every attempt at its time limit) is longer than a day and the profile has no deadline: set deadline_ms to bound it",
                crate::model::units::format_ms_human(*worst_ms)
            ),
            Self::JitterWindowAboveBase {
                path,
                window_ms,
                base_ms,
            } => write!(
                f,
                "{path}: the jitter window {window_ms} ms is larger than the base delay {base_ms} ms, so jitter dominates the early waits"
            ),
            Self::NoHeaderFallback { path } => write!(
                f,
                "{path}: response_header has no fallback, so a missing or unusable Retry-After gives no computed wait"
            ),
            Self::BudgetRunsDry(dry) => write!(f, "{dry}"),
        }
    }
}

/// A day, ms: a profile that can retry for longer without a deadline is warned about.
const ONE_DAY_MS: u64 = 24 * 60 * 60 * 1000;

/// Runs the budget check samples (sequential runs, see [`budget_dry`]).
pub const BUDGET_CHECK_RUNS: u32 = 200;

/// Every warning for `profile`; `failure_rate` (0–1, the chance that one attempt fails) and
/// `seed` drive the budget check.
pub fn warnings(profile: &RetryProfile, failure_rate: f64, seed: u64) -> Vec<LabWarning> {
    let mut out = Vec::new();
    let mut backoffs: Vec<(String, &Backoff)> = vec![("backoff".into(), &profile.backoff)];
    if let Some(t) = &profile.throttling.backoff {
        backoffs.push(("throttling.backoff".into(), t));
    }
    for (path, b) in backoffs {
        if b.strategy == Strategy::ResponseHeader {
            match b.fallback.as_deref() {
                Some(fb) => backoff_warnings(&format!("{path}.fallback"), fb, profile, &mut out),
                None => out.push(LabWarning::NoHeaderFallback { path }),
            }
        } else {
            backoff_warnings(&path, b, profile, &mut out);
        }
    }
    match (profile.deadline_ms, worst_case_ms(profile)) {
        (Some(deadline_ms), Some(worst_ms)) if worst_ms > deadline_ms => {
            out.push(LabWarning::WorstCaseBeyondDeadline {
                worst_ms,
                deadline_ms,
            });
        }
        (None, Some(worst_ms)) if worst_ms > ONE_DAY_MS => {
            out.push(LabWarning::LongerThanADay { worst_ms });
        }
        _ => {}
    }
    if let Some(dry) = budget_dry(profile, failure_rate, BUDGET_CHECK_RUNS, seed) {
        out.push(LabWarning::BudgetRunsDry(dry));
    }
    out
}

fn backoff_warnings(path: &str, b: &Backoff, profile: &RetryProfile, out: &mut Vec<LabWarning>) {
    if matches!(b.strategy, Strategy::Exponential | Strategy::Fixed)
        && b.jitter_window_ms > b.base_delay_ms
    {
        out.push(LabWarning::JitterWindowAboveBase {
            path: path.to_owned(),
            window_ms: b.jitter_window_ms,
            base_ms: b.base_delay_ms,
        });
    }
    if let Some((from_retry, cap_ms)) = first_pinned_retry(b, policy::listed_retries(profile)) {
        let count = profile
            .max_retries
            .map(|r| u64::from(r) - u64::from(from_retry) + 1);
        if count.is_none_or(|c| c >= 2) {
            out.push(LabWarning::PinnedAtCap {
                path: path.to_owned(),
                from_retry,
                count,
                cap_ms,
            });
        }
    }
}

/// The first retry n ≤ `retries` from which a computed backoff's largest wait stays the same
/// and has reached the max delay, with that max delay; `None` without a max delay, for `fixed`
/// (which never grows) and for strategies without a formula.
pub fn first_pinned_retry(b: &Backoff, retries: u32) -> Option<(u32, u64)> {
    let cap = b.max_delay_ms?;
    if matches!(
        b.strategy,
        Strategy::Fixed | Strategy::Custom | Strategy::ResponseHeader
    ) {
        return None;
    }
    let mut prev = max_wait_bound(b, 1)?;
    for n in 1..=retries {
        let next = max_wait_bound(b, n + 1)?;
        // Bounds are whole ms held in f64: "no longer grows" is an exact comparison.
        if prev >= cap as f64 && next <= prev {
            return Some((n, cap));
        }
        prev = next;
    }
    None
}

/// Worst-case total of a run, ms: every wait at its exact maximum ([`policy::wait_range`]) plus
/// every attempt at its limit (`timeouts.total_ms`, else connect + read, else 0; a server that
/// stalls is cut by the read (idle) timeout, 30 s by default). `None` for unlimited retries or
/// a wait without bounds.
///
/// ```
/// use retryscope::sim::worst_case_ms;
/// // seed 001: 3 retries, waits at most 2500, 4500, 8500 ms; each of the 4 attempts may stall
/// // up to the default 30 s idle timeout.
/// let mut p = retryscope::profile::builtin("servicenow-exponential").unwrap();
/// assert_eq!(worst_case_ms(&p), Some(2500 + 4500 + 8500 + 4 * 30_000));
/// p.timeouts.read_ms = None;
/// assert_eq!(worst_case_ms(&p), Some(2500 + 4500 + 8500));
/// p.timeouts.total_ms = Some(60_000);
/// assert_eq!(worst_case_ms(&p), Some(2500 + 4500 + 8500 + 4 * 60_000));
/// ```
pub fn worst_case_ms(profile: &RetryProfile) -> Option<u64> {
    let t = &profile.timeouts;
    let attempt = t
        .total_ms
        .unwrap_or_else(|| t.connect_ms.unwrap_or(0) + t.read_ms.unwrap_or(0));
    worst_case_with(profile, attempt)
}

/// [`worst_case_ms`] with each attempt taking `attempt_ms` (a layered stack's inner call).
pub fn worst_case_with(profile: &RetryProfile, attempt_ms: u64) -> Option<u64> {
    let retries = profile.max_retries?;
    let listed = retries.min(policy::SIMULATE_MAX_RETRIES);
    let mut total = 0.0;
    let mut last = 0.0;
    for n in 1..=listed {
        last = policy::wait_range(&profile.backoff, n)?.1;
        total += last;
    }
    // Bounds never shrink with n and reach the cap (or 24 h) long before retry 1000, so the
    // retries past the listed ones wait at most the last listed bound.
    total += last * f64::from(retries - listed);
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a non-negative sum of ms, at most 24 h × u32::MAX, inside u64"
    )]
    let waits_ms = total.ceil() as u64;
    Some(waits_ms.saturating_add(attempt_ms.saturating_mul(u64::from(retries) + 1)))
}
