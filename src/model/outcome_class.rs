//! Outcome classes of retryable outcomes (DESIGN.md §7): `throttling`, `timeout`, `transient`.
//!
//! The class picks the retry budget's cost and, for `throttling`, the optional
//! `throttling.backoff`. The classification itself is pure policy (`crate::policy::classify`).

use super::profile::Backoff;
use super::status_set::{StatusRange, StatusSet};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The class of a retryable outcome.
#[derive(strum::IntoStaticStr, strum::Display)]
#[strum(serialize_all = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeClass {
    /// The server said "slow down": a status in `throttling.status` (default 429) or a response
    /// matching `throttling.response`.
    Throttling,
    /// Error kind `timeout` or `connect_timeout`.
    Timeout,
    /// Every other retryable outcome (5xx, resets, refused connections, …).
    Transient,
}

impl OutcomeClass {
    /// Every class, in display order.
    pub const ALL: [OutcomeClass; 3] = [
        OutcomeClass::Transient,
        OutcomeClass::Throttling,
        OutcomeClass::Timeout,
    ];

    /// The id used in JSON and in texts (`"throttling"`).
    pub fn id(self) -> &'static str {
        self.into()
    }
}

/// The `throttling` class of a profile (DESIGN.md §7): which outcomes are throttling and how
/// long to wait after one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Throttling {
    /// Statuses that mark a retryable response as throttling. Default `[429]`. A status here is
    /// classed throttling only when triage retries it (it must also be retryable).
    #[serde(default = "default_throttling_status")]
    pub status: StatusSet,
    /// Backoff used instead of the profile's `backoff` before a retry of a throttling outcome
    /// (a computed strategy or `response_header` with a computed fallback); absent = `backoff`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff: Option<Backoff>,
    /// Response matchers (DESIGN.md §8) that also mark a retryable response as throttling (e.g.
    /// a 400 whose body says `"code": "Throttling"`); empty = statuses only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub response: Vec<super::ResponseMatcher>,
}

fn default_throttling_status() -> StatusSet {
    StatusSet(vec![StatusRange::single(429)])
}

impl Default for Throttling {
    fn default() -> Self {
        Self {
            status: default_throttling_status(),
            backoff: None,
            response: Vec::new(),
        }
    }
}

impl Throttling {
    /// True when this is the default (statuses `[429]`, no own backoff, no matchers): not
    /// written to files.
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }
}
