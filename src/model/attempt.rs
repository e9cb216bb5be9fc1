//! One attempt's result as data: response summary or classified network error, plus timings.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Classified network failure kinds (DESIGN.md §4).
#[derive(strum::IntoStaticStr, strum::Display)]
#[strum(serialize_all = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// Name resolution failed (including a name that does not exist).
    Dns,
    /// Connection refused or unreachable.
    Connect,
    /// Connect did not finish within the connect timeout.
    ConnectTimeout,
    /// TLS handshake or certificate failure.
    Tls,
    /// Read or total timeout after connecting.
    Timeout,
    /// Connection closed or reset before or during the response.
    Reset,
    /// The response body failed mid-way.
    Body,
    /// Anything not classified above (never retried by default).
    Other,
}

impl ErrorKind {
    /// Every kind, in display order.
    pub const ALL: [ErrorKind; 8] = [
        ErrorKind::Dns,
        ErrorKind::Connect,
        ErrorKind::ConnectTimeout,
        ErrorKind::Tls,
        ErrorKind::Timeout,
        ErrorKind::Reset,
        ErrorKind::Body,
        ErrorKind::Other,
    ];

    /// Default `retry_on.errors`: all but `tls` and `other`.
    pub fn default_retryable() -> Vec<ErrorKind> {
        vec![
            ErrorKind::Dns,
            ErrorKind::Connect,
            ErrorKind::ConnectTimeout,
            ErrorKind::Timeout,
            ErrorKind::Reset,
            ErrorKind::Body,
        ]
    }

    /// The `snake_case` id used in JSON.
    pub fn id(self) -> &'static str {
        self.into()
    }

    /// True for failures that happen before any request byte is sent, so even a
    /// non-idempotent request provably was not processed.
    pub fn before_request_sent(self) -> bool {
        matches!(
            self,
            ErrorKind::Dns | ErrorKind::Connect | ErrorKind::ConnectTimeout | ErrorKind::Tls
        )
    }
}

/// A classified network error (data, comparable in tests).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetError {
    /// Kind used by triage.
    pub kind: ErrorKind,
    /// Human-readable message from the HTTP stack, lowercase.
    pub message: String,
    /// For a `dns` error: what the resolver said, from its error code (never from the message,
    /// which names the host). `None` for other kinds and for records made before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dns: Option<DnsFailure>,
}

impl NetError {
    /// An error of `kind` with `message` (no resolver cause).
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            dns: None,
        }
    }
}

/// Why a name lookup failed, from the resolver's error code (`getaddrinfo`'s `EAI_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DnsFailure {
    /// The name does not exist (`EAI_NONAME`, NXDOMAIN): a retry cannot help.
    NoSuchName,
    /// The name exists but has no addresses (`EAI_NODATA`, or a lookup that returned none).
    NoAddresses,
    /// A temporary failure (`EAI_AGAIN`, SERVFAIL, no server reachable): worth a retry.
    Temporary,
    /// No answer within the resolve timeout.
    Timeout,
    /// Anything else the resolver reported (`EAI_FAIL`, system errors).
    Other,
}

impl DnsFailure {
    /// Whether retrying the lookup cannot succeed soon (the name or its addresses are missing).
    pub fn is_permanent(self) -> bool {
        matches!(self, DnsFailure::NoSuchName | DnsFailure::NoAddresses)
    }
}

/// Up to the preview cap of a body, plus its full size.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BodyPreview {
    /// The first bytes of the body (at most the engine's preview cap, 1 MiB by default).
    #[serde(with = "bytes_as_text")]
    pub bytes: Vec<u8>,
    /// Total size in bytes that arrived (counted even beyond the cap).
    pub total_bytes: u64,
    /// True when `bytes` holds less than `total_bytes`.
    pub truncated: bool,
}

/// Serializes bytes as `{"utf8": "..."}` when valid UTF-8, else `{"hex": "..."}`.
mod bytes_as_text {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Repr {
        Utf8(String),
        Hex(String),
    }

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        if let Ok(text) = std::str::from_utf8(bytes) {
            Repr::Utf8(text.to_owned()).serialize(s)
        } else {
            use std::fmt::Write as _;
            let hex: String =
                bytes
                    .iter()
                    .fold(String::with_capacity(bytes.len() * 2), |mut hex, b| {
                        let _ = write!(hex, "{b:02x}");
                        hex
                    });
            Repr::Hex(hex).serialize(s)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        match Repr::deserialize(d)? {
            Repr::Utf8(s) => Ok(s.into_bytes()),
            Repr::Hex(h) => (0..h.len())
                .step_by(2)
                .map(|i| {
                    h.get(i..i + 2)
                        .and_then(|p| u8::from_str_radix(p, 16).ok())
                        .ok_or_else(|| serde::de::Error::custom("bad hex in body preview"))
                })
                .collect(),
        }
    }
}

/// A redirect hop inside one attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hop {
    /// Method used for this hop.
    pub method: String,
    /// URL requested in this hop.
    pub url: String,
    /// Status received (3xx).
    pub status: u16,
    /// Location it pointed to.
    pub location: String,
    /// Headers not sent on to `location` because it is another origin and they are secret
    /// (names as sent; empty when nothing was dropped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped_headers: Vec<String>,
}

impl Hop {
    /// The hop as one line: `GET http://a/x → 302 → http://b/y`, then its
    /// [`Self::dropped_note`].
    pub fn line(&self) -> String {
        format!(
            "{} {} → {} → {}{}",
            self.method,
            self.url,
            self.status,
            self.location,
            self.dropped_note()
        )
    }

    /// ` (not sent to the new origin: x-api-key, cookie)` when headers were dropped, else empty.
    pub fn dropped_note(&self) -> String {
        if self.dropped_headers.is_empty() {
            return String::new();
        }
        format!(
            " (not sent to the new origin: {})",
            self.dropped_headers.join(", ")
        )
    }
}

/// The final response of an attempt (after redirects).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResponseSummary {
    /// Status code.
    pub status: u16,
    /// Reason phrase (canonical for the code), may be empty.
    pub reason: String,
    /// HTTP version, e.g. `HTTP/1.1`.
    pub version: String,
    /// Response headers in arrival order, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Body preview.
    pub body: BodyPreview,
}

impl ResponseSummary {
    /// First value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What came back from one attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AttemptOutcome {
    /// A response arrived (any status).
    Response(ResponseSummary),
    /// The exchange failed.
    Error(NetError),
}

impl AttemptOutcome {
    /// The status, when a response arrived.
    pub fn status(&self) -> Option<u16> {
        match self {
            AttemptOutcome::Response(r) => Some(r.status),
            AttemptOutcome::Error(_) => None,
        }
    }

    /// The error's kind, when the exchange failed.
    pub fn error_kind(&self) -> Option<ErrorKind> {
        match self {
            AttemptOutcome::Error(e) => Some(e.kind),
            AttemptOutcome::Response(_) => None,
        }
    }

    /// Short label: `503` or `connect`.
    pub fn label(&self) -> String {
        match self {
            AttemptOutcome::Response(r) => r.status.to_string(),
            AttemptOutcome::Error(e) => e.kind.to_string(),
        }
    }
}

/// How the request of an attempt's final hop got its connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionUse {
    /// Not known: a record from before phases were measured, or the attempt ended before a
    /// connection was asked for (a DNS failure).
    #[default]
    Unknown,
    /// A new connection was opened for it; its set-up is [`Timings::connect_ms`].
    New,
    /// An idle keep-alive connection was reused: no TCP connect and no TLS handshake happened.
    Reused,
}

/// Measured timings of one attempt, ms on the monotonic clock. Offsets count from the
/// attempt's start; durations say so. Fields added after the first release default when
/// missing, so older events and history rows still load.
///
/// Phases of the final hop, in order: DNS (`resolve_ms`), connection set-up
/// (`connect_start_ms` + `connect_ms`, or reused), request sent (`sent_ms`), first byte
/// (`headers_ms`), body done (`total_ms`). [`super::phase_spans`] turns them into a waterfall.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Timings {
    /// DNS resolution (duration, summed over redirect hops), when the engine resolved the name
    /// itself (not for IP literals).
    pub resolve_ms: Option<f64>,
    /// Offset at which the final hop began, when redirects came before it; `None` without
    /// redirects.
    pub last_hop_start_ms: Option<f64>,
    /// New connection or reused one, for the final hop.
    #[serde(default)]
    pub connection: ConnectionUse,
    /// Offset at which the final hop's new connection began; `None` when reused or not known.
    pub connect_start_ms: Option<f64>,
    /// Duration of the new connection's set-up: TCP connect plus, for `https`, the TLS
    /// handshake (`tls_ms` of it when split, else `tls_in_connect`). `None` when reused, or
    /// when the set-up never finished (cut by a timeout).
    pub connect_ms: Option<f64>,
    /// Duration of the TLS handshake, measured apart; it is part of `connect_ms` (as in HAR).
    /// `None` for plain `http`, a reused connection, or when it could not be split.
    pub tls_ms: Option<f64>,
    /// True when `connect_ms` includes a TLS handshake (an `https` URL) that could not be
    /// measured apart: one phase, `connect + TLS`.
    #[serde(default)]
    pub tls_in_connect: bool,
    /// Offset at which the last byte of the request body was handed to the connection; `None`
    /// for a request without a body (its head goes out with no separate signal, so "send" is
    /// folded into the wait) or a body that was never sent in full.
    pub sent_ms: Option<f64>,
    /// Offset of the final response's headers (first byte).
    pub headers_ms: Option<f64>,
    /// Offset of the end of the body or the error.
    pub total_ms: f64,
}

impl Timings {
    /// Offset at which the new connection was ready (`connect_start_ms + connect_ms`).
    pub fn connect_end_ms(&self) -> Option<f64> {
        Some(self.connect_start_ms? + self.connect_ms?)
    }
}

/// Why a [`Verdict::Retry`] retries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetryCause {
    /// A retry trigger held: a retryable status, error kind or `retry_on` condition.
    #[default]
    Retryable,
    /// Polling: a success status arrived but no `success_when` condition held yet (the
    /// reason says what was seen and wanted).
    NotReady,
}

impl RetryCause {
    /// Whether this is [`RetryCause::Retryable`] (the default, left out of JSON).
    pub fn is_retryable(&self) -> bool {
        *self == RetryCause::Retryable
    }
}

/// Triage verdict on one attempt's outcome (DESIGN.md §4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// Status in `success_status` (and, when the profile has `success_when`, one of its
    /// conditions held): the run ends OK.
    Success {
        /// The `success_when` condition that held, as the timeline shows it after `success: `
        /// (`/state is "done"`); `None` when the status alone decided (no `success_when`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        condition: Option<String>,
    },
    /// Eligible for a retry (if retries and time remain).
    Retry {
        /// Why, e.g. `503 is retryable`, `not ready: /state is "pending", want "done"`.
        reason: String,
        /// What kind of retry it is (a trigger, or polling); absent in JSON for a trigger.
        #[serde(default, skip_serializing_if = "RetryCause::is_retryable")]
        cause: RetryCause,
    },
    /// Not retried.
    Stop {
        /// Why, e.g. `404 is not retryable` or `not retried: POST is not idempotent (…)`.
        reason: String,
    },
}

impl Verdict {
    /// A success decided by the status alone (no `success_when` condition).
    pub const SUCCESS: Verdict = Verdict::Success { condition: None };

    /// A polling retry ([`RetryCause::NotReady`]) whose reason is `not ready: {what}`.
    pub fn not_ready(what: &str) -> Verdict {
        Verdict::Retry {
            reason: format!("not ready: {what}"),
            cause: RetryCause::NotReady,
        }
    }

    /// A retry for `reason`, caused by a retry trigger ([`RetryCause::Retryable`]).
    pub fn retry(reason: impl Into<String>) -> Verdict {
        Verdict::Retry {
            reason: reason.into(),
            cause: RetryCause::Retryable,
        }
    }

    /// The verdict as the timeline, the CLI and the exports say it: `success`,
    /// `success: /state is "done"`, `retry: 503 is retryable`, `stop: 404 is not retryable`.
    pub fn label(&self) -> String {
        match self {
            Verdict::Success { condition: None } => "success".to_owned(),
            Verdict::Success { condition: Some(c) } => format!("success: {c}"),
            Verdict::Retry { reason, .. } => format!("retry: {reason}"),
            Verdict::Stop { reason } => format!("stop: {reason}"),
        }
    }

    /// The verdict's name (`success`, `retry`, `stop`) and its reason (the condition that held
    /// for a success), as the CSV, HAR and history columns store them.
    pub fn name_and_reason(&self) -> (&'static str, Option<&str>) {
        match self {
            Verdict::Success { condition } => ("success", condition.as_deref()),
            Verdict::Retry { reason, .. } => ("retry", Some(reason)),
            Verdict::Stop { reason } => ("stop", Some(reason)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{RetryCause, Verdict};

    #[test]
    fn a_polling_retry_says_so_in_json_and_a_trigger_stays_as_before() {
        let polling = Verdict::not_ready(r#"/state is "pending""#);
        let json = serde_json::to_value(&polling).expect("serializes");
        assert_eq!(
            json,
            serde_json::json!({"verdict": "retry", "reason": "not ready: /state is \"pending\"", "cause": "not_ready"})
        );
        let trigger = serde_json::to_value(Verdict::retry("503 is retryable")).expect("serializes");
        assert_eq!(
            trigger,
            serde_json::json!({"verdict": "retry", "reason": "503 is retryable"})
        );
        let stored: Verdict = serde_json::from_value(trigger).expect("reads back");
        assert!(matches!(
            stored,
            Verdict::Retry {
                cause: RetryCause::Retryable,
                ..
            }
        ));
    }
}
