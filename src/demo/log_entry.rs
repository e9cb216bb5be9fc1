//! One request as the demo server saw it (served at `/log`).

use serde::{Deserialize, Serialize};

/// Most bytes of a request body kept in a [`LogEntry`] (the full length is still counted).
pub const LOG_BODY_PREVIEW: usize = 4096;

/// A request the demo server received, in arrival order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// Method as sent (`GET`, `POST`, …).
    pub method: String,
    /// Path and query as sent, e.g. `/status/503?times=2&key=a`.
    pub path: String,
    /// Arrival time: ms since the server started, on tokio's monotonic clock (so a paused test
    /// clock shows virtual time), taken when the request head was parsed, before the body.
    pub at_ms: f64,
    /// Scenario key: the `key` query parameter, else path + query without `key`.
    pub key: String,
    /// Request headers in arrival order, names lower-case, values lossily decoded as UTF-8.
    pub headers: Vec<(String, String)>,
    /// Request body length, bytes.
    pub body_len: u64,
    /// The first [`LOG_BODY_PREVIEW`] bytes of the body, lossily decoded as UTF-8.
    pub body: String,
}

impl LogEntry {
    /// First value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}
