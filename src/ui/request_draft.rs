//! The composer's request ([`RequestDraft`], now plain data in [`crate::model`]) and the
//! first-run demo request's failure status.

use crate::model::RetryProfile;
pub use crate::model::{BodyDraft, BodyKind, RequestDraft, UUID_PLACEHOLDER};

/// The status the first-run demo request fails with: 503 when `profile` retries it (the issue's
/// example), else 429 (the seed 001 table retries only 429), else the profile's first retryable code.
pub fn demo_failure_status(profile: &RetryProfile) -> u16 {
    let set = &profile.retry_on.status;
    if set.contains(503) {
        503
    } else if set.contains(429) {
        429
    } else {
        set.0.first().map_or(503, |r| r.low)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_status_is_one_the_profile_retries() {
        let mut p = crate::ui::profile_library::fallback_default_profile();
        assert_eq!(demo_failure_status(&p), 503);
        p.retry_on.status = crate::model::StatusSet::parse_list("429").unwrap_or_default();
        assert_eq!(demo_failure_status(&p), 429);
        p.retry_on.status = crate::model::StatusSet::parse_list("502-504").unwrap_or_default();
        assert_eq!(demo_failure_status(&p), 503);
        p.retry_on.status = crate::model::StatusSet::parse_list("408").unwrap_or_default();
        assert_eq!(demo_failure_status(&p), 408);
    }
}
