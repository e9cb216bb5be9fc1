//! Turns reqwest/hyper/io errors into the timeline's [`NetError`] kinds (DESIGN.md §4).
//!
//! The whole `source()` chain is walked (looking inside `io::Error`s too), in this order:
//! 1. our own failed DNS lookup anywhere → `dns`;
//! 2. a rustls error anywhere → `tls` (handshake, certificate, or a non-TLS server);
//! 3. a connect-phase error: timed out → `connect_timeout`, else `connect` (refused, unreachable);
//! 4. any other timeout (reqwest's read timeout) → `timeout`;
//! 5. an error while reading the body (after the headers arrived) → `body`;
//! 6. the connection closed or reset before the response head (hyper's incomplete message,
//!    closed or canceled connection; io reset / aborted / broken pipe / unexpected EOF) → `reset`;
//! 7. anything else → `other`.
//!
//! The message is readable for the common cases and keeps the cause: `connection refused by
//! HOST:PORT (os error N)`, `connection closed before the response (CAUSE)`, `read timed out
//! after N ms`; otherwise every distinct text of the chain, lowercase, joined with `: `.

use super::resolver::ResolveFailure;
use crate::model::{ErrorKind, NetError};
use std::error::Error;
use std::io;
use std::time::Duration;

/// Where in the exchange an error happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Connecting, sending, or waiting for the response head.
    Head,
    /// Reading the body of a response whose head arrived.
    Body,
}

/// Classifies `err`, raised in `phase`; `read_timeout` is the client's read timeout (the only
/// timeout reqwest itself enforces outside connecting), quoted in a read timeout's message.
pub(crate) fn classify(
    err: &reqwest::Error,
    phase: Phase,
    read_timeout: Option<Duration>,
) -> NetError {
    let chain = chain(err);
    let kind = kind_of(err, &chain, phase);
    let dns = chain
        .iter()
        .find_map(|e| e.downcast_ref::<ResolveFailure>())
        .map(|f| f.cause);
    NetError {
        kind,
        message: readable(err, &chain, kind, read_timeout),
        dns,
    }
}

/// The message for `kind`: a plain sentence for refused, closed and read-timed-out
/// connections (keeping the OS error or the innermost cause), else the chain's texts.
fn readable(
    err: &reqwest::Error,
    chain: &[&(dyn Error + 'static)],
    kind: ErrorKind,
    read_timeout: Option<Duration>,
) -> String {
    let io_errors = || chain.iter().filter_map(|e| e.downcast_ref::<io::Error>());
    match kind {
        ErrorKind::Connect if io_errors().any(|e| e.kind() == io::ErrorKind::ConnectionRefused) => {
            let by = err
                .url()
                .and_then(|u| {
                    Some(format!(
                        " by {}:{}",
                        u.host_str()?,
                        u.port_or_known_default()?
                    ))
                })
                .unwrap_or_default();
            let os = io_errors()
                .find_map(io::Error::raw_os_error)
                .map(|n| format!(" (os error {n})"))
                .unwrap_or_default();
            format!("connection refused{by}{os}")
        }
        ErrorKind::Reset => {
            let cause = chain
                .last()
                .map(|e| e.to_string().to_lowercase())
                .unwrap_or_default();
            // hyper's own words say it again: `connection closed before message completed`.
            if cause.is_empty() || cause.starts_with("connection closed before") {
                "connection closed before the response".to_owned()
            } else {
                format!("connection closed before the response ({cause})")
            }
        }
        ErrorKind::Timeout => match read_timeout {
            Some(limit) => format!("read timed out after {} ms", limit.as_millis()),
            None => format!("timed out ({})", message(chain)),
        },
        ErrorKind::Tls => match chain.iter().find_map(|e| certificate_problem(*e)) {
            Some(problem) => format!("{problem} ({})", message(chain)),
            None => message(chain),
        },
        _ => message(chain),
    }
}

/// A plain sentence for a certificate the client refused, naming what to do about it (and, for
/// a certificate of another host, which name was asked for and which it holds).
fn certificate_problem(e: &(dyn Error + 'static)) -> Option<String> {
    use rustls::CertificateError as C;
    let rustls::Error::InvalidCertificate(cert) = e.downcast_ref::<rustls::Error>()? else {
        return None;
    };
    Some(match cert {
        C::UnknownIssuer => "the server's certificate is not signed by a trusted authority \
             (self-signed or a private CA); trust the CA with --cacert FILE (ca_cert), or turn TLS \
             verification off (-k) only if you trust this server"
            .to_owned(),
        C::Expired | C::ExpiredContext { .. } => "the server's certificate has expired".to_owned(),
        C::NotValidYet | C::NotValidYetContext { .. } => {
            "the server's certificate is not valid yet".to_owned()
        }
        C::NotValidForName => "the server's certificate is not valid for this host name".to_owned(),
        C::NotValidForNameContext {
            expected,
            presented,
        } => {
            let names: Vec<String> = presented.iter().map(|n| plain_name(n)).collect();
            let holds = if names.is_empty() {
                "no names".to_owned()
            } else {
                names.join(", ")
            };
            format!(
                "the server's certificate is not valid for this host name: the request is for {}, the certificate is for {holds}",
                expected.to_str()
            )
        }
        C::Revoked => "the server's certificate was revoked".to_owned(),
        // webpki's `CaUsedAsEndEntity` reaches us only inside `Other` (its crate is not ours).
        C::Other(other) if format!("{other:?}").contains("CaUsedAsEndEntity") => {
            "the server presents a CA certificate as its own (a self-signed certificate with              CA:TRUE); rustls accepts only a leaf certificate signed by the CA given with --cacert:              issue one for this host from that CA"
                .to_owned()
        }
        _ => return None,
    })
}

/// A name as webpki reports it (`DnsName("a.test")`, `IpAddress(10.0.0.1)`) as plain text.
fn plain_name(reported: &str) -> String {
    for prefix in ["DnsName(", "IpAddress(", "UniformResourceIdentifier("] {
        if let Some(inner) = reported
            .strip_prefix(prefix)
            .and_then(|r| r.strip_suffix(')'))
        {
            return inner.trim_matches('"').to_owned();
        }
    }
    reported.to_owned()
}

/// `err` and every error behind it, including the payload of each `io::Error`.
fn chain<'a>(err: &'a (dyn Error + 'static)) -> Vec<&'a (dyn Error + 'static)> {
    let mut out = Vec::new();
    let mut next = Some(err);
    while let Some(e) = next {
        out.push(e);
        if out.len() > 32 {
            break;
        }
        next = match e.downcast_ref::<io::Error>().and_then(io::Error::get_ref) {
            Some(inner) => Some(inner as &(dyn Error + 'static)),
            None => e.source(),
        };
    }
    out
}

fn kind_of(err: &reqwest::Error, chain: &[&(dyn Error + 'static)], phase: Phase) -> ErrorKind {
    if chain.iter().any(|e| e.is::<ResolveFailure>()) {
        return ErrorKind::Dns;
    }
    if chain.iter().any(|e| e.is::<rustls::Error>()) {
        return ErrorKind::Tls;
    }
    if err.is_connect() {
        return if err.is_timeout() {
            ErrorKind::ConnectTimeout
        } else {
            ErrorKind::Connect
        };
    }
    if err.is_timeout() {
        return ErrorKind::Timeout;
    }
    if phase == Phase::Body {
        return ErrorKind::Body;
    }
    if chain.iter().any(|e| is_closed(*e)) {
        return ErrorKind::Reset;
    }
    if err.is_body() || err.is_decode() {
        return ErrorKind::Body;
    }
    ErrorKind::Other
}

/// Whether `e` says the connection closed or was reset under us.
fn is_closed(e: &(dyn Error + 'static)) -> bool {
    if let Some(h) = e.downcast_ref::<hyper::Error>() {
        return h.is_incomplete_message() || h.is_closed() || h.is_canceled();
    }
    if let Some(io) = e.downcast_ref::<io::Error>() {
        return matches!(
            io.kind(),
            io::ErrorKind::ConnectionReset
                | io::ErrorKind::ConnectionAborted
                | io::ErrorKind::BrokenPipe
                | io::ErrorKind::UnexpectedEof
                | io::ErrorKind::NotConnected
        );
    }
    false
}

/// Distinct texts of the chain, lowercase, joined with `: `.
fn message(chain: &[&(dyn Error + 'static)]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for e in chain {
        let text = e.to_string().to_lowercase();
        if text.is_empty() || parts.iter().any(|p| p.contains(&text)) {
            continue;
        }
        parts.push(text);
    }
    parts.join(": ")
}
