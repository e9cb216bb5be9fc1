//! URL validation as the user types: absolute `http`/`https` URLs only.

use super::request_draft::UUID_PLACEHOLDER;
use crate::model::url_rule::{UrlProblem, parse_http_url};

/// Why `text` is not a URL the engine can send, or `None` when it is fine.
/// [`UUID_PLACEHOLDER`] counts as a valid value; a URL holding other `{{variables}}` is not
/// judged here (it is checked after resolution, on Send).
pub fn url_problem(text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() {
        return Some("type an absolute URL, e.g. http://127.0.0.1:8080/path".into());
    }
    let filled = text.replace(UUID_PLACEHOLDER, "00000000-0000-0000-0000-000000000000");
    // Other `{{variables}}` are only known at Send, which checks the resolved URL again.
    let no_vars = crate::model::Variables::new();
    if crate::model::resolve_text(&filled, &no_vars, "", "URL").is_err() {
        return None;
    }
    // The engine's own rule, so what the composer accepts is what Send sends.
    match parse_http_url(&filled) {
        Ok(_) => None,
        Err(
            problem @ (UrlProblem::Scheme(_)
            | UrlProblem::NoScheme
            | UrlProblem::NoSlashes(_)
            | UrlProblem::Empty
            | UrlProblem::NoHost),
        ) => Some(problem.to_string()),
        Err(problem) => Some(format!(
            "invalid URL: {problem}; type an absolute http:// or https:// URL"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_http_and_https() {
        assert_eq!(
            url_problem("http://127.0.0.1:8080/status/503?key={{uuid}}"),
            None
        );
        assert_eq!(url_problem("https://example.com"), None);
    }

    #[test]
    fn rejects_relative_and_other_schemes() {
        let e = url_problem("example.com/x").unwrap_or_default();
        assert_eq!(
            e,
            "the URL has no scheme; start it with http:// or https://"
        );
        let e = url_problem("http:/127.0.0.1:8080/x").unwrap_or_default();
        assert_eq!(e, "the URL needs `//` after `http:`; start it with http://");
        let e = url_problem("HTTPS:example.com").unwrap_or_default();
        assert_eq!(
            e,
            "the URL needs `//` after `HTTPS:`; start it with HTTPS://"
        );
        let e = url_problem("ftp://example.com").unwrap_or_default();
        assert!(e.contains("scheme `ftp` is not supported"), "{e}");
        let e = url_problem("http://a b/").unwrap_or_default();
        assert!(e.starts_with("invalid URL: "), "{e}");
        assert!(url_problem("").is_some());
    }
}
