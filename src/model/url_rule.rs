//! The one rule for what URL a request may have (used by the composer as you type and by the
//! engine before sending, so the two never disagree): an absolute `http`/`https` URL with a
//! host that is also a valid HTTP URI (what the HTTP stack sends).

use url::Url;

/// Why `raw` (trimmed) cannot be sent, in lowercase words, or the parsed URL.
///
/// # Errors
/// Empty text, a URL the WHATWG parser refuses, another scheme, no host, or a URL that is not
/// a valid HTTP URI (e.g. a `"` in the host, or longer than 65,534 bytes).
pub fn parse_http_url(raw: &str) -> Result<Url, String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err("the url is empty".into());
    }
    let url = Url::parse(raw).map_err(|e| e.to_string().to_lowercase())?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(format!("scheme `{}` is not supported", url.scheme()));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("the url has no host".into());
    }
    check_http_uri(&url)?;
    Ok(url)
}

/// Whether `url` is also a valid HTTP URI (what reqwest checks before sending).
///
/// # Errors
/// `not a valid http uri (…)`.
pub fn check_http_uri(url: &Url) -> Result<(), String> {
    http::Uri::try_from(url.as_str())
        .map(|_| ())
        .map_err(|e| format!("not a valid http uri ({})", e.to_string().to_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_sent_is_checked() {
        assert!(parse_http_url(" http://127.0.0.1:8080/x?a=1 ").is_ok());
        assert_eq!(
            parse_http_url("ftp://h/").expect_err("refused"),
            "scheme `ftp` is not supported"
        );
        assert_eq!(
            parse_http_url("  ").expect_err("refused"),
            "the url is empty"
        );
        // Found by tests/input_props.rs: the WHATWG parser takes `"` as a host, HTTP does not.
        assert!(
            parse_http_url("http:///\"")
                .expect_err("refused")
                .starts_with("not a valid http uri")
        );
    }
}
