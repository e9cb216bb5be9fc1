//! The decision after an attempt, in the engine's order (DESIGN.md §4, §7): triage, the budget at
//! failure, retries left, the wait, the deadline, the budget before the retry. The engine's run
//! loop and the lab's simulator both take it from here, so the lab runs what the engine runs.
//!
//! Two halves, because the engine announces the attempt's verdict between them:
//! [`Policy::after_attempt`] (triage, budget at failure, retries left) and
//! [`Policy::before_retry`] (wait, deadline, budget before the retry).

use super::{Policy, PolicyRng, RetryCharge, TokenBucket, WaitContext, WaitDecision};
use crate::model::{
    AttemptOutcome, BudgetChange, BudgetChangeKind, BudgetCharge, OutcomeKind, Strategy, Verdict,
    WaitExplanation,
};
use std::time::Duration;

/// A retry budget the step draws from: a run's shared bucket or a simulated client's own.
pub trait BudgetAccount {
    /// `f` applied to the token bucket (a shared one is locked for that step only).
    fn with_bucket<T>(&mut self, f: impl FnOnce(&mut TokenBucket) -> T) -> T;
}

impl BudgetAccount for TokenBucket {
    fn with_bucket<T>(&mut self, f: impl FnOnce(&mut TokenBucket) -> T) -> T {
        f(self)
    }
}

/// What a run carries from one attempt to the next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryState {
    /// The attempt in flight (or the last one made), 1-based.
    pub attempt: u32,
    /// The wait planned before this attempt, ms (`None` for attempt 1).
    pub prev_wait_ms: Option<u64>,
    /// What the retry now being attempted cost (refunded when it succeeds).
    pub last_charge: Option<RetryCharge>,
}

impl Default for RetryState {
    fn default() -> Self {
        Self {
            attempt: 1,
            prev_wait_ms: None,
            last_charge: None,
        }
    }
}

/// How a run goes on after an attempt's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// A success: the run ends `succeeded`.
    Succeeded,
    /// The run ends with this kind and message (`stopped` by triage or the budget, `gave_up`).
    End(OutcomeKind, String),
    /// A retry follows, after [`Policy::before_retry`].
    Retry,
}

/// The first half of the step: the verdict, how the run goes on, and the budget's change.
#[derive(Debug, Clone, PartialEq)]
pub struct AfterAttempt {
    /// Triage's verdict on the answer.
    pub verdict: Verdict,
    /// What follows.
    pub next: Next,
    /// The budget's change (a refund or increment on success, the charge at failure).
    pub budget_change: Option<BudgetChange>,
}

/// The second half of the step: the wait before the retry, or the end of the run.
#[derive(Debug, Clone, PartialEq)]
pub enum BeforeRetry {
    /// Wait `wait_ms`, then make the next attempt.
    Wait {
        /// The wait, ms.
        wait_ms: u64,
        /// Its explanation (`None` when the caller asked for the wait only).
        explanation: Option<WaitExplanation>,
        /// The budget's charge before the retry (`charge: retry`).
        budget_change: Option<BudgetChange>,
    },
    /// The run ends with this kind and message; `budget_change` is the refusal that ended it.
    End(OutcomeKind, String, Option<BudgetChange>),
}

/// Where the run is in time when the wait is decided.
#[derive(Debug, Clone, Copy)]
pub struct StepClock {
    /// Monotonic ms since the run started ([`WaitContext::elapsed_ms`]).
    pub elapsed_ms: u64,
    /// Time since attempt 1 started: what the deadline counts.
    pub since_first: Duration,
    /// The wall clock as Unix ms ([`WaitContext::now_unix_ms`]).
    pub now_unix_ms: i64,
}

impl Policy {
    /// Triage of attempt `state.attempt`'s answer `outcome` to a `method` request, then the
    /// budget: on success the refund or increment; on a retryable failure the charge at
    /// failure (`charge: failure`, whose refusal stops the run) and whether a retry is left
    /// (`gave up after 3 attempts (503)` when not).
    pub fn after_attempt<B: BudgetAccount>(
        &self,
        state: &mut RetryState,
        method: &str,
        has_idempotency_key: bool,
        outcome: &AttemptOutcome,
        budget: Option<&mut B>,
    ) -> AfterAttempt {
        let verdict = self.triage(method, has_idempotency_key, outcome);
        let attempt = state.attempt;
        let (next, budget_change) = match &verdict {
            Verdict::Success { .. } => (
                Next::Succeeded,
                budget.and_then(|b| b.with_bucket(|t| t.success(state.last_charge))),
            ),
            Verdict::Stop { reason } => (Next::End(OutcomeKind::Stopped, reason.clone()), None),
            Verdict::Retry { .. } => {
                let retry_follows = self
                    .profile
                    .max_attempts()
                    .is_none_or(|m| u64::from(attempt) < m);
                let class = self.classify(outcome);
                // `charge: failure` (gRPC) takes the cost at every retryable failure.
                let change = budget.and_then(|b| {
                    b.with_bucket(|t| match t.budget().charge {
                        BudgetCharge::Failure => t.retryable_failure(class, retry_follows),
                        BudgetCharge::Retry => None,
                    })
                });
                let next = match &change {
                    Some(c) if c.kind == BudgetChangeKind::Refused => {
                        Next::End(OutcomeKind::Stopped, c.text.clone())
                    }
                    _ if !retry_follows => {
                        let attempts =
                            crate::model::counted(u64::from(attempt), "attempt", "attempts");
                        let message = format!("gave up after {attempts} ({})", outcome.label());
                        Next::End(OutcomeKind::GaveUp, message)
                    }
                    Some(c) => {
                        state.last_charge = Some(RetryCharge {
                            class,
                            cost: c.amount,
                        });
                        Next::Retry
                    }
                    None => Next::Retry,
                };
                (next, change)
            }
        };
        AfterAttempt {
            verdict,
            next,
            budget_change,
        }
    }

    /// The wait before retry `state.attempt` after `outcome` (explained unless `explain` is
    /// false and a plain sample gives the same wait), refused when it would pass the deadline,
    /// then the budget's charge before the retry (`charge: retry`). On a wait, `state` moves to
    /// the next attempt.
    pub fn before_retry<B: BudgetAccount>(
        &self,
        state: &mut RetryState,
        outcome: &AttemptOutcome,
        clock: StepClock,
        rng: &mut PolicyRng,
        budget: Option<&mut B>,
        explain: bool,
    ) -> BeforeRetry {
        let retry = state.attempt;
        let deadline = self.profile.deadline_ms.map(Duration::from_millis);
        let plain = !explain
            && self.profile.throttling.backoff.is_none()
            && !matches!(
                self.profile.backoff.strategy,
                Strategy::ResponseHeader | Strategy::Custom
            );
        let sampled = plain
            .then(|| super::sample_wait_ms(&self.profile.backoff, retry, state.prev_wait_ms, rng))
            .flatten();
        let (wait_ms, explanation) = if let Some(ms) = sampled {
            (ms, None)
        } else {
            let ctx = WaitContext {
                retry,
                outcome,
                elapsed_ms: clock.elapsed_ms,
                prev_wait_ms: state.prev_wait_ms,
                time_left_ms: deadline.map(|d| {
                    u64::try_from(d.saturating_sub(clock.since_first).as_millis())
                        .unwrap_or(u64::MAX)
                }),
                now_unix_ms: clock.now_unix_ms,
            };
            match self.next_wait(&ctx, rng) {
                WaitDecision::Wait(e) => (e.wait_ms, Some(e)),
                WaitDecision::Stop { reason } => {
                    return BeforeRetry::End(OutcomeKind::Stopped, reason, None);
                }
                WaitDecision::ScriptError { message } => {
                    return BeforeRetry::End(OutcomeKind::Error, message, None);
                }
            }
        };
        if let Some(limit) = deadline
            && clock
                .since_first
                .saturating_add(Duration::from_millis(wait_ms))
                > limit
        {
            let left = limit.saturating_sub(clock.since_first).as_millis();
            let message = format!(
                "deadline reached: waiting {wait_ms} ms before retry {retry} would pass the {} ms deadline ({left} ms left)",
                limit.as_millis()
            );
            return BeforeRetry::End(OutcomeKind::Deadline, message, None);
        }
        // `charge: retry` (AWS) takes the cost just before the retry, once it is sure to follow.
        let class = self.classify(outcome);
        let budget_change = budget.and_then(|b| {
            b.with_bucket(|t| match t.budget().charge {
                BudgetCharge::Retry => t.retryable_failure(class, true),
                BudgetCharge::Failure => None,
            })
        });
        if let Some(c) = &budget_change {
            state.last_charge = Some(RetryCharge {
                class,
                cost: c.amount,
            });
            if c.kind == BudgetChangeKind::Refused {
                return BeforeRetry::End(OutcomeKind::Stopped, c.text.clone(), budget_change);
            }
        }
        state.prev_wait_ms = Some(wait_ms);
        state.attempt = retry.saturating_add(1);
        BeforeRetry::Wait {
            wait_ms,
            explanation,
            budget_change,
        }
    }
}
