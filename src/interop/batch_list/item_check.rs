//! The checks every imported item passes, whatever its format: a method token, an absolute
//! `http(s)://` URL (the engine's own rule) and sendable headers. What passes here is what the
//! runner can send; a failure is a [`ListProblemKind`] for the item's line.

use super::problem::ListProblemKind;
use crate::model::url_rule::{UrlProblem, parse_http_url};
use crate::model::{RequestSpec, UUID_PLACEHOLDER, Variables, resolve_text, secrets};

pub(super) use crate::model::is_http_token as is_token;

/// The first problem of `spec`, if any. A URL that uses `{{variables}}` other than
/// `{{uuid}}` is checked when it is resolved (at send), not here.
pub(super) fn check_spec(spec: &RequestSpec) -> Result<(), ListProblemKind> {
    if spec.method.is_empty() {
        return Err(ListProblemKind::Missing { field: "method" });
    }
    if !is_token(&spec.method) {
        return Err(ListProblemKind::BadMethod {
            method: spec.method.clone(),
        });
    }
    if spec.url.trim().is_empty() {
        return Err(ListProblemKind::Missing { field: "url" });
    }
    let filled = spec
        .url
        .replace(UUID_PLACEHOLDER, "00000000-0000-0000-0000-000000000000");
    let unresolved = resolve_text(&filled, &Variables::new(), "", "URL").is_err();
    if !unresolved && let Err(problem) = parse_http_url(&filled) {
        let reason = match problem {
            UrlProblem::Invalid(_) | UrlProblem::NotHttpUri(_) | UrlProblem::Blank { .. } => {
                format!("invalid URL: {problem}")
            }
            _ => problem.to_string(),
        };
        return Err(ListProblemKind::BadUrl {
            reason,
            url: secrets::mask_url(spec.url.trim()),
        });
    }
    crate::model::check_limits(spec)?;
    for h in spec.headers.iter().filter(|h| h.enabled) {
        let name = h.name.trim();
        if !is_token(name) {
            return Err(ListProblemKind::BadHeader {
                name: h.name.clone(),
                reason: "the name is not a token (no spaces, colons or quotes)",
            });
        }
        // HTTP allows tab, visible characters and bytes over 0x7f in a value (RFC 9110 §5.5).
        if h.value.chars().any(|c| c.is_ascii_control() && c != '\t') {
            return Err(ListProblemKind::BadHeader {
                name: h.name.clone(),
                reason: "the value holds a control character (line break, NUL, ESC…)",
            });
        }
    }
    if let Some(place) = secrets::masked_places(spec).into_iter().next() {
        return Err(ListProblemKind::MaskedSecret { place });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyValue;

    #[test]
    fn masked_secrets_are_refused_with_their_place() {
        let mut spec = RequestSpec::get("http://127.0.0.1:8080/x?key=***&a=1");
        let place = |s: &RequestSpec| match check_spec(s) {
            Err(ListProblemKind::MaskedSecret { place }) => place,
            other => panic!("{other:?}"),
        };
        assert_eq!(place(&spec), "query parameter key");
        spec.url = "http://alice:***@127.0.0.1:8080/x".into();
        assert_eq!(place(&spec), "the URL's password");
        spec.url = "http://127.0.0.1:8080/x".into();
        spec.headers.push(KeyValue::new("Authorization", "***"));
        assert_eq!(place(&spec), "header Authorization");
        let shown = ListProblemKind::MaskedSecret {
            place: "header Authorization".into(),
        }
        .to_string();
        assert!(
            shown.contains("masked when the file was exported"),
            "{shown}"
        );
        // A value that merely contains stars is the user's.
        spec.headers[0].value = "Bearer a***b".into();
        assert_eq!(check_spec(&spec), Ok(()));
    }

    #[test]
    fn methods_urls_and_headers_are_checked() {
        let ok = RequestSpec::get("http://127.0.0.1:8080/x?id={{uuid}}");
        assert_eq!(check_spec(&ok), Ok(()));
        let mut later = RequestSpec::get("http://{{host}}/x");
        assert_eq!(check_spec(&later), Ok(()), "resolved at send");
        later.method = "GE T".into();
        assert!(matches!(
            check_spec(&later),
            Err(ListProblemKind::BadMethod { .. })
        ));
        let ftp = RequestSpec::get("ftp://u:pw@h/x");
        match check_spec(&ftp) {
            Err(ListProblemKind::BadUrl { url, .. }) => assert_eq!(url, "ftp://***:***@h/x"),
            other => panic!("{other:?}"),
        }
        let mut bad_header = RequestSpec::get("http://127.0.0.1/");
        bad_header.headers.push(KeyValue::new("X Y", "1"));
        assert!(matches!(
            check_spec(&bad_header),
            Err(ListProblemKind::BadHeader { .. })
        ));
        bad_header.headers[0] = KeyValue::new("X-Y", "a\nb");
        assert!(matches!(
            check_spec(&bad_header),
            Err(ListProblemKind::BadHeader { .. })
        ));
    }

    #[test]
    fn a_header_value_with_a_control_character_is_a_bad_line() {
        for value in ["a\u{1b}]0;title\u{7}", "a\rb", "nul\0", "del\u{7f}"] {
            let mut spec = RequestSpec::get("http://127.0.0.1:8080/x");
            spec.headers.push(KeyValue::new("X-A", value));
            assert!(
                matches!(check_spec(&spec), Err(ListProblemKind::BadHeader { .. })),
                "{value:?}"
            );
        }
        let mut spec = RequestSpec::get("http://127.0.0.1:8080/x");
        spec.headers.push(KeyValue::new("X-A", "tab\tand é"));
        assert_eq!(check_spec(&spec), Ok(()));
    }
}
