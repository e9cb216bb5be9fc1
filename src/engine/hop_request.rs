//! One request on the wire, built once per run from the spec and rebuilt into a fresh
//! `reqwest::Request` for every attempt and hop.

use super::phase_probe::{PhaseProbe, timed_body};
use super::spec_error::SpecError;
use crate::model::{Body, RequestSpec};
use bytes::Bytes;
use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, Url};
use std::sync::Arc;

/// Method, URL, headers and body bytes of one hop. Cloning is cheap (`Bytes` is shared), so the
/// same body bytes go out on every attempt.
#[derive(Debug, Clone)]
pub(crate) struct HopRequest {
    /// Method sent.
    pub(crate) method: Method,
    /// Absolute URL, query rows appended.
    pub(crate) url: Url,
    /// Headers sent (Content-Type and Idempotency-Key included).
    pub(crate) headers: HeaderMap,
    /// Body bytes, if any.
    pub(crate) body: Option<Bytes>,
}

impl HopRequest {
    /// Validates the spec and reads the body (a file is read here, once, before attempt 1).
    ///
    /// # Errors
    /// [`SpecError`] naming the bad field.
    pub(crate) async fn from_spec(spec: &RequestSpec) -> Result<Self, SpecError> {
        let (method, url, mut headers) = head(spec)?;
        let (body, content_type) = read_body(&spec.body).await?;
        if let Some(content_type) = content_type
            && !headers.contains_key(header::CONTENT_TYPE)
        {
            let value = HeaderValue::from_str(&content_type)
                .map_err(|_| SpecError::ContentType(content_type.clone()))?;
            headers.insert(header::CONTENT_TYPE, value);
        }
        Ok(Self {
            method,
            url,
            headers,
            body,
        })
    }

    /// A fresh `reqwest::Request` for this hop. Credentials in the URL (`user:password@`) are
    /// moved into an `Authorization: Basic` header (unless the request sets its own), as
    /// browsers and curl do; `self.url` keeps them so events can show the URL (redacted).
    #[cfg(test)]
    pub(crate) fn to_request(&self) -> reqwest::Request {
        self.build_request(None)
    }

    /// [`Self::to_request`] whose body (when not empty) notes in `probe` when it has been
    /// handed to the connection in full, for the "request sent" phase.
    pub(crate) fn to_timed_request(&self, probe: &Arc<PhaseProbe>) -> reqwest::Request {
        self.build_request(Some(probe))
    }

    fn build_request(&self, probe: Option<&Arc<PhaseProbe>>) -> reqwest::Request {
        let mut url = self.url.clone();
        let credentials = take_credentials(&mut url);
        let mut request = reqwest::Request::new(self.method.clone(), url);
        *request.headers_mut() = self.headers.clone();
        if let Some(value) = credentials
            && !request.headers().contains_key(header::AUTHORIZATION)
        {
            request.headers_mut().insert(header::AUTHORIZATION, value);
        }
        *request.body_mut() = self.body.clone().map(|bytes| match probe {
            Some(probe) if !bytes.is_empty() => timed_body(bytes, Arc::clone(probe)),
            _ => reqwest::Body::from(bytes),
        });
        request
    }

    /// The request for the hop after a `status` redirect to `to`.
    ///
    /// Method rules (as browsers and RFC 9110 §15.4 practice): 303 turns any method but HEAD into
    /// GET without a body; 301 and 302 turn POST into GET without a body and keep other methods;
    /// 307 and 308 keep method and body. When the redirect leaves the origin (scheme, host,
    /// port), every secret header is dropped unless `keep_secrets` (curl's
    /// `--location-trusted`): `Authorization`, `Cookie`, `Proxy-Authorization` and every value
    /// marked sensitive (the secrets rule's names, rows the user marked, URL credentials, which
    /// are moved into the `Authorization` header they stand for). Returns the request and the names of the headers dropped (lowercase, as HTTP/2 sends them).
    pub(crate) fn redirected(
        &self,
        status: u16,
        to: Url,
        keep_secrets: bool,
    ) -> (Self, Vec<String>) {
        let mut next = self.clone();
        let to_get = match status {
            303 => self.method != Method::HEAD,
            301 | 302 => self.method == Method::POST,
            _ => false,
        };
        if to_get {
            next.method = Method::GET;
            next.body = None;
            for name in [
                header::CONTENT_TYPE,
                header::CONTENT_LENGTH,
                header::TRANSFER_ENCODING,
            ] {
                next.headers.remove(name);
            }
        }
        // URL credentials travel as the Authorization header they become, so the rules below
        // keep them on the same origin (or when trusted) and name them when dropped.
        if !next.headers.contains_key(header::AUTHORIZATION)
            && let Some(value) = take_credentials(&mut next.url)
        {
            next.headers.insert(header::AUTHORIZATION, value);
        }
        let mut dropped = Vec::new();
        if !keep_secrets && self.url.origin() != to.origin() {
            let credential = |name: &HeaderName| {
                [
                    header::AUTHORIZATION,
                    header::COOKIE,
                    header::PROXY_AUTHORIZATION,
                ]
                .contains(name)
            };
            for (name, value) in &next.headers {
                if (credential(name) || value.is_sensitive())
                    && !dropped.iter().any(|d: &HeaderName| d == name)
                {
                    dropped.push(name.clone());
                }
            }
            for name in &dropped {
                next.headers.remove(name);
            }
        }
        next.url = to;
        let names = dropped.iter().map(|n| n.as_str().to_owned()).collect();
        (next, names)
    }
}

/// Everything `HopRequest::from_spec` checks except reading a body file, without building
/// anything to send: method, URL (absolute http/https, and a valid HTTP URI once the query
/// rows are appended), header names and values, the idempotency key and the body's content
/// type. Synchronous, so a front end can reject a bad request before starting a run.
///
/// # Errors
/// [`SpecError`] naming the bad field.
pub fn check_spec(spec: &RequestSpec) -> Result<(), SpecError> {
    let (_, _, headers) = head(spec)?;
    if let Body::Multipart { parts } = &spec.body {
        super::multipart::check_parts(parts)?;
    }
    if let Some(content_type) = declared_content_type(&spec.body)
        && !headers.contains_key(header::CONTENT_TYPE)
    {
        HeaderValue::from_str(&content_type).map_err(|_| SpecError::ContentType(content_type))?;
    }
    Ok(())
}

/// The content type a body declares (or gets by default), without reading a body file.
fn declared_content_type(body: &Body) -> Option<String> {
    match body {
        Body::None => None,
        Body::Text { content_type, .. } => Some(
            content_type
                .clone()
                .unwrap_or_else(|| "text/plain; charset=utf-8".into()),
        ),
        Body::Json { .. } => Some("application/json".into()),
        Body::Form { .. } => Some("application/x-www-form-urlencoded".into()),
        Body::File { content_type, .. } => Some(
            content_type
                .clone()
                .unwrap_or_else(|| "application/octet-stream".into()),
        ),
        // The boundary is chosen when the body is encoded; it never holds control characters.
        Body::Multipart { .. } => Some("multipart/form-data".into()),
    }
}

/// Method, URL and headers (idempotency key included) of the spec, validated.
fn head(spec: &RequestSpec) -> Result<(Method, Url, HeaderMap), SpecError> {
    crate::model::check_limits(spec)?;
    let method = parse_method(&spec.method)?;
    let url = parse_url(spec)?;
    let mut headers = HeaderMap::new();
    for (index, row) in spec.headers.iter().enumerate().filter(|(_, h)| h.enabled) {
        let name = HeaderName::from_bytes(row.name.trim().as_bytes()).map_err(|_| {
            SpecError::HeaderName {
                index,
                name: row.name.clone(),
            }
        })?;
        let mut value =
            HeaderValue::from_bytes(row.value.as_bytes()).map_err(|_| SpecError::HeaderValue {
                index,
                name: row.name.clone(),
            })?;
        value.set_sensitive(row.is_secret());
        headers.append(name, value);
    }
    if let Some(key) = &spec.idempotency_key {
        let value =
            HeaderValue::from_bytes(key.as_bytes()).map_err(|_| SpecError::IdempotencyKey)?;
        headers.insert(HeaderName::from_static("idempotency-key"), value);
    }
    Ok((method, url, headers))
}

/// Removes `user:password@` from `url` and returns it as a sensitive `Basic` header value
/// (RFC 7617: base64 of `user:password`, both percent-decoded), or `None` when there is none.
fn take_credentials(url: &mut Url) -> Option<HeaderValue> {
    use base64::Engine as _;
    if url.username().is_empty() && url.password().is_none() {
        return None;
    }
    let decode = |s: &str| percent_encoding::percent_decode_str(s).collect::<Vec<u8>>();
    let mut pair = decode(url.username());
    pair.push(b':');
    pair.extend(decode(url.password().unwrap_or("")));
    // Both only fail for URLs that cannot carry credentials, which never have any.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
    let mut value = HeaderValue::from_str(&format!("Basic {encoded}")).ok()?;
    value.set_sensitive(true);
    Some(value)
}

/// A method token, as typed (methods are case-sensitive).
fn parse_method(raw: &str) -> Result<Method, SpecError> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(SpecError::Method(raw.to_owned()));
    }
    Method::from_bytes(trimmed.as_bytes()).map_err(|_| SpecError::Method(raw.to_owned()))
}

/// The absolute http(s) URL with enabled query rows appended.
fn parse_url(spec: &RequestSpec) -> Result<Url, SpecError> {
    let raw = spec.url.trim();
    let bad = |problem: crate::model::url_rule::UrlProblem| SpecError::Url {
        url: crate::model::quote::quote_input(&crate::model::secrets::mask_url(&spec.url)),
        reason: problem.to_string(),
    };
    let mut url = crate::model::url_rule::parse_http_url(raw).map_err(bad)?;
    let rows: Vec<_> = spec.query.iter().filter(|q| q.enabled).collect();
    if !rows.is_empty() {
        let mut pairs = url.query_pairs_mut();
        for row in rows {
            pairs.append_pair(&row.name, &row.value);
        }
    }
    // Again with the query rows appended: a URL that is no valid HTTP URI (e.g. longer than
    // 65,534 bytes) would fail every attempt.
    crate::model::url_rule::check_http_uri(&url).map_err(bad)?;
    Ok(url)
}

/// Body bytes and the default content type for the body kind.
async fn read_body(body: &Body) -> Result<(Option<Bytes>, Option<String>), SpecError> {
    Ok(match body {
        Body::None => (None, None),
        Body::Text { text, content_type } => (
            Some(Bytes::from(text.clone())),
            Some(
                content_type
                    .clone()
                    .unwrap_or_else(|| "text/plain; charset=utf-8".into()),
            ),
        ),
        Body::Json { text } => (
            Some(Bytes::from(text.clone())),
            Some("application/json".into()),
        ),
        Body::Form { fields } => {
            let encoded = form_urlencoded::Serializer::new(String::new())
                .extend_pairs(
                    fields
                        .iter()
                        .filter(|f| f.enabled)
                        .map(|f| (&f.name, &f.value)),
                )
                .finish();
            (
                Some(Bytes::from(encoded)),
                Some("application/x-www-form-urlencoded".into()),
            )
        }
        Body::File { path, content_type } => {
            // Read off the runtime's threads (what `tokio::fs::read` does), with a size limit.
            let owned = path.clone();
            let bytes =
                tokio::task::spawn_blocking(move || super::body_file::read_body_file(&owned))
                    .await
                    .unwrap_or_else(|e| {
                        Err(SpecError::BodyFile {
                            path: path.clone(),
                            reason: e.to_string().to_lowercase(),
                        })
                    })?;
            (
                Some(Bytes::from(bytes)),
                Some(
                    content_type
                        .clone()
                        .unwrap_or_else(|| "application/octet-stream".into()),
                ),
            )
        }
        Body::Multipart { parts } => {
            let owned = parts.clone();
            let encoded = tokio::task::spawn_blocking(move || {
                super::multipart::encode(&owned, &super::multipart::new_boundary())
            })
            .await
            .unwrap_or_else(|e| {
                Err(SpecError::PartFile {
                    index: 0,
                    path: String::new(),
                    reason: e.to_string().to_lowercase(),
                })
            })?;
            (Some(Bytes::from(encoded.bytes)), Some(encoded.content_type))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyValue;

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(f)
    }

    #[test]
    fn query_rows_are_appended_and_disabled_rows_skipped() {
        let mut spec = RequestSpec::get("http://127.0.0.1:9/x?a=1");
        spec.query.push(KeyValue::new("b", "two words"));
        let mut off = KeyValue::new("c", "3");
        off.enabled = false;
        spec.query.push(off);
        let hop = block_on(HopRequest::from_spec(&spec)).expect("valid");
        assert_eq!(hop.url.as_str(), "http://127.0.0.1:9/x?a=1&b=two+words");
    }

    #[test]
    fn bad_method_url_and_header_name_the_field() {
        let mut spec = RequestSpec::get("http://127.0.0.1:9/");
        spec.method = "GE T".into();
        let err = block_on(HopRequest::from_spec(&spec)).expect_err("bad method");
        assert!(err.to_string().contains("`GE T` in method"), "{err}");

        let spec = RequestSpec::get("ftp://127.0.0.1/");
        let err = block_on(HopRequest::from_spec(&spec)).expect_err("bad scheme");
        assert!(err.to_string().contains("scheme `ftp`"), "{err}");

        let spec = RequestSpec::get("not a url");
        let err = block_on(HopRequest::from_spec(&spec)).expect_err("bad url");
        assert!(err.to_string().contains("in url"), "{err}");

        let mut spec = RequestSpec::get("http://127.0.0.1:9/");
        spec.headers.push(KeyValue::new("X Bad", "v"));
        let err = block_on(HopRequest::from_spec(&spec)).expect_err("bad header");
        assert!(err.to_string().contains("`X Bad` in headers[0]"), "{err}");

        let mut spec = RequestSpec::get("http://127.0.0.1:9/");
        spec.headers.push(KeyValue::new("X-Ok", "line\nbreak"));
        let err = block_on(HopRequest::from_spec(&spec)).expect_err("bad value");
        assert!(err.to_string().contains("`X-Ok` in headers[0]"), "{err}");
    }

    #[test]
    fn bodies_get_their_default_content_type_unless_a_header_sets_one() {
        let mut spec = RequestSpec::get("http://127.0.0.1:9/");
        let mut off = KeyValue::new("skip", "me");
        off.enabled = false;
        spec.body = Body::Form {
            fields: vec![KeyValue::new("a b", "c&d"), off],
        };
        let hop = block_on(HopRequest::from_spec(&spec)).expect("valid");
        assert_eq!(hop.body.as_deref(), Some(&b"a+b=c%26d"[..]));
        assert_eq!(
            hop.headers[header::CONTENT_TYPE],
            "application/x-www-form-urlencoded"
        );

        spec.body = Body::Text {
            text: "hi".into(),
            content_type: None,
        };
        let hop = block_on(HopRequest::from_spec(&spec)).expect("valid");
        assert_eq!(
            hop.headers[header::CONTENT_TYPE],
            "text/plain; charset=utf-8"
        );

        spec.headers.push(KeyValue::new("Content-Type", "text/csv"));
        let hop = block_on(HopRequest::from_spec(&spec)).expect("valid");
        assert_eq!(hop.headers[header::CONTENT_TYPE], "text/csv");
    }

    #[test]
    fn a_bad_secret_header_value_is_not_quoted_in_the_error() {
        let mut spec = RequestSpec::get("http://127.0.0.1:9/");
        spec.headers
            .push(KeyValue::new("Authorization", "Bearer s3cr3t\r\n"));
        let err = block_on(HopRequest::from_spec(&spec)).expect_err("bad value");
        assert!(!err.to_string().contains("s3cr3t"), "{err}");
    }

    #[test]
    fn the_idempotency_key_field_is_sent_as_a_header() {
        let mut spec = RequestSpec::get("http://127.0.0.1:9/");
        spec.idempotency_key = Some("k-1".into());
        let hop = block_on(HopRequest::from_spec(&spec)).expect("valid");
        assert_eq!(hop.headers["idempotency-key"], "k-1");
    }

    #[test]
    fn unreadable_body_file_names_the_path() {
        let mut spec = RequestSpec::get("http://127.0.0.1:9/");
        spec.body = Body::File {
            path: "/definitely/not/here.bin".into(),
            content_type: None,
        };
        let err = block_on(HopRequest::from_spec(&spec)).expect_err("missing file");
        assert!(
            err.to_string().contains("/definitely/not/here.bin"),
            "{err}"
        );
    }

    #[test]
    fn redirect_rules_follow_browsers() {
        let mut spec = RequestSpec::get("http://127.0.0.1:9/a");
        spec.method = "POST".into();
        spec.body = Body::Json { text: "{}".into() };
        spec.headers
            .push(KeyValue::new("Authorization", "Bearer x"));
        let post = block_on(HopRequest::from_spec(&spec)).expect("valid");
        let same = Url::parse("http://127.0.0.1:9/b").expect("url");
        let other = Url::parse("http://127.0.0.2:9/b").expect("url");

        let r = post.redirected(303, same.clone(), false).0;
        assert_eq!((r.method.as_str(), r.body.is_none()), ("GET", true));
        assert!(r.headers.get(header::CONTENT_TYPE).is_none());
        assert!(r.headers.get(header::AUTHORIZATION).is_some());

        let r = post.redirected(302, same.clone(), false).0;
        assert_eq!(r.method, Method::GET);

        let r = post.redirected(307, same.clone(), false).0;
        assert_eq!(
            (r.method.as_str(), r.body.as_deref()),
            ("POST", Some(&b"{}"[..]))
        );

        let r = post.redirected(308, other, false).0;
        assert_eq!(r.method, Method::POST);
        assert!(
            r.headers.get(header::AUTHORIZATION).is_none(),
            "credentials dropped cross-origin"
        );

        let mut put = post.clone();
        put.method = Method::PUT;
        assert_eq!(put.redirected(301, same, false).0.method, Method::PUT);
    }

    #[test]
    fn check_spec_catches_bad_requests_without_reading_the_body_file() {
        let mut ok = RequestSpec::get("http://127.0.0.1:9/");
        ok.body = Body::File {
            path: "/definitely/not/here.bin".into(),
            content_type: None,
        };
        assert_eq!(check_spec(&ok), Ok(()));

        let err = check_spec(&RequestSpec::get("")).expect_err("empty url");
        assert!(err.to_string().contains("the URL is empty"), "{err}");

        let long = format!("http://127.0.0.1:9/{}", "a".repeat(70_000));
        let err = check_spec(&RequestSpec::get(&long)).expect_err("too long for a uri");
        let text = err.to_string();
        assert!(text.contains("not a valid http uri"), "{text}");
        assert!(
            text.len() < 500,
            "the url is shortened: {} chars",
            text.len()
        );

        let mut spec = RequestSpec::get("http://127.0.0.1:9/");
        spec.headers.push(KeyValue::new("X-A", "a\nb"));
        assert!(matches!(
            check_spec(&spec),
            Err(SpecError::HeaderValue { .. })
        ));

        let mut spec = RequestSpec::get("http://127.0.0.1:9/");
        spec.idempotency_key = Some("a\nb".into());
        assert_eq!(check_spec(&spec), Err(SpecError::IdempotencyKey));
    }

    #[test]
    fn url_credentials_become_a_basic_header_and_leave_the_url() {
        let spec = RequestSpec::get("http://us%20er:p%40ss@127.0.0.1:9/x");
        let hop = block_on(HopRequest::from_spec(&spec)).expect("valid");
        let request = hop.to_request();
        assert_eq!(request.url().as_str(), "http://127.0.0.1:9/x");
        // base64("us er:p@ss")
        assert_eq!(
            request.headers()[header::AUTHORIZATION],
            "Basic dXMgZXI6cEBzcw=="
        );
        assert_eq!(hop.url.password(), Some("p%40ss"), "kept for the events");

        let same = Url::parse("http://127.0.0.1:9/y").expect("url");
        let (kept, dropped) = hop.redirected(302, same, false);
        assert!(dropped.is_empty());
        assert_eq!(
            kept.to_request().headers()[header::AUTHORIZATION],
            "Basic dXMgZXI6cEBzcw==",
            "the same origin keeps URL credentials"
        );
        let other = Url::parse("http://localhost:9/y").expect("url");
        let (left, dropped) = hop.redirected(302, other.clone(), false);
        assert_eq!(
            dropped,
            ["authorization"],
            "dropped URL credentials are named"
        );
        assert!(
            !left
                .to_request()
                .headers()
                .contains_key(header::AUTHORIZATION)
        );
        let (trusted, dropped) = hop.redirected(302, other, true);
        assert!(dropped.is_empty());
        assert_eq!(
            trusted.to_request().headers()[header::AUTHORIZATION],
            "Basic dXMgZXI6cEBzcw==",
            "--location-trusted keeps URL credentials"
        );

        let mut own = spec.clone();
        own.headers.push(KeyValue::new("Authorization", "Bearer t"));
        let hop = block_on(HopRequest::from_spec(&own)).expect("valid");
        assert_eq!(
            hop.to_request().headers()[header::AUTHORIZATION],
            "Bearer t"
        );
    }
}
