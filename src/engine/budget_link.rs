//! The retry budget bucket a run draws from: its own (scope `run`, or no registry) or one shared
//! through `crate::service::BudgetRegistry` (scopes `host` and `profile`).

use crate::model::{BudgetChange, OutcomeClass, RetryBudget};
use crate::policy::{RetryCharge, TokenBucket};
use std::sync::{Arc, Mutex, PoisonError};

/// A handle to a token bucket; clones share the bucket. Locked only for one arithmetic step,
/// never across an await.
#[derive(Debug, Clone)]
pub struct BudgetLink {
    bucket: Arc<Mutex<TokenBucket>>,
}

impl BudgetLink {
    /// A new bucket of `budget`, named `scope` in its changes (`run`, `host http://…`).
    pub fn new(budget: &RetryBudget, scope: impl Into<String>) -> Self {
        Self {
            bucket: Arc::new(Mutex::new(TokenBucket::new(budget, scope))),
        }
    }

    /// The budget the bucket was made from.
    pub fn budget(&self) -> RetryBudget {
        self.with(|b| b.budget().clone())
    }

    /// The current balance, tokens.
    pub fn balance(&self) -> f64 {
        self.with(|b| b.balance())
    }

    /// [`TokenBucket::retryable_failure`] on the shared bucket.
    pub fn retryable_failure(
        &self,
        class: OutcomeClass,
        retry_follows: bool,
    ) -> Option<BudgetChange> {
        self.with(|b| b.retryable_failure(class, retry_follows))
    }

    /// [`TokenBucket::success`] on the shared bucket.
    pub fn success(&self, last_charge: Option<RetryCharge>) -> Option<BudgetChange> {
        self.with(|b| b.success(last_charge))
    }

    /// True when both handles share one bucket.
    pub fn same_bucket(&self, other: &BudgetLink) -> bool {
        Arc::ptr_eq(&self.bucket, &other.bucket)
    }

    /// `f` applied to the bucket, locked for that call only.
    pub(crate) fn with<T>(&self, f: impl FnOnce(&mut TokenBucket) -> T) -> T {
        // A panic while holding the lock cannot leave the bucket half-updated (each step is one
        // assignment), so a poisoned lock is still usable.
        let mut guard = self.bucket.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut guard)
    }
}
