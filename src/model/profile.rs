//! The retry profile: one shareable JSON document per provider (DESIGN.md §5). No secrets inside.

use super::attempt::ErrorKind;
use super::budget::RetryBudget;
use super::outcome_class::Throttling;
use super::response_matcher::ResponseMatcher;
use super::status_set::StatusSet;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The value of the `format` field every profile carries; bump the suffix on breaking changes.
/// Version 2 (DESIGN.md §7) adds `throttling`, `retry_budget`, `combine: "clamp"` and
/// `max_retries: null`.
pub const PROFILE_FORMAT: &str = "retryscope-profile/2";

/// The previous format tag: such files load (every `/1` document is a valid `/2` one once its
/// tag is changed) and are written back as [`PROFILE_FORMAT`].
pub const PROFILE_FORMAT_V1: &str = "retryscope-profile/1";

/// A retry profile: when to retry, how long to wait, and the overall budget.
///
/// Units: every `*_ms` field is milliseconds. Defaults are listed per field and are what a
/// missing field means when a file is loaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetryProfile {
    /// Format and version tag; `"retryscope-profile/2"` (files tagged `/1` are upgraded when loaded).
    pub format: String,
    /// Human-readable name shown in pickers.
    pub name: String,
    /// Provider this profile is for (`aws`, `azure`, `example`, your service…). Free text.
    #[serde(default)]
    pub provider: String,
    /// Where the numbers come from and when to use this profile.
    #[serde(default)]
    pub description: String,
    /// Max retries R: at most R + 1 attempts, `0..=u32::MAX`. `null` = unlimited: retries go on
    /// until the deadline (then required) or a cancel. Default 3.
    #[serde(default = "default_max_retries")]
    pub max_retries: Option<u32>,
    /// Statuses that end the run successfully. Default 200–299.
    #[serde(default = "StatusSet::default_success")]
    pub success_status: StatusSet,
    /// Polling (DESIGN.md §8): when not empty, a status in `success_status` is a success only if
    /// one of these matchers holds; otherwise the attempt is "not ready" and retried under max
    /// retries and the deadline. Default empty (every success status is a success).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub success_when: Vec<ResponseMatcher>,
    /// Which outcomes are retried.
    #[serde(default)]
    pub retry_on: RetryOn,
    /// What to do with a status that is neither success nor retryable. Default `stop`.
    #[serde(default)]
    pub on_other_status: OtherStatusAction,
    /// How long to wait before each retry.
    pub backoff: Backoff,
    /// The throttling outcome class: its statuses (default 429) and its own backoff.
    #[serde(default, skip_serializing_if = "Throttling::is_default")]
    pub throttling: Throttling,
    /// Retry budget (token bucket); absent = no budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_budget: Option<RetryBudget>,
    /// Total budget in ms counted from the first attempt's start; `null` = none.
    #[serde(default)]
    pub deadline_ms: Option<u64>,
    /// Per-attempt timeouts recommended by this profile (a request may override each one).
    #[serde(default)]
    pub timeouts: ProfileTimeouts,
    /// RNG seed for jitter; `null` = a fresh seed per run (shown on the timeline).
    #[serde(default)]
    pub seed: Option<u64>,
}

#[allow(
    clippy::unnecessary_wraps,
    reason = "serde's default for an Option field"
)]
fn default_max_retries() -> Option<u32> {
    Some(3)
}

impl RetryProfile {
    /// A profile named `name` waiting by `backoff`, every other field at its default (what a
    /// file that leaves it out means).
    pub fn new(name: impl Into<String>, backoff: Backoff) -> Self {
        Self {
            format: PROFILE_FORMAT.to_owned(),
            name: name.into(),
            provider: String::new(),
            description: String::new(),
            max_retries: default_max_retries(),
            success_status: StatusSet::default_success(),
            success_when: Vec::new(),
            retry_on: RetryOn::default(),
            on_other_status: OtherStatusAction::default(),
            backoff,
            throttling: Throttling::default(),
            retry_budget: None,
            deadline_ms: None,
            timeouts: ProfileTimeouts::default(),
            seed: None,
        }
    }

    /// Most attempts a run may make: max retries + 1, `None` when retries are unlimited.
    pub fn max_attempts(&self) -> Option<u64> {
        self.max_retries.map(|r| u64::from(r) + 1)
    }
}

/// Which attempt outcomes are retried (DESIGN.md §4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RetryOn {
    /// Retryable statuses. Default 408, 429, 500–599.
    #[serde(default = "StatusSet::default_retry")]
    pub status: StatusSet,
    /// Retryable network error kinds. Default: every kind but `tls` and `other`.
    #[serde(default = "ErrorKind::default_retryable")]
    pub errors: Vec<ErrorKind>,
    /// Retry non-idempotent methods (POST, PATCH) on triggers that do not prove the request
    /// was unprocessed. Default false.
    #[serde(default)]
    pub non_idempotent: bool,
    /// Responses retried whatever their status (DESIGN.md §8): one matching matcher makes the
    /// response retryable, even a success status (a 200 whose body says "rate limit exceeded").
    /// Default empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub response: Vec<ResponseMatcher>,
}

impl Default for RetryOn {
    fn default() -> Self {
        Self {
            status: StatusSet::default_retry(),
            errors: ErrorKind::default_retryable(),
            non_idempotent: false,
            response: Vec::new(),
        }
    }
}

/// What to do with a status that is neither in `success_status` nor in `retry_on.status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OtherStatusAction {
    /// End the run (default).
    #[default]
    Stop,
    /// Retry like a retryable status.
    Retry,
}

/// A profile's idle (read) timeout when its file does not set `read_ms`, ms: an attempt whose
/// server sends no byte for 30 s (after the headers, or before them) ends as a `timeout`, so a
/// stalled server never holds a run or a batch slot forever. `"read_ms": null` turns it off.
pub const DEFAULT_READ_MS: u64 = 30_000;

#[allow(
    clippy::unnecessary_wraps,
    reason = "serde's default of an Option field: absent is Some(30 s), null is None"
)]
fn default_read_ms() -> Option<u64> {
    Some(DEFAULT_READ_MS)
}

/// Timeouts a profile recommends, ms; `null` = no limit. See [`crate::model::Timeouts`].
/// Every one but `read_ms` is unset by default; `read_ms` defaults to [`DEFAULT_READ_MS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfileTimeouts {
    /// DNS resolution limit, ms.
    #[serde(default)]
    pub resolve_ms: Option<u64>,
    /// TCP (+TLS) connect limit, ms.
    #[serde(default)]
    pub connect_ms: Option<u64>,
    /// Limit between two reads of the response (idle timeout), ms; absent = 30,000, `null` =
    /// no limit.
    #[serde(default = "default_read_ms")]
    pub read_ms: Option<u64>,
    /// Limit for the whole attempt (all redirect hops, headers and body), ms.
    #[serde(default)]
    pub total_ms: Option<u64>,
}

impl Default for ProfileTimeouts {
    fn default() -> Self {
        Self {
            resolve_ms: None,
            connect_ms: None,
            read_ms: default_read_ms(),
            total_ms: None,
        }
    }
}

/// Backoff strategy ids (DESIGN.md §2).
#[derive(strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Seed 001: m = U[0, 2^n − 1]; d = min(b·m, c); wait = d + U[0, w].
    Exponential,
    /// Seed 000: wait = min(b·2^(n−1), c)·U[1−p, 1+p].
    ExponentialProportional,
    /// AWS blog: wait = U[0, min(c, b·2^(n−1))].
    FullJitter,
    /// AWS blog: t = min(c, b·2^(n−1)); wait = t/2 + U[0, t/2].
    EqualJitter,
    /// AWS blog: wait = min(c, U[b, 3·prev]), prev starts at b.
    DecorrelatedJitter,
    /// wait = b + U[0, w].
    Fixed,
    /// Seed 001: the server's delay header (+ U[0, w]), else the fallback strategy.
    ResponseHeader,
    /// Seed 001: a Rhai script's `get_delay(ctx)`.
    Custom,
}

impl Strategy {
    /// Every strategy, in picker order.
    pub const ALL: [Strategy; 8] = [
        Strategy::Exponential,
        Strategy::ExponentialProportional,
        Strategy::FullJitter,
        Strategy::EqualJitter,
        Strategy::DecorrelatedJitter,
        Strategy::Fixed,
        Strategy::ResponseHeader,
        Strategy::Custom,
    ];

    /// The id used in JSON (`"full_jitter"`).
    pub fn id(self) -> &'static str {
        self.into()
    }

    /// The formula, as shown in tooltips and help (DESIGN.md §2).
    pub fn formula(self) -> &'static str {
        match self {
            Strategy::Exponential => {
                "m = U[0, 2^n − 1]; d = min(b·m, c); wait = d + U[0, w]  (seed 001, cloud retry configuration)"
            }
            Strategy::ExponentialProportional => {
                "wait = min(b·2^(n−1), c) · U[1−p, 1+p]  (seed 000, VBScript module; cap before jitter)"
            }
            Strategy::FullJitter => "wait = U[0, min(c, b·2^(n−1))]  (AWS Architecture Blog)",
            Strategy::EqualJitter => {
                "t = min(c, b·2^(n−1)); wait = t/2 + U[0, t/2]  (AWS Architecture Blog)"
            }
            Strategy::DecorrelatedJitter => {
                "wait = min(c, U[b, 3·prev]), prev starts at b  (AWS Architecture Blog)"
            }
            Strategy::Fixed => "wait = b + U[0, w]",
            Strategy::ResponseHeader => {
                "wait = server delay header (+ U[0, w]); missing/unusable → fallback strategy  (seed 001)"
            }
            Strategy::Custom => {
                "wait = get_delay(ctx) from your Rhai script, ms; () stops retrying"
            }
        }
    }
}

/// Backoff parameters. One flat object for every strategy so that switching strategy in the
/// editor keeps the numbers; fields a strategy does not use are kept and ignored by it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Backoff {
    /// Which formula computes the wait.
    pub strategy: Strategy,
    /// Base delay `b`, ms. Default 1000.
    #[serde(default = "default_base")]
    pub base_delay_ms: u64,
    /// Max delay (cap) `c`, ms; `null` = no cap (waits are still clamped at 24 h).
    #[serde(default)]
    pub max_delay_ms: Option<u64>,
    /// Additive jitter window `w`, ms: U[0, w] added (exponential, fixed, `response_header`). Default 0.
    #[serde(default)]
    pub jitter_window_ms: u64,
    /// Proportional jitter ratio `p` in [0, 1] for `exponential_proportional`: factor U[1−p, 1+p].
    /// Default 0.2 (the VBScript seed's ±20 %).
    #[serde(default = "default_ratio")]
    pub jitter_ratio: f64,
    /// When true the final wait is clamped to `c` after all jitter, so no wait exceeds the max delay.
    #[serde(default)]
    pub hard_cap: bool,
    /// `response_header`: delay headers tried in order. Default `[{"name":"Retry-After","unit":"seconds"}]`.
    #[serde(
        default = "DelayHeader::default_list",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub headers: Vec<DelayHeader>,
    /// `response_header`: how the header delay and the fallback's wait combine. Default `replace`.
    #[serde(default)]
    pub combine: Combine,
    /// `response_header` with `combine: "clamp"`: X in wait = min(max(header, computed),
    /// computed + X), ms (AWS 2026 for `x-amz-retry-after`: 5000). Required there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clamp_above_ms: Option<u64>,
    /// `response_header`: what to do when the server asks for more than `c` or the time left. Default `stop`.
    #[serde(default)]
    pub on_exceed_max: OnExceedMax,
    /// `response_header`: the computed strategy used when no header is usable (required there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<Box<Backoff>>,
    /// `custom`: Rhai source defining `fn get_delay(ctx)` returning ms or `()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
}

fn default_base() -> u64 {
    1000
}

fn default_ratio() -> f64 {
    0.2
}

impl Backoff {
    /// Whether the strategy adds `jitter_window_ms` (fixed, exponential, `response_header` and
    /// custom, whose script sees it); the others draw their own jitter.
    pub fn reads_jitter_window(&self) -> bool {
        matches!(
            self.strategy,
            Strategy::Fixed | Strategy::Exponential | Strategy::ResponseHeader | Strategy::Custom
        )
    }

    /// Whether the strategy reads `jitter_ratio` (only `exponential_proportional`'s ±p).
    pub fn reads_jitter_ratio(&self) -> bool {
        self.strategy == Strategy::ExponentialProportional
    }

    /// A backoff of `strategy` with defaults (b = 1000 ms, no cap, no window, p = 0.2).
    pub fn new(strategy: Strategy) -> Self {
        Self {
            strategy,
            base_delay_ms: default_base(),
            max_delay_ms: None,
            jitter_window_ms: 0,
            jitter_ratio: default_ratio(),
            hard_cap: false,
            headers: DelayHeader::default_list(),
            combine: Combine::default(),
            clamp_above_ms: None,
            on_exceed_max: OnExceedMax::default(),
            fallback: None,
            script: None,
        }
    }
}

/// One delay header to read and its encoding (DESIGN.md §3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DelayHeader {
    /// Header name, case-insensitive (`Retry-After`, `x-ms-retry-after-ms`, …).
    pub name: String,
    /// How the value is encoded. Default `seconds`.
    #[serde(default)]
    pub unit: HeaderUnit,
}

impl DelayHeader {
    /// `[Retry-After in seconds]`, the default list.
    pub fn default_list() -> Vec<DelayHeader> {
        vec![DelayHeader {
            name: "Retry-After".into(),
            unit: HeaderUnit::Seconds,
        }]
    }
}

/// Encodings of a delay header's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HeaderUnit {
    /// Delta-seconds, integer or decimal; an HTTP-date is accepted too (as Retry-After allows).
    #[default]
    Seconds,
    /// Delta-milliseconds (`retry-after-ms`, `x-ms-retry-after-ms`, `x-amz-retry-after`).
    Milliseconds,
    /// Absolute Unix timestamp in seconds (`X-RateLimit-Reset` style); delay = ts − reference.
    UnixTimestamp,
    /// An HTTP-date only (IMF-fixdate, RFC 850, asctime); delay = date − reference.
    HttpDate,
    /// IETF `RateLimit` field (draft-ietf-httpapi-ratelimit-headers-11, `"default";r=0;t=30`) read
    /// as a Structured Field: the `t=` of the exhausted quota (`r=0`), seconds; older drafts'
    /// `limit=10, remaining=0, reset=30` and a bare `RateLimit-Reset: 30` are read too. A
    /// `Retry-After` in the same response wins.
    RatelimitT,
    /// gRPC `grpc-retry-pushback-ms` (gRPC A6): a delay in ms; a negative or unparseable value
    /// means the server asks not to retry, and the run stops.
    GrpcPushbackMs,
}

/// How `response_header` combines the header delay with the fallback's computed wait.
#[derive(strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Combine {
    /// The header's delay replaces the computed one (seed 001; default).
    #[default]
    Replace,
    /// The larger of header delay and computed wait (as Azure SDKs do).
    Max,
    /// The header delay bounded to [computed, computed + `clamp_above_ms`] (AWS 2026 for
    /// `x-amz-retry-after`).
    Clamp,
}

/// What `response_header` does when the server asks for more than the max delay or time left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnExceedMax {
    /// Never retry earlier than the server asked: end the run (default).
    #[default]
    Stop,
    /// Wait the max delay and retry anyway, saying so.
    Cap,
}
