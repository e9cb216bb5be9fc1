//! Which outcome class a retryable outcome belongs to, and which backoff it waits with
//! (DESIGN.md §7).

use crate::model::{AttemptOutcome, Backoff, ErrorKind, OutcomeClass, RetryProfile};

/// The class of `outcome` under `profile`:
/// - a response whose status is in `throttling.status` → [`OutcomeClass::Throttling`]
///   (a response matching `throttling.response` too: [`crate::policy::Policy::classify`], which
///   holds the compiled matchers);
/// - error kind `timeout` or `connect_timeout` → [`OutcomeClass::Timeout`];
/// - anything else → [`OutcomeClass::Transient`].
///
/// Only meaningful for outcomes triage retries; a success is classed too (as transient or
/// throttling) but nobody asks.
///
/// ```
/// use retryscope::model::{AttemptOutcome, ErrorKind, NetError, OutcomeClass};
/// use retryscope::policy::classify;
/// # let profile: retryscope::model::RetryProfile = serde_json::from_value(serde_json::json!(
/// #     {"format": "retryscope-profile/2", "name": "x", "backoff": {"strategy": "fixed"}})).unwrap();
/// let timeout = AttemptOutcome::Error(NetError::new(ErrorKind::ConnectTimeout, "slow"));
/// assert_eq!(classify(&profile, &timeout), OutcomeClass::Timeout);
/// ```
pub fn classify(profile: &RetryProfile, outcome: &AttemptOutcome) -> OutcomeClass {
    match outcome {
        AttemptOutcome::Response(r) if profile.throttling.status.contains(r.status) => {
            OutcomeClass::Throttling
        }
        AttemptOutcome::Error(e)
            if matches!(e.kind, ErrorKind::Timeout | ErrorKind::ConnectTimeout) =>
        {
            OutcomeClass::Timeout
        }
        AttemptOutcome::Response(_) | AttemptOutcome::Error(_) => OutcomeClass::Transient,
    }
}

/// The backoff a retry of `class` waits with, and its field path: `throttling.backoff` for a
/// throttling outcome when the profile has one, else `backoff`.
pub fn backoff_for(profile: &RetryProfile, class: OutcomeClass) -> (&Backoff, &'static str) {
    match (&profile.throttling.backoff, class) {
        (Some(b), OutcomeClass::Throttling) => (b, "throttling.backoff"),
        _ => (&profile.backoff, "backoff"),
    }
}
