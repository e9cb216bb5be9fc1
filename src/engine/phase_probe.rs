//! Measuring connect and request-sent inside reqwest, per attempt.
//!
//! reqwest reports neither. Two hooks do:
//! - [`ConnectTimingLayer`], a tower layer on reqwest's connector (`ClientBuilder::
//!   connector_layer`), times each new connection: TCP connect, and for `https` the TLS
//!   handshake with it (the layer wraps reqwest's whole connector, so it alone cannot split
//!   them; the handshake clock below does).
//! - [`timed_body`] wraps the request body and notes when its last byte is handed to the
//!   connection.
//! - [`install_handshake_clock`] splits TLS from TCP connect: reqwest builds its rustls config
//!   on the process's default crypto provider when one is installed, so we install aws-lc-rs's
//!   own provider with its random source wrapped. rustls draws the ClientHello's random (and
//!   session id) the moment it starts a handshake, right after the TCP connect; the first draw
//!   inside a hop's connect marks "TLS started". When another provider was installed first,
//!   nothing is marked and TLS stays inside connect (`connect + TLS`).
//!
//! Connections belong to a pool, not to a request, so the attempt ties them together with a
//! task-local: [`with_probe`] runs the hop's `execute` with a [`PhaseProbe`] in scope; the
//! connector is called from inside that future (hyper-util polls the connect in the caller's
//! task), so a connection opened for this hop lands in this probe. A hop whose probe saw no
//! finished connect before its response used a pooled connection: reused.

use bytes::Bytes;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::task::{Context, Poll};
use tokio::time::Instant;

tokio::task_local! {
    static PROBE: Arc<PhaseProbe>;
}

/// What one hop's probe saw, as instants.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ProbeMarks {
    /// A new connection began.
    pub(crate) connect_start: Option<Instant>,
    /// Its TLS handshake began (the TCP connect was done), when the stack told us.
    pub(crate) tls_start: Option<Instant>,
    /// It was ready (connected, TLS done).
    pub(crate) connect_end: Option<Instant>,
    /// The last request-body byte was handed to the connection.
    pub(crate) sent: Option<Instant>,
}

/// Marks of one hop, shared with the connector and the body (which run on other tasks too).
#[derive(Debug, Default)]
pub(crate) struct PhaseProbe {
    marks: Mutex<ProbeMarks>,
}

impl PhaseProbe {
    /// The marks so far.
    pub(crate) fn marks(&self) -> ProbeMarks {
        *self.marks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn update(&self, change: impl FnOnce(&mut ProbeMarks)) {
        change(&mut self.marks.lock().unwrap_or_else(PoisonError::into_inner));
    }
}

/// Runs `future` (a hop's `execute`) with `probe` in scope for the connector layer.
pub(crate) async fn with_probe<F: Future>(probe: Arc<PhaseProbe>, future: F) -> F::Output {
    PROBE.scope(probe, future).await
}

/// Tower layer timing each new connection into the probe in scope (none: not timed).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ConnectTimingLayer;

impl<S> tower::Layer<S> for ConnectTimingLayer {
    type Service = ConnectTiming<S>;

    fn layer(&self, inner: S) -> Self::Service {
        ConnectTiming { inner }
    }
}

/// The connector service [`ConnectTimingLayer`] wraps around reqwest's.
#[derive(Debug, Clone)]
pub(crate) struct ConnectTiming<S> {
    inner: S,
}

impl<S, R> tower::Service<R> for ConnectTiming<S>
where
    S: tower::Service<R>,
    S::Future: Send + 'static,
    S::Response: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Self::Future {
        let probe = PROBE.try_with(Arc::clone).ok();
        if let Some(probe) = &probe {
            let now = Instant::now();
            probe.update(|m| {
                m.connect_start = Some(now);
                m.tls_start = None;
                m.connect_end = None;
            });
        }
        let connecting = self.inner.call(request);
        Box::pin(async move {
            let result = connecting.await;
            if let Some(probe) = probe {
                let now = Instant::now();
                // A failed connect ends too: the waterfall shows how long it took to fail.
                probe.update(|m| m.connect_end = Some(now));
            }
            result
        })
    }
}

/// `bytes` as a request body that notes in `probe` when it has been handed over in full.
/// Its exact length is kept, so the request still carries `Content-Length`.
pub(crate) fn timed_body(bytes: Bytes, probe: Arc<PhaseProbe>) -> reqwest::Body {
    reqwest::Body::wrap(TimedBody {
        bytes: Some(bytes),
        probe,
    })
}

/// One-frame body: the whole buffer, then the end.
struct TimedBody {
    bytes: Option<Bytes>,
    probe: Arc<PhaseProbe>,
}

impl http_body::Body for TimedBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        let frame = self.bytes.take();
        if frame.is_some() {
            let now = Instant::now();
            self.probe.update(|m| m.sent = Some(now));
        }
        Poll::Ready(frame.map(|b| Ok(http_body::Frame::data(b))))
    }

    fn is_end_stream(&self) -> bool {
        self.bytes.is_none()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        let len = self.bytes.as_ref().map_or(0, Bytes::len);
        http_body::SizeHint::with_exact(u64::try_from(len).unwrap_or(u64::MAX))
    }
}

/// aws-lc-rs's random source, noting the first draw of a hop's connect in its probe.
#[derive(Debug)]
struct HandshakeClock {
    inner: &'static dyn rustls::crypto::SecureRandom,
}

impl rustls::crypto::SecureRandom for HandshakeClock {
    fn fill(&self, buf: &mut [u8]) -> Result<(), rustls::crypto::GetRandomFailed> {
        // Outside a hop's scope (another task, a background connect) there is nothing to mark.
        let _ = PROBE.try_with(|probe| {
            let now = Instant::now();
            probe.update(|m| {
                if m.connect_start.is_some() && m.connect_end.is_none() && m.tls_start.is_none() {
                    m.tls_start = Some(now);
                }
            });
        });
        self.inner.fill(buf)
    }

    fn fips(&self) -> bool {
        self.inner.fips()
    }
}

static HANDSHAKE_CLOCK: OnceLock<bool> = OnceLock::new();

/// Installs (once per process) the default rustls crypto provider whose random source marks
/// TLS handshake starts. Call before building a reqwest client. True when ours is the
/// process default (false: another provider was installed first; TLS is then not split).
pub(crate) fn install_handshake_clock() -> bool {
    *HANDSHAKE_CLOCK.get_or_init(|| {
        static CLOCK: OnceLock<HandshakeClock> = OnceLock::new();
        let mut provider = rustls::crypto::aws_lc_rs::default_provider();
        let clock = CLOCK.get_or_init(|| HandshakeClock {
            inner: provider.secure_random,
        });
        provider.secure_random = clock;
        provider.install_default().is_ok()
    })
}
