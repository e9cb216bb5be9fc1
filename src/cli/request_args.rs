//! Turning `run`'s curl-like flags into a [`RequestSpec`].

use super::exit::CliError;
use crate::model::quote::quote_input;
use crate::model::{Body, KeyValue, RequestSpec};

/// A malformed `-H` text as a message quotes it: up to its first space or `=`, then `…`. Where
/// the colon is missing nobody knows where the name ends, and what follows it may be a secret
/// (`Authorization Bearer …`, `X-Api-Key=…`).
fn header_head(raw: &str) -> String {
    let raw = raw.trim();
    match raw.find(|c: char| c.is_whitespace() || c == '=') {
        Some(at) => format!("{}…", quote_input(&raw[..at])),
        None => quote_input(raw),
    }
}

/// Parses `-H 'Name: value'`.
///
/// # Errors
/// Exit 2 when there is no colon or the name is not a valid header name.
pub fn parse_header(raw: &str) -> Result<KeyValue, CliError> {
    let Some((name, value)) = raw.split_once(':') else {
        return Err(CliError::usage(format!(
            "header `{}` has no colon; write it as -H 'Name: value'",
            header_head(raw)
        )));
    };
    let name = name.trim();
    if !crate::model::is_http_token(name) {
        return Err(CliError::usage(format!(
            "`{}` is not a valid header name; write it as -H 'Name: value'",
            header_head(name)
        )));
    }
    let value = value.trim();
    if let Some(problem) = one_line_problem(value) {
        return Err(CliError::usage(format!(
            "-H {name}: the header value {problem}; a header value is one line (was the quote closed too late?)"
        )));
    }
    Ok(KeyValue::new(name, value))
}

/// What keeps `value` from being one header line (a tab is allowed there): see
/// [`crate::model::quote::control_problem`]. `-H` and `--idempotency-key` say it before
/// anything is sent.
pub fn one_line_problem(value: &str) -> Option<String> {
    crate::model::quote::control_problem(value, true)
}

/// Checks that `url` is an absolute `http://` or `https://` URL.
///
/// # Errors
/// Exit 2 naming the URL and what is wrong.
pub fn check_url(url: &str) -> Result<(), CliError> {
    crate::model::url_rule::parse_http_url(url)
        .map(|_| ())
        .map_err(|why| {
            let url = url.trim();
            // After a blank can come anything (a pasted command's headers and passwords):
            // the URL is shown up to its first blank only.
            let head = match why {
                crate::model::url_rule::UrlProblem::Blank { .. } => {
                    url.split(char::is_whitespace).next().unwrap_or_default()
                }
                _ => url,
            };
            let mut shown = quote_input(&crate::model::secrets::mask_url(head));
            if head.len() < url.len() {
                shown.push('…');
            }
            if shown.is_empty() {
                CliError::usage(format!("{why}; give an absolute http:// or https:// URL"))
            } else if head == "curl" {
                CliError::usage(format!(
                    "invalid URL: {why}: {shown} (a whole curl command goes alone after `retryscope curl`; put no other option around it)"
                ))
            } else {
                CliError::usage(format!("invalid URL: {why}: {shown}"))
            }
        })
}

/// The file of `-d @FILE` is checked before anything is sent (`run`, `curl`): it exists, is a
/// regular file and is not over the body size limit.
///
/// # Errors
/// Exit 2 naming the file once: `FILE: cannot read body file: REASON`.
pub fn check_data_file(path: &str) -> Result<(), CliError> {
    crate::service::body_files::check_data_file(path).map_err(|e| CliError::usage(e.to_string()))
}

/// The body of `-d DATA` / `-d @FILE`; the Content-Type comes from a `-H Content-Type` if any.
///
/// # Errors
/// Exit 2 when `@FILE` is unreadable, a directory, not a regular file, or over the body size limit.
pub fn body_from_data(data: &str, headers: &[KeyValue]) -> Result<Body, CliError> {
    let content_type = headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-type"))
        .map(|h| h.value.clone());
    if let Some(path) = data.strip_prefix('@') {
        check_data_file(path)?;
        return Ok(Body::File {
            path: path.to_owned(),
            content_type,
        });
    }
    Ok(Body::Text {
        text: data.to_owned(),
        content_type,
    })
}

/// Builds the request: method (`-X`, else POST with `-d`, else GET), headers, body.
///
/// # Errors
/// Exit 2 for a bad URL, header or body file.
pub fn build_spec(
    url: &str,
    method: Option<&str>,
    raw_headers: &[String],
    data: Option<&str>,
) -> Result<RequestSpec, CliError> {
    check_url(url)?;
    let mut spec = RequestSpec::get(url);
    spec.headers = raw_headers
        .iter()
        .map(|h| parse_header(h))
        .collect::<Result<_, _>>()?;
    if let Some(data) = data {
        spec.body = body_from_data(data, &spec.headers)?;
        spec.method = "POST".into();
    }
    if let Some(m) = method {
        if m.is_empty()
            || !m
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
        {
            return Err(CliError::usage(format!(
                "`{}` is not a valid HTTP method",
                quote_input(m)
            )));
        }
        spec.method = crate::model::standard_method_case(m);
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_malformed_header_is_quoted_without_what_may_be_its_secret() {
        let err = parse_header("Authorization Bearer s3cr3tZZ").expect_err("no colon");
        assert_eq!(
            err.message,
            "header `Authorization…` has no colon; write it as -H 'Name: value'"
        );
        let err = parse_header("X-Api-Key=k3yk3yZZ").expect_err("no colon");
        assert!(!err.message.contains("k3y"), "{}", err.message);
        let err = parse_header("Authorization Bearer s3cr3tZZ: x").expect_err("bad name");
        assert_eq!(
            err.message,
            "`Authorization…` is not a valid header name; write it as -H 'Name: value'"
        );
        let err = parse_header("NoColon").expect_err("no colon");
        assert!(err.message.contains("`NoColon`"), "{}", err.message);
    }

    #[test]
    fn a_url_with_a_blank_is_shown_up_to_it_only() {
        let pasted = "curl -H 'Authorization: Bearer s3cr3tZZ' http://127.0.0.1:9/x";
        let err = check_url(pasted).expect_err("a blank");
        assert!(!err.message.contains("s3cr3t"), "{}", err.message);
        assert!(err.message.contains(": curl… ("), "{}", err.message);
        assert!(err.message.contains("goes alone after `retryscope curl`"));
        let err = check_url("http://exa mple.com/?token=z").expect_err("a blank");
        assert!(err.message.ends_with(": http://exa…"), "{}", err.message);
    }

    #[test]
    fn a_header_value_with_a_line_break_says_where() {
        let err = parse_header("X-Token: abc\ndef").expect_err("two lines");
        assert_eq!(
            err.message,
            "-H X-Token: the header value contains a line break at character 4; a header value is one line (was the quote closed too late?)"
        );
        assert_eq!(
            one_line_problem("a\u{7}b").as_deref(),
            Some("contains a control character (U+0007) at character 2")
        );
        assert_eq!(one_line_problem("a\tb c"), None);
        assert!(parse_header("X-Token: abc def").is_ok());
    }

    #[test]
    fn data_implies_post_unless_x() {
        let s = build_spec("http://127.0.0.1:1/", None, &[], Some("a=1")).expect("valid");
        assert_eq!(s.method, "POST");
        let s = build_spec("http://127.0.0.1:1/", Some("PUT"), &[], Some("a=1")).expect("valid");
        assert_eq!(s.method, "PUT");
        let s = build_spec("http://127.0.0.1:1/", None, &[], None).expect("valid");
        assert_eq!(s.method, "GET");
    }

    #[test]
    fn standard_methods_are_upper_cased_and_others_kept() {
        let m = |x| build_spec("http://127.0.0.1:1/", Some(x), &[], None).map(|s| s.method);
        assert_eq!(m("get").expect("valid"), "GET");
        assert_eq!(m("Patch").expect("valid"), "PATCH");
        assert_eq!(m("purge").expect("valid"), "purge");
    }

    #[test]
    fn rejects_bad_input() {
        assert!(parse_header("NoColon").is_err());
        assert!(parse_header("Bad Name: x").is_err());
        assert_eq!(parse_header("X-A:  b ").expect("valid").value, "b");
        assert!(check_url("example.com/x").is_err());
        assert!(check_url("ftp://127.0.0.1/").is_err());
        let err = check_url("ftp://u:s3cret@127.0.0.1/").expect_err("ftp");
        assert!(err.message.contains("ftp://***:***@"), "{err:?}");
        let empty = check_url("").expect_err("empty");
        assert!(empty.message.starts_with("the URL is empty"), "{empty:?}");
        let dir = std::env::temp_dir();
        let err = body_from_data(&format!("@{}", dir.display()), &[]).expect_err("a directory");
        assert!(err.message.contains("is a directory"), "{err:?}");
        assert!(build_spec("http://127.0.0.1/", Some("GE T"), &[], None).is_err());
    }
}
