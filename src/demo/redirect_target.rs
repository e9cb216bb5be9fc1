//! Which `Location` the demo server's `/redirect?to=` may send: only targets on this machine,
//! so a client following redirects (`-L`) never leaves loopback.

use std::net::IpAddr;

/// Checks `to` (the raw `to` parameter): a relative reference (a path, `?query`, or empty for
/// "this URL again"), or an `http`/`https` URL whose host is loopback (`127.0.0.0/8`, `::1`,
/// `localhost`). A scheme-relative `//host/…` counts as a URL to `host`.
///
/// # Errors
/// The sentence the server answers 400 with, naming `to`.
pub(super) fn check_redirect_target(to: &str) -> Result<(), String> {
    let refuse = || {
        format!(
            "`to` must be a relative path or an http(s) URL to this machine (127.0.0.0/8, ::1 \
             or localhost), got `{to}`"
        )
    };
    // Resolved against a loopback base as a client would resolve it against this server.
    let base = url::Url::parse("http://127.0.0.1/").map_err(|_| refuse())?;
    let target = base.join(to).map_err(|_| refuse())?;
    if !matches!(target.scheme(), "http" | "https") {
        return Err(refuse());
    }
    let loopback = match target.host() {
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    };
    if loopback { Ok(()) } else { Err(refuse()) }
}

#[cfg(test)]
mod tests {
    use super::check_redirect_target;

    #[test]
    fn relative_paths_and_loopback_urls_pass() {
        for to in [
            "",
            "/status/200",
            "echo?x=1",
            "?again=1",
            "http://127.0.0.1:8080/x",
            "https://127.9.8.7/",
            "http://[::1]:9/x",
            "http://localhost:1/",
            "HTTP://LOCALHOST/",
        ] {
            assert_eq!(check_redirect_target(to), Ok(()), "{to}");
        }
    }

    #[test]
    fn other_hosts_and_schemes_are_refused() {
        for to in [
            "http://example.com/",
            "https://10.0.0.1/",
            "//example.com/x",
            "\\\\example.com/x",
            "http://127.0.0.1.example.com/",
            "http://localhost.example.com/",
            "http://[::2]/",
            "http://0.0.0.0/",
            "ftp://127.0.0.1/",
            "file:///etc/passwd",
            "javascript:alert(1)",
        ] {
            let e = check_redirect_target(to).expect_err(to);
            assert!(e.ends_with(&format!("got `{to}`")), "{e}");
        }
    }
}
