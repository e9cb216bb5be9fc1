//! DNS done by the engine itself: measured, bounded by the resolve timeout, and pinned into the
//! HTTP client so the connection goes to exactly the addresses the timeline reports.

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

/// Looks `host` up with the system resolver (`getaddrinfo` on a blocking thread, as
/// `tokio::net::lookup_host` does, but keeping the error code), within `timeout` when set.
///
/// # Errors
/// [`ResolveFailure`] when the name does not resolve, has no address, or the limit passes.
pub(crate) async fn lookup(
    host: &str,
    timeout: Option<Duration>,
) -> Result<Vec<SocketAddr>, ResolveFailure> {
    let fail = |why: String, cause: DnsFailure| ResolveFailure {
        message: format!("dns lookup of {host} failed: {why}"),
        cause,
    };
    let name = host.to_owned();
    let lookup = tokio::task::spawn_blocking(move || getaddrinfo_stream(&name));
    let joined = match timeout {
        Some(limit) => tokio::time::timeout(limit, lookup).await.map_err(|_| {
            fail(
                format!(
                    "no answer within the resolve timeout of {} ms",
                    limit.as_millis()
                ),
                DnsFailure::Timeout,
            )
        })?,
        None => lookup.await,
    };
    let looked_up =
        joined.map_err(|e| fail(format!("the lookup task failed: {e}"), DnsFailure::Other))?;
    let addrs = looked_up.map_err(|e| {
        let cause = cause_of(e.kind());
        fail(std::io::Error::from(e).to_string().to_lowercase(), cause)
    })?;
    if addrs.is_empty() {
        return Err(fail(
            "the name has no addresses".into(),
            DnsFailure::NoAddresses,
        ));
    }
    Ok(addrs)
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
                None => lookup(&host, timeout).await?,
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
    async fn localhost_resolves_to_loopback_through_getaddrinfo() {
        // /etc/hosts (or the platform's equivalent) answers; nothing leaves the machine.
        let addrs = lookup("localhost", Some(Duration::from_secs(5)))
            .await
            .expect("localhost resolves");
        assert!(!addrs.is_empty());
        assert!(addrs.iter().all(|a| a.ip().is_loopback()), "{addrs:?}");
    }
}
