//! Pure retry policy: backoff formulas, delay-header parsing, triage and custom scripts.
//!
//! No I/O, no clock (the caller passes "now" in), RNG injected ([`PolicyRng`]).
//!
//! Files: `limits` (24 h ceiling, rounding), `draws` (uniform draws: RNG or range ends),
//! `strategies` (the computed formulas), `explain` (their text), `bounds` (exact min/max),
//! `retry_after` (header parsing), `response_header` (that strategy), `script` (Rhai `custom`),
//! `triage` (whether to retry), `outcome_class` (throttling / timeout / transient and the backoff
//! each uses), `budget` (the retry budget's token bucket), `retry_step` (the
//! decision after an attempt, shared by the engine and the lab), `simulate` (sampled schedules),
//! `sample_stats` (their quantiles in bounded memory), `retry_count` (summaries of huge or
//! unlimited retry counts).
//!
//! Units: every `*_ms` is milliseconds; waits are whole ms, rounded up, in [0, 24 h].
//!
//! ```
//! use retryscope::model::{AttemptOutcome, Backoff, NetError, ErrorKind, Strategy};
//! use retryscope::policy::{WaitContext, WaitDecision, rng_from_seed};
//! # use retryscope::policy::Policy;
//! # fn profile(b: Backoff) -> retryscope::model::RetryProfile {
//! #     serde_json::from_value(serde_json::json!({"format": "retryscope-profile/2", "name": "x",
//! #         "backoff": serde_json::to_value(b).unwrap()})).unwrap()
//! # }
//! // equal_jitter (AWS blog): t = min(c, b·2^(n−1)); wait = t/2 + U[0, t/2]
//! let policy = Policy::new(profile(Backoff::new(Strategy::EqualJitter))).unwrap();
//! let outcome = AttemptOutcome::Error(NetError::new(ErrorKind::Connect, "refused"));
//! let ctx = WaitContext { retry: 3, outcome: &outcome, elapsed_ms: 0, prev_wait_ms: None,
//!                         time_left_ms: None, now_unix_ms: 0 };
//! let WaitDecision::Wait(e) = policy.next_wait(&ctx, &mut rng_from_seed(1)) else { panic!() };
//! assert!((2000..=4000).contains(&e.wait_ms));
//! assert!(e.text.starts_with("retry 3: equal_jitter 1000 × 2^2 = 4000 ms → 2000 + jitter"));
//! ```

mod batch_assertions;
mod bounds;
mod budget;
mod conditions;
mod draws;
mod explain;
mod json_pointer;
mod json_skip;
mod limits;
mod matchers;
mod outcome_class;
mod rate_schedule;
mod ratelimit_header;
mod response_header;
mod retry_after;
mod retry_count;
mod retry_step;
mod sample_stats;
mod script;
mod simulate;
mod strategies;
mod triage;
mod unread_delay;
mod wait_steps;
mod watch_schedule;

#[cfg(test)]
mod classes_tests;
#[cfg(test)]
mod explain_props;
#[cfg(test)]
mod script_tests;
#[cfg(test)]
mod tests;

pub use batch_assertions::{
    BatchAssertions, assertion_holding_secret, assertion_label, failed_run_reason,
    split_failed_assertion,
};
pub use bounds::{max_wait_bound, min_wait_bound, wait_range};
pub use budget::{BudgetStep, RetryCharge, TokenBucket, tokens_text};
pub use conditions::ResponseConditions;
pub use json_pointer::{Lookup, lookup_pointer, lookup_pointer_in_cut_body, pointer_tokens};
pub use limits::MAX_WAIT_MS;
pub use matchers::{CompiledMatcher, MAX_REGEX_SIZE, MatcherError, MatcherList};
pub use outcome_class::{backoff_for, classify};
pub use rate_schedule::RateSchedule;
pub use ratelimit_header::{RateLimitDelay, grpc_pushback_ms, parse_ratelimit, policy_summary};
pub use retry_after::{DelayForm, HeaderDelay, parse_delay, parse_http_date_ms, reference_unix_ms};
pub use retry_count::{listed_retries, retries_text, unlisted_retries_note};
pub use retry_step::{AfterAttempt, BeforeRetry, BudgetAccount, Next, RetryState, StepClock};
pub use sample_stats::STREAMING_SIGNIFICANT_DIGITS;
pub use script::{
    CompiledScript, MAX_ARRAY_SIZE, MAX_CALL_LEVELS, MAX_MAP_SIZE, MAX_OPERATIONS, MAX_STRING_SIZE,
};
pub use simulate::{
    Quantiles, RetryStats, SIMULATE_CONTROL_MAX_SAMPLES, SIMULATE_CONTROL_WAITS,
    SIMULATE_EXACT_MAX, SIMULATE_MAX_RETRIES, SampledWait, for_each_sampled_wait, sample_wait_ms,
    simulate, simulate_with, unreached_reason,
};
pub use triage::{is_idempotent, redirect_location};
pub use unread_delay::{delay_hint, ignored_delay_warning, is_delay_header};
pub use watch_schedule::{MAX_JITTER, SlotPlan, WatchSchedule};

use crate::model::{
    AttemptOutcome, Backoff, OutcomeClass, RetryProfile, Strategy, Verdict, WaitExplanation,
};
use rand::SeedableRng;
use std::sync::Arc;

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
    /// The custom script failed while running for retry `retry` (runtime error, limit hit, or a
    /// returned value that is not a finite number ≥ 0 or `()`), e.g. during [`simulate`].
    #[error("custom script failed for retry {retry}: {message}")]
    ScriptRuntime {
        /// Retry number n ≥ 1 whose `get_delay(ctx)` call failed.
        retry: u32,
        /// The [`WaitDecision::ScriptError`] message (quotes the value or the runtime error,
        /// with the script's line:column when Rhai knows it).
        message: String,
    },
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

/// A profile made ready to run: script compiled once. Cheap to clone (the script is shared).
#[derive(Debug, Clone)]
pub struct Policy {
    profile: RetryProfile,
    script: Option<Arc<CompiledScript>>,
    conditions: Arc<ResponseConditions>,
}

impl Policy {
    /// Builds a policy from a profile.
    ///
    /// # Errors
    /// [`PolicyError::Script`] when the custom script does not compile (1-based line:column);
    /// [`PolicyError::Invalid`] when a `custom` backoff has no script or a `response_header`
    /// fallback is not a computed strategy, or a `retry_on.response` / `success_when` matcher
    /// does not compile (the message ends with its field path).
    pub fn new(profile: RetryProfile) -> Result<Self, PolicyError> {
        let backoff = &profile.backoff;
        check_fallback(backoff, "backoff")?;
        if let Some(throttling) = &profile.throttling.backoff {
            if throttling.strategy == Strategy::Custom {
                return Err(PolicyError::Invalid(
                    "throttling.backoff.strategy `custom` is not allowed: use a computed strategy or response_header"
                        .into(),
                ));
            }
            check_fallback(throttling, "throttling.backoff")?;
        }
        let script = script::compile_for(backoff)?;
        let conditions = ResponseConditions::compile(&profile)
            .map_err(|e| PolicyError::Invalid(e.to_string()))?;
        Ok(Self {
            profile,
            script,
            conditions: Arc::new(conditions),
        })
    }

    /// The outcome class of `outcome` (see [`classify`]); a response matching one of the
    /// profile's `throttling.response` matchers is [`OutcomeClass::Throttling`] too.
    pub fn classify(&self, outcome: &AttemptOutcome) -> OutcomeClass {
        match (classify(&self.profile, outcome), outcome) {
            (OutcomeClass::Transient, AttemptOutcome::Response(r))
                if !self.conditions.throttling.is_empty()
                    && self.conditions.throttling.check(r).is_ok() =>
            {
                OutcomeClass::Throttling
            }
            (class, _) => class,
        }
    }

    /// The profile this policy runs.
    pub fn profile(&self) -> &RetryProfile {
        &self.profile
    }

    /// Triage of one outcome (DESIGN.md §4), not counting retries left or the deadline.
    ///
    /// Rules: success status → [`Verdict::Success`]; a status in `retry_on.status` or an error kind
    /// in `retry_on.errors` → retry; other statuses stop unless `on_other_status` is `retry`. A
    /// non-idempotent method (anything but GET HEAD OPTIONS TRACE PUT DELETE) is retried without
    /// opt-in only for errors before any byte was sent (`dns`, `connect`, `connect_timeout`,
    /// `tls`) and 429; otherwise it needs `retry_on.non_idempotent` or an Idempotency-Key.
    ///
    /// **`dns` decision:** a `dns` error is retried only when `dns` is in `retry_on.errors` *and*
    /// the resolver's error code did not say the name does not exist or has no addresses
    /// ([`crate::model::DnsFailure::is_permanent`]); such an error stops with `host name does not
    /// exist`, as DESIGN.md §4 asks ("reported as such and not retried").
    ///
    /// Conditions (DESIGN.md §8): a response matching `retry_on.response` is retried whatever its
    /// status (reason `body contains "rate limit"`); with `success_when`, a success status
    /// that no matcher accepts is retried as `not ready: /state is "pending", want "done"`.
    pub fn triage(
        &self,
        method: &str,
        has_idempotency_key: bool,
        outcome: &AttemptOutcome,
    ) -> Verdict {
        triage::triage(
            &self.profile,
            &self.conditions,
            method,
            has_idempotency_key,
            outcome,
        )
    }

    /// Computes wait n (DESIGN.md §2–3, §7), drawing jitter from `rng` and explaining the
    /// result. The outcome's class picks the backoff: `throttling.backoff` for a throttling
    /// outcome when the profile has one. When it has one, every explanation names the class and
    /// the backoff used: `retry 1 (throttling, throttling.backoff): exponential …`.
    pub fn next_wait(&self, ctx: &WaitContext<'_>, rng: &mut PolicyRng) -> WaitDecision {
        if self.profile.throttling.backoff.is_none() {
            return self.wait_with(&self.profile.backoff, ctx, rng);
        }
        let class = self.classify(ctx.outcome);
        let (backoff, path) = backoff_for(&self.profile, class);
        match self.wait_with(backoff, ctx, rng) {
            WaitDecision::Wait(mut e) => {
                let prefix = format!("retry {}: ", ctx.retry);
                let rest = e.text.strip_prefix(&prefix).unwrap_or(&e.text);
                e.text = format!("retry {} ({class}, {path}): {rest}", ctx.retry);
                WaitDecision::Wait(e)
            }
            other => other,
        }
    }

    /// Wait n with one given backoff.
    fn wait_with(
        &self,
        backoff: &Backoff,
        ctx: &WaitContext<'_>,
        rng: &mut PolicyRng,
    ) -> WaitDecision {
        match backoff.strategy {
            Strategy::ResponseHeader => response_header::wait(backoff, ctx, rng),
            Strategy::Custom => match &self.script {
                Some(script) => script.wait(backoff, ctx, rng),
                None => WaitDecision::ScriptError {
                    message: "the custom strategy has no compiled script".into(),
                },
            },
            _ => {
                let mut draws = draws::Recording::new(rng);
                match strategies::compute(backoff, ctx.retry, ctx.prev_wait_ms, &mut draws) {
                    Some(c) => {
                        let mut e = explain::explanation(&c, draws.draws);
                        if let Some(note) =
                            unread_delay::unread_delay_note(ctx.outcome, backoff.strategy)
                        {
                            e.text = format!("{}; {note}", e.text);
                        }
                        WaitDecision::Wait(e)
                    }
                    None => WaitDecision::Stop {
                        reason: format!("strategy `{}` is not computed", backoff.strategy.id()),
                    },
                }
            }
        }
    }
}

/// A `response_header` fallback must be a computed strategy.
fn check_fallback(backoff: &Backoff, path: &str) -> Result<(), PolicyError> {
    if let Some(fb) = backoff.fallback.as_deref()
        && matches!(fb.strategy, Strategy::ResponseHeader | Strategy::Custom)
    {
        return Err(PolicyError::Invalid(format!(
            "{path}.fallback.strategy `{}` is not allowed: use a computed strategy (exponential, full_jitter, …)",
            fb.strategy.id()
        )));
    }
    Ok(())
}
