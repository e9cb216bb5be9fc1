//! The accept loop and per-connection HTTP/1.1 serving.
//!
//! axum cannot drop a connection without answering, so the server runs hyper itself: each
//! request is logged first; a request to `/reset` then fires the connection's kill switch and
//! never answers, and the connection task drops the socket (a close with no response, which a
//! client sees as "connection closed before message completed"). This works on keep-alive
//! connections too, unlike peeking at the first bytes of a fresh connection.

use super::log_entry::{LOG_BODY_PREVIEW, LogEntry};
use super::state::{DemoState, scenario_key};
use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response, StatusCode};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

/// Largest request body the server reads, bytes (16 MiB); larger bodies get 413.
const MAX_REQUEST_BODY: usize = 16 * 1024 * 1024;

/// Accepts connections until `shutdown` fires.
pub(crate) async fn accept_loop(
    listener: TcpListener,
    router: Router,
    state: Arc<DemoState>,
    shutdown: CancellationToken,
) {
    loop {
        let accepted = tokio::select! {
            () = shutdown.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, _)) => {
                tokio::spawn(serve_connection(
                    stream,
                    router.clone(),
                    Arc::clone(&state),
                    shutdown.clone(),
                ));
            }
            // Out of file descriptors and the like: back off briefly instead of spinning.
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}

/// Serves one connection until it ends, `/reset` kills it, or the server shuts down.
async fn serve_connection(
    stream: TcpStream,
    router: Router,
    state: Arc<DemoState>,
    shutdown: CancellationToken,
) {
    // Latency matters more than throughput for the timing benchmarks.
    let _ = stream.set_nodelay(true);
    let kill = Arc::new(Notify::new());
    let kill_switch = Arc::clone(&kill);
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let router = router.clone();
        let state = Arc::clone(&state);
        let kill = Arc::clone(&kill_switch);
        async move { Ok::<_, Infallible>(handle(request, router, &state, &kill).await) }
    });
    let connection =
        hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        _ = connection => {}
        () = kill.notified() => {}
        () = shutdown.cancelled() => {}
    }
}

/// Logs the request, then answers it through the router (or kills the connection for `/reset`).
async fn handle(
    request: Request<Incoming>,
    router: Router,
    state: &DemoState,
    kill: &Notify,
) -> Response<Body> {
    let at_ms = state.elapsed_ms();
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(Body::new(body), MAX_REQUEST_BODY).await else {
        let mut response = Response::new(Body::from(
            "request body too large or broken (limit 16 MiB)",
        ));
        *response.status_mut() = StatusCode::PAYLOAD_TOO_LARGE;
        return response;
    };
    let path = parts.uri.path();
    if path != "/log" && path != "/log/clear" {
        let preview = &body[..body.len().min(LOG_BODY_PREVIEW)];
        state.record(LogEntry {
            method: parts.method.as_str().to_owned(),
            path: parts
                .uri
                .path_and_query()
                .map_or_else(|| path.to_owned(), |p| p.as_str().to_owned()),
            at_ms,
            key: scenario_key(path, parts.uri.query()),
            headers: parts
                .headers
                .iter()
                .map(|(n, v)| {
                    (
                        n.as_str().to_owned(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body_len: body.len() as u64,
            body: String::from_utf8_lossy(preview).into_owned(),
        });
    }
    if path == "/reset" {
        kill.notify_one();
        // Never answer: the connection task drops the socket.
        std::future::pending::<()>().await;
    }
    let request = Request::from_parts(parts, Body::from(body));
    match router.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}
