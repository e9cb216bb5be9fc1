//! Phase timings per attempt against the demo server on 127.0.0.1 (and a TLS server on
//! loopback): connect measured on a new connection, a keep-alive connection shown as reused,
//! request sent for a body, phases in order.

#![allow(clippy::unwrap_used)]

mod engine_support;
mod fault_support;

use engine_support::*;
use retryscope::demo::DemoServer;
use retryscope::engine::{ClientCache, RunOptions, prepare_run};
use retryscope::model::{
    Body, ConnectionUse, ErrorKind, PhaseKind, RequestSpec, RunEvent, Timings, phase_spans,
};

fn timings(events: &[RunEvent]) -> Vec<Timings> {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::AttemptFinished { timings, .. } => Some(*timings),
            _ => None,
        })
        .collect()
}

/// dns ≤ connect end ≤ sent ≤ first byte ≤ done, for whatever was measured.
fn assert_ordered(t: &Timings) {
    let mut marks: Vec<(&str, f64)> = Vec::new();
    if t.last_hop_start_ms.is_none()
        && let Some(dns) = t.resolve_ms
    {
        marks.push(("dns", dns));
    }
    if let Some(start) = t.connect_start_ms {
        marks.push(("connect start", start));
    }
    if let Some(end) = t.connect_end_ms() {
        marks.push(("connect end", end));
    }
    if let Some(sent) = t.sent_ms {
        marks.push(("sent", sent));
    }
    if let Some(first) = t.headers_ms {
        marks.push(("first byte", first));
    }
    marks.push(("done", t.total_ms));
    for pair in marks.windows(2) {
        assert!(
            pair[0].1 <= pair[1].1,
            "{} ({}) after {} ({}): {t:?}",
            pair[0].0,
            pair[0].1,
            pair[1].0,
            pair[1].1
        );
    }
}

/// How attempt 1 of a one-attempt GET of `url` got its connection, the run given `clients`.
async fn first_connection(url: &str, clients: Option<&ClientCache>) -> ConnectionUse {
    let (tx, mut rx) = tokio::sync::mpsc::channel(64);
    let options = RunOptions {
        run_id: 1,
        seed: Some(7),
        budget: None,
    };
    let (_handle, run) = prepare_run(
        RequestSpec::get(url.to_owned()),
        fixed(5, 0),
        options,
        tx,
        None,
    );
    match clients {
        Some(clients) => run.with_clients(clients).drive().await,
        None => run.drive().await,
    }
    let mut events = Vec::new();
    while let Ok(event) = rx.try_recv() {
        events.push(event);
    }
    timings(&events)[0].connection
}

#[tokio::test]
async fn runs_given_one_client_cache_share_its_kept_alive_connection() {
    let server = DemoServer::start(0).await.unwrap();
    let url = server.url("/status/200?key=shared-clients");
    let clients = ClientCache::default();
    assert_eq!(
        first_connection(&url, Some(&clients)).await,
        ConnectionUse::New
    );
    assert_eq!(
        first_connection(&url, Some(&clients)).await,
        ConnectionUse::Reused
    );
    // A run given no cache has clients of its own.
    assert_eq!(first_connection(&url, None).await, ConnectionUse::New);
}

#[tokio::test]
async fn first_attempt_measures_connect_and_a_retry_on_the_kept_alive_connection_is_reused() {
    let server = DemoServer::start(0).await.unwrap();
    let events = run(
        RequestSpec::get(server.url("/status/503?times=1&key=phases")),
        fixed(5, 2),
    )
    .await;
    assert_eq!(labels(&events), ["503", "200"]);
    let t = timings(&events);
    assert_eq!(t[0].connection, ConnectionUse::New, "{:?}", t[0]);
    let connect = t[0].connect_ms.expect("connect measured on attempt 1");
    assert!(connect > 0.0 && connect < t[0].total_ms, "{:?}", t[0]);
    assert!(!t[0].tls_in_connect, "plain http has no TLS");
    assert_eq!(t[1].connection, ConnectionUse::Reused, "{:?}", t[1]);
    assert_eq!((t[1].connect_start_ms, t[1].connect_ms), (None, None));
    for one in &t {
        assert_ordered(one);
        assert_eq!(one.sent_ms, None, "a GET has no body to time");
    }
    let kinds: Vec<PhaseKind> = phase_spans(&t[1], None).iter().map(|s| s.kind).collect();
    assert_eq!(kinds, [PhaseKind::SendWait, PhaseKind::Download]);
}

#[tokio::test]
async fn a_new_connection_per_attempt_connects_every_time() {
    let server = DemoServer::start(0).await.unwrap();
    let mut spec = RequestSpec::get(server.url("/status/503?times=1&key=fresh"));
    spec.new_connection_per_attempt = true;
    let events = run(spec, fixed(5, 2)).await;
    let t = timings(&events);
    assert_eq!(t.len(), 2);
    for one in &t {
        assert_eq!(one.connection, ConnectionUse::New, "{one:?}");
        assert!(one.connect_ms.is_some(), "{one:?}");
        assert_ordered(one);
    }
}

#[tokio::test]
async fn a_body_is_timed_until_sent_and_still_carries_its_length() {
    let server = DemoServer::start(0).await.unwrap();
    let mut spec = RequestSpec::get(server.url("/echo"));
    spec.method = "PUT".into();
    spec.body = Body::Json {
        text: r#"{"order":42}"#.into(),
    };
    let events = run(spec, fixed(5, 0)).await;
    let t = timings(&events)[0];
    let sent = t.sent_ms.expect("request sent measured");
    assert!(sent >= t.connect_end_ms().unwrap(), "{t:?}");
    assert_ordered(&t);
    let log = server.log();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].header("content-length"), Some("12"));
    assert_eq!(log[0].header("transfer-encoding"), None);
    assert_eq!(log[0].body, r#"{"order":42}"#);
    let kinds: Vec<PhaseKind> = phase_spans(&t, None).iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [
            PhaseKind::Connect,
            PhaseKind::Send,
            PhaseKind::Wait,
            PhaseKind::Download
        ]
    );
}

#[tokio::test]
async fn after_a_redirect_the_phases_are_the_final_hops_on_the_kept_alive_connection() {
    let server = DemoServer::start(0).await.unwrap();
    let spec = RequestSpec::get(server.url("/redirect?status=302&to=/status/200"));
    let events = run(spec, fixed(5, 0)).await;
    assert_eq!(labels(&events), ["200"]);
    let t = timings(&events)[0];
    let hop = t.last_hop_start_ms.expect("the final hop's start");
    assert!(hop > 0.0 && hop < t.headers_ms.unwrap(), "{t:?}");
    // Same origin: usually the kept-alive connection, but hyper may hand it back to the pool
    // a moment after the next hop asked, which then opens a new one. Either way it is said.
    match t.connection {
        ConnectionUse::Reused => assert_eq!(t.connect_ms, None, "{t:?}"),
        ConnectionUse::New => assert!(t.connect_start_ms.unwrap() >= hop, "{t:?}"),
        ConnectionUse::Unknown => panic!("connection use not measured: {t:?}"),
    }
    assert_ordered(&t);
    let spans = phase_spans(&t, None);
    assert_eq!(spans[0].kind, PhaseKind::Redirects);
    assert!((spans[0].end_ms - hop).abs() < 1e-9);
}

#[tokio::test]
async fn a_name_is_resolved_before_connecting() {
    let server = DemoServer::start(0).await.unwrap();
    let url = server.url("/status/200").replace("127.0.0.1", "localhost");
    let events = run(RequestSpec::get(url), fixed(5, 0)).await;
    let t = timings(&events)[0];
    assert!(t.resolve_ms.is_some(), "{t:?}");
    assert_eq!(t.connection, ConnectionUse::New);
    assert_ordered(&t);
}

#[tokio::test]
async fn a_refused_connection_shows_how_long_the_connect_took_to_fail() {
    // Bind then drop: nothing listens on the port.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let events = run(
        RequestSpec::get(format!("http://127.0.0.1:{port}/")),
        fixed(5, 0),
    )
    .await;
    assert_eq!(only_error(&events).kind, ErrorKind::Connect);
    let t = timings(&events)[0];
    assert_eq!(t.connection, ConnectionUse::New);
    assert!(t.connect_ms.is_some(), "{t:?}");
    let spans = phase_spans(&t, Some(ErrorKind::Connect));
    assert_eq!(
        spans.last().map(|s| (s.kind, s.failed)),
        Some((PhaseKind::Connect, true))
    );
}

#[tokio::test]
async fn the_tls_handshake_is_timed_apart_from_the_tcp_connect() {
    let port = fault_support::tls_server(fault_support::Cert::SelfSigned);
    let mut spec = RequestSpec::get(format!("https://127.0.0.1:{port}/"));
    spec.verify_tls = false;
    let events = run(spec, fixed(5, 0)).await;
    assert_eq!(labels(&events), ["200"]);
    let t = timings(&events)[0];
    assert_eq!(t.connection, ConnectionUse::New);
    let connect = t.connect_ms.expect("connect measured");
    let tls = t.tls_ms.expect("handshake split from connect");
    assert!(tls > 0.0 && tls < connect, "{t:?}");
    assert!(!t.tls_in_connect, "{t:?}");
    assert_ordered(&t);
    let kinds: Vec<PhaseKind> = phase_spans(&t, None).iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [
            PhaseKind::Connect,
            PhaseKind::Tls,
            PhaseKind::SendWait,
            PhaseKind::Download
        ]
    );
}

#[tokio::test]
async fn a_refused_certificate_fails_in_the_tls_phase() {
    let port = fault_support::tls_server(fault_support::Cert::SelfSigned);
    let events = run(
        RequestSpec::get(format!("https://127.0.0.1:{port}/")),
        fixed(5, 0),
    )
    .await;
    assert_eq!(only_error(&events).kind, ErrorKind::Tls);
    let t = timings(&events)[0];
    assert!(t.tls_ms.is_some(), "{t:?}");
    let spans = phase_spans(&t, Some(ErrorKind::Tls));
    assert_eq!(
        spans.last().map(|s| (s.kind, s.failed)),
        Some((PhaseKind::Tls, true))
    );
}
