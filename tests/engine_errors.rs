//! Engine error classification and per-attempt timeouts, all on 127.0.0.1.

#![allow(clippy::unwrap_used)]

mod engine_support;

use engine_support::*;
use retryscope::demo::DemoServer;
use retryscope::model::{ErrorKind, OutcomeKind, RequestSpec, RunEvent};
use std::time::{Duration, Instant};

/// A loopback port nobody listens on (bound, then released).
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[tokio::test]
async fn reset_endpoint_is_classified_reset_and_retried() {
    let server = DemoServer::start(0).await.unwrap();
    let events = run(RequestSpec::get(server.url("/reset")), fixed(5, 1)).await;
    assert_eq!(labels(&events), ["reset", "reset"], "{events:?}");
    assert_eq!(kind(&events), OutcomeKind::GaveUp);
    let error = only_error(&events);
    assert_eq!(error.message, error.message.to_lowercase());
    assert!(
        error
            .message
            .starts_with("connection closed before the response"),
        "{}",
        error.message
    );
    assert!(
        !error.message.contains("(connection closed before"),
        "the cause does not repeat the words: {}",
        error.message
    );
    assert_eq!(server.log().len(), 2, "each attempt reached the server");
}

#[tokio::test]
async fn refused_port_is_classified_connect() {
    let port = closed_port();
    let events = run(
        RequestSpec::get(format!("http://127.0.0.1:{port}/")),
        fixed(5, 0),
    )
    .await;
    let error = only_error(&events);
    assert_eq!(error.kind, ErrorKind::Connect, "{}", error.message);
    let expected = format!("connection refused by 127.0.0.1:{port} (os error ");
    assert!(error.message.starts_with(&expected), "{}", error.message);
}

#[tokio::test]
async fn a_full_accept_queue_gives_connect_timeout() {
    // A listener that never accepts, with its accept queue filled: Linux then drops new SYNs,
    // so connecting hangs until the connect timeout (loopback only).
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(0).unwrap();
    let addr = listener.local_addr().unwrap();
    let mut fillers = Vec::new();
    for _ in 0..4 {
        if let Ok(Ok(s)) = tokio::time::timeout(
            Duration::from_millis(200),
            tokio::net::TcpStream::connect(addr),
        )
        .await
        {
            fillers.push(s);
        }
    }
    let mut spec = RequestSpec::get(format!("http://{addr}/"));
    spec.timeouts.connect_ms = Some(150);
    let began = Instant::now();
    let events = run(spec, fixed(5, 0)).await;
    let error = only_error(&events);
    assert_eq!(error.kind, ErrorKind::ConnectTimeout, "{}", error.message);
    assert!(began.elapsed() < Duration::from_secs(3));
    drop(fillers);
}

#[tokio::test]
async fn read_timeout_on_a_slow_server_is_classified_timeout() {
    let server = DemoServer::start(0).await.unwrap();
    let mut spec = RequestSpec::get(server.url("/slow?ms=5000"));
    spec.timeouts.read_ms = Some(200);
    let began = Instant::now();
    let events = run(spec, fixed(5, 0)).await;
    let error = only_error(&events);
    assert_eq!(error.kind, ErrorKind::Timeout, "{}", error.message);
    assert_eq!(error.message, "read timed out after 200 ms");
    assert!(began.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn profile_read_timeout_applies_when_the_request_sets_none() {
    let server = DemoServer::start(0).await.unwrap();
    let profile = profile(serde_json::json!({
        "max_retries": 0,
        "backoff": { "strategy": "fixed", "base_delay_ms": 5 },
        "timeouts": { "read_ms": 200 },
    }));
    let began = Instant::now();
    let events = run(RequestSpec::get(server.url("/slow?ms=5000")), profile).await;
    assert_eq!(only_error(&events).kind, ErrorKind::Timeout);
    assert!(began.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn total_timeout_bounds_the_whole_attempt() {
    let server = DemoServer::start(0).await.unwrap();
    let mut spec = RequestSpec::get(server.url("/hang"));
    spec.timeouts.total_ms = Some(150);
    let began = Instant::now();
    let events = run(spec, fixed(5, 0)).await;
    let error = only_error(&events);
    assert_eq!(error.kind, ErrorKind::Timeout);
    assert!(
        error.message.contains("total timeout of 150 ms"),
        "{}",
        error.message
    );
    assert!(began.elapsed() < Duration::from_secs(3));
    let total = events.iter().find_map(|e| match e {
        RunEvent::AttemptFinished { timings, .. } => Some(timings.total_ms),
        _ => None,
    });
    assert!(matches!(total, Some(ms) if ms >= 150.0), "{total:?}");
}

#[tokio::test]
async fn https_to_a_plain_http_port_is_classified_tls() {
    let server = DemoServer::start(0).await.unwrap();
    let url = format!("https://{}/status/200", server.addr());
    let events = run(RequestSpec::get(url), fixed(5, 0)).await;
    let error = only_error(&events);
    assert_eq!(error.kind, ErrorKind::Tls, "{}", error.message);
    assert_eq!(
        kind(&events),
        OutcomeKind::Stopped,
        "tls is not retried by default"
    );
}
