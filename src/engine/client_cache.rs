//! HTTP clients: one per transport configuration and tokio runtime, shared by the runs that use
//! it, or a fresh one per attempt when the request asks for a new connection every time.
//!
//! Why shared instead of one per run: building a rustls client loads the trust store (costly),
//! and a shared pool lets back-to-back runs reuse keep-alive connections as a browser would.
//! Each [`EngineClient`] is two reqwest clients: one for `http://` hops, built without any
//! trust store, and one for `https://` hops, built (loading the platform's roots) the first
//! time a hop needs it, so a plain-http run never reads the trust store.
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

/// The clients of one configuration and the resolver whose pins they consult.
#[derive(Clone)]
pub(crate) struct EngineClient {
    /// For `http://` hops: no trust store (an `https://` hop never goes through it).
    plain: reqwest::Client,
    /// For `https://` hops: built on first use, since loading the platform's trust store is
    /// the costly part of a client.
    tls: Arc<OnceLock<Result<reqwest::Client, String>>>,
    /// What the TLS client is built from.
    setup: Arc<Setup>,
    /// The resolver of both clients, for pinning the engine's own lookups.
    pub(crate) resolver: Arc<PinnedResolver>,
}

/// How an [`EngineClient`]'s clients are built.
struct Setup {
    verify_tls: bool,
    roots: Vec<CertificateDer<'static>>,
    connect: Option<Duration>,
    read: Option<Duration>,
    pooled: bool,
}

impl EngineClient {
    /// The client for a hop to `url`: the TLS one (built now, on first use) for `https`.
    ///
    /// # Errors
    /// A lowercase message when reqwest cannot build the TLS client.
    pub(crate) fn for_url(&self, url: &url::Url) -> Result<&reqwest::Client, String> {
        if url.scheme() != "https" {
            return Ok(&self.plain);
        }
        self.tls
            .get_or_init(|| build_tls(&self.setup, &self.resolver))
            .as_ref()
            .map_err(Clone::clone)
    }
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

/// The shared clients of a process, one per transport configuration and tokio runtime; clones
/// share them. The process's core holds one (`crate::service::Core::clients`) and hands it to
/// every run ([`super::PreparedRun::with_clients`]); a run given none keeps its clients to itself.
#[derive(Clone, Default)]
pub struct ClientCache(Arc<Mutex<HashMap<ClientKey, EngineClient>>>);

impl std::fmt::Debug for ClientCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let len = self.0.lock().map_or(0, |c| c.len());
        f.debug_struct("ClientCache")
            .field("clients", &len)
            .finish()
    }
}

impl ClientCache {
    /// The shared client for this configuration on the current runtime. `roots` are trusted
    /// besides the platform's roots (empty = none).
    ///
    /// # Errors
    /// A lowercase message when reqwest cannot build a client.
    pub(crate) fn client(
        &self,
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
        let mut cache = self.0.lock().unwrap_or_else(PoisonError::into_inner);
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
}

/// A client of its own that keeps no idle connection (for "new connection per attempt"); `roots`
/// as for [`ClientCache::client`].
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
    let setup = Setup {
        verify_tls,
        roots: roots.to_vec(),
        connect: timeouts.connect,
        read: timeouts.read,
        pooled,
    };
    let resolver = Arc::new(PinnedResolver::new(timeouts.resolve));
    // An empty trust store of its own: nothing is loaded, and an `https://` URL handed to it
    // by mistake fails its handshake instead of going out unverified.
    let plain =
        finish(builder(&setup, &resolver).tls_certs_only(Vec::<reqwest::Certificate>::new()))?;
    Ok(EngineClient {
        plain,
        tls: Arc::new(OnceLock::new()),
        setup: Arc::new(setup),
        resolver,
    })
}

/// The `https://` client of `setup`: the platform's roots and `setup.roots`, or no
/// verification when `verify_tls` is off.
fn build_tls(setup: &Setup, resolver: &Arc<PinnedResolver>) -> Result<reqwest::Client, String> {
    let mut builder = builder(setup, resolver).tls_danger_accept_invalid_certs(!setup.verify_tls);
    if !setup.roots.is_empty() {
        let certs = setup
            .roots
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
    finish(builder)
}

/// What every client of the engine shares (see the module's doc).
fn builder(setup: &Setup, resolver: &Arc<PinnedResolver>) -> reqwest::ClientBuilder {
    let mut builder = reqwest::Client::builder()
        .retry(reqwest::retry::never())
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .user_agent(concat!("retryscope/", env!("CARGO_PKG_VERSION")))
        .tcp_nodelay(true)
        .dns_resolver(Arc::clone(resolver))
        .connector_layer(ConnectTimingLayer);
    if let Some(limit) = setup.connect {
        builder = builder.connect_timeout(limit);
    }
    if let Some(limit) = setup.read {
        builder = builder.read_timeout(limit);
    }
    if !setup.pooled {
        builder = builder.pool_max_idle_per_host(0);
    }
    builder
}

/// `builder`'s client, its error in words.
fn finish(builder: reqwest::ClientBuilder) -> Result<reqwest::Client, String> {
    builder.build().map_err(|e| {
        format!(
            "cannot build the http client: {}",
            e.to_string().to_lowercase()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trust_store_is_loaded_for_the_first_https_hop_only() {
        let client = build(true, &[], &EffectiveTimeouts::default(), true).unwrap();
        let http = url::Url::parse("http://127.0.0.1:9/").unwrap();
        client.for_url(&http).unwrap();
        assert!(
            client.tls.get().is_none(),
            "an http hop loads no trust store"
        );
        let https = url::Url::parse("https://127.0.0.1:9/").unwrap();
        client.for_url(&https).unwrap();
        assert!(client.tls.get().is_some_and(Result::is_ok));
        // Clones (the cache hands out clones) share the one TLS client.
        assert!(client.clone().tls.get().is_some());
    }
}
