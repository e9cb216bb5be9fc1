//! Pure retry policy: backoff formulas, delay-header parsing, triage and custom scripts.
//!
//! No I/O, no clock (the caller passes "now" in), RNG injected ([`PolicyRng`]).
//!
//! STUB: signatures are the contract; the policy work replaces the bodies.

use crate::model::{AttemptOutcome, RetryProfile, Verdict, WaitExplanation};
use rand::SeedableRng;

/// The RNG every jitter draw comes from: ChaCha8, so a seed gives the same waits on every
/// machine and library version.
pub type PolicyRng = rand_chacha::ChaCha8Rng;

/// A [`PolicyRng`] seeded with `seed`.
pub fn rng_from_seed(seed: u64) -> PolicyRng {
    PolicyRng::seed_from_u64(seed)
}

/// Errors building a policy from a profile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// The custom script failed to compile.
    #[error("script error at line {line}, column {column}: {message}")]
    Script {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A parameter is unusable.
    #[error("{0}")]
    Invalid(String),
}

/// Inputs for computing wait n.
#[derive(Debug, Clone, Copy)]
pub struct WaitContext<'a> {
    /// Retry number n ≥ 1 (the wait precedes attempt n + 1).
    pub retry: u32,
    /// Outcome of attempt n (the one being retried).
    pub outcome: &'a AttemptOutcome,
    /// Monotonic ms since the run started.
    pub elapsed_ms: u64,
    /// The previous wait actually planned, ms (`None` before retry 1).
    pub prev_wait_ms: Option<u64>,
    /// Time left before the deadline, ms (`None` without a deadline).
    pub time_left_ms: Option<u64>,
    /// The local wall clock as Unix ms, used for HTTP-dates when the response has no valid `Date`.
    pub now_unix_ms: i64,
}

/// What the policy says about the next wait.
#[derive(Debug, Clone, PartialEq)]
pub enum WaitDecision {
    /// Wait this long, then retry.
    Wait(WaitExplanation),
    /// Do not retry (server asked for more than the max delay, script returned `()`…).
    Stop {
        /// Why, shown verbatim.
        reason: String,
    },
    /// The custom script failed or returned something that is not a finite number ≥ 0 or `()`.
    ScriptError {
        /// Message quoting the returned value or the runtime error.
        message: String,
    },
}

/// A profile made ready to run: script compiled once.
#[derive(Debug, Clone)]
pub struct Policy {
    profile: RetryProfile,
}

impl Policy {
    /// Builds a policy from a profile.
    ///
    /// # Errors
    /// [`PolicyError::Script`] when the custom script does not compile.
    pub fn new(profile: RetryProfile) -> Result<Self, PolicyError> {
        Ok(Self { profile })
    }

    /// The profile this policy runs.
    pub fn profile(&self) -> &RetryProfile {
        &self.profile
    }

    /// Triage of one outcome (DESIGN.md §4), not counting retries left or the deadline.
    pub fn triage(
        &self,
        method: &str,
        has_idempotency_key: bool,
        outcome: &AttemptOutcome,
    ) -> Verdict {
        let _ = (method, has_idempotency_key, outcome);
        Verdict::Stop {
            reason: "stub".into(),
        }
    }

    /// Computes wait n (DESIGN.md §2–3).
    pub fn next_wait(&self, ctx: &WaitContext<'_>, rng: &mut PolicyRng) -> WaitDecision {
        let _ = (ctx, rng);
        WaitDecision::Stop {
            reason: "stub".into(),
        }
    }
}

/// min / p50 / p95 / max of a sampled quantity, ms.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Quantiles {
    /// Smallest sample, ms.
    pub min: f64,
    /// Median, ms.
    pub p50: f64,
    /// 95th percentile, ms.
    pub p95: f64,
    /// Largest sample, ms.
    pub max: f64,
}

/// Sampled statistics of wait n and of the cumulative waiting up to it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RetryStats {
    /// Retry number n.
    pub retry: u32,
    /// Wait n, ms.
    pub wait: Quantiles,
    /// Sum of waits 1..=n, ms.
    pub cumulative: Quantiles,
    /// The formula's true maximum for wait n, ms (not sampled).
    pub bound_max: f64,
}

/// Samples `samples` runs of the profile's waits for retries 1..=max_retries, assuming every
/// attempt fails with 503 and no delay header.
///
/// # Errors
/// [`PolicyError`] when the profile's script does not compile.
pub fn simulate(
    profile: &RetryProfile,
    samples: u32,
    seed: u64,
) -> Result<Vec<RetryStats>, PolicyError> {
    let _ = (profile, samples, seed);
    Ok(Vec::new())
}
