//! DNS done by the engine itself: measured, bounded by the resolve timeout, and pinned into the
//! HTTP client so the connection goes to exactly the addresses the timeline reports.

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
}

/// Looks `host` up (port 0), within `timeout` when set.
///
/// # Errors
/// [`ResolveFailure`] when the name does not resolve, has no address, or the limit passes.
pub(crate) async fn lookup(
    host: &str,
    timeout: Option<Duration>,
) -> Result<Vec<SocketAddr>, ResolveFailure> {
    let fail = |why: String| ResolveFailure {
        message: format!("dns lookup of {host} failed: {why}"),
    };
    let lookup = tokio::net::lookup_host((host, 0));
    let addrs = match timeout {
        Some(limit) => tokio::time::timeout(limit, lookup).await.map_err(|_| {
            fail(format!(
                "no answer within the resolve timeout of {} ms",
                limit.as_millis()
            ))
        })?,
        None => lookup.await,
    }
    .map_err(|e| fail(e.to_string().to_lowercase()))?;
    let addrs: Vec<SocketAddr> = addrs.collect();
    if addrs.is_empty() {
        return Err(fail("the name has no addresses".into()));
    }
    Ok(addrs)
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
