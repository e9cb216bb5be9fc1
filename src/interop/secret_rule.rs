//! Which names carry secrets (DESIGN.md §9), for the exports of this module.
//!
//! Header rows marked secret and the well-known credential headers are
//! [`KeyValue::is_secret`]; this adds the rest of §9's name list (headers whose name contains
//! `password`, `session`, `signature`, `api_key`/`apikey`, and the query parameter names) and the
//! URL's user name and password. When the model's one secrets function lands
//! (`src/model/secrets.rs`), these functions should call it instead.

use crate::model::{KeyValue, SECRET_MASK};

/// Query parameter names whose values are secret (compared case-insensitively).
const SECRET_QUERY_NAMES: [&str; 18] = [
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
    "api-key",
    "x-api-key",
];

/// Whether a header row's value is secret: marked so, a credential header, or a name holding
/// `token`, `secret`, `api-key`/`apikey`/`api_key`, `password`, `session` or `signature`.
pub fn is_secret_header(row: &KeyValue) -> bool {
    if row.is_secret() {
        return true;
    }
    let n = row.name.to_ascii_lowercase();
    [
        "api-key",
        "apikey",
        "api_key",
        "password",
        "session",
        "signature",
    ]
    .iter()
    .any(|part| n.contains(part))
}

/// Whether a query parameter (or form field) named `name` carries a secret value; `marked`
/// is the row's own secret flag.
pub fn is_secret_query(name: &str, marked: bool) -> bool {
    marked
        || SECRET_QUERY_NAMES
            .iter()
            .any(|s| s.eq_ignore_ascii_case(name.trim()))
}

/// `url` with its user name, password and secret query values replaced by `***`; every other
/// character is kept as written (the URL is not parsed and re-serialised).
///
/// ```
/// use retryscope::interop::secret_rule::mask_url;
/// assert_eq!(
///     mask_url("https://tok:pw@127.0.0.1/x?sig=S&a=1#f"),
///     "https://***:***@127.0.0.1/x?sig=***&a=1#f"
/// );
/// ```
pub fn mask_url(url: &str) -> String {
    let (before_fragment, fragment) = match url.find('#') {
        Some(i) => url.split_at(i),
        None => (url, ""),
    };
    let (base, query) = match before_fragment.find('?') {
        Some(i) => (&before_fragment[..i], Some(&before_fragment[i + 1..])),
        None => (before_fragment, None),
    };
    let mut out = mask_userinfo(base);
    if let Some(query) = query {
        out.push('?');
        let parts: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, value))
                    if !value.is_empty() && is_secret_query(&decoded(name), false) =>
                {
                    format!("{name}={SECRET_MASK}")
                }
                _ => pair.to_owned(),
            })
            .collect();
        out.push_str(&parts.join("&"));
    }
    out.push_str(fragment);
    out
}

fn decoded(name: &str) -> String {
    form_urlencoded::parse(format!("{name}=").as_bytes())
        .next()
        .map_or_else(|| name.to_owned(), |(n, _)| n.into_owned())
}

fn mask_userinfo(base: &str) -> String {
    let Some(scheme_end) = base.find("://") else {
        return base.to_owned();
    };
    let authority_start = scheme_end + 3;
    let rest = &base[authority_start..];
    let authority_len = rest.find('/').unwrap_or(rest.len());
    let authority = &rest[..authority_len];
    let Some(at) = authority.rfind('@') else {
        return base.to_owned();
    };
    let userinfo = &authority[..at];
    let masked = if userinfo.contains(':') {
        format!("{SECRET_MASK}:{SECRET_MASK}")
    } else if userinfo.is_empty() {
        String::new()
    } else {
        SECRET_MASK.to_owned()
    };
    format!(
        "{}{masked}{}{}",
        &base[..authority_start],
        &authority[at..],
        &rest[authority_len..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_section_9_are_secret() {
        for name in [
            "X-Session-Id",
            "X-Signature",
            "My-Password",
            "x-apikey",
            "Cookie",
        ] {
            assert!(is_secret_header(&KeyValue::new(name, "v")), "{name}");
        }
        assert!(!is_secret_header(&KeyValue::new("Accept", "v")));
        assert!(is_secret_query("Access_Token", false));
        assert!(!is_secret_query("page", false));
        assert!(is_secret_query("page", true));
    }

    #[test]
    fn urls_keep_everything_but_secrets() {
        assert_eq!(
            mask_url("http://127.0.0.1:9/a?b=c"),
            "http://127.0.0.1:9/a?b=c"
        );
        assert_eq!(mask_url("http://u@h/"), "http://***@h/");
        assert_eq!(
            mask_url("http://h/?token=&key=K&KEY=K2&x"),
            "http://h/?token=&key=***&KEY=***&x"
        );
        assert_eq!(
            mask_url("http://h/p@q?access%5Ftoken=t"),
            "http://h/p@q?access%5Ftoken=***"
        );
    }
}
