//! The embedded flaky HTTP server on loopback, used by the GUI default, the CLI and the tests.
//!
//! It listens on `127.0.0.1` only and speaks HTTP/1.1 (hyper adds a `Date` header to every
//! answer). Every scenario endpoint counts hits per **key**: the `key` query parameter, or else
//! the path and query without `key`. `times=N` makes the first N hits of a key fail and later
//! ones answer 200; without `times` every hit fails. Scenario answers carry a JSON body
//! `{"status": 503, "attempt": 1, "key": "…"}`.
//!
//! | endpoint | answer |
//! |---|---|
//! | `/status/{code}?times=N&key=K` | `code` (200–599) for the first N hits, then 200 |
//! | `/flaky?fail=503&times=2` | the same with defaults `fail=503`, `times=2` |
//! | `/retry-after?value=RAW&status=429&times=N` | `status` with `Retry-After: RAW` sent verbatim (seconds, HTTP-dates, garbage…) |
//! | `/retry-after-ms?value=RAW&status=429&times=N` | the same with `retry-after-ms` |
//! | `/header?name=NAME&value=V&status=429&times=N` | any header |
//! | `/sequence?codes=429,503&name=NAME&value=V` | hit n answers the n-th code (with the header when not 2xx), then 200 |
//! | `/slow?ms=1000` | 200 after `ms` (at most 10 min) before the headers |
//! | `/hang` | never answers |
//! | `/reset` | reads the request, then closes the TCP connection with no response |
//! | `/bytes?n=1024` | `n` bytes of `x`, streamed in 64 KiB chunks with a `Content-Length` |
//! | `/echo` | method, path, headers and body back as JSON |
//! | `/redirect?to=URL&status=302&times=N` | `status` with `Location: URL` (default `/status/200`); `URL` must be a relative path or an http(s) URL to loopback (`127.0.0.0/8`, `::1`, `localhost`), anything else answers 400 |
//! | `/job?ready_after=N&key=K` | a polled job: 200 `{"state": "pending"}` (and `x-job-state: pending`) for the first N hits of its key (default 2), then `{"state": "done"}`; a fresh key (or query) is a fresh job |
//! | `/soft-limit?times=N` | 200 with `{"error": "rate limit exceeded"}` for the first N hits (default 1), then the usual 200 |
//! | `/outage?down_min=5&period_min=60&status=503&retry_after=S` | a scheduled outage by the wall clock: `status` (with `Retry-After: S` when given) during the first `down_min` minutes of every `period_min` (default: minutes 0–4 of each hour), else 200; `down_s=2&period_s=10` for seconds |
//! | `/log` | every request seen (except `/log*`) as JSON [`LogEntry`] values |
//! | `/log/clear` | empties the log and every hit counter |
//!
//! Unknown paths get 404 with the endpoint list. Request bodies above 16 MiB get 413.

mod byte_stream;
mod connection;
mod log_entry;
mod redirect_target;
mod routes;
mod state;

pub use log_entry::{LOG_BODY_PREVIEW, LogEntry};
pub use routes::ENDPOINTS;

use state::DemoState;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// A running demo server; dropping it shuts the server down (listener and open connections).
pub struct DemoServer {
    addr: SocketAddr,
    state: Arc<DemoState>,
    shutdown: CancellationToken,
    accepting: Option<tokio::task::JoinHandle<()>>,
}

impl DemoServer {
    /// Starts the server on `127.0.0.1:port` (0 = any free port) on the current tokio runtime.
    ///
    /// # Errors
    /// When the port cannot be bound.
    pub async fn start(port: u16) -> std::io::Result<Self> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(DemoState::new());
        let shutdown = CancellationToken::new();
        let accepting = tokio::spawn(connection::accept_loop(
            listener,
            routes::router(Arc::clone(&state)),
            Arc::clone(&state),
            shutdown.clone(),
        ));
        Ok(Self {
            addr,
            state,
            shutdown,
            accepting: Some(accepting),
        })
    }

    /// Bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `base_url()` followed by `path_and_query`, e.g. `url("/status/503?times=2")`.
    pub fn url(&self, path_and_query: &str) -> String {
        format!("{}{path_and_query}", self.base_url())
    }

    /// Every request seen so far (except `/log` and `/log/clear`), oldest first; the same data
    /// `/log` serves, for in-process tests.
    pub fn log(&self) -> Vec<LogEntry> {
        self.state.log()
    }

    /// Empties the log and every hit counter (as `/log/clear` does).
    pub fn clear(&self) {
        self.state.clear();
    }
}

impl DemoServer {
    /// Shuts the server down and returns once its listener is closed (dropping it only starts
    /// the shutdown). Open connections close as their tasks see the signal.
    pub async fn stop(mut self) {
        self.shutdown.cancel();
        if let Some(accepting) = self.accepting.take() {
            // A panicked accept loop has closed its listener as well.
            let _ = accepting.await;
        }
    }
}

impl Drop for DemoServer {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}
