//! The retry budget's token bucket (DESIGN.md §7), pure: no clock, no locks (the shared buckets
//! of `crate::service::BudgetRegistry` wrap it in a mutex).
//!
//! Balances are kept in thousandths of a token (as gRPC's `retryThrottling` does), so fractional
//! increments such as gRPC's `tokenRatio` 0.1 add up exactly.

use crate::model::{BudgetChange, BudgetChangeKind, BudgetCharge, OutcomeClass, RetryBudget};
use std::fmt::Write as _;

/// Thousandths of a token per token.
const MILLI: f64 = 1000.0;

fn to_milli(tokens: f64) -> i64 {
    if tokens.is_finite() {
        // Bounded to ±2^53 thousandths so the float → integer step is exact.
        #[allow(
            clippy::cast_possible_truncation,
            reason = "clamped to ±9e15, exact in i64"
        )]
        let milli = (tokens * MILLI).round().clamp(-9.0e15, 9.0e15) as i64;
        milli
    } else {
        0
    }
}

fn to_tokens(milli: i64) -> f64 {
    milli as f64 / MILLI
}

/// A token count as text: `500`, `0.1`, `249.5` (at most three decimals).
pub fn tokens_text(tokens: f64) -> String {
    let t = format!("{:.3}", (tokens * MILLI).round() / MILLI);
    t.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// What a retry of one class cost, remembered by the run so a success can refund it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryCharge {
    /// Class of the retried outcome.
    pub class: OutcomeClass,
    /// Tokens taken.
    pub cost: f64,
}

/// One balance change of a [`TokenBucket`] as numbers only (thousandths of a token): what the
/// policy decides with. [`TokenBucket::describe`] turns it into the [`BudgetChange`] a run event
/// shows, text included, only when something is going to show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetStep {
    /// What happened.
    pub kind: BudgetChangeKind,
    /// Class of the outcome being retried (`charge`, `refused`; the refunded retry's for `refund`).
    pub class: Option<OutcomeClass>,
    /// Thousandths of a token the change asked for (the cost, the refund, the increment).
    pub amount_milli: i64,
    /// Balance before, thousandths of a token.
    pub before_milli: i64,
    /// Balance after, thousandths of a token.
    pub after_milli: i64,
}

impl BudgetStep {
    /// Whether the retry this step was asked about may go ahead (anything but `refused`).
    pub fn allows_retry(&self) -> bool {
        self.kind != BudgetChangeKind::Refused
    }

    /// Tokens the change asked for.
    pub fn amount(&self) -> f64 {
        to_tokens(self.amount_milli)
    }
}

/// A token bucket built from a profile's `retry_budget`.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenBucket {
    budget: RetryBudget,
    /// Which bucket, for texts: `run`, `host http://127.0.0.1:8080`, …
    scope: String,
    balance: i64,
    capacity: i64,
}

impl TokenBucket {
    /// A bucket holding `budget.initial` (else `capacity`) tokens, capped at capacity and floored
    /// at 0. `scope` names it in every [`BudgetChange`].
    pub fn new(budget: &RetryBudget, scope: impl Into<String>) -> Self {
        let capacity = to_milli(budget.capacity).max(0);
        Self {
            balance: to_milli(budget.initial_tokens()).clamp(0, capacity),
            capacity,
            budget: budget.clone(),
            scope: scope.into(),
        }
    }

    /// The budget this bucket follows.
    pub fn budget(&self) -> &RetryBudget {
        &self.budget
    }

    /// Current balance, tokens.
    pub fn balance(&self) -> f64 {
        to_tokens(self.balance)
    }

    /// Capacity, tokens.
    pub fn capacity(&self) -> f64 {
        to_tokens(self.capacity)
    }

    /// Whether a balance of `after` (thousandths) still allows a retry.
    fn allows(&self, after: i64) -> bool {
        let min = to_milli(self.budget.min_balance);
        if self.budget.min_balance_exclusive {
            after > min
        } else {
            after >= min
        }
    }

    /// A retryable outcome of `class` arrived; `retry_follows` says whether the run would retry
    /// (false after the last allowed attempt).
    ///
    /// - `charge: retry` (AWS): with a retry following, takes the class's cost if the balance
    ///   after it stays at `min_balance` or above ([`BudgetChangeKind::Charge`]), else takes
    ///   nothing ([`BudgetChangeKind::Refused`]); without a retry following, nothing happens
    ///   (`None`).
    /// - `charge: failure` (gRPC): always takes the cost (never below 0); the retry is allowed
    ///   when the balance after it keeps `min_balance` (strictly above with
    ///   `min_balance_exclusive`), else the change is [`BudgetChangeKind::Refused`]; without a
    ///   retry following the change is a `Charge`.
    ///
    /// The retry may go ahead exactly when the result is `None` or a `Charge`.
    pub fn retryable_failure(
        &mut self,
        class: OutcomeClass,
        retry_follows: bool,
    ) -> Option<BudgetChange> {
        self.failure_step(class, retry_follows)
            .map(|step| self.describe(&step))
    }

    /// [`Self::retryable_failure`] as numbers only (no text, no allocation): for simulations
    /// and anything that does not show the change.
    pub fn failure_step(&mut self, class: OutcomeClass, retry_follows: bool) -> Option<BudgetStep> {
        let cost = to_milli(self.budget.cost.of(class)).max(0);
        let before = self.balance;
        let kind = match self.budget.charge {
            BudgetCharge::Retry => {
                if !retry_follows {
                    return None;
                }
                let after = before - cost;
                if self.allows(after) {
                    self.balance = after;
                    BudgetChangeKind::Charge
                } else {
                    BudgetChangeKind::Refused
                }
            }
            BudgetCharge::Failure => {
                self.balance = (before - cost).max(0);
                if !retry_follows || self.allows(self.balance) {
                    BudgetChangeKind::Charge
                } else {
                    BudgetChangeKind::Refused
                }
            }
        };
        Some(self.step(kind, Some(class), cost, before))
    }

    /// An attempt succeeded. `last_charge` is what the retry leading to it cost (`None` for a
    /// first-attempt success). With `refund_on_retry_success` that cost comes back
    /// ([`BudgetChangeKind::Refund`]); otherwise `success_increment` is added
    /// ([`BudgetChangeKind::SuccessIncrement`], `None` when it is 0). Never above capacity.
    pub fn success(&mut self, last_charge: Option<RetryCharge>) -> Option<BudgetChange> {
        self.success_step(last_charge)
            .map(|step| self.describe(&step))
    }

    /// [`Self::success`] as numbers only (no text, no allocation).
    pub fn success_step(&mut self, last_charge: Option<RetryCharge>) -> Option<BudgetStep> {
        let before = self.balance;
        let (kind, class, amount) = match last_charge {
            Some(charge) if self.budget.refund_on_retry_success => (
                BudgetChangeKind::Refund,
                Some(charge.class),
                to_milli(charge.cost).max(0),
            ),
            _ => (
                BudgetChangeKind::SuccessIncrement,
                None,
                to_milli(self.budget.success_increment).max(0),
            ),
        };
        if amount == 0 {
            return None;
        }
        self.balance = (before + amount).min(self.capacity);
        Some(self.step(kind, class, amount, before))
    }

    fn step(
        &self,
        kind: BudgetChangeKind,
        class: Option<OutcomeClass>,
        amount_milli: i64,
        before_milli: i64,
    ) -> BudgetStep {
        BudgetStep {
            kind,
            class,
            amount_milli,
            before_milli,
            after_milli: self.balance,
        }
    }

    /// The [`BudgetChange`] (tokens, scope and the text the timeline shows) of a `step` this
    /// bucket made.
    pub fn describe(&self, step: &BudgetStep) -> BudgetChange {
        let (kind, class) = (step.kind, step.class);
        let (amount, before_t, after_t, cap) = (
            to_tokens(step.amount_milli),
            to_tokens(step.before_milli),
            to_tokens(step.after_milli),
            to_tokens(self.capacity),
        );
        let class_name = class.map_or("", OutcomeClass::id);
        let text = match kind {
            BudgetChangeKind::Charge => format!(
                "retry budget {} → {} of {} tokens (a {class_name} retry costs {})",
                tokens_text(before_t),
                tokens_text(after_t),
                tokens_text(cap),
                tokens_text(amount)
            ),
            BudgetChangeKind::Refused => self.refusal(class_name, amount, before_t, after_t, cap),
            BudgetChangeKind::Refund => format!(
                "retry budget {} → {} of {} tokens (the {class_name} retry succeeded: its {} refunded)",
                tokens_text(before_t),
                tokens_text(after_t),
                tokens_text(cap),
                tokens_text(amount)
            ),
            BudgetChangeKind::SuccessIncrement => format!(
                "retry budget {} → {} of {} tokens (a success adds {})",
                tokens_text(before_t),
                tokens_text(after_t),
                tokens_text(cap),
                tokens_text(amount)
            ),
        };
        BudgetChange {
            kind,
            class,
            amount,
            before: before_t,
            after: after_t,
            capacity: cap,
            scope: self.scope.clone(),
            text,
        }
    }

    /// `not retried: retry budget has 3 of 500 tokens, a transient retry costs 14`.
    fn refusal(&self, class: &str, cost: f64, before: f64, after: f64, cap: f64) -> String {
        let mut text = match self.budget.charge {
            BudgetCharge::Retry => format!(
                "not retried: retry budget has {} of {} tokens, a {class} retry costs {}",
                tokens_text(before),
                tokens_text(cap),
                tokens_text(cost)
            ),
            BudgetCharge::Failure => format!(
                "not retried: retry budget has {} of {} tokens after this {class} failure cost {}",
                tokens_text(after),
                tokens_text(cap),
                tokens_text(cost)
            ),
        };
        let min = self.budget.min_balance;
        if self.budget.min_balance_exclusive {
            let _ = write!(text, "; retries need more than {} left", tokens_text(min));
        } else if min > 0.0 {
            let _ = write!(text, "; retries need {} left", tokens_text(min));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BudgetCost, BudgetScope};
    use OutcomeClass::{Throttling, Timeout, Transient};

    #[test]
    fn a_step_described_is_the_change_the_event_shows() {
        let mut shown = TokenBucket::new(&aws_legacy(), "run");
        let mut numbers = shown.clone();
        for class in [Transient, Timeout, Throttling, Transient] {
            let change = shown.retryable_failure(class, true);
            let step = numbers.failure_step(class, true);
            assert_eq!(step.map(|s| numbers.describe(&s)), change);
            assert_eq!(step.map(|s| s.allows_retry()), Some(true));
        }
        let last = Some(RetryCharge {
            class: Transient,
            cost: 5.0,
        });
        let refund = shown.success(last);
        let step = numbers.success_step(last).expect("a refund");
        assert_eq!(Some(numbers.describe(&step)), refund);
        assert_eq!((step.before_milli, step.after_milli), (475_000, 480_000));
    }

    fn aws_legacy() -> RetryBudget {
        RetryBudget {
            capacity: 500.0,
            initial: None,
            cost: BudgetCost {
                transient: 5.0,
                timeout: 10.0,
                throttling: 5.0,
            },
            refund_on_retry_success: true,
            success_increment: 1.0,
            min_balance: 0.0,
            min_balance_exclusive: false,
            charge: BudgetCharge::Retry,
            scope: BudgetScope::Host,
        }
    }

    fn aws_2026() -> RetryBudget {
        RetryBudget {
            cost: BudgetCost {
                transient: 14.0,
                timeout: 14.0,
                throttling: 5.0,
            },
            ..aws_legacy()
        }
    }

    fn grpc(max_tokens: f64, token_ratio: f64) -> RetryBudget {
        RetryBudget {
            capacity: max_tokens,
            initial: None,
            cost: BudgetCost {
                transient: 1.0,
                timeout: 1.0,
                throttling: 1.0,
            },
            refund_on_retry_success: false,
            success_increment: token_ratio,
            min_balance: max_tokens / 2.0,
            min_balance_exclusive: true,
            charge: BudgetCharge::Failure,
            scope: BudgetScope::Host,
        }
    }

    /// A `run` bucket of `budget` holding `initial` tokens.
    fn starting_with(budget: &RetryBudget, initial: f64) -> TokenBucket {
        TokenBucket::new(
            &RetryBudget {
                initial: Some(initial),
                ..budget.clone()
            },
            "run",
        )
    }

    fn kind(c: Option<&BudgetChange>) -> Option<BudgetChangeKind> {
        c.map(|c| c.kind)
    }

    /// AWS standard (botocore quota.py): 500 tokens, 5 per retry, 10 per timeout retry, the
    /// cost back when the retry succeeds, +1 on a first-attempt success, never above 500.
    #[test]
    fn aws_standard_legacy() {
        let mut b = TokenBucket::new(&aws_legacy(), "host http://127.0.0.1:1");
        assert_eq!((b.balance(), b.capacity()), (500.0, 500.0));
        let c = b.retryable_failure(Transient, true).expect("charged");
        assert_eq!(
            (c.kind, c.before, c.after, c.amount),
            (BudgetChangeKind::Charge, 500.0, 495.0, 5.0)
        );
        assert_eq!(
            c.text,
            "retry budget 500 → 495 of 500 tokens (a transient retry costs 5)"
        );
        let t = b.retryable_failure(Timeout, true).expect("charged");
        assert_eq!((t.before, t.after), (495.0, 485.0));
        // The timeout retry succeeds: its 10 come back.
        let r = b
            .success(Some(RetryCharge {
                class: Timeout,
                cost: 10.0,
            }))
            .expect("refund");
        assert_eq!((r.kind, r.after), (BudgetChangeKind::Refund, 495.0));
        // A first-attempt success adds 1, capped at the capacity.
        assert_eq!(b.success(None).map(|c| c.after), Some(496.0));
        let mut full = TokenBucket::new(&aws_legacy(), "run");
        let inc = full.success(None).expect("change");
        assert_eq!(
            (inc.kind, inc.before, inc.after),
            (BudgetChangeKind::SuccessIncrement, 500.0, 500.0)
        );
        // No retry after the last attempt: nothing is taken.
        assert_eq!(b.retryable_failure(Transient, false), None);
        assert_eq!(b.balance(), 496.0);
    }

    #[test]
    fn aws_refuses_when_the_cost_does_not_fit_and_takes_nothing() {
        let mut b = starting_with(&aws_legacy(), 8.0);
        assert_eq!(
            kind(b.retryable_failure(Transient, true).as_ref()),
            Some(BudgetChangeKind::Charge)
        );
        assert_eq!(b.balance(), 3.0);
        let refused = b.retryable_failure(Transient, true).expect("change");
        assert_eq!(refused.kind, BudgetChangeKind::Refused);
        assert_eq!(
            refused.text,
            "not retried: retry budget has 3 of 500 tokens, a transient retry costs 5"
        );
        assert_eq!(
            (refused.before, refused.after),
            (3.0, 3.0),
            "a refusal takes nothing"
        );
        // Exactly the cost left is enough (balance − cost ≥ 0).
        let mut exact = starting_with(&aws_legacy(), 5.0);
        assert_eq!(
            kind(exact.retryable_failure(Transient, true).as_ref()),
            Some(BudgetChangeKind::Charge)
        );
        assert_eq!(exact.balance(), 0.0);
    }

    /// The 2026 revision: 14 per transient retry, 5 per throttling retry.
    #[test]
    fn aws_2026_costs_per_class() {
        let mut b = TokenBucket::new(&aws_2026(), "run");
        assert_eq!(
            b.retryable_failure(Transient, true).map(|c| c.after),
            Some(486.0)
        );
        assert_eq!(
            b.retryable_failure(Throttling, true).map(|c| c.after),
            Some(481.0)
        );
        let mut low = starting_with(&aws_2026(), 3.0);
        assert_eq!(
            low.retryable_failure(Transient, true).map(|c| c.text),
            Some(
                "not retried: retry budget has 3 of 500 tokens, a transient retry costs 14"
                    .to_owned()
            )
        );
        // 35 tokens: two transient retries (14 each) fit, the third does not; throttling still does.
        let mut mid = starting_with(&aws_2026(), 35.0);
        let kinds: Vec<_> = [Transient, Transient, Transient, Throttling]
            .into_iter()
            .map(|c| kind(mid.retryable_failure(c, true).as_ref()))
            .collect();
        assert_eq!(
            kinds,
            [
                Some(BudgetChangeKind::Charge),
                Some(BudgetChangeKind::Charge),
                Some(BudgetChangeKind::Refused),
                Some(BudgetChangeKind::Charge)
            ]
        );
        assert_eq!(mid.balance(), 2.0);
    }

    /// gRPC retryThrottling (A6): every failure takes 1, every success adds tokenRatio, and
    /// retries go on only while tokens > maxTokens / 2; a reference model in milli-tokens agrees.
    #[test]
    fn grpc_retry_throttling_matches_the_reference() {
        use rand::Rng as _;
        let mut b = TokenBucket::new(&grpc(10.0, 0.1), "host");
        // 10 → 9 … retries allowed while the count after the failure stays above 5.
        let mut allowed = Vec::new();
        for _ in 0..6 {
            let c = b
                .retryable_failure(Transient, true)
                .expect("always charged");
            allowed.push(c.kind == BudgetChangeKind::Charge);
        }
        assert_eq!(allowed, [true, true, true, true, false, false]);
        assert_eq!(b.balance(), 4.0);
        let refused = b.retryable_failure(Timeout, true).expect("change");
        assert_eq!(
            refused.text,
            "not retried: retry budget has 3 of 10 tokens after this timeout failure cost 1; retries need more than 5 left"
        );
        // Ten successes add exactly 1.0 (kept in thousandths, no float drift).
        for _ in 0..10 {
            b.success(None);
        }
        assert_eq!(b.balance(), 4.0);
        // The last attempt's failure is charged too, and the count never goes below 0.
        let mut empty = starting_with(&grpc(10.0, 0.1), 0.5);
        let c = empty.retryable_failure(Transient, false).expect("charged");
        assert_eq!((c.kind, c.after), (BudgetChangeKind::Charge, 0.0));

        // Seeded random outcomes against gRPC's own arithmetic (milli-tokens, `> max/2`).
        let mut rng = crate::policy::rng_from_seed(42);
        let (max_tokens, ratio) = (100.0, 0.37);
        let mut bucket = TokenBucket::new(&grpc(max_tokens, ratio), "run");
        let (max_milli, ratio_milli) = (100_000_i64, 370_i64);
        let mut reference = max_milli;
        for step in 0..10_000 {
            if rng.random_bool(0.6) {
                reference = (reference - 1000).max(0);
                let throttled = reference <= max_milli / 2;
                let c = bucket.retryable_failure(Transient, true).expect("charged");
                assert_eq!(
                    c.kind == BudgetChangeKind::Refused,
                    throttled,
                    "step {step}"
                );
            } else {
                reference = (reference + ratio_milli).min(max_milli);
                bucket.success(None);
            }
            assert_eq!(bucket.balance(), reference as f64 / 1000.0, "step {step}");
        }
    }

    #[test]
    fn initial_is_kept_within_zero_and_capacity_and_texts_round() {
        let b = starting_with(&aws_legacy(), 9000.0);
        assert_eq!(b.balance(), 500.0);
        assert_eq!(tokens_text(249.5), "249.5");
        assert_eq!(tokens_text(0.1 + 0.2), "0.3");
        assert_eq!(tokens_text(500.0), "500");
    }
}
