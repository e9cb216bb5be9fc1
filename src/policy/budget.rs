//! The retry budget's token bucket (DESIGN.md §7), pure: no clock, no locks (the shared buckets
//! of `crate::service::BudgetRegistry` wrap it in a mutex).
//!
//! Balances are kept in thousandths of a token (as gRPC's `retryThrottling` does), so fractional
//! increments such as gRPC's `tokenRatio` 0.1 add up exactly.

use crate::model::{
    BudgetChange, BudgetChangeKind, BudgetCharge, OutcomeClass, RetryBudget,
};

/// Thousandths of a token per token.
const MILLI: f64 = 1000.0;

fn to_milli(tokens: f64) -> i64 {
    if tokens.is_finite() {
        // Bounded to ±2^53 thousandths so the float → integer step is exact.
        (tokens * MILLI).round().clamp(-9.0e15, 9.0e15) as i64
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
        let cost = to_milli(self.budget.cost.of(class)).max(0);
        let before = self.balance;
        match self.budget.charge {
            BudgetCharge::Retry => {
                if !retry_follows {
                    return None;
                }
                let after = before - cost;
                if self.allows(after) {
                    self.balance = after;
                    Some(self.change(BudgetChangeKind::Charge, Some(class), cost, before))
                } else {
                    Some(self.change(BudgetChangeKind::Refused, Some(class), cost, before))
                }
            }
            BudgetCharge::Failure => {
                self.balance = (before - cost).max(0);
                let kind = if !retry_follows || self.allows(self.balance) {
                    BudgetChangeKind::Charge
                } else {
                    BudgetChangeKind::Refused
                };
                Some(self.change(kind, Some(class), cost, before))
            }
        }
    }

    /// An attempt succeeded. `last_charge` is what the retry leading to it cost (`None` for a
    /// first-attempt success). With `refund_on_retry_success` that cost comes back
    /// ([`BudgetChangeKind::Refund`]); otherwise `success_increment` is added
    /// ([`BudgetChangeKind::SuccessIncrement`], `None` when it is 0). Never above capacity.
    pub fn success(&mut self, last_charge: Option<RetryCharge>) -> Option<BudgetChange> {
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
        Some(self.change(kind, class, amount, before))
    }

    fn change(
        &self,
        kind: BudgetChangeKind,
        class: Option<OutcomeClass>,
        amount: i64,
        before: i64,
    ) -> BudgetChange {
        let (amount, before_t, after_t, cap) = (
            to_tokens(amount),
            to_tokens(before),
            to_tokens(self.balance),
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
            text.push_str(&format!(
                "; retries need more than {} left",
                tokens_text(min)
            ));
        } else if min > 0.0 {
            text.push_str(&format!("; retries need {} left", tokens_text(min)));
        }
        text
    }
}
