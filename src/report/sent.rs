//! What was sent, for the report's header: method, URL, headers and a body summary, masked by
//! the one secrets rule ([`crate::model::secrets::mask_spec`]).

use crate::model::{Body, RequestSpec};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// Most characters of a text body the report shows.
pub const BODY_SHOWN_CHARS: usize = 2000;

/// The request of a report, secrets masked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentRequest {
    /// Method, e.g. `GET`.
    pub method: String,
    /// URL with its query, secrets masked (`?token=***`).
    pub url: String,
    /// Enabled headers in order, secret values masked (`Authorization: ***`).
    pub headers: Vec<(String, String)>,
    /// The body: a text or JSON body's text (secret members masked, cut to
    /// [`BODY_SHOWN_CHARS`] characters), form fields as `a=1&token=***`, or what a file or
    /// multipart body holds; `None` without a body.
    pub body: Option<String>,
}

impl SentRequest {
    /// `spec` masked by the secrets rule (also when the history already masked it: masking is
    /// idempotent).
    pub fn of(spec: &RequestSpec) -> Self {
        let masked = crate::model::secrets::mask_spec(spec, &[]);
        let mut url = masked.url.clone();
        for (i, q) in masked.query.iter().filter(|q| q.enabled).enumerate() {
            let sep = if i == 0 && !url.contains('?') {
                '?'
            } else {
                '&'
            };
            url.push(sep);
            let _ = write!(url, "{}={}", q.name, q.value);
        }
        let body = match &masked.body {
            Body::None => None,
            Body::Text { text, .. } | Body::Json { text } => {
                Some(crate::model::quote::cut_chars(text, BODY_SHOWN_CHARS))
            }
            Body::Form { fields } => Some(
                fields
                    .iter()
                    .filter(|f| f.enabled)
                    .map(|f| format!("{}={}", f.name, f.value))
                    .collect::<Vec<_>>()
                    .join("&"),
            ),
            other => serde_json::to_string(other).ok(),
        };
        Self {
            method: masked.method.clone(),
            url,
            headers: masked
                .headers
                .iter()
                .filter(|h| h.enabled)
                .map(|h| (h.name.clone(), h.value.clone()))
                .collect(),
            body,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyValue;

    #[test]
    fn secret_headers_and_query_values_are_masked_and_names_stay() {
        let mut spec = RequestSpec::get("http://127.0.0.1:1/x?token=abc123");
        spec.headers
            .push(KeyValue::new("Authorization", "Bearer s3cret-value"));
        spec.headers.push(KeyValue::new("Accept", "text/plain"));
        let sent = SentRequest::of(&spec);
        assert!(!sent.url.contains("abc123"), "{}", sent.url);
        assert!(sent.url.contains("token=***"), "{}", sent.url);
        assert_eq!(
            sent.headers,
            [
                ("Authorization".to_owned(), "***".to_owned()),
                ("Accept".to_owned(), "text/plain".to_owned())
            ]
        );
        assert_eq!(sent.body, None);
    }
}
