//! The retry strategies the contention simulator puts side by side, and how one client of each
//! decides what to do after a failed attempt.

use crate::model::{AttemptOutcome, Backoff, RetryProfile, Strategy, Verdict};
use crate::policy::{
    BeforeRetry, Next, Policy, PolicyError, PolicyRng, RetryState, StepClock, TokenBucket,
    sample_wait_ms,
};
use std::time::Duration;

/// One strategy in the comparison.
#[derive(Debug, Clone)]
pub struct Contender {
    /// Stable id for JSON and CSV: `no_jitter`, `full_jitter`, `equal_jitter`,
    /// `decorrelated_jitter`, `seed001_exponential`, `seed000_proportional`, `profile`.
    pub id: String,
    /// What the lab shows, e.g. `full jitter` or `profile "AWS SDK standard retry mode"`.
    pub label: String,
    pub(crate) rules: Rules,
}

/// How a contender retries.
#[derive(Debug, Clone)]
pub(crate) enum Rules {
    /// The post's clients: every failure is retried, without limit, after the formula's wait.
    Formula(Backoff),
    /// A user profile: its triage, max retries, deadline, budget and waits, as the engine runs
    /// them.
    Profile(Box<Policy>),
}

/// What a client does after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Retry after this many ms.
    Retry(u64),
    /// Stop: not retryable, out of retries, past the deadline or refused by the budget.
    GiveUp,
}

/// A client's retry state: the engine's.
pub(crate) type ClientState = RetryState;

impl Contender {
    /// The six standard strategies of the comparison with base delay `base_ms` and max delay
    /// `cap_ms`: no jitter (plain capped doubling, `min(c, b·2^(n−1))`), full, equal and
    /// decorrelated jitter (AWS Architecture Blog), seed 001's `exponential` (multiplier
    /// U[0, 2^n − 1], with its additional window scaled from seed 001's 1500 ms on a 1000 ms
    /// base: w = 1.5·b) and seed 000's `exponential_proportional` (factor U[0.8, 1.2]). They
    /// retry every failure without limit, as the post's clients do.
    pub fn standard(base_ms: u64, cap_ms: u64) -> Vec<Self> {
        let backoff = |strategy, f: &dyn Fn(&mut Backoff)| {
            let mut b = Backoff::new(strategy);
            b.base_delay_ms = base_ms;
            b.max_delay_ms = Some(cap_ms);
            f(&mut b);
            b
        };
        let formula = |id: &str, label: &str, b: Backoff| Self {
            id: id.to_owned(),
            label: label.to_owned(),
            rules: Rules::Formula(b),
        };
        vec![
            formula(
                "no_jitter",
                "no jitter",
                backoff(Strategy::ExponentialProportional, &|b: &mut Backoff| {
                    b.jitter_ratio = 0.0;
                }),
            ),
            formula(
                "full_jitter",
                "full jitter",
                backoff(Strategy::FullJitter, &|_: &mut Backoff| {}),
            ),
            formula(
                "equal_jitter",
                "equal jitter",
                backoff(Strategy::EqualJitter, &|_: &mut Backoff| {}),
            ),
            formula(
                "decorrelated_jitter",
                "decorrelated jitter",
                backoff(Strategy::DecorrelatedJitter, &|_: &mut Backoff| {}),
            ),
            formula(
                "seed001_exponential",
                "seed 001 exponential",
                backoff(Strategy::Exponential, &|b: &mut Backoff| {
                    b.jitter_window_ms = base_ms.saturating_mul(3) / 2;
                }),
            ),
            formula(
                "seed000_proportional",
                "seed 000 proportional",
                backoff(Strategy::ExponentialProportional, &|b: &mut Backoff| {
                    b.jitter_ratio = 0.2;
                }),
            ),
        ]
    }

    /// A contender that retries like `profile`: its triage of the server's answers (a lost
    /// write or an answer over capacity is a 503 or 429, with `Retry-After` when the server
    /// sends one), max retries, deadline (counted from the client's start), retry budget and
    /// waits (the fast sampler for computed strategies, the policy itself for `response_header`,
    /// `custom` and throttling backoffs). The request is taken to be idempotent (a PUT).
    ///
    /// # Errors
    /// [`PolicyError`] when the profile's script or matchers do not compile.
    pub fn profile(profile: &RetryProfile) -> Result<Self, PolicyError> {
        Ok(Self {
            id: "profile".to_owned(),
            label: format!("profile \"{}\"", profile.name),
            rules: Rules::Profile(Box::new(Policy::new(profile.clone())?)),
        })
    }

    /// The seven contenders of the lab: [`Contender::standard`] and the user's profile.
    ///
    /// # Errors
    /// As [`Contender::profile`].
    pub fn lab(
        base_ms: u64,
        cap_ms: u64,
        profile: &RetryProfile,
    ) -> Result<Vec<Self>, PolicyError> {
        let mut all = Self::standard(base_ms, cap_ms);
        all.push(Self::profile(profile)?);
        Ok(all)
    }

    /// The profile's retry budget, if this contender has one.
    pub(crate) fn budget(&self) -> Option<&crate::model::RetryBudget> {
        match &self.rules {
            Rules::Formula(_) => None,
            Rules::Profile(p) => p.profile().retry_budget.as_ref(),
        }
    }

    /// Attempts per operation at most (`None`: without limit, as formulas and profiles with
    /// unlimited retries).
    pub(crate) fn max_attempts(&self) -> Option<u64> {
        match &self.rules {
            Rules::Formula(_) => None,
            Rules::Profile(p) => p.profile().max_attempts(),
        }
    }

    /// Whether this contender's triage retries `outcome` at all (formulas retry everything; a
    /// profile as the engine would for an idempotent PUT). Max retries, deadline and budget are
    /// not looked at.
    pub(crate) fn retries(&self, outcome: &AttemptOutcome) -> bool {
        match &self.rules {
            Rules::Formula(_) => true,
            Rules::Profile(p) => matches!(p.triage("PUT", false, outcome), Verdict::Retry { .. }),
        }
    }

    /// Whether the contender reads the server's answer (a profile does; formulas do not).
    pub(crate) fn reads_outcome(&self) -> bool {
        matches!(self.rules, Rules::Profile(_))
    }

    /// An attempt succeeded: refund or increment the budget.
    pub(crate) fn succeeded(state: &ClientState, bucket: Option<&mut TokenBucket>) {
        if let Some(b) = bucket {
            b.success(state.last_charge);
        }
    }

    /// The attempt `state.attempt` failed with `outcome` at `elapsed_ms` after the client's
    /// start: retry after a wait, or give up. A profile decides with the engine's step
    /// ([`Policy::after_attempt`], [`Policy::before_retry`]) for an idempotent PUT.
    pub(crate) fn failed(
        &self,
        state: &mut ClientState,
        outcome: &AttemptOutcome,
        elapsed_ms: f64,
        rng: &mut PolicyRng,
        mut bucket: Option<&mut TokenBucket>,
    ) -> Step {
        let policy = match &self.rules {
            Rules::Formula(b) => {
                let wait = sample_wait_ms(b, state.attempt, state.prev_wait_ms, rng).unwrap_or(0);
                state.prev_wait_ms = Some(wait);
                state.attempt = state.attempt.saturating_add(1);
                return Step::Retry(wait);
            }
            Rules::Profile(p) => p,
        };
        let after = policy.after_attempt(state, "PUT", false, outcome, bucket.as_deref_mut());
        if after.next != Next::Retry {
            return Step::GiveUp;
        }
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "virtual ms since the start, non-negative and far below u64::MAX"
        )]
        let elapsed_ms = elapsed_ms.max(0.0) as u64;
        let clock = StepClock {
            elapsed_ms,
            since_first: Duration::from_millis(elapsed_ms),
            now_unix_ms: 0,
        };
        match policy.before_retry(state, outcome, clock, rng, bucket, false) {
            BeforeRetry::Wait { wait_ms, .. } => Step::Retry(wait_ms),
            BeforeRetry::End(..) => Step::GiveUp,
        }
    }
}
