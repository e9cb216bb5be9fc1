//! HTTP clients: one per transport configuration and tokio runtime, shared by the runs that use
//! it, or a fresh one per attempt when the request asks for a new connection every time.
//!
//! Why shared instead of one per run: building a rustls client loads the trust store (costly),
//! and a shared pool lets back-to-back runs reuse keep-alive connections as a browser would.
//! Every client is built the same way: reqwest's retries off (`retry::never()`), redirects off
//! (the engine follows them itself so each hop is visible), no proxy (the timeline shows the
//! connection to the server itself), the engine's pinned DNS resolver, and the connector
//! layer that times new connections for the phase waterfall ([`super::phase_probe`]), and the
//! request's extra trusted roots (a private CA, [`super::trusted_roots`]) beside the
//! platform's.

use super::phase_probe::{ConnectTimingLayer, install_handshake_clock};
use super::resolver::PinnedResolver;
use super::timeouts::EffectiveTimeouts;
use rustls::pki_types::CertificateDer;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

/// A client and the resolver whose pins it consults.
#[derive(Clone)]
pub(crate) struct EngineClient {
    /// The reqwest client.
    pub(crate) client: reqwest::Client,
    /// Its resolver, for pinning the engine's own lookups.
    pub(crate) resolver: Arc<PinnedResolver>,
}

/// What makes two clients interchangeable. The runtime is part of it: a pooled connection
/// belongs to the runtime that opened it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ClientKey {
    runtime: tokio::runtime::Id,
    verify_tls: bool,
    roots: Vec<CertificateDer<'static>>,
    resolve: Option<Duration>,
    connect: Option<Duration>,
    read: Option<Duration>,
}

/// Most cached clients before the cache starts over (configurations are few; runtimes of
/// finished tests leave stale entries behind).
const CACHE_LIMIT: usize = 64;

static CACHE: OnceLock<Mutex<HashMap<ClientKey, EngineClient>>> = OnceLock::new();

/// The shared client for this configuration on the current runtime. `roots` are trusted
/// besides the platform's roots (empty = none).
///
/// # Errors
/// A lowercase message when reqwest cannot build a client.
pub(crate) fn shared_client(
    verify_tls: bool,
    roots: &[CertificateDer<'static>],
    timeouts: &EffectiveTimeouts,
) -> Result<EngineClient, String> {
    let key = ClientKey {
        runtime: tokio::runtime::Handle::current().id(),
        verify_tls,
        roots: roots.to_vec(),
        resolve: timeouts.resolve,
        connect: timeouts.connect,
        read: timeouts.read,
    };
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut cache = cache.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(found) = cache.get(&key) {
        return Ok(found.clone());
    }
    let built = build(verify_tls, roots, timeouts, true)?;
    if cache.len() >= CACHE_LIMIT {
        cache.clear();
    }
    cache.insert(key, built.clone());
    Ok(built)
}

/// A client of its own that keeps no idle connection (for "new connection per attempt"); `roots`
/// as for [`shared_client`].
///
/// # Errors
/// A lowercase message when reqwest cannot build a client.
pub(crate) fn fresh_client(
    verify_tls: bool,
    roots: &[CertificateDer<'static>],
    timeouts: &EffectiveTimeouts,
) -> Result<EngineClient, String> {
    build(verify_tls, roots, timeouts, false)
}

fn build(
    verify_tls: bool,
    roots: &[CertificateDer<'static>],
    timeouts: &EffectiveTimeouts,
    pooled: bool,
) -> Result<EngineClient, String> {
    // Before the first client: reqwest picks the process's default rustls provider up.
    install_handshake_clock();
    let resolver = Arc::new(PinnedResolver::new(timeouts.resolve));
    let mut builder = reqwest::Client::builder()
        .retry(reqwest::retry::never())
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .user_agent(concat!("retryscope/", env!("CARGO_PKG_VERSION")))
        .tls_danger_accept_invalid_certs(!verify_tls)
        .tcp_nodelay(true)
        .dns_resolver(Arc::clone(&resolver))
        .connector_layer(ConnectTimingLayer);
    if !roots.is_empty() {
        let certs = roots
            .iter()
            .map(|der| reqwest::Certificate::from_der(der))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| {
                format!(
                    "cannot use the trusted CA certificates: {}",
                    e.to_string().to_lowercase()
                )
            })?;
        builder = builder.tls_certs_merge(certs);
    }
    if let Some(limit) = timeouts.connect {
        builder = builder.connect_timeout(limit);
    }
    if let Some(limit) = timeouts.read {
        builder = builder.read_timeout(limit);
    }
    if !pooled {
        builder = builder.pool_max_idle_per_host(0);
    }
    let client = builder.build().map_err(|e| {
        format!(
            "cannot build the http client: {}",
            e.to_string().to_lowercase()
        )
    })?;
    Ok(EngineClient { client, resolver })
}
