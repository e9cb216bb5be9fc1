//! The name lookup a run can be given instead of the system resolver (see
//! [`crate::engine::PreparedRun::with_host_lookup`]).

use crate::model::DnsFailure;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;

/// Why an injected [`HostLookup`] found no address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostLookupError {
    /// What the resolver said (decides triage: see [`DnsFailure::is_permanent`]).
    pub cause: DnsFailure,
    /// Lowercase detail shown after `dns lookup of HOST failed: `.
    pub detail: String,
}

/// What a [`HostLookup`] returns: a future of the host's addresses (any port; the engine sets it).
pub type LookupFuture =
    Pin<Box<dyn Future<Output = Result<Vec<SocketAddr>, HostLookupError>> + Send>>;

/// A name lookup the engine uses instead of the system resolver (`getaddrinfo`), given with
/// [`crate::engine::PreparedRun::with_host_lookup`]. Tests use one to answer names without
/// sending a DNS query off the machine (a resolver that never answers, a temporary failure).
/// The engine still bounds each call by the resolve timeout, measures it and pins its answer.
pub trait HostLookup: Send + Sync + std::fmt::Debug {
    /// The addresses of `host` (a domain name, never an IP literal), or why there are none.
    fn lookup(&self, host: &str) -> LookupFuture;
}
