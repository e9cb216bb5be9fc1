//! DNS done by the engine itself: measured, bounded by the resolve timeout, and pinned into the
//! HTTP client so the connection goes to exactly the addresses the timeline reports.

use super::host_lookup::{HostLookup, HostLookupError, LookupFuture};
use crate::model::DnsFailure;
use dns_lookup::{AddrInfoHints, LookupError, LookupErrorKind, SockType, getaddrinfo};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// A failed lookup; found in an error's `source()` chain to classify it as `dns`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub(crate) struct ResolveFailure {
    /// Lowercase message naming the host.
    pub(crate) message: String,
    /// What the resolver's error code said.
    pub(crate) cause: DnsFailure,
}

/// The cause a `getaddrinfo` error code stands for. `EAI_NONAME` also covers NXDOMAIN;
/// `EAI_AGAIN` a SERVFAIL or an unreachable server.
fn cause_of(kind: LookupErrorKind) -> DnsFailure {
    match kind {
        LookupErrorKind::NoName => DnsFailure::NoSuchName,
        LookupErrorKind::NoData => DnsFailure::NoAddresses,
        LookupErrorKind::Again => DnsFailure::Temporary,
        _ => DnsFailure::Other,
    }
}

/// True for a name under the special-use `.invalid` domain (RFC 6761 §6.4), which never
/// exists: resolvers "SHOULD always return immediately with an error", so no query is sent.
fn is_invalid_tld(host: &str) -> bool {
    let name = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    name == "invalid" || name.ends_with(".invalid")
}

/// Looks `host` up with `custom` when given, else the system resolver (`getaddrinfo` on a
/// blocking thread, as `tokio::net::lookup_host` does, but keeping the error code), within
/// `timeout` when set. A `.invalid` name fails at once without a query (RFC 6761).
///
/// # Errors
/// [`ResolveFailure`] when the name does not resolve, has no address, or the limit passes.
pub(crate) async fn lookup(
    host: &str,
    timeout: Option<Duration>,
    custom: Option<&dyn HostLookup>,
) -> Result<Vec<SocketAddr>, ResolveFailure> {
    let fail = |why: String, cause: DnsFailure| ResolveFailure {
        message: format!("dns lookup of {host} failed: {why}"),
        cause,
    };
    if is_invalid_tld(host) {
        return Err(fail(
            "the host does not exist: names under `.invalid` never do (RFC 6761); no query was sent"
                .into(),
            DnsFailure::NoSuchName,
        ));
    }
    let looking: LookupFuture = match custom {
        Some(custom) => custom.lookup(host),
        None => system_lookup(host.to_owned()),
    };
    let looked_up = match timeout {
        Some(limit) => tokio::time::timeout(limit, looking).await.map_err(|_| {
            fail(
                format!(
                    "no answer within the resolve timeout of {} ms",
                    limit.as_millis()
                ),
                DnsFailure::Timeout,
            )
        })?,
        None => looking.await,
    };
    let addrs = looked_up.map_err(|e| fail(e.detail, e.cause))?;
    if addrs.is_empty() {
        return Err(fail(
            "the name has no addresses".into(),
            DnsFailure::NoAddresses,
        ));
    }
    Ok(addrs)
}

/// `getaddrinfo` on a blocking thread, its error code kept as the cause.
fn system_lookup(host: String) -> LookupFuture {
    Box::pin(async move {
        let joined = tokio::task::spawn_blocking(move || getaddrinfo_stream(&host)).await;
        let looked_up = joined.map_err(|e| HostLookupError {
            cause: DnsFailure::Other,
            detail: format!("the lookup task failed: {e}"),
        })?;
        looked_up.map_err(|e| HostLookupError {
            cause: cause_of(e.kind()),
            detail: std::io::Error::from(e).to_string().to_lowercase(),
        })
    })
}

/// Every TCP address `getaddrinfo` gives for `host` (port 0).
fn getaddrinfo_stream(host: &str) -> Result<Vec<SocketAddr>, LookupError> {
    let hints = AddrInfoHints {
        socktype: SockType::Stream.into(),
        ..AddrInfoHints::default()
    };
    let found = getaddrinfo(Some(host), None, Some(hints))?;
    Ok(found
        .filter_map(Result::ok)
        .map(|info| info.sockaddr)
        .collect())
}

/// reqwest resolver: pinned addresses first (set by the engine just before each attempt), else
/// its own bounded lookup (redirects to other hosts).
#[derive(Debug, Default)]
pub(crate) struct PinnedResolver {
    timeout: Option<Duration>,
    pins: Mutex<HashMap<String, Vec<SocketAddr>>>,
}

impl PinnedResolver {
    /// A resolver whose own lookups stop after `timeout`.
    pub(crate) fn new(timeout: Option<Duration>) -> Self {
        Self {
            timeout,
            pins: Mutex::new(HashMap::new()),
        }
    }

    /// Makes `host` resolve to `addrs` until pinned again.
    pub(crate) fn pin(&self, host: &str, addrs: Vec<SocketAddr>) {
        let mut pins = self.pins.lock().unwrap_or_else(PoisonError::into_inner);
        // Bounded: a client serves few hosts; start over rather than grow without end.
        if pins.len() >= 1024 {
            pins.clear();
        }
        pins.insert(host.to_ascii_lowercase(), addrs);
    }

    fn pinned(&self, host: &str) -> Option<Vec<SocketAddr>> {
        let pins = self.pins.lock().unwrap_or_else(PoisonError::into_inner);
        pins.get(&host.to_ascii_lowercase()).cloned()
    }
}

impl Resolve for PinnedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let pinned = self.pinned(&host);
        let timeout = self.timeout;
        Box::pin(async move {
            let addrs = match pinned {
                Some(addrs) => addrs,
                None => lookup(&host, timeout, None).await?,
            };
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cause_comes_from_the_error_code() {
        assert_eq!(cause_of(LookupErrorKind::NoName), DnsFailure::NoSuchName);
        assert_eq!(cause_of(LookupErrorKind::NoData), DnsFailure::NoAddresses);
        assert_eq!(cause_of(LookupErrorKind::Again), DnsFailure::Temporary);
        assert_eq!(cause_of(LookupErrorKind::Fail), DnsFailure::Other);
        assert!(DnsFailure::NoSuchName.is_permanent());
        assert!(!DnsFailure::Temporary.is_permanent());
    }

    #[tokio::test]
    async fn invalid_names_fail_at_once_without_a_query() {
        /// Panics if asked: a `.invalid` name must never reach a resolver.
        #[derive(Debug)]
        struct NeverAsked;
        impl HostLookup for NeverAsked {
            fn lookup(&self, host: &str) -> LookupFuture {
                panic!("{host} was looked up")
            }
        }
        for host in ["nxdomain.invalid", "a.b.INVALID.", "invalid"] {
            let e = lookup(host, None, Some(&NeverAsked))
                .await
                .expect_err(".invalid never resolves");
            assert_eq!(e.cause, DnsFailure::NoSuchName, "{host}");
            assert!(e.message.contains("does not exist"), "{}", e.message);
        }
        assert!(!is_invalid_tld("invalid.example") && !is_invalid_tld("notinvalid"));
    }

    #[tokio::test]
    async fn localhost_resolves_to_loopback_through_getaddrinfo() {
        // /etc/hosts (or the platform's equivalent) answers; nothing leaves the machine.
        let addrs = lookup("localhost", Some(Duration::from_secs(5)), None)
            .await
            .expect("localhost resolves");
        assert!(!addrs.is_empty());
        assert!(addrs.iter().all(|a| a.ip().is_loopback()), "{addrs:?}");
    }
}
