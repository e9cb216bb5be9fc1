//! The two servers the contention simulator can put the clients against.

use crate::model::{AttemptOutcome, BodyPreview, ResponseSummary};

/// How the shared server answers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ServerModel {
    /// Optimistic concurrency on one row (the AWS Architecture Blog post's model): an attempt
    /// reads the row's version, then sends a write conditional on it; the write succeeds only
    /// if no other write succeeded in between (its contention window), else it fails with
    /// [`ContentionSetup::failure_status`](super::ContentionSetup::failure_status). Calls
    /// counted: the writes (as the post counts them).
    Occ,
    /// A server that handles `per_second` requests a second (a token bucket holding one second's
    /// worth, full at the start) and answers the requests over capacity with
    /// [`ContentionSetup::failure_status`](super::ContentionSetup::failure_status), with
    /// `Retry-After` (whole seconds until capacity frees up, at least 1) when `retry_after`.
    Capacity {
        /// Requests a second the server handles, > 0.
        per_second: f64,
        /// Whether an answer over capacity carries `Retry-After`.
        retry_after: bool,
    },
}

impl ServerModel {
    /// `occ` or `capacity`.
    pub fn id(&self) -> &'static str {
        match self {
            Self::Occ => "occ",
            Self::Capacity { .. } => "capacity",
        }
    }

    /// The status a failed attempt gets unless the setup says otherwise: 503 for a lost OCC
    /// write, 429 over capacity.
    pub fn default_status(&self) -> u16 {
        match self {
            Self::Occ => 503,
            Self::Capacity { .. } => 429,
        }
    }
}

/// The answer a failed attempt gets, as the policy sees it (a profile's triage and
/// `response_header` strategy read it).
pub(crate) fn failure_outcome(status: u16, retry_after_s: Option<u64>) -> AttemptOutcome {
    let reason = if status == 429 {
        "Too Many Requests"
    } else {
        "Service Unavailable"
    };
    AttemptOutcome::Response(ResponseSummary {
        status,
        reason: reason.into(),
        version: "HTTP/1.1".into(),
        headers: retry_after_s
            .map(|s| vec![("retry-after".to_owned(), s.to_string())])
            .unwrap_or_default(),
        body: BodyPreview::default(),
    })
}

/// The capacity server's token bucket, in virtual ms.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CapacityBucket {
    rate_per_ms: f64,
    burst: f64,
    tokens: f64,
    last_ms: f64,
}

impl CapacityBucket {
    /// Full bucket of one second's worth (at least one request).
    pub(crate) fn new(per_second: f64) -> Self {
        let per_second = if per_second.is_finite() && per_second > 0.0 {
            per_second
        } else {
            1.0
        };
        let burst = per_second.max(1.0);
        Self {
            rate_per_ms: per_second / 1000.0,
            burst,
            tokens: burst,
            last_ms: 0.0,
        }
    }

    /// A request arrives at `now_ms`: `Ok(())` if it is served, else `Err(seconds)` until one
    /// token is back (whole seconds, at least 1).
    pub(crate) fn take(&mut self, now_ms: f64) -> Result<(), u64> {
        self.tokens =
            (self.tokens + (now_ms - self.last_ms).max(0.0) * self.rate_per_ms).min(self.burst);
        self.last_ms = self.last_ms.max(now_ms);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            let ms = (1.0 - self.tokens) / self.rate_per_ms;
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "a positive number of seconds, small (1 / rate)"
            )]
            let secs = (ms / 1000.0).ceil().max(1.0) as u64;
            Err(secs)
        }
    }
}
