//! Whether a profile's retry budget runs dry before its max retries when attempts fail at a
//! given rate: sequential seeded runs through the policy's own token bucket.

use crate::model::{BudgetChangeKind, BudgetCharge, BudgetScope, OutcomeClass, RetryProfile};
use crate::policy::{RetryCharge, TokenBucket, listed_retries, rng_from_seed};
use rand::Rng;
use std::fmt;

/// The budget refused retries in some of the checked runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetDry {
    /// Chance that one attempt fails, 0–1.
    pub failure_rate: f64,
    /// Runs checked (one after another, sharing the bucket unless its scope is `run`).
    pub runs: u32,
    /// Runs in which a retry was refused before max retries.
    pub refused_runs: u32,
    /// The first such run, 1-based.
    pub first_refused_run: u32,
}

impl fmt::Display for BudgetDry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "retry budget runs dry: with {:.0} % of attempts failing it refuses a retry before max retries in {} of {} runs in a row (first in run {})",
            self.failure_rate * 100.0,
            self.refused_runs,
            self.runs,
            self.first_refused_run
        )
    }
}

/// Runs `runs` requests one after another, each attempt failing (a transient 503) with
/// probability `failure_rate` (clamped to 0–1), retrying up to the profile's listed retries
/// ([`listed_retries`]) and charging the profile's budget as the engine does (`charge: retry`
/// before each retry, `charge: failure` on every retryable failure; refunds and success
/// increments on success). Waits and the deadline are not modelled. The bucket is shared by all
/// runs unless the budget's scope is `run`. `None` without a budget or when no retry was refused.
///
/// ```
/// # use retryscope::sim::budget_dry;
/// let aws = retryscope::profile::builtin("aws-standard").unwrap();
/// // Every attempt failing: 500 tokens, 5 a retry, 2 retries a run → dry after 50 runs.
/// let dry = budget_dry(&aws, 1.0, 200, 1).unwrap();
/// assert_eq!((dry.first_refused_run, dry.refused_runs), (51, 150));
/// assert!(budget_dry(&aws, 0.0, 200, 1).is_none());
/// ```
pub fn budget_dry(
    profile: &RetryProfile,
    failure_rate: f64,
    runs: u32,
    seed: u64,
) -> Option<BudgetDry> {
    let budget = profile.retry_budget.as_ref()?;
    let f = super::stack::clamp_rate(failure_rate);
    let attempts = u64::from(listed_retries(profile)) + 1;
    let class = OutcomeClass::Transient;
    let mut rng = rng_from_seed(seed);
    let mut bucket = TokenBucket::new(budget, "lab");
    let (mut refused_runs, mut first) = (0u32, None);
    for run in 1..=runs {
        if budget.scope == BudgetScope::Run {
            bucket = TokenBucket::new(budget, "lab");
        }
        let mut last_charge = None;
        for attempt in 1..=attempts {
            if !rng.random_bool(f) {
                bucket.success(last_charge);
                break;
            }
            let retry_follows = attempt < attempts;
            if budget.charge == BudgetCharge::Retry && !retry_follows {
                break;
            }
            match bucket.retryable_failure(class, retry_follows) {
                Some(c) if c.kind == BudgetChangeKind::Refused => {
                    refused_runs += 1;
                    first.get_or_insert(run);
                    break;
                }
                Some(c) => {
                    last_charge = Some(RetryCharge {
                        class,
                        cost: c.amount,
                    });
                }
                None => {}
            }
        }
    }
    first.map(|first_refused_run| BudgetDry {
        failure_rate: f,
        runs,
        refused_runs,
        first_refused_run,
    })
}
