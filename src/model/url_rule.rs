//! The one rule for what URL a request may have (used by the composer as you type, by the
//! CLI and by the engine before sending, so they never disagree): an absolute `http`/`https`
//! URL with a host that is also a valid HTTP URI (what the HTTP stack sends).

use std::fmt;
use url::Url;

/// Why a URL cannot be sent. `Display` gives lowercase words without the URL itself (it may
/// hold a user:password; callers append the masked URL where they show one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlProblem {
    /// Nothing but whitespace.
    Empty,
    /// No `scheme://` at all (`127.0.0.1:8080/x`, `localhost:8080`).
    NoScheme,
    /// `http:` or `https:` (the scheme as written) without the `//` after it (`http:/host`).
    NoSlashes(String),
    /// The WHATWG parser refused it and the URL holds a blank (`http://exa mple.com/`): the
    /// parser's words ("invalid international domain name") would not say so.
    Blank {
        /// What it is: `a space`, `a tab`, `a line break`.
        what: &'static str,
        /// 1-based character position in the trimmed URL.
        at: usize,
    },
    /// The WHATWG parser refused it (its words, lowercase).
    Invalid(String),
    /// A scheme other than `http` / `https` (the scheme as written).
    Scheme(String),
    /// `http://` without a host.
    NoHost,
    /// Parsed, but not a valid HTTP URI (e.g. a `"` in the host, or longer than 65,534 bytes).
    NotHttpUri(String),
}

impl fmt::Display for UrlProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("the URL is empty"),
            Self::NoScheme => {
                f.write_str("the URL has no scheme; start it with http:// or https://")
            }
            Self::NoSlashes(scheme) => write!(
                f,
                "the URL needs `//` after `{scheme}:`; start it with {scheme}://"
            ),
            Self::Blank { what, at } => write!(
                f,
                "the URL contains {what} at character {at} (remove it, or write a space in a path or query as %20)"
            ),
            Self::Invalid(why) => f.write_str(why),
            Self::Scheme(scheme) => write!(
                f,
                "scheme `{scheme}` is not supported; use http:// or https://"
            ),
            Self::NoHost => f.write_str("the URL has no host"),
            Self::NotHttpUri(why) => write!(f, "not a valid http uri ({why})"),
        }
    }
}

/// The parsed URL of `raw` (trimmed), or why it cannot be sent.
///
/// # Errors
/// A [`UrlProblem`].
pub fn parse_http_url(raw: &str) -> Result<Url, UrlProblem> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(UrlProblem::Empty);
    }
    if !raw.contains("://") {
        let scheme = raw.split_once(':').map(|(s, _)| s);
        if let Some(s) = scheme.filter(|s| ["http", "https"].contains(&&*s.to_ascii_lowercase())) {
            return Err(UrlProblem::NoSlashes(s.to_owned()));
        }
        // `localhost:8080` would otherwise read as the scheme `localhost`.
        return Err(UrlProblem::NoScheme);
    }
    let url = Url::parse(raw).map_err(|e| {
        match raw.chars().enumerate().find(|(_, c)| c.is_whitespace()) {
            Some((index, c)) => UrlProblem::Blank {
                what: match c {
                    '\n' | '\r' => "a line break",
                    '\t' => "a tab",
                    ' ' => "a space",
                    _ => "a blank",
                },
                at: index + 1,
            },
            None => UrlProblem::Invalid(e.to_string().to_lowercase()),
        }
    })?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(UrlProblem::Scheme(url.scheme().to_owned()));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(UrlProblem::NoHost);
    }
    check_http_uri(&url)?;
    Ok(url)
}

/// Whether `url` is also a valid HTTP URI (what reqwest checks before sending).
///
/// # Errors
/// [`UrlProblem::NotHttpUri`].
pub fn check_http_uri(url: &Url) -> Result<(), UrlProblem> {
    http::Uri::try_from(url.as_str())
        .map(|_| ())
        .map_err(|e| UrlProblem::NotHttpUri(e.to_string().to_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_sent_is_checked() {
        assert!(parse_http_url(" http://127.0.0.1:8080/x?a=1 ").is_ok());
        assert_eq!(
            parse_http_url("ftp://h/"),
            Err(UrlProblem::Scheme("ftp".into()))
        );
        assert_eq!(parse_http_url("  "), Err(UrlProblem::Empty));
        assert_eq!(
            parse_http_url("localhost:8080/x"),
            Err(UrlProblem::NoScheme)
        );
        assert_eq!(
            parse_http_url("127.0.0.1:8080/x"),
            Err(UrlProblem::NoScheme)
        );
        assert_eq!(
            parse_http_url("http://"),
            Err(UrlProblem::Invalid("empty host".into()))
        );
        // Found by tests/input_props.rs: the WHATWG parser takes `"` as a host, HTTP does not.
        assert!(matches!(
            parse_http_url("http:///\""),
            Err(UrlProblem::NotHttpUri(_))
        ));
    }

    #[test]
    fn a_blank_in_the_host_is_said_as_a_blank_not_as_an_idna_error() {
        let e = parse_http_url("http://exa mple.com/").expect_err("a space in the host");
        assert_eq!(
            e,
            UrlProblem::Blank {
                what: "a space",
                at: 11
            }
        );
        assert_eq!(
            e.to_string(),
            "the URL contains a space at character 11 (remove it, or write a space in a path or query as %20)"
        );
        assert!(!e.to_string().contains("international"), "{e}");
        // A space in a path is sent as %20 by the URL parser: not a problem.
        assert!(parse_http_url("http://127.0.0.1:8080/a b").is_ok());
    }

    #[test]
    fn the_words_never_repeat_the_url() {
        let e = parse_http_url("user:pass@host/x").expect_err("no scheme");
        assert!(!e.to_string().contains("pass"), "{e}");
    }
}
