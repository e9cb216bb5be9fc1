//! Loopback servers that misbehave on purpose, for the fault matrix (not a test target itself):
//! a raw TCP server answering each connection with scripted bytes, and TLS servers with
//! self-signed or expired certificates, or ones a private CA signed (for the right name or
//! another), all made by `rcgen` in the test.

#![allow(dead_code, clippy::unwrap_used)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// What the raw server does with one connection.
#[derive(Debug, Clone)]
pub enum Behavior {
    /// Reads the request head, writes these bytes, closes.
    Respond(Vec<u8>),
    /// Reads the request head, writes `head`, then one byte of `body_byte` every `every`,
    /// `count` times, then closes.
    Trickle {
        /// Status line and headers.
        head: Vec<u8>,
        /// Pause between body bytes.
        every: Duration,
        /// Body bytes to send.
        count: usize,
    },
    /// Accepts and never reads nor writes; holds the socket for `hold`.
    Silent {
        /// How long the socket stays open.
        hold: Duration,
    },
}

/// A raw HTTP/1.x server on 127.0.0.1 serving every connection with `behavior(n)` (n counts
/// connections from 0) on its own thread; counts request heads read.
pub struct RawServer {
    /// Bound port.
    pub port: u16,
    requests: Arc<AtomicUsize>,
    connections: Arc<AtomicUsize>,
}

impl RawServer {
    /// Starts the server.
    pub fn start(behavior: impl Fn(usize) -> Behavior + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(AtomicUsize::new(0));
        let connections = Arc::new(AtomicUsize::new(0));
        let (req, conns) = (Arc::clone(&requests), Arc::clone(&connections));
        let behavior = Arc::new(behavior);
        std::thread::Builder::new()
            .name("raw-fault-server".into())
            .spawn(move || {
                for stream in listener.incoming().flatten() {
                    let n = conns.fetch_add(1, Ordering::SeqCst);
                    let (req, behavior) = (Arc::clone(&req), Arc::clone(&behavior));
                    std::thread::spawn(move || serve(stream, &behavior(n), &req));
                }
            })
            .unwrap();
        Self {
            port,
            requests,
            connections,
        }
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Request heads read so far.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

fn read_head(stream: &mut TcpStream) -> bool {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(n) if n > 0 => head.extend_from_slice(&buf[..n]),
            _ => return false,
        }
    }
    true
}

fn serve(mut stream: TcpStream, behavior: &Behavior, requests: &AtomicUsize) {
    match behavior {
        Behavior::Silent { hold } => std::thread::sleep(*hold),
        Behavior::Respond(bytes) => {
            if read_head(&mut stream) {
                requests.fetch_add(1, Ordering::SeqCst);
                let _ = stream.write_all(bytes);
                let _ = stream.flush();
            }
        }
        Behavior::Trickle { head, every, count } => {
            if read_head(&mut stream) {
                requests.fetch_add(1, Ordering::SeqCst);
                let _ = stream.write_all(head);
                for _ in 0..*count {
                    std::thread::sleep(*every);
                    if stream
                        .write_all(b"x")
                        .and_then(|()| stream.flush())
                        .is_err()
                    {
                        return;
                    }
                }
            }
        }
    }
}

/// How the TLS server's certificate is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cert {
    /// Self-signed for `127.0.0.1`, valid now.
    SelfSigned,
    /// Self-signed for `127.0.0.1`, expired in 2001.
    Expired,
}

/// A TLS server on 127.0.0.1 answering every request with `200 ok` on its own thread (the test
/// process ends it), with a certificate made as `cert` says. Returns the port.
pub fn tls_server(cert: Cert) -> u16 {
    let mut params = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned()]).unwrap();
    if cert == Cert::Expired {
        params.not_before = rcgen::date_time_ymd(2000, 1, 1);
        params.not_after = rcgen::date_time_ymd(2001, 1, 1);
    }
    let key_pair = rcgen::KeyPair::generate().unwrap();
    let certificate = params.self_signed(&key_pair).unwrap();
    serve_tls(certificate.der().clone(), &key_pair)
}

/// A private certificate authority made in the test, and a TLS server on 127.0.0.1 whose
/// certificate it signed for `names` (an IP address string becomes an IP name).
pub struct PrivateCa {
    /// The server's port.
    pub port: u16,
    /// The CA's certificate as PEM text (what `--cacert` / `ca_cert` reads).
    pub ca_pem: String,
}

/// A TLS server as [`tls_server`], its certificate for `names` signed by a fresh private CA.
pub fn tls_server_signed_by_private_ca(names: &[&str]) -> PrivateCa {
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "Retryscope test CA");
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::CrlSign,
    ];
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let leaf_params =
        rcgen::CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
            .unwrap();
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = leaf_params.signed_by(&leaf_key, &issuer).unwrap();
    PrivateCa {
        port: serve_tls(leaf.der().clone(), &leaf_key),
        ca_pem: pem("CERTIFICATE", ca_cert.der()),
    }
}

/// `der` as a PEM block (base64 in 64-character lines).
pub fn pem(label: &str, der: &[u8]) -> String {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in encoded.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).unwrap());
        out.push('\n');
    }
    out.push_str("-----END ");
    out.push_str(label);
    out.push_str("-----\n");
    out
}

/// Serves `200 ok` over TLS with `cert` and its key on a fresh loopback port.
fn serve_tls(der: rustls::pki_types::CertificateDer<'static>, key_pair: &rcgen::KeyPair) -> u16 {
    use rustls::pki_types::PrivatePkcs8KeyDer;
    let key = PrivatePkcs8KeyDer::from(key_pair.serialize_der());
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = Arc::new(
        rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![der], key.into())
            .unwrap(),
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::Builder::new()
        .name("tls-test-server".into())
        .spawn(move || {
            for stream in listener.incoming().flatten() {
                let Ok(conn) = rustls::ServerConnection::new(Arc::clone(&config)) else {
                    continue;
                };
                let mut tls = rustls::StreamOwned::new(conn, stream);
                let mut request = Vec::new();
                let mut buf = [0u8; 1024];
                // A client that refuses the certificate ends the handshake: read fails.
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match tls.read(&mut buf) {
                        Ok(n) if n > 0 => request.extend_from_slice(&buf[..n]),
                        _ => break,
                    }
                }
                if request.ends_with(b"\r\n\r\n") {
                    let _ = tls.write_all(
                        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                    );
                    tls.conn.send_close_notify();
                    let _ = tls.flush();
                }
            }
        })
        .unwrap();
    port
}

/// A loopback port nobody listens on (bound, then released).
pub fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}
