//! The shared retry budget buckets (DESIGN.md §7): one registry per process, thread-safe, handing
//! every run the bucket its profile's `retry_budget.scope` names.
//!
//! - `run`: a fresh bucket per run (never stored);
//! - `host`: one bucket per scheme + host + port of the request URL (`http://127.0.0.1:8080`);
//! - `profile`: one bucket per profile name.
//!
//! Two profiles with different budget settings never share a bucket, even for the same host: the
//! key includes the settings (a bucket's capacity and costs are fixed when it is made). Buckets
//! live as long as the registry, which the process's core owns.

use crate::engine::BudgetLink;
use crate::model::{BudgetScope, RetryProfile};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Registries alive in the process (clones count once).
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Hands out shared budget buckets. Clones share the registry.
#[derive(Debug, Clone, Default)]
pub struct BudgetRegistry {
    buckets: Arc<Buckets>,
}

/// The buckets by key; counted in [`LIVE`] while they exist.
#[derive(Debug)]
struct Buckets(Mutex<HashMap<String, BudgetLink>>);

impl Default for Buckets {
    fn default() -> Self {
        LIVE.fetch_add(1, Ordering::SeqCst);
        Self(Mutex::default())
    }
}

impl Drop for Buckets {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

impl BudgetRegistry {
    /// An empty registry. A process needs one: the core's ([`super::Core::budgets`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// How many registries are alive in the process (clones of one count once).
    pub fn live_count() -> usize {
        LIVE.load(Ordering::SeqCst)
    }

    /// The bucket a run of `profile` against `url` draws from; `None` when the profile has no
    /// `retry_budget`. A URL that does not parse (the run will fail before any retry) gets a
    /// bucket of its own.
    pub fn bucket_for(&self, profile: &RetryProfile, url: &str) -> Option<BudgetLink> {
        let budget = profile.retry_budget.as_ref()?;
        let name = match budget.scope {
            BudgetScope::Run => return Some(BudgetLink::new(budget, "run")),
            BudgetScope::Host => match origin(url) {
                Some(origin) => format!("host {origin}"),
                None => return Some(BudgetLink::new(budget, "run")),
            },
            BudgetScope::Profile => format!("profile {:?}", profile.name),
        };
        let settings = serde_json::to_string(budget).unwrap_or_default();
        let key = format!("{name}\n{settings}");
        let mut buckets = self
            .buckets
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        Some(
            buckets
                .entry(key)
                .or_insert_with(|| BudgetLink::new(budget, name))
                .clone(),
        )
    }

    /// How many shared buckets exist.
    pub fn len(&self) -> usize {
        self.buckets
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// True when no shared bucket exists yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `http://127.0.0.1:8080` for any URL on that scheme, host and port (default ports filled in).
pub(crate) fn origin(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    let host = url.host_str()?;
    let port = url.port_or_known_default()?;
    Some(format!("{}://{host}:{port}", url.scheme()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{OutcomeClass, RetryBudget};

    fn profile(name: &str, scope: BudgetScope) -> RetryProfile {
        let mut p: RetryProfile = serde_json::from_value(serde_json::json!({
            "format": crate::model::PROFILE_FORMAT, "name": name,
            "backoff": {"strategy": "fixed"},
            "retry_budget": {"capacity": 500}
        }))
        .expect("profile");
        if let Some(b) = p.retry_budget.as_mut() {
            b.scope = scope;
        }
        p
    }

    #[test]
    fn host_scope_shares_one_bucket_per_origin() {
        let r = BudgetRegistry::new();
        let p = profile("a", BudgetScope::Host);
        let one = r.bucket_for(&p, "http://127.0.0.1:8080/x").expect("bucket");
        let two = r
            .bucket_for(&p, "http://127.0.0.1:8080/other?q=1")
            .expect("bucket");
        let other = r.bucket_for(&p, "http://127.0.0.1:8081/x").expect("bucket");
        assert!(one.same_bucket(&two));
        assert!(!one.same_bucket(&other));
        assert_eq!(
            one.retryable_failure(OutcomeClass::Transient, true)
                .map(|c| c.after),
            Some(495.0)
        );
        assert_eq!(
            two.balance(),
            495.0,
            "the second run sees the first one's charge"
        );
        // Default ports are the same origin.
        let a = r.bucket_for(&p, "http://example.test/").expect("bucket");
        let b = r.bucket_for(&p, "http://example.test:80/").expect("bucket");
        assert!(a.same_bucket(&b));
    }

    #[test]
    fn profile_and_run_scopes() {
        let r = BudgetRegistry::new();
        let p = profile("aws", BudgetScope::Profile);
        let one = r.bucket_for(&p, "http://127.0.0.1:1/").expect("bucket");
        let two = r.bucket_for(&p, "http://127.0.0.1:2/").expect("bucket");
        assert!(one.same_bucket(&two), "one bucket per profile name");
        let run = profile("aws", BudgetScope::Run);
        let three = r.bucket_for(&run, "http://127.0.0.1:1/").expect("bucket");
        let four = r.bucket_for(&run, "http://127.0.0.1:1/").expect("bucket");
        assert!(!three.same_bucket(&four), "a fresh bucket per run");
        assert_eq!(r.len(), 1);
    }

    #[test]
    fn different_settings_never_share() {
        let r = BudgetRegistry::new();
        let a = profile("a", BudgetScope::Host);
        let mut b = a.clone();
        b.retry_budget = Some(RetryBudget {
            capacity: 10.0,
            ..a.retry_budget.clone().expect("budget")
        });
        let one = r.bucket_for(&a, "http://127.0.0.1:8080/").expect("bucket");
        let two = r.bucket_for(&b, "http://127.0.0.1:8080/").expect("bucket");
        assert!(!one.same_bucket(&two));
        assert!(
            r.bucket_for(&profile("x", BudgetScope::Host), "http://127.0.0.1:8080/")
                .is_some()
        );
        let mut none = a.clone();
        none.retry_budget = None;
        assert!(r.bucket_for(&none, "http://127.0.0.1:8080/").is_none());
    }
}
