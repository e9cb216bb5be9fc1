//! What the user sends: method, URL, headers, body and per-attempt transport options.

use serde::{Deserialize, Serialize};

/// One row of the query or header table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyValue {
    /// Name (header name or query key).
    pub name: String,
    /// Value, sent as is.
    pub value: String,
    /// Disabled rows are kept in the editor but not sent.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Secret rows are masked in the UI and never written to logs, exports or persisted state
    /// unless the user asks.
    #[serde(default)]
    pub secret: bool,
}

fn yes() -> bool {
    true
}

impl KeyValue {
    /// An enabled, non-secret row.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            value: value.into(),
            enabled: true,
            secret: false,
        }
    }

    /// Whether the row is blank: no name (spaces only) and no value. The composer leaves such
    /// rows behind when a user adds a row and never fills it; they are not sent.
    pub fn is_blank(&self) -> bool {
        self.name.trim().is_empty() && self.value.is_empty()
    }

    /// Whether this header row must be treated as secret: marked so, or a secret header name
    /// by the one rule ([`super::secrets::is_secret_header`]).
    pub fn is_secret(&self) -> bool {
        self.secret || super::secrets::is_secret_header(&self.name)
    }

    /// Whether this query parameter or form field row must be treated as secret: marked so, or
    /// a secret parameter name by the one rule ([`super::secrets::is_secret_param`]).
    pub fn is_secret_param(&self) -> bool {
        self.secret || super::secrets::is_secret_param(&self.name)
    }
}

/// Request body (the same bytes are sent on every attempt).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Body {
    /// No body.
    #[default]
    None,
    /// Plain text; `content_type` defaults to `text/plain; charset=utf-8`.
    Text {
        /// The text.
        text: String,
        /// Content-Type to send, if not the default.
        content_type: Option<String>,
    },
    /// JSON text, sent with `Content-Type: application/json`.
    Json {
        /// The JSON source as typed.
        text: String,
    },
    /// URL-encoded form fields (`application/x-www-form-urlencoded`).
    Form {
        /// The fields; disabled ones are not sent.
        fields: Vec<KeyValue>,
    },
    /// Raw bytes read from a file once, before attempt 1.
    File {
        /// Path of the file.
        path: String,
        /// Content-Type to send; default `application/octet-stream`.
        content_type: Option<String>,
    },
    /// `multipart/form-data` (RFC 7578), as curl's `-F`: text fields and files, in order. Files
    /// are read once, before attempt 1, so every attempt sends the same bytes (and boundary).
    Multipart {
        /// The parts, in the order sent.
        parts: Vec<MultipartPart>,
    },
}

/// One part of a [`Body::Multipart`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MultipartPart {
    /// The form field name (`name=` in `Content-Disposition`).
    pub name: String,
    /// What the part holds.
    pub source: PartSource,
}

impl MultipartPart {
    /// The part curl's `-F name=value` means: `@path` is a file part, with `;type=MIME` after
    /// the path setting its Content-Type; anything else is a text part.
    ///
    /// ```
    /// use retryscope::model::{MultipartPart, PartSource};
    /// let part = MultipartPart::from_form_value("doc", "@notes.txt;type=text/plain");
    /// assert_eq!(part.source, PartSource::File { path: "notes.txt".into(), content_type: Some("text/plain".into()) });
    /// assert_eq!(part.form_value(), "@notes.txt;type=text/plain");
    /// ```
    pub fn from_form_value(name: &str, value: &str) -> Self {
        let source = match value.strip_prefix('@') {
            Some(rest) => {
                let (path, content_type) = match rest.split_once(";type=") {
                    Some((p, t)) if !t.trim().is_empty() => (p, Some(t.trim().to_owned())),
                    _ => (rest, None),
                };
                PartSource::File {
                    path: path.to_owned(),
                    content_type,
                }
            }
            None => PartSource::Text {
                value: value.to_owned(),
            },
        };
        Self {
            name: name.to_owned(),
            source,
        }
    }

    /// The part as curl's `-F` value (the inverse of [`Self::from_form_value`] for text that
    /// does not start with `@`).
    pub fn form_value(&self) -> String {
        match &self.source {
            PartSource::Text { value } => value.clone(),
            PartSource::File {
                path,
                content_type: Some(t),
            } => format!("@{path};type={t}"),
            PartSource::File { path, .. } => format!("@{path}"),
        }
    }
}

/// The content of a [`MultipartPart`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PartSource {
    /// A text field: the value, sent without a `Content-Type` (as browsers and curl do).
    Text {
        /// The value.
        value: String,
    },
    /// A file: its bytes, with `filename=` set to the path's last component.
    File {
        /// Path of the file.
        path: String,
        /// Content-Type of the part; default `application/octet-stream`.
        content_type: Option<String>,
    },
}

/// `method` with the standard methods (GET, HEAD, POST, PUT, DELETE, CONNECT, OPTIONS, TRACE,
/// PATCH) upper-cased and any other token kept as typed. Methods are case-sensitive on the wire
/// (RFC 9110 §9.1), so `get` would be another method, not known to be idempotent; people type
/// `get` meaning GET.
pub fn standard_method_case(method: &str) -> String {
    match method.to_ascii_uppercase().as_str() {
        standard @ ("GET" | "HEAD" | "POST" | "PUT" | "DELETE" | "CONNECT" | "OPTIONS"
        | "TRACE" | "PATCH") => standard.to_owned(),
        _ => method.to_owned(),
    }
}

/// Per-attempt timeouts, ms; `None` = not set here (the profile's value, else no limit).
///
/// Mapping to the VBScript seed's `setTimeouts(resolve, connect, send, receive)`: resolve → our
/// DNS lookup; connect → TCP + TLS connect; send + receive → `read_ms` (reqwest enforces a limit
/// between reads, and the request is sent within the same budget); `total_ms` bounds the whole
/// attempt including redirects and the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Timeouts {
    /// DNS resolution limit, ms.
    pub resolve_ms: Option<u64>,
    /// Connect limit, ms.
    pub connect_ms: Option<u64>,
    /// Read limit (between chunks), ms.
    pub read_ms: Option<u64>,
    /// Whole-attempt limit, ms.
    pub total_ms: Option<u64>,
}

/// A request as composed by the user. Not part of a profile (it may hold secrets).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestSpec {
    /// Method token, any case-sensitive token (`GET`, `POST`, `PURGE`…).
    pub method: String,
    /// Absolute `http://` or `https://` URL.
    pub url: String,
    /// Extra query parameters appended to the URL.
    #[serde(default)]
    pub query: Vec<KeyValue>,
    /// Request headers.
    #[serde(default)]
    pub headers: Vec<KeyValue>,
    /// Body.
    #[serde(default)]
    pub body: Body,
    /// Per-attempt timeouts overriding the profile's.
    #[serde(default)]
    pub timeouts: Timeouts,
    /// Follow redirects (each hop shown inside its attempt). Default true.
    #[serde(default = "yes")]
    pub follow_redirects: bool,
    /// Max redirect hops per attempt. Default 10.
    #[serde(default = "default_redirects")]
    pub max_redirects: u32,
    /// Keep sending secret headers after a redirect to another origin (curl's
    /// `--location-trusted`). Off: every header the secrets rule or the user calls secret,
    /// `Cookie` and URL credentials are dropped when a redirect changes scheme, host or port,
    /// and the hop names them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub location_trusted: bool,
    /// Verify TLS certificates. Default true; off only explicitly.
    #[serde(default = "yes")]
    pub verify_tls: bool,
    /// Extra trusted root certificates (a private CA): the path of a PEM file with one or more
    /// `-----BEGIN CERTIFICATE-----` blocks (or one DER certificate), as curl's `--cacert`.
    /// Trusted besides the platform's roots, read once before attempt 1; `None` = the
    /// platform's roots only. A path, not a secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_cert: Option<String>,
    /// Build a fresh HTTP client (no pooled connection) for every attempt, as the VBScript seed does.
    #[serde(default)]
    pub new_connection_per_attempt: bool,
    /// When set, sent as `Idempotency-Key` with the same value on every attempt.
    pub idempotency_key: Option<String>,
}

fn default_redirects() -> u32 {
    10
}

impl RequestSpec {
    /// A GET of `url` with defaults.
    pub fn get(url: impl Into<String>) -> Self {
        Self {
            method: "GET".into(),
            url: url.into(),
            query: Vec::new(),
            headers: Vec::new(),
            body: Body::None,
            timeouts: Timeouts::default(),
            follow_redirects: true,
            max_redirects: default_redirects(),
            location_trusted: false,
            verify_tls: true,
            ca_cert: None,
            new_connection_per_attempt: false,
            idempotency_key: None,
        }
    }

    /// Whether the request carries an idempotency key: the field, or an enabled
    /// `Idempotency-Key` header, with a non-blank value (an empty key identifies nothing, so it
    /// does not make a non-idempotent method retryable).
    pub fn has_idempotency_key(&self) -> bool {
        self.idempotency_key
            .as_deref()
            .is_some_and(|k| !k.trim().is_empty())
            || self.headers.iter().any(|h| {
                h.enabled
                    && h.name.eq_ignore_ascii_case("idempotency-key")
                    && !h.value.trim().is_empty()
            })
    }
}
