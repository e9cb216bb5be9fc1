//! A sent [`RequestSpec`] back as a composer draft (for "Copy as curl" of an attempt and HAR
//! import/export, which work on drafts).

use crate::model::{Body, BodyDraft, BodyKind, RequestDraft, RequestSpec};

/// The draft that sends `spec`: every field copied, the body in the editor of its kind, the
/// idempotency key as the composer's toggle, no auth helper (the spec's `Authorization` is a
/// header row already).
pub fn draft_of_spec(spec: &RequestSpec) -> RequestDraft {
    let mut body = BodyDraft::default();
    match &spec.body {
        Body::None => {}
        Body::Text { text, content_type } => {
            body.kind = BodyKind::Text;
            body.text.clone_from(text);
            body.content_type = content_type.clone().unwrap_or_default();
        }
        Body::Json { text } => {
            body.kind = BodyKind::Json;
            body.json.clone_from(text);
        }
        Body::Form { fields } => {
            body.kind = BodyKind::Form;
            body.form.clone_from(fields);
        }
        Body::Multipart { parts } => {
            body.kind = BodyKind::Multipart;
            body.multipart = parts
                .iter()
                .map(|p| crate::model::KeyValue::new(p.name.clone(), p.form_value()))
                .collect();
        }
        Body::File { path, content_type } => {
            body.kind = BodyKind::File;
            body.file_path.clone_from(path);
            body.content_type = content_type.clone().unwrap_or_default();
        }
    }
    RequestDraft {
        method: spec.method.clone(),
        url: spec.url.clone(),
        query: spec.query.clone(),
        headers: spec.headers.clone(),
        body,
        timeouts: spec.timeouts,
        follow_redirects: spec.follow_redirects,
        max_redirects: spec.max_redirects,
        location_trusted: spec.location_trusted,
        verify_tls: spec.verify_tls,
        ca_cert: spec.ca_cert.clone().unwrap_or_default(),
        new_connection_per_attempt: spec.new_connection_per_attempt,
        idempotency_enabled: spec.idempotency_key.is_some(),
        idempotency_key: spec.idempotency_key.clone().unwrap_or_default(),
        auth: crate::model::AuthDraft::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{KeyValue, Variables};

    #[test]
    fn the_draft_sends_the_same_spec() {
        let mut spec = RequestSpec::get("http://127.0.0.1:9/x");
        spec.method = "POST".into();
        spec.headers.push(KeyValue::new("Accept", "a"));
        spec.body = Body::Text {
            text: "t".into(),
            content_type: Some("text/csv".into()),
        };
        spec.idempotency_key = Some("k".into());
        spec.timeouts.read_ms = Some(5);
        let draft = draft_of_spec(&spec);
        assert_eq!(
            draft.to_spec(&Variables::new(), "u").expect("no vars"),
            spec
        );
    }
}
