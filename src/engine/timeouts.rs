//! The per-attempt timeouts in force: the request's value for each limit, else the profile's.

use crate::model::{ProfileTimeouts, Timeouts};
use std::time::Duration;

/// Effective per-attempt limits; `None` = no limit.
///
/// How they map to the stack: `resolve` bounds the engine's own DNS lookup; `connect` is
/// reqwest's connect timeout (TCP + TLS); `read` is reqwest's read timeout (from sending the
/// request to the headers, then between body reads); `total` bounds the whole attempt, every
/// redirect hop and the body included, and is further cut to the time left before a deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct EffectiveTimeouts {
    /// DNS lookup limit.
    pub resolve: Option<Duration>,
    /// Connect limit.
    pub connect: Option<Duration>,
    /// Read limit.
    pub read: Option<Duration>,
    /// Whole-attempt limit (before the deadline cut).
    pub total: Option<Duration>,
}

impl EffectiveTimeouts {
    /// Each field: `spec`'s value when set, else `profile`'s, else none (ms → `Duration`).
    pub fn new(spec: &Timeouts, profile: &ProfileTimeouts) -> Self {
        let pick = |a: Option<u64>, b: Option<u64>| a.or(b).map(Duration::from_millis);
        Self {
            resolve: pick(spec.resolve_ms, profile.resolve_ms),
            connect: pick(spec.connect_ms, profile.connect_ms),
            read: pick(spec.read_ms, profile.read_ms),
            total: pick(spec.total_ms, profile.total_ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_value_wins_else_profile_value() {
        let spec = Timeouts {
            connect_ms: Some(100),
            ..Timeouts::default()
        };
        let profile = ProfileTimeouts {
            connect_ms: Some(5000),
            read_ms: Some(30_000),
            ..ProfileTimeouts::default()
        };
        let t = EffectiveTimeouts::new(&spec, &profile);
        assert_eq!(t.connect, Some(Duration::from_millis(100)));
        assert_eq!(t.read, Some(Duration::from_secs(30)));
        assert_eq!((t.resolve, t.total), (None, None));
    }
}
