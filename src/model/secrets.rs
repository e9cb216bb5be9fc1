//! The one secrets rule (DESIGN.md §9): what is secret, and how it is masked, for every writer —
//! CLI text and JSON, the window, history, exports, error messages and persisted state.
//!
//! Secret are the values of:
//! - headers named `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, or whose
//!   name contains `token`, `secret`, `api-key`, `apikey`, `api_key`, `password`, `session`,
//!   `signature` or `credential`, or ends in `-key` / `_key` (not `Idempotency-Key`,
//!   `Sec-WebSocket-Key`) ([`is_secret_header`]);
//! - query parameters (and form fields) named `token`, `access_token`, `refresh_token`,
//!   `id_token`, `api_key`, `api-key`, `apikey`, `key`, `sig`, `signature`, `password`,
//!   `passwd`, `secret`, `client_secret`, `code`, `auth`, `session`, `subscription-key`,
//!   `access_key`, `access-key`, `secret_key`, or containing one of the header words
//!   ([`is_secret_param`]);
//! - rows and variables marked secret;
//! - the URL's user name and password;
//! - the same places in a URL held by a query or fragment value (`?to=/next?token=…`,
//!   `?redirect=http://user:pw@host/`), at any depth ([`is_url_shaped`]): a redirect target
//!   or callback carries its secrets in clear however its parameter is named.
//!
//! A masked value reads [`MASK`]; names stay visible. Pure: no I/O.

use super::attempt::AttemptOutcome;
use super::event::RunEvent;
use super::request::{Body, KeyValue, RequestSpec};
use super::variables::{mask_event_secrets, mask_secret_values};
use base64::Engine as _;

/// What a secret value is shown as.
pub const MASK: &str = "***";

/// Secret values shorter than this are masked where they stand (header value, query value,
/// URL user) but not searched for in free text (bodies, messages, other headers): hiding every
/// `user` or `json` in a body would mangle the output (`***-agent`, `application/***`) without
/// protecting much; credentials are longer.
pub const MIN_SEARCHED_LEN: usize = 6;

const SECRET_HEADERS: [&str; 4] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];
const SECRET_HEADER_PARTS: [&str; 9] = [
    "token",
    "secret",
    "api-key",
    "apikey",
    "api_key",
    "password",
    "session",
    "signature",
    // AWS presigned `X-Amz-Credential`, Google `X-Goog-Credential`.
    "credential",
];
/// Header names ending in `-key` or `_key` are secret (Azure API Management's
/// `Ocp-Apim-Subscription-Key`, Azure Functions' `x-functions-key`, `X-Access-Key`,
/// Cloudflare's `X-Auth-Key`, Datadog's `DD-Application-Key`), except these, which name no
/// credential.
const NOT_SECRET_KEY_HEADERS: [&str; 3] =
    ["idempotency-key", "x-idempotency-key", "sec-websocket-key"];
const SECRET_PARAMS: [&str; 21] = [
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "api_key",
    "apikey",
    "key",
    "sig",
    "signature",
    "password",
    "passwd",
    "secret",
    "client_secret",
    "code",
    "auth",
    "session",
    // Spelled with a dash by some APIs; the same credential as `api_key`.
    "api-key",
    // Azure API Management's query form of its subscription key.
    "subscription-key",
    "access_key",
    "access-key",
    "secret_key",
];

/// Whether a header named `name` (any case, surrounding spaces ignored) carries a secret value.
///
/// ```
/// use retryscope::model::secrets::is_secret_header;
/// assert!(is_secret_header("Set-Cookie"));
/// assert!(is_secret_header("X-Session-Id"));
/// assert!(!is_secret_header("Content-Type"));
/// ```
pub fn is_secret_header(name: &str) -> bool {
    let n = name.trim().to_ascii_lowercase();
    SECRET_HEADERS.contains(&n.as_str())
        || SECRET_HEADER_PARTS.iter().any(|p| n.contains(p))
        || ((n.ends_with("-key") || n.ends_with("_key"))
            && !NOT_SECRET_KEY_HEADERS.contains(&n.as_str()))
}

/// Whether a query parameter or form field named `name` carries a secret value: one of the
/// §9 names exactly, or a name containing one of the secret header words (`auth_token`,
/// `x-api-key`, `session_id`); any case, percent-decoded.
///
/// ```
/// use retryscope::model::secrets::is_secret_param;
/// assert!(is_secret_param("SIG"));
/// assert!(is_secret_param("access%5Ftoken"));
/// assert!(!is_secret_param("keys"));
/// ```
pub fn is_secret_param(name: &str) -> bool {
    let decoded = percent_encoding::percent_decode_str(name.trim()).decode_utf8_lossy();
    let n = decoded.trim().to_ascii_lowercase();
    SECRET_PARAMS.contains(&n.as_str()) || SECRET_HEADER_PARTS.iter().any(|p| n.contains(p))
}

/// The value to show for header `name`: `value`, or [`MASK`] when the header is secret (by
/// name, or `marked` secret).
pub fn shown_header_value<'a>(name: &str, value: &'a str, marked: bool) -> &'a str {
    if marked || is_secret_header(name) {
        MASK
    } else {
        value
    }
}

/// `url` with its user name, password and secret query/fragment parameter values replaced by
/// [`MASK`]. Works on absolute URLs, relative ones (`/x?token=…`, e.g. a `Location`) and
/// strings that do not parse.
///
/// ```
/// use retryscope::model::secrets::mask_url;
/// assert_eq!(
///     mask_url("http://tok@127.0.0.1:9/x?sig=S&x=1"),
///     "http://***@127.0.0.1:9/x?sig=***&x=1"
/// );
/// assert_eq!(mask_url("http://u:p@h/"), "http://***:***@h/");
/// assert_eq!(mask_url("/next?code=abc"), "/next?code=***");
/// // User info without `//` before it (a URL refused for that) is masked too.
/// assert_eq!(mask_url("http:/u:p@h/x?token=t"), "http:/***:***@h/x?token=***");
/// assert_eq!(mask_url("u@h:1/x"), "***@h:1/x");
/// assert_eq!(mask_url("http://h/a b?sig=S"), "http://h/a b?sig=***");
/// ```
pub fn mask_url(url: &str) -> String {
    // A URL string is one token, even with characters a URL should not hold (a space in a
    // path typed by hand): mask all of it, not only up to the first space as in free text.
    if let Some(found) = url.find("://") {
        let start = found + 3;
        return format!(
            "{}{}",
            &url[..start],
            mask_authority_and_rest(&url[start..])
        );
    }
    // `http:/user:pw@host` or `user:pw@host`: user info without `//` before it.
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let Some(at) = url[..end].rfind('@') else {
        return mask_path_and_query(url);
    };
    let start = url[..at].rfind('/').map_or(0, |slash| slash + 1);
    let masked = if url[start..at].contains(':') {
        "***:***"
    } else {
        "***"
    };
    mask_path_and_query(&format!("{}{masked}{}", &url[..start], &url[at..]))
}

/// `text` with every `scheme://…` URL in it masked as by [`mask_url`] (e.g. an error message
/// `error sending request for url (http://u:p@h/?token=t)`); the rest is kept.
pub fn mask_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(found) = rest.find("://") {
        let start = found + 3;
        out.push_str(&rest[..start]);
        let after = &rest[start..];
        let len = after
            .find(|c: char| {
                matches!(c, ')' | '(' | '`' | '\'' | '"' | '<' | '>') || c.is_whitespace()
            })
            .unwrap_or(after.len());
        out.push_str(&mask_authority_and_rest(&after[..len]));
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

/// `host…` (what follows `://`) with the user info and secret parameters masked.
fn mask_authority_and_rest(token: &str) -> String {
    let authority_len = token.find(['/', '?', '#']).unwrap_or(token.len());
    let (authority, rest) = token.split_at(authority_len);
    let mut out = String::with_capacity(token.len());
    match authority.rfind('@') {
        Some(at) => {
            let userinfo = &authority[..at];
            let (user, password) = match userinfo.find(':') {
                Some(colon) => (&userinfo[..colon], Some(&userinfo[colon + 1..])),
                None => (userinfo, None),
            };
            out.push_str(masked_value(user));
            if let Some(p) = password {
                out.push(':');
                out.push_str(masked_value(p));
            }
            out.push_str(&authority[at..]);
        }
        None => out.push_str(authority),
    }
    out.push_str(&mask_path_and_query(rest));
    out
}

/// `/path?query#fragment` with secret parameter values masked in the query and the fragment.
fn mask_path_and_query(text: &str) -> String {
    let Some(q) = text.find(['?', '#']) else {
        return text.to_owned();
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..=q]);
    let rest = &text[q + 1..];
    // A `#` after the query starts the fragment, which is masked the same way
    // (`#access_token=…` in OAuth redirects).
    let (query, fragment) = match (text.as_bytes()[q], rest.find('#')) {
        (b'?', Some(h)) => (&rest[..h], Some(&rest[h + 1..])),
        _ => (rest, None),
    };
    out.push_str(&mask_pairs(query));
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(&mask_pairs(f));
    }
    out
}

fn mask_pairs(pairs: &str) -> String {
    pairs
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if is_secret_param(name) => {
                format!("{name}={}", masked_value(value))
            }
            // A URL held by a value (`to=/next?token=…`) is masked as a URL.
            Some((name, value)) if is_url_shaped(value) => format!("{name}={}", mask_url(value)),
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Whether a query or fragment value is itself a URL whose secrets the rule masks: an
/// absolute URL (`http://user:pw@host/…`) or a path (`/next?token=…`), as redirect targets
/// and callbacks are written.
///
/// ```
/// use retryscope::model::secrets::{is_url_shaped, mask_url};
/// assert!(is_url_shaped("/status/200?token=T") && is_url_shaped("http://u:p@h/"));
/// assert!(!is_url_shaped("301"));
/// assert_eq!(
///     mask_url("http://127.0.0.1:9/redirect?to=/status/200?token=REDIRTOKEN&status=301"),
///     "http://127.0.0.1:9/redirect?to=/status/200?token=***&status=301"
/// );
/// ```
pub fn is_url_shaped(value: &str) -> bool {
    value.starts_with('/') || value.contains("://")
}

/// Pushes the secret query values of `url` and, for every query value that is a URL
/// ([`is_url_shaped`], as written or percent-decoded), its user name, password and secret
/// query values, at any depth.
fn query_secrets(url: &str, push: &mut dyn FnMut(&str)) {
    let Some(q) = url.find('?') else {
        return;
    };
    for part in url[q + 1..].split(['&', '#']) {
        let Some((name, value)) = part.split_once('=') else {
            continue;
        };
        if is_secret_param(name) {
            push(value);
            continue;
        }
        let decoded = percent_encoding::percent_decode_str(value).decode_utf8_lossy();
        let mut nested = vec![value];
        if decoded != value {
            nested.push(decoded.as_ref());
        }
        for inner in nested.into_iter().filter(|v| is_url_shaped(v)) {
            if let Some((_, after)) = inner.split_once("://") {
                let authority = &after[..after.find(['/', '?', '#']).unwrap_or(after.len())];
                if let Some(at) = authority.rfind('@') {
                    let (user, password) = authority[..at]
                        .split_once(':')
                        .unwrap_or((&authority[..at], ""));
                    push(user);
                    push(password);
                }
            }
            // A strictly shorter string each time: the recursion ends.
            query_secrets(inner, push);
        }
    }
}

/// [`MASK`] for a secret value; an empty value, or one that is only a `{{name}}` reference
/// (a draft's URL: the secret is in the variable, masked by its own rule), is kept.
fn masked_value(value: &str) -> &str {
    let reference = value
        .strip_prefix("{{")
        .and_then(|v| v.strip_suffix("}}"))
        .is_some_and(|n| super::variables::is_variable_name(n.trim()));
    if value.is_empty() || reference {
        value
    } else {
        MASK
    }
}

/// Where `spec` holds the mask [`MASK`] itself, as a value the secrets rule writes for a secret
/// (a request copied or exported with secrets masked, then imported): each enabled header whose
/// value is `***`, a scheme and `***` (`Bearer ***`), Basic credentials with a `***` part, or a
/// cookie `name=***` (`header Authorization`), the URL's user name or password, and query
/// parameters whose value is `***` (`query parameter sig`), in that order. Sending such a
/// request would send the mask as the credential.
///
/// ```
/// use retryscope::model::{RequestSpec, secrets::masked_places};
/// let spec = RequestSpec::get("http://127.0.0.1:8080/x?sig=***&a=1");
/// assert_eq!(masked_places(&spec), ["query parameter sig"]);
/// let mut spec = RequestSpec::get("http://127.0.0.1:8080/x");
/// for (name, value) in [
///     ("Authorization", "Bearer ***"),
///     ("Proxy-Authorization", "Basic Ym9iOioqKg=="), // bob:***
///     ("Cookie", "a=1; sid=***"),
///     ("X-Note", "5 *** stars"),
/// ] {
///     spec.headers.push(retryscope::model::KeyValue::new(name, value));
/// }
/// assert_eq!(
///     masked_places(&spec),
///     ["header Authorization", "header Proxy-Authorization", "header Cookie"]
/// );
/// ```
pub fn masked_places(spec: &RequestSpec) -> Vec<String> {
    let mut out: Vec<String> = spec
        .headers
        .iter()
        .filter(|h| h.enabled && holds_mask(&h.name, &h.value))
        .map(|h| format!("header {}", h.name.trim()))
        .collect();
    let Ok(url) = url::Url::parse(spec.url.trim()) else {
        return out;
    };
    let is_mask = |v: &str| v == MASK || v == "%2A%2A%2A";
    if is_mask(url.username()) {
        out.push("the URL's user name".into());
    }
    if url.password().is_some_and(is_mask) {
        out.push("the URL's password".into());
    }
    out.extend(
        url.query_pairs()
            .filter(|(_, v)| v == MASK)
            .map(|(k, _)| format!("query parameter {k}")),
    );
    out
}

/// Whether header `name: value` holds the mask where a secret was: the whole value, after an
/// auth scheme (`Bearer ***`), in decoded Basic credentials (`user:***`), or as a cookie's value.
fn holds_mask(name: &str, value: &str) -> bool {
    let value = value.trim();
    if value == MASK {
        return true;
    }
    if let Some((scheme, rest)) = value.split_once(' ') {
        let rest = rest.trim();
        if rest == MASK && !scheme.is_empty() {
            return true;
        }
        if scheme.eq_ignore_ascii_case("basic")
            && let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(rest)
            && let Ok(text) = String::from_utf8(bytes)
            && let Some((user, password)) = text.split_once(':')
        {
            return user == MASK || password == MASK;
        }
    }
    name.trim().eq_ignore_ascii_case("cookie")
        && value
            .split(';')
            .any(|pair| pair.split_once('=').is_some_and(|(_, v)| v.trim() == MASK))
}

/// The secret values `spec` sends, for searching them in free text ([`mask_event`],
/// [`mask_spec`]): secret header/query/form rows (by rule or marked), the URL's user name and
/// password (and their `Basic` base64 form), and secret query values in the URL, each raw and percent-decoded; values shorter
/// than [`MIN_SEARCHED_LEN`] are left out.
pub fn secret_values(spec: &RequestSpec) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |v: &str| {
        for candidate in [
            v.to_owned(),
            percent_encoding::percent_decode_str(v)
                .decode_utf8_lossy()
                .into_owned(),
        ] {
            if candidate.chars().count() >= MIN_SEARCHED_LEN && !out.contains(&candidate) {
                out.push(candidate);
            }
        }
    };
    for h in spec.headers.iter().filter(|h| h.enabled && h.is_secret()) {
        push(&h.value);
        // `Cookie: sid=abc…; theme=x`: each cookie's value alone may be echoed elsewhere.
        if h.name.trim().eq_ignore_ascii_case("cookie") {
            for pair in h.value.split(';') {
                if let Some((_, value)) = pair.split_once('=') {
                    push(value.trim().trim_matches('"'));
                }
            }
        }
        // `Bearer abc…`: the credential alone may be echoed elsewhere.
        if let Some((scheme, credential)) = h.value.trim().split_once(' ') {
            push(credential.trim());
            // `Basic base64(user:password)` (`-u`): the password itself may be echoed too.
            if scheme.eq_ignore_ascii_case("basic")
                && let Ok(bytes) =
                    base64::engine::general_purpose::STANDARD.decode(credential.trim())
                && let Ok(pair) = String::from_utf8(bytes)
            {
                let (user, password) = pair.split_once(':').unwrap_or((pair.as_str(), ""));
                push(user);
                push(password);
                push(&pair);
            }
        }
    }
    let form = match &spec.body {
        Body::Form { fields } => fields.as_slice(),
        _ => &[],
    };
    for row in spec.query.iter().chain(form) {
        if row.enabled && row.is_secret_param() {
            push(&row.value);
        }
    }
    if let Body::Multipart { parts } = &spec.body {
        for part in parts.iter().filter(|p| is_secret_param(&p.name)) {
            if let crate::model::PartSource::Text { value } = &part.source {
                push(value);
            }
        }
    }
    // A text body that parses as JSON (`-d '{…}'`) counts as JSON, one that reads as a form
    // (`-d 'user=a&password=b'`) as a form.
    if let Body::Json { text } | Body::Text { text, .. } = &spec.body {
        for value in super::secret_members::json_secret_members(text) {
            push(&value);
        }
    }
    if let Some((_, after)) = spec.url.split_once("://") {
        let authority = &after[..after.find(['/', '?', '#']).unwrap_or(after.len())];
        if let Some(at) = authority.rfind('@') {
            let userinfo = &authority[..at];
            let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
            push(user);
            push(password);
            // The engine sends them as `Authorization: Basic base64(user:password)`, which an
            // echoing server repeats.
            let decode = |s: &str| percent_encoding::percent_decode_str(s).collect::<Vec<u8>>();
            let mut pair = decode(user);
            pair.push(b':');
            pair.extend(decode(password));
            push(&base64::Engine::encode(
                &base64::engine::general_purpose::STANDARD,
                pair,
            ));
        }
    }
    query_secrets(&spec.url, &mut push);
    out
}

/// `spec` fit for a record or an export: URL masked ([`mask_url`]), secret header/query/form
/// values and secret JSON body members ([`super::secret_members`]) replaced by [`MASK`], and
/// any of `secrets` (see [`secret_values`], plus secret variables) masked in the URL and text
/// bodies.
pub fn mask_spec(spec: &RequestSpec, secrets: &[String]) -> Masked<RequestSpec> {
    let mut out = spec.clone();
    out.url = mask_secret_values(&mask_url(&spec.url), secrets);
    for h in &mut out.headers {
        if h.is_secret() {
            MASK.clone_into(&mut h.value);
        } else {
            h.value = mask_secret_values(&h.value, secrets);
        }
    }
    let mask_param = |row: &mut KeyValue| {
        if row.is_secret_param() {
            MASK.clone_into(&mut row.value);
        } else {
            row.value = mask_secret_values(&row.value, secrets);
        }
    };
    out.query.iter_mut().for_each(mask_param);
    match &mut out.body {
        Body::Form { fields } => fields.iter_mut().for_each(mask_param),
        Body::Json { text } | Body::Text { text, .. } => {
            *text = mask_secret_values(
                &super::secret_members::mask_json_secret_members(text),
                secrets,
            );
        }
        Body::Multipart { parts } => {
            for part in parts {
                if let crate::model::PartSource::Text { value } = &mut part.source {
                    *value = if is_secret_param(&part.name) {
                        MASK.to_owned()
                    } else {
                        mask_secret_values(value, secrets)
                    };
                }
            }
        }
        Body::None | Body::File { .. } => {}
    }
    Masked(out)
}

/// `event` with its URLs ([`mask_url`]) and messages ([`mask_text`]) masked; response headers
/// are left as they are. The first step of [`mask_event`]; the engine also sends every event
/// through it, so not even its raw channel carries a URL credential.
pub fn mask_event_urls(mut event: RunEvent) -> RunEvent {
    match &mut event {
        RunEvent::RunStarted { url, .. } | RunEvent::AttemptStarted { url, .. } => {
            *url = mask_url(url);
        }
        RunEvent::AttemptFinished { outcome, hops, .. } => {
            for hop in hops {
                hop.url = mask_url(&hop.url);
                hop.location = mask_url(&hop.location);
            }
            if let AttemptOutcome::Error(e) = outcome {
                e.message = mask_text(&e.message);
            }
        }
        RunEvent::RunFinished { outcome, .. } => outcome.message = mask_text(&outcome.message),
        RunEvent::WaitScheduled { .. }
        | RunEvent::WaitFinished { .. }
        | RunEvent::BudgetChanged { .. } => {}
    }
    event
}

/// A value that went through the one rule: only this module makes one ([`mask_event`]), so a
/// sink that takes a `Masked<…>` (the run fold, the history writer, every export and print)
/// cannot be handed unmasked data by mistake. Reads as the value it holds (`Deref`); serializes
/// as it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(transparent)]
pub struct Masked<T>(T);

impl<T> Masked<T> {
    /// The masked value.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Masked<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// `event` fit for any writer (CLI text and JSON, history, exports, the window): URLs and
/// messages masked ([`mask_event_urls`]), secret response header values replaced by [`MASK`],
/// and every one of `secrets` (request secrets from [`secret_values`], values of secret
/// variables) masked wherever it appears, bodies included. Masking a masked event again
/// changes nothing.
pub fn mask_event(event: RunEvent, secrets: &[String]) -> Masked<RunEvent> {
    let mut event = mask_event_urls(event);
    if let RunEvent::AttemptFinished {
        outcome: AttemptOutcome::Response(r),
        ..
    } = &mut event
    {
        for (name, value) in &mut r.headers {
            if is_secret_header(name) {
                MASK.clone_into(value);
            }
        }
    }
    Masked(mask_event_secrets(event, secrets))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_basic_credential_yields_its_password_and_short_values_stay_in_place() {
        use base64::Engine as _;
        let mut spec = RequestSpec::get("http://user@127.0.0.1:9/echo?key=json");
        let basic = base64::engine::general_purpose::STANDARD.encode("admin:SECRET6pw");
        spec.headers.push(crate::model::KeyValue::new(
            "Authorization",
            format!("Basic {basic}"),
        ));
        let values = secret_values(&spec);
        // Found by a fresh-user pass: `-u admin:SECRET6pw -d pw=SECRET6pw` echoed the password.
        assert!(values.iter().any(|v| v == "SECRET6pw"), "{values:?}");
        // `user` and `json` are masked where they stand (URL), not searched for in all text
        // (`user-agent`, `application/json`).
        assert!(
            !values.iter().any(|v| v == "user" || v == "json"),
            "{values:?}"
        );
        assert_eq!(
            mask_url("http://user@127.0.0.1:9/echo?key=json"),
            "http://***@127.0.0.1:9/echo?key=***"
        );
    }

    #[test]
    fn header_names_table() {
        for (name, secret) in [
            ("Authorization", true),
            ("proxy-authorization", true),
            ("Cookie", true),
            ("SET-COOKIE", true),
            ("X-Auth-Token", true),
            ("X-Client-Secret", true),
            ("X-Api-Key", true),
            ("ApiKey", true),
            ("x-api_key", true),
            ("X-Password", true),
            ("X-Session-Id", true),
            ("X-Amz-Signature", true),
            (" cookie ", true),
            ("Content-Type", false),
            ("Accept", false),
            ("X-Request-Id", false),
            ("Cookies-Policy", false),
            ("Authorization-Hint", false),
            ("Idempotency-Key", false),
            ("Ocp-Apim-Subscription-Key", true),
            ("X-Access-Key", true),
            ("x-functions-key", true),
            ("X-Auth-Key", true),
            ("DD-Application-Key", true),
            ("X-Goog-Api-Key", true),
            ("X-Amz-Security-Token", true),
            ("X-Amz-Credential", true),
            ("PRIVATE-TOKEN", true),
            ("X-Vault-Token", true),
            ("Sec-WebSocket-Key", false),
            ("X-Idempotency-Key", false),
            ("Keep-Alive", false),
        ] {
            assert_eq!(is_secret_header(name), secret, "{name}");
        }
    }

    #[test]
    fn param_names_table() {
        for name in SECRET_PARAMS {
            assert!(is_secret_param(name), "{name}");
            assert!(is_secret_param(&name.to_ascii_uppercase()), "{name}");
        }
        for name in [
            "auth_token",
            "X-Api-Key",
            "session_id",
            "tokens",
            "X-Amz-Credential",
            "X-Amz-Signature",
            "X-Amz-Security-Token",
            "X-Goog-Credential",
            "subscription-key",
            "private_token",
        ] {
            assert!(is_secret_param(name), "{name}");
        }
        for name in ["x", "keys", "monkey", "q", "codec", "author", "page", ""] {
            assert!(!is_secret_param(name), "{name}");
        }
        assert!(is_secret_param("client%5Fsecret"));
    }

    #[test]
    fn urls_table() {
        for (url, want) in [
            ("http://h/x?sig=SIG456&x=1", "http://h/x?sig=***&x=1"),
            ("http://TOKEN@h:1/", "http://***@h:1/"),
            ("http://u:p@h/a?b=c@d", "http://***:***@h/a?b=c@d"),
            ("http://:p@h/", "http://:***@h/"),
            ("http://u:@h/", "http://***:@h/"),
            ("http://h/x@y:z", "http://h/x@y:z"),
            (
                "http://h/?Token=a&token=&KEY=b",
                "http://h/?Token=***&token=&KEY=***",
            ),
            (
                "http://h/#access_token=a&x=1",
                "http://h/#access_token=***&x=1",
            ),
            (
                "http://h/?code=c#state=s&id_token=i",
                "http://h/?code=***#state=s&id_token=***",
            ),
            ("http://h/?flag&x=1", "http://h/?flag&x=1"),
            ("/next?session=s", "/next?session=***"),
            (
                "http://{{u}}:{{ p }}@h/?key={{uuid}}",
                "http://{{u}}:{{ p }}@h/?key={{uuid}}",
            ),
            ("http://h/?key=a{{uuid}}", "http://h/?key=***"),
            ("no url here", "no url here"),
            (
                "http://h/redirect?to=/status/200?token=REDIRTOKEN&status=301",
                "http://h/redirect?to=/status/200?token=***&status=301",
            ),
            (
                "http://h/redirect?to=http://user:PW@127.0.0.1:9/echo",
                "http://h/redirect?to=http://***:***@127.0.0.1:9/echo",
            ),
            (
                "http://h/a?next=/b?to=/c?sig=S#x",
                "http://h/a?next=/b?to=/c?sig=***#x",
            ),
            ("http://h/a?path=/plain&n=1", "http://h/a?path=/plain&n=1"),
        ] {
            assert_eq!(mask_url(url), want, "{url}");
        }
    }

    #[test]
    fn secrets_of_a_url_in_a_query_value_are_searched_for_too() {
        let spec = RequestSpec::get(
            "http://127.0.0.1:9/redirect?to=/status/200?token=REDIRTOKEN&status=301&back=http%3A%2F%2Fuser%3APASSWORD9%40h%2F",
        );
        let found = secret_values(&spec);
        assert!(found.contains(&"REDIRTOKEN".to_owned()), "{found:?}");
        assert!(found.contains(&"PASSWORD9".to_owned()), "{found:?}");
        assert!(!found.iter().any(|v| v.contains("status")), "{found:?}");
    }

    #[test]
    fn urls_inside_messages_are_masked() {
        assert_eq!(
            mask_text("error for url (http://u:s3cret@h/x?auth=A): and https://a:b@c"),
            "error for url (http://***:***@h/x?auth=***): and https://***:***@c"
        );
    }

    #[test]
    fn secret_values_cover_every_place() {
        let mut spec = RequestSpec::get("http://user1234:pass5678@h/x?sig=SIG456abc&x=1");
        spec.headers
            .push(KeyValue::new("Authorization", "Bearer tok-abcdef"));
        spec.headers.push(KeyValue::new("Accept", "text/plain"));
        let mut marked = KeyValue::new("X-Plain", "markedvalue");
        marked.secret = true;
        spec.headers.push(marked);
        spec.query.push(KeyValue::new("password", "pw-query"));
        spec.query.push(KeyValue::new("page", "12345"));
        let values = secret_values(&spec);
        for v in [
            "user1234",
            "pass5678",
            "SIG456abc",
            "Bearer tok-abcdef",
            "tok-abcdef",
            "markedvalue",
            "pw-query",
            "dXNlcjEyMzQ6cGFzczU2Nzg=",
        ] {
            assert!(values.iter().any(|x| x == v), "{v} missing in {values:?}");
        }
        assert!(!values.iter().any(|x| x == "text/plain" || x == "12345"));
        let masked = mask_spec(&spec, &values);
        let json = serde_json::to_string(&masked).unwrap_or_default();
        for v in &values {
            assert!(!json.contains(v.as_str()), "{v} in {json}");
        }
        assert!(json.contains("text/plain") && json.contains("12345"));
    }

    #[test]
    fn each_cookie_value_is_a_secret_value_on_its_own() {
        let mut spec = RequestSpec::get("http://h/x");
        spec.headers.push(KeyValue::new(
            "Cookie",
            "sid=cookiesecret99; theme=\"darkmode42\"",
        ));
        let values = secret_values(&spec);
        for v in ["cookiesecret99", "darkmode42"] {
            assert!(values.iter().any(|x| x == v), "{v} missing in {values:?}");
        }
        assert_eq!(
            mask_secret_values("echo: x cookiesecret99 y", &values),
            "echo: x *** y"
        );
    }
}
