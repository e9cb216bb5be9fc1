//! The retry budget of a profile (DESIGN.md §7): a token bucket that each retry draws from.
//!
//! Data only; the bucket arithmetic is `crate::policy::TokenBucket`, the buckets shared between
//! runs live in `crate::service::BudgetRegistry`. Tokens are real numbers (gRPC's `tokenRatio`
//! adds fractions such as 0.1).

use super::outcome_class::OutcomeClass;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `retry_budget`: a token bucket. Defaults are AWS standard retry mode (pre-2026): cost 5, 10
/// for a timeout, refund on a retried success, +1 on a first-attempt success, scope `host`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetryBudget {
    /// Most tokens the bucket holds (AWS: 500; gRPC `maxTokens`). Must be > 0.
    pub capacity: f64,
    /// Tokens when the bucket is created; `null` = `capacity`.
    #[serde(default)]
    pub initial: Option<f64>,
    /// Tokens one retry costs, per outcome class.
    #[serde(default)]
    pub cost: BudgetCost,
    /// When a retried attempt succeeds, give back what its retry cost. Default true.
    #[serde(default = "yes")]
    pub refund_on_retry_success: bool,
    /// Tokens added by a success whose cost is not refunded (a first-attempt success; any
    /// success when `refund_on_retry_success` is false, as gRPC's `tokenRatio`). Default 1.
    #[serde(default = "one")]
    pub success_increment: f64,
    /// A retry is allowed only while the balance after its cost stays at or above this (see
    /// `min_balance_exclusive`). Default 0.
    #[serde(default)]
    pub min_balance: f64,
    /// When true the balance after the cost must stay strictly above `min_balance` (gRPC:
    /// "retries only while tokens > maxTokens / 2"). Default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub min_balance_exclusive: bool,
    /// When the cost is taken. Default `retry` (AWS).
    #[serde(default, skip_serializing_if = "BudgetCharge::is_default")]
    pub charge: BudgetCharge,
    /// Which runs share one bucket. Default `host`.
    #[serde(default)]
    pub scope: BudgetScope,
}

fn yes() -> bool {
    true
}

fn one() -> f64 {
    1.0
}

impl RetryBudget {
    /// The starting balance: `initial`, else `capacity`.
    pub fn initial_tokens(&self) -> f64 {
        self.initial.unwrap_or(self.capacity)
    }
}

/// Tokens a retry costs per outcome class.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BudgetCost {
    /// Cost of retrying a transient outcome. Default 5.
    #[serde(default = "five")]
    pub transient: f64,
    /// Cost of retrying a timeout. Default 10.
    #[serde(default = "ten")]
    pub timeout: f64,
    /// Cost of retrying a throttling outcome. Default 5.
    #[serde(default = "five")]
    pub throttling: f64,
}

fn five() -> f64 {
    5.0
}

fn ten() -> f64 {
    10.0
}

impl Default for BudgetCost {
    fn default() -> Self {
        Self {
            transient: 5.0,
            timeout: 10.0,
            throttling: 5.0,
        }
    }
}

impl BudgetCost {
    /// The cost of a retry of `class`.
    pub fn of(&self, class: OutcomeClass) -> f64 {
        match class {
            OutcomeClass::Transient => self.transient,
            OutcomeClass::Timeout => self.timeout,
            OutcomeClass::Throttling => self.throttling,
        }
    }
}

/// When a retry budget takes a class's cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BudgetCharge {
    /// Before each retry; a refused retry takes nothing (AWS). Default.
    #[default]
    Retry,
    /// On every retryable failure, even the last one and a refused one; the balance never goes
    /// below 0 (gRPC `retryThrottling`: "every failed attempt decrements the token count").
    Failure,
}

impl BudgetCharge {
    /// True for the default (`retry`).
    pub fn is_default(&self) -> bool {
        *self == Self::Retry
    }
}

/// Which runs share one retry budget bucket.
#[derive(strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BudgetScope {
    /// A fresh bucket per run.
    Run,
    /// One bucket per scheme + host + port, shared by every run and batch item in the process
    /// (default).
    #[default]
    Host,
    /// One bucket per profile name.
    Profile,
}

impl BudgetScope {
    /// The id used in JSON (`"host"`).
    pub fn id(self) -> &'static str {
        self.into()
    }
}

/// What happened to a retry budget's balance, carried by `RunEvent::BudgetChanged`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BudgetChangeKind {
    /// A retry's cost was taken.
    Charge,
    /// The balance could not pay for the retry: the run stops (with `charge: failure` the cost
    /// was still taken).
    Refused,
    /// A retried attempt succeeded and its retry's cost came back.
    Refund,
    /// A success added `success_increment`.
    SuccessIncrement,
}

/// One change of a retry budget's balance (tokens; before/after are the shared bucket's
/// balance, so other runs' changes show between two of these).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetChange {
    /// What happened.
    pub kind: BudgetChangeKind,
    /// Class of the outcome being retried (`charge`, `refused`; the refunded retry's for `refund`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<OutcomeClass>,
    /// Tokens the change asked for (the cost, the refund, the increment).
    pub amount: f64,
    /// Balance before, tokens.
    pub before: f64,
    /// Balance after, tokens (never above `capacity`, never below 0).
    pub after: f64,
    /// The bucket's capacity, tokens.
    pub capacity: f64,
    /// Which bucket: `run`, `host http://127.0.0.1:8080`, `profile "AWS …"`.
    pub scope: String,
    /// Text shown verbatim, e.g. `retry budget 500 → 486 of 500 (transient retry costs 14)`.
    pub text: String,
}
