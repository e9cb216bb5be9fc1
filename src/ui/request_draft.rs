//! The request as the composer edits it, and how it becomes a [`RequestSpec`] on Send.

use crate::model::{Body, KeyValue, RequestSpec, RetryProfile, Timeouts};
use serde::{Deserialize, Serialize};

/// The placeholder replaced by a fresh UUID on every Send, in URL, query and header values.
pub const UUID_PLACEHOLDER: &str = "{{uuid}}";

/// Which body editor is active. The drafts of the other kinds are kept while switching.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum BodyKind {
    /// No body.
    #[default]
    None,
    /// JSON text (`application/json`).
    Json,
    /// Plain text.
    Text,
    /// URL-encoded form fields.
    Form,
    /// Raw bytes of a file.
    File,
}

impl BodyKind {
    /// Every kind, in picker order.
    pub const ALL: [BodyKind; 5] = [
        BodyKind::None,
        BodyKind::Json,
        BodyKind::Text,
        BodyKind::Form,
        BodyKind::File,
    ];

    /// Label in the picker.
    pub fn label(self) -> &'static str {
        match self {
            BodyKind::None => "none",
            BodyKind::Json => "JSON",
            BodyKind::Text => "text",
            BodyKind::Form => "form fields",
            BodyKind::File => "file",
        }
    }
}

/// Every body draft, so switching kind never loses typed text.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BodyDraft {
    /// Active kind.
    pub kind: BodyKind,
    /// JSON source.
    pub json: String,
    /// Plain text.
    pub text: String,
    /// Form fields.
    pub form: Vec<KeyValue>,
    /// File path.
    pub file_path: String,
    /// Content-Type for text and file bodies; empty = the default for the kind.
    pub content_type: String,
}

impl BodyDraft {
    /// The body to send.
    pub fn to_body(&self) -> Body {
        let content_type =
            (!self.content_type.trim().is_empty()).then(|| self.content_type.trim().to_owned());
        match self.kind {
            BodyKind::None => Body::None,
            BodyKind::Json => Body::Json {
                text: self.json.clone(),
            },
            BodyKind::Text => Body::Text {
                text: self.text.clone(),
                content_type,
            },
            BodyKind::Form => Body::Form {
                fields: self.form.clone(),
            },
            BodyKind::File => Body::File {
                path: self.file_path.clone(),
                content_type,
            },
        }
    }
}

/// The composer's request: a [`RequestSpec`] plus editor-only state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RequestDraft {
    /// Method token (`GET`, `POST`, or any free-text token).
    pub method: String,
    /// URL as typed.
    pub url: String,
    /// Query rows appended to the URL.
    pub query: Vec<KeyValue>,
    /// Header rows.
    pub headers: Vec<KeyValue>,
    /// Body drafts.
    pub body: BodyDraft,
    /// Per-attempt timeouts, ms (`None` = the profile's value).
    pub timeouts: Timeouts,
    /// Follow redirects.
    pub follow_redirects: bool,
    /// Max redirect hops per attempt.
    pub max_redirects: u32,
    /// Verify TLS certificates.
    pub verify_tls: bool,
    /// Fresh connection for every attempt.
    pub new_connection_per_attempt: bool,
    /// Send an `Idempotency-Key`, the same on every attempt of a run.
    pub idempotency_enabled: bool,
    /// The key sent when enabled (generated once when the toggle is switched on).
    pub idempotency_key: String,
}

impl Default for RequestDraft {
    fn default() -> Self {
        let spec = RequestSpec::get("");
        Self {
            method: spec.method,
            url: spec.url,
            query: Vec::new(),
            headers: Vec::new(),
            body: BodyDraft::default(),
            timeouts: spec.timeouts,
            follow_redirects: spec.follow_redirects,
            max_redirects: spec.max_redirects,
            verify_tls: spec.verify_tls,
            new_connection_per_attempt: spec.new_connection_per_attempt,
            idempotency_enabled: false,
            idempotency_key: String::new(),
        }
    }
}

impl RequestDraft {
    /// The first-run request against the demo server at `base_url`:
    /// `GET /status/{status}?times=2&key={{uuid}}`, so every Send gets its own counter on the
    /// demo server (it fails twice with `status`, then answers 200). The key is part of the URL,
    /// not a query row, so typing another URL leaves no stray `key` parameter behind. Pick
    /// `status` with [`demo_failure_status`] so the selected profile retries it.
    pub fn demo(base_url: &str, status: u16) -> Self {
        Self {
            url: format!("{base_url}/status/{status}?times=2&key={UUID_PLACEHOLDER}"),
            headers: vec![KeyValue::new("Accept", "application/json")],
            ..Self::default()
        }
    }

    /// The spec to send, with every [`UUID_PLACEHOLDER`] replaced by `fresh_uuid`.
    pub fn to_spec(&self, fresh_uuid: &str) -> RequestSpec {
        let fill = |s: &str| s.replace(UUID_PLACEHOLDER, fresh_uuid);
        let fill_rows = |rows: &[KeyValue]| {
            rows.iter()
                .map(|r| KeyValue {
                    name: r.name.clone(),
                    value: fill(&r.value),
                    enabled: r.enabled,
                    secret: r.secret,
                })
                .collect()
        };
        RequestSpec {
            method: crate::model::standard_method_case(self.method.trim()),
            url: fill(self.url.trim()),
            query: fill_rows(&self.query),
            headers: fill_rows(&self.headers),
            body: self.body.to_body(),
            timeouts: self.timeouts,
            follow_redirects: self.follow_redirects,
            max_redirects: self.max_redirects,
            verify_tls: self.verify_tls,
            new_connection_per_attempt: self.new_connection_per_attempt,
            idempotency_key: (self.idempotency_enabled && !self.idempotency_key.is_empty())
                .then(|| self.idempotency_key.clone()),
        }
    }

    /// A copy fit for persisting: secret header/query/form values blanked unless `keep_secrets`.
    pub fn for_storage(&self, keep_secrets: bool) -> Self {
        let mut out = self.clone();
        if !keep_secrets {
            for row in out
                .headers
                .iter_mut()
                .chain(out.query.iter_mut())
                .chain(out.body.form.iter_mut())
            {
                if row.is_secret() {
                    row.value.clear();
                }
            }
        }
        out
    }
}

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
    fn demo_request_gets_a_fresh_key_per_send() {
        let draft = RequestDraft::demo("http://127.0.0.1:9", 503);
        let a = draft.to_spec("a1");
        let b = draft.to_spec("b2");
        assert_eq!(a.url, "http://127.0.0.1:9/status/503?times=2&key=a1");
        assert_eq!(b.url, "http://127.0.0.1:9/status/503?times=2&key=b2");
        assert!(a.query.is_empty(), "no query row to outlive the URL");
    }

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

    #[test]
    fn storage_blanks_secrets_unless_asked() {
        let mut draft = RequestDraft::default();
        draft
            .headers
            .push(KeyValue::new("Authorization", "Bearer abc"));
        draft.headers.push(KeyValue::new("Accept", "text/plain"));
        let stored = draft.for_storage(false);
        assert_eq!(stored.headers[0].value, "");
        assert_eq!(stored.headers[1].value, "text/plain");
        assert_eq!(draft.for_storage(true).headers[0].value, "Bearer abc");
    }

    #[test]
    fn idempotency_key_is_sent_only_when_enabled() {
        let mut draft = RequestDraft {
            idempotency_key: "k".into(),
            ..RequestDraft::default()
        };
        assert_eq!(draft.to_spec("u").idempotency_key, None);
        draft.idempotency_enabled = true;
        assert_eq!(draft.to_spec("u").idempotency_key.as_deref(), Some("k"));
    }
}
