//! The HTTP token rule (RFC 9110 §5.6.2): what a method or a header name may be. Every face
//! and reader that checks a name the user typed (CLI flags, curl commands, batch lists,
//! profiles) asks this one function, so they agree on what is sendable.

/// Whether `text` is a non-empty HTTP token: ASCII letters, digits and ``!#$%&'*+-.^_`|~``.
///
/// ```
/// use retryscope::model::is_http_token;
/// assert!(is_http_token("X-Api-Key"));
/// assert!(!is_http_token("Bad Name"));
/// assert!(!is_http_token(""));
/// ```
pub fn is_http_token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}
