//! "Copy as curl": a draft or a sent request as a curl command, one option per line with
//! ` \` continuations, every value single-quoted for POSIX shells.
//!
//! Secret values (DESIGN.md §9: credential headers, cookies, the URL's user name and password,
//! secret query parameters and form fields, the auth helper's token and password) are written
//! as `***` unless `include_secrets` is true. `{{variables}}` are kept as typed.

use super::draft_of_spec::draft_of_spec;
use super::retry_formats::durations::format_seconds;
use crate::model::secrets::{is_secret_header, is_secret_param, mask_url};
use crate::model::{AuthKind, BodyKind, RequestDraft, RequestSpec, SECRET_MASK};

/// The composer's default redirect limit; `--max-redirs` is written only for other values.
const DEFAULT_REDIRECTS: u32 = 10;

/// `value` as one POSIX shell word: single-quoted, `'` written as `'\''`.
///
/// ```
/// assert_eq!(retryscope::interop::shell_quote("it's"), r"'it'\''s'");
/// ```
pub fn shell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

/// The draft as a curl command. [`super::parse_curl`] reads it back into the same draft
/// (with `include_secrets`) for drafts whose settings curl can express (see
/// [`curl_not_expressible`]) and whose Content-Type lives in the body (not a header row) for
/// text, form and file bodies.
pub fn draft_to_curl(draft: &RequestDraft, include_secrets: bool) -> String {
    // `value`, or the mask when it is a secret (and not empty) and secrets are left out.
    let shown = |value: &str, is_secret: bool| {
        if is_secret && !include_secrets && !value.is_empty() {
            SECRET_MASK.to_owned()
        } else {
            value.to_owned()
        }
    };
    let url = if include_secrets {
        draft.url.trim().to_owned()
    } else {
        mask_url(draft.url.trim())
    };
    let mut lines = vec![format!("curl {}", shell_quote(&url))];
    let has_body = draft.body.kind != BodyKind::None;
    let method = crate::model::standard_method_case(draft.method.trim());
    let implied = if has_body { "POST" } else { "GET" };
    if method == "HEAD" && !has_body {
        lines.push("--head".into());
    } else if method != implied {
        lines.push(format!("-X {}", shell_quote(&method)));
    }
    for row in draft.query.iter().filter(|r| r.enabled) {
        let value = shown(&row.value, row.is_secret_param());
        lines.push(format!(
            "--url-query {}",
            shell_quote(&format!("{}={value}", row.name))
        ));
    }
    let header_line = |name: &str, value: &str| {
        if value.is_empty() {
            format!("-H {}", shell_quote(&format!("{name};")))
        } else {
            format!("-H {}", shell_quote(&format!("{name}: {value}")))
        }
    };
    for row in draft.headers.iter().filter(|r| r.enabled) {
        lines.push(header_line(&row.name, &shown(&row.value, row.is_secret())));
    }
    if draft.idempotency_enabled && !draft.idempotency_key.is_empty() {
        lines.push(header_line("Idempotency-Key", &draft.idempotency_key));
    }
    match draft.auth.kind {
        AuthKind::None => {}
        AuthKind::Bearer => {
            // An empty token is masked too: the command says a token belongs there.
            let token = draft.auth.bearer_token.trim();
            let token = if include_secrets { token } else { SECRET_MASK };
            lines.push(format!("--oauth2-bearer {}", shell_quote(token)));
        }
        AuthKind::Basic => lines.push(format!(
            "-u {}",
            shell_quote(&format!(
                "{}:{}",
                draft.auth.basic_user,
                shown(&draft.auth.basic_password, true)
            ))
        )),
    }
    body_lines(draft, &mut lines, &shown);
    if !draft.verify_tls {
        lines.push("-k".into());
    } else if !draft.ca_cert.trim().is_empty() {
        lines.push(format!("--cacert {}", shell_quote(draft.ca_cert.trim())));
    }
    if draft.follow_redirects && draft.location_trusted {
        lines.push("--location-trusted".into());
    } else if draft.follow_redirects {
        lines.push("-L".into());
    }
    if draft.max_redirects != DEFAULT_REDIRECTS {
        lines.push(format!("--max-redirs {}", draft.max_redirects));
    }
    if let Some(ms) = draft.timeouts.connect_ms {
        lines.push(format!("--connect-timeout {}", format_seconds(ms)));
    }
    if let Some(ms) = draft.timeouts.total_ms {
        lines.push(format!("--max-time {}", format_seconds(ms)));
    }
    lines.join(" \\\n  ")
}

/// The body's options; `shown` masks a value that is a secret (see [`draft_to_curl`]).
fn body_lines(draft: &RequestDraft, lines: &mut Vec<String>, shown: &dyn Fn(&str, bool) -> String) {
    let body = &draft.body;
    let typed_content_type = draft
        .headers
        .iter()
        .any(|h| h.enabled && h.name.eq_ignore_ascii_case("content-type"));
    let content_type = |lines: &mut Vec<String>, ct: &str, default: &str| {
        if !typed_content_type {
            let ct = if ct.trim().is_empty() {
                default
            } else {
                ct.trim()
            };
            lines.push(format!(
                "-H {}",
                shell_quote(&format!("Content-Type: {ct}"))
            ));
        }
    };
    match body.kind {
        BodyKind::None => {}
        BodyKind::Json => {
            content_type(lines, "", "application/json");
            lines.push(format!("--data-raw {}", shell_quote(&body.json)));
        }
        BodyKind::Text => {
            content_type(lines, &body.content_type, "text/plain; charset=utf-8");
            lines.push(format!("--data-raw {}", shell_quote(&body.text)));
        }
        BodyKind::Form => {
            for field in body.form.iter().filter(|f| f.enabled) {
                let secret = field.is_secret_param() || is_secret_header(&field.name);
                let value = shown(&field.value, secret);
                lines.push(format!(
                    "--data-urlencode {}",
                    shell_quote(&format!("{}={value}", field.name))
                ));
            }
        }
        BodyKind::Multipart => {
            for part in body.multipart.iter().filter(|p| p.enabled) {
                // `@FILE` names a file, not a secret value.
                let secret =
                    (part.secret || is_secret_param(&part.name) || is_secret_header(&part.name))
                        && !part.value.starts_with('@');
                let value = shown(&part.value, secret);
                lines.push(format!(
                    "-F {}",
                    shell_quote(&format!("{}={value}", part.name))
                ));
            }
        }
        BodyKind::File => {
            content_type(lines, &body.content_type, "application/octet-stream");
            lines.push(format!(
                "--data-binary {}",
                shell_quote(&format!("@{}", body.file_path))
            ));
        }
    }
}

/// A sent request as a curl command (see [`draft_to_curl`]); its `Authorization` is a header
/// row, masked unless `include_secrets`.
pub fn spec_to_curl(spec: &RequestSpec, include_secrets: bool) -> String {
    draft_to_curl(&draft_of_spec(spec), include_secrets)
}

/// The draft's settings a curl command cannot carry (they are left out of
/// [`draft_to_curl`]'s command), e.g. `read timeout`.
pub fn curl_not_expressible(draft: &RequestDraft) -> Vec<&'static str> {
    let mut out = Vec::new();
    if draft.timeouts.resolve_ms.is_some() {
        out.push("resolve timeout");
    }
    if draft.timeouts.read_ms.is_some() {
        out.push("read timeout");
    }
    if draft.new_connection_per_attempt {
        out.push("new connection per attempt");
    }
    if draft.query.iter().any(|r| !r.enabled)
        || draft.headers.iter().any(|r| !r.enabled)
        || (draft.body.kind == BodyKind::Form && draft.body.form.iter().any(|r| !r.enabled))
    {
        out.push("disabled rows");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyValue;

    #[test]
    fn seconds_keep_their_millis() {
        assert_eq!(format_seconds(2500), "2.5");
        assert_eq!(format_seconds(1), "0.001");
        assert_eq!(format_seconds(3000), "3");
        assert_eq!(format_seconds(1250), "1.25");
    }

    #[test]
    fn secrets_are_masked_unless_asked() {
        let mut draft = RequestDraft {
            url: "http://u:pw@127.0.0.1:9/x?sig=S1".into(),
            ..RequestDraft::default()
        };
        draft
            .headers
            .push(KeyValue::new("Authorization", "Bearer T1"));
        draft.headers.push(KeyValue::new("X-Session", "S2"));
        draft.query.push(KeyValue::new("access_token", "T2"));
        draft.auth.kind = AuthKind::Basic;
        draft.auth.basic_user = "me".into();
        draft.auth.basic_password = "P1".into();
        let masked = draft_to_curl(&draft, false);
        for secret in ["pw", "S1", "T1", "S2", "T2", "P1"] {
            assert!(!masked.contains(secret), "{secret} in {masked}");
        }
        assert!(
            masked.contains("'http://***:***@127.0.0.1:9/x?sig=***'"),
            "{masked}"
        );
        let clear = draft_to_curl(&draft, true);
        for secret in ["u:pw@", "S1", "T1", "S2", "T2", "me:P1"] {
            assert!(clear.contains(secret), "{secret} missing in {clear}");
        }
    }
}
