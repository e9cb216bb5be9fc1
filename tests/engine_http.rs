//! Engine against the demo server on 127.0.0.1: triage, retries, method gate, bodies, redirects.
//! Profiles use the real policy (`fixed` waits without jitter, default triage of DESIGN.md §4).

#![allow(clippy::unwrap_used)]

mod engine_support;

use engine_support::*;
use retryscope::demo::DemoServer;
use retryscope::engine::BODY_PREVIEW_CAP;
use retryscope::model::{
    AttemptOutcome, Body, KeyValue, OutcomeKind, RequestSpec, RunEvent, Verdict,
};

fn post(url: String) -> RequestSpec {
    let mut spec = RequestSpec::get(url);
    spec.method = "POST".into();
    spec.body = Body::Json {
        text: r#"{"order":42}"#.into(),
    };
    spec
}

#[tokio::test]
async fn status_503_twice_then_200_takes_three_attempts_and_succeeds() {
    let server = DemoServer::start(0).await.unwrap();
    let events = run(
        RequestSpec::get(server.url("/status/503?times=2&key=a")),
        fixed(10, 3),
    )
    .await;
    assert_eq!(labels(&events), ["503", "503", "200"]);
    let (outcome, n) = finished(&events);
    assert_eq!((outcome.kind, n), (OutcomeKind::Succeeded, 3));
    assert!(
        outcome.message.starts_with("succeeded on attempt 3 after "),
        "{}",
        outcome.message
    );
    assert_eq!(outcome.last_status, Some(200));
    let waits = waits(&events);
    assert_eq!(waits.len(), 2);
    assert!(
        waits
            .iter()
            .all(|&(planned, actual, skipped)| planned == 10 && actual >= 10.0 && !skipped)
    );
    assert_eq!(server.log().len(), 3, "one request on the wire per attempt");
    match &events[0] {
        RunEvent::RunStarted { seed, method, .. } => {
            assert_eq!((*seed, method.as_str()), (7, "GET"));
        }
        other => panic!("first event {other:?}"),
    }
}

#[tokio::test]
async fn status_404_stops_after_one_attempt() {
    let server = DemoServer::start(0).await.unwrap();
    let events = run(RequestSpec::get(server.url("/status/404")), fixed(10, 3)).await;
    assert_eq!(labels(&events), ["404"]);
    assert_eq!(kind(&events), OutcomeKind::Stopped);
    assert!(matches!(attempts(&events)[0].2, Verdict::Stop { .. }));
    assert_eq!(server.log().len(), 1);
}

#[tokio::test]
async fn always_503_gives_up_after_max_retries_plus_one_attempts() {
    let server = DemoServer::start(0).await.unwrap();
    let events = run(RequestSpec::get(server.url("/status/503")), fixed(5, 2)).await;
    let (outcome, n) = finished(&events);
    assert_eq!((outcome.kind, n), (OutcomeKind::GaveUp, 3));
    assert_eq!(outcome.message, "gave up after 3 attempts (503)");
}

#[tokio::test]
async fn post_503_is_not_retried_without_opt_in() {
    let server = DemoServer::start(0).await.unwrap();
    let events = run(post(server.url("/status/503?times=2")), fixed(5, 3)).await;
    let (outcome, n) = finished(&events);
    assert_eq!((outcome.kind, n), (OutcomeKind::Stopped, 1));
    assert!(
        outcome.message.contains("idempotent"),
        "{}",
        outcome.message
    );
    assert_eq!(server.log().len(), 1);
}

#[tokio::test]
async fn post_503_with_idempotency_key_is_retried_with_the_same_key_every_attempt() {
    let server = DemoServer::start(0).await.unwrap();
    let mut spec = post(server.url("/status/503?times=2"));
    spec.idempotency_key = Some("key-3f2a".into());
    let events = run(spec, fixed(5, 3)).await;
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
    let log = server.log();
    assert_eq!(log.len(), 3);
    for entry in &log {
        assert_eq!(entry.method, "POST");
        assert_eq!(entry.header("idempotency-key"), Some("key-3f2a"));
    }
}

#[tokio::test]
async fn the_same_body_bytes_go_out_on_every_attempt() {
    let server = DemoServer::start(0).await.unwrap();
    let mut spec = post(server.url("/status/503?times=2"));
    spec.method = "PUT".into();
    spec.headers.push(KeyValue::new("X-Trace", "t1"));
    let events = run(spec, fixed(5, 3)).await;
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
    let log = server.log();
    assert_eq!(log.len(), 3);
    for entry in &log {
        assert_eq!(entry.body, r#"{"order":42}"#);
        assert_eq!(entry.header("content-type"), Some("application/json"));
        assert_eq!(entry.header("x-trace"), Some("t1"));
    }
}

#[tokio::test]
async fn a_body_file_is_read_once_and_sent_identically_on_every_attempt() {
    let server = DemoServer::start(0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("payload.bin");
    let payload: Vec<u8> = (0..20_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&path, &payload).unwrap();
    let mut spec = RequestSpec::get(server.url("/status/503?times=1"));
    spec.method = "PUT".into();
    spec.body = Body::File {
        path: path.display().to_string(),
        content_type: None,
    };
    let events = run(spec, fixed(5, 3)).await;
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
    let log = server.log();
    assert_eq!(log.len(), 2);
    assert!(log.iter().all(|e| e.body_len == payload.len() as u64));
    assert_eq!(log[0].body, log[1].body);
    assert_eq!(
        log[0].header("content-type"),
        Some("application/octet-stream")
    );
}

#[tokio::test]
async fn an_unreadable_body_file_ends_the_run_with_an_error_naming_the_path() {
    let mut spec = RequestSpec::get("http://127.0.0.1:9/");
    spec.method = "PUT".into();
    spec.body = Body::File {
        path: "/no/such/dir/body.json".into(),
        content_type: None,
    };
    let events = run(spec, fixed(5, 3)).await;
    let (outcome, n) = finished(&events);
    assert_eq!((outcome.kind, n), (OutcomeKind::Error, 0));
    assert!(
        outcome.message.contains("/no/such/dir/body.json"),
        "{}",
        outcome.message
    );
}

#[tokio::test]
async fn an_invalid_url_or_method_ends_the_run_with_an_error_not_a_panic() {
    let events = run(RequestSpec::get("127.0.0.1:9/no-scheme"), fixed(5, 3)).await;
    let (outcome, _) = finished(&events);
    assert_eq!(outcome.kind, OutcomeKind::Error);
    assert!(outcome.message.contains("in url"), "{}", outcome.message);

    let mut spec = RequestSpec::get("http://127.0.0.1:9/");
    spec.method = "GET /".into();
    let (outcome, _) = finished(&run(spec, fixed(5, 3)).await);
    assert_eq!(outcome.kind, OutcomeKind::Error);
    assert!(outcome.message.contains("in method"), "{}", outcome.message);
}

#[tokio::test]
async fn query_rows_are_appended_and_disabled_ones_skipped() {
    let server = DemoServer::start(0).await.unwrap();
    let mut spec = RequestSpec::get(server.url("/echo?a=1"));
    spec.query.push(KeyValue::new("b", "x y"));
    let mut off = KeyValue::new("c", "3");
    off.enabled = false;
    spec.query.push(off);
    let events = run(spec, fixed(5, 0)).await;
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
    assert_eq!(server.log()[0].path, "/echo?a=1&b=x+y");
}

#[tokio::test]
async fn redirects_are_hops_and_a_retry_repeats_the_last_hop() {
    let server = DemoServer::start(0).await.unwrap();
    let target = "/status/503%3Ftimes%3D1%26key%3Dtarget";
    let events = run(
        RequestSpec::get(server.url(&format!("/redirect?key=hop&to={target}"))),
        fixed(5, 3),
    )
    .await;
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
    let tries = attempts(&events);
    assert_eq!(tries.len(), 2);
    assert_eq!(tries[0].1.len(), 1, "attempt 1 followed one hop");
    let hop = &tries[0].1[0];
    assert_eq!((hop.method.as_str(), hop.status), ("GET", 302));
    // `key` is a secret parameter name (DESIGN.md §9): events show it masked.
    assert_eq!(hop.location, server.url("/status/503?times=1&key=***"));
    assert!(
        tries[1].1.is_empty(),
        "attempt 2 went straight to the last hop"
    );
    let starts = started(&events);
    assert_eq!(starts[1].1, server.url("/status/503?times=1&key=***"));
    let paths: Vec<String> = server.log().into_iter().map(|e| e.key).collect();
    assert_eq!(paths, ["hop", "target", "target"]);
}

#[tokio::test]
async fn redirect_303_turns_post_into_get_and_307_keeps_method_and_body() {
    let server = DemoServer::start(0).await.unwrap();
    let events = run(
        post(server.url("/redirect?status=303&to=/echo")),
        fixed(5, 0),
    )
    .await;
    let tries = attempts(&events);
    assert_eq!(tries[0].1[0].method, "POST");
    let AttemptOutcome::Response(echo) = &tries[0].0 else {
        panic!("{:?}", tries[0].0)
    };
    let json: serde_json::Value = serde_json::from_slice(&echo.body.bytes).unwrap();
    assert_eq!(
        (json["method"].as_str(), json["body_len"].as_u64()),
        (Some("GET"), Some(0))
    );

    let events = run(
        post(server.url("/redirect?status=307&to=/echo")),
        fixed(5, 0),
    )
    .await;
    let tries = attempts(&events);
    let AttemptOutcome::Response(echo) = &tries[0].0 else {
        panic!("{:?}", tries[0].0)
    };
    let json: serde_json::Value = serde_json::from_slice(&echo.body.bytes).unwrap();
    assert_eq!(json["method"], "POST");
    assert_eq!(json["body"], r#"{"order":42}"#);
}

/// The header names the echo server received on the last hop of attempt 1, and that hop's
/// list of dropped headers.
async fn echoed_after_redirect(spec: RequestSpec) -> (Vec<String>, Vec<String>) {
    let events = run(spec, fixed(5, 0)).await;
    let tries = attempts(&events);
    let AttemptOutcome::Response(echo) = &tries[0].0 else {
        panic!("{:?}", tries[0].0)
    };
    let json: serde_json::Value = serde_json::from_slice(&echo.body.bytes).unwrap();
    let names = json["headers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|pair| pair[0].as_str().unwrap().to_owned())
        .collect();
    (names, tries[0].1[0].dropped_headers.clone())
}

#[tokio::test]
async fn a_redirect_to_another_origin_drops_every_secret_header_unless_trusted() {
    let a = DemoServer::start(0).await.unwrap();
    let b = DemoServer::start(0).await.unwrap();
    let request = |to: &str| {
        let mut spec = RequestSpec::get(a.url(&format!("/redirect?to={to}")));
        spec.headers = vec![
            KeyValue::new("Authorization", "Bearer abcdefgh"),
            KeyValue::new("X-Api-Key", "k-1234567"),
            KeyValue::new("X-Trace", "plain"),
            KeyValue {
                secret: true,
                ..KeyValue::new("X-Mine", "marked-secret")
            },
        ];
        spec
    };
    let secret = ["authorization", "x-api-key", "x-mine"];
    let (received, dropped) = echoed_after_redirect(request(&b.url("/echo"))).await;
    assert_eq!(dropped, secret, "named on the hop");
    assert!(received.iter().any(|n| n == "x-trace"), "{received:?}");
    for name in secret {
        assert!(
            !received.iter().any(|n| n == name),
            "{name} reached {received:?}"
        );
    }

    let mut trusted = request(&b.url("/echo"));
    trusted.location_trusted = true;
    let (received, dropped) = echoed_after_redirect(trusted).await;
    assert!(dropped.is_empty());
    for name in secret {
        assert!(
            received.iter().any(|n| n == name),
            "{name} missing: {received:?}"
        );
    }

    let (received, dropped) = echoed_after_redirect(request("/echo")).await;
    assert!(dropped.is_empty(), "same origin keeps them: {dropped:?}");
    assert!(received.iter().any(|n| n == "x-api-key"));
}

#[tokio::test]
async fn a_redirect_loop_stops_at_max_redirects() {
    let server = DemoServer::start(0).await.unwrap();
    let mut spec = RequestSpec::get(server.url("/redirect?to=")); // empty Location = this URL again
    spec.max_redirects = 3;
    let events = run(spec, fixed(5, 2)).await;
    let error = only_error(&events);
    assert!(
        error.message.contains("too many redirects"),
        "{}",
        error.message
    );
    assert_eq!(attempts(&events)[0].1.len(), 4);
    assert_eq!(
        kind(&events),
        OutcomeKind::Stopped,
        "`other` errors are not retried by default"
    );
}

#[tokio::test]
async fn redirects_are_not_followed_when_turned_off() {
    let server = DemoServer::start(0).await.unwrap();
    let mut spec = RequestSpec::get(server.url("/redirect?to=/status/200"));
    spec.follow_redirects = false;
    let events = run(spec, fixed(5, 2)).await;
    assert_eq!(labels(&events), ["302"]);
    assert!(attempts(&events)[0].1.is_empty());
}

#[tokio::test]
async fn a_100_mb_body_keeps_a_1_mib_preview_and_counts_every_byte() {
    let server = DemoServer::start(0).await.unwrap();
    let events = run(
        RequestSpec::get(server.url("/bytes?n=100000000")),
        fixed(5, 0),
    )
    .await;
    let AttemptOutcome::Response(r) = &attempts(&events)[0].0 else {
        panic!("{events:?}")
    };
    assert_eq!(r.body.total_bytes, 100_000_000);
    assert_eq!(r.body.bytes.len(), BODY_PREVIEW_CAP);
    assert!(r.body.truncated);
}

#[tokio::test]
async fn new_connection_per_attempt_still_retries_normally() {
    let server = DemoServer::start(0).await.unwrap();
    let mut spec = RequestSpec::get(server.url("/status/500?times=2"));
    spec.new_connection_per_attempt = true;
    let events = run(spec, fixed(5, 3)).await;
    assert_eq!(labels(&events), ["500", "500", "200"]);
}

#[tokio::test]
async fn a_host_name_is_resolved_by_the_engine_and_timed() {
    let server = DemoServer::start(0).await.unwrap();
    let url = format!("http://localhost:{}/status/200", server.addr().port());
    let events = run(RequestSpec::get(url), fixed(5, 0)).await;
    // localhost may resolve to ::1 first; the demo server listens on 127.0.0.1 only, and the
    // client falls back to the next address.
    assert_eq!(kind(&events), OutcomeKind::Succeeded, "{events:?}");
    let resolve = events.iter().find_map(|e| match e {
        RunEvent::AttemptFinished { timings, .. } => Some(timings.resolve_ms),
        _ => None,
    });
    assert!(
        matches!(resolve, Some(Some(ms)) if ms >= 0.0),
        "{resolve:?}"
    );

    let events = run(RequestSpec::get(server.url("/status/200")), fixed(5, 0)).await;
    let resolve = events.iter().find_map(|e| match e {
        RunEvent::AttemptFinished { timings, .. } => Some(timings.resolve_ms),
        _ => None,
    });
    assert_eq!(resolve, Some(None), "no lookup for an IP literal");
}

#[tokio::test]
async fn the_seed_comes_from_options_else_the_profile_else_is_drawn() {
    use retryscope::engine::{RunOptions, start_run};
    let server = DemoServer::start(0).await.unwrap();
    let mut profile = fixed(5, 0);
    profile.seed = Some(99);
    for (option, expected) in [(Some(5), Some(5)), (None, Some(99))] {
        let (tx, mut rx) = tokio::sync::mpsc::channel(64);
        start_run(
            RequestSpec::get(server.url("/status/200")),
            profile.clone(),
            RunOptions {
                run_id: 3,
                seed: option,
                budget: None,
            },
            tx,
            None,
        );
        match rx.recv().await {
            Some(RunEvent::RunStarted { seed, run_id, .. }) => {
                assert_eq!((Some(seed), run_id), (expected, 3));
            }
            other => panic!("{other:?}"),
        }
    }
    profile.seed = None;
    let (tx, mut rx) = tokio::sync::mpsc::channel(64);
    start_run(
        RequestSpec::get(server.url("/status/200")),
        profile,
        RunOptions {
            run_id: 4,
            seed: None,
            budget: None,
        },
        tx,
        None,
    );
    assert!(matches!(
        rx.recv().await,
        Some(RunEvent::RunStarted { run_id: 4, .. })
    ));
}

#[tokio::test]
async fn url_passwords_are_sent_but_redacted_in_every_event() {
    let server = DemoServer::start(0).await.unwrap();
    let url = server
        .url("/echo")
        .replace("http://", "http://user:s3cret@");
    let events = run(RequestSpec::get(url), fixed(10, 0)).await;
    let json = serde_json::to_string(&events).unwrap();
    assert!(!json.contains("s3cret"), "{json}");
    let urls: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::RunStarted { url, .. } | RunEvent::AttemptStarted { url, .. } => {
                Some(url.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(urls.len(), 2);
    assert!(
        urls.iter()
            .all(|u| !u.contains("user") && u.contains("***:***@")),
        "{urls:?}"
    );
    let body = events
        .iter()
        .find_map(|e| match e {
            RunEvent::AttemptFinished {
                outcome: AttemptOutcome::Response(r),
                ..
            } => Some(String::from_utf8_lossy(&r.body.bytes).into_owned()),
            _ => None,
        })
        .unwrap();
    // base64("user:s3cret")
    assert!(body.contains("Basic dXNlcjpzM2NyZXQ="), "{body}");
}

#[tokio::test]
async fn a_prepared_run_driven_on_the_calling_task_emits_the_same_cycle() {
    use retryscope::engine::{RunOptions, prepare_run};
    let server = DemoServer::start(0).await.unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::channel(64);
    let (handle, run) = prepare_run(
        RequestSpec::get(server.url("/status/503?times=1&key=inline")),
        fixed(5, 3),
        RunOptions {
            run_id: 9,
            seed: Some(1),
            budget: None,
        },
        tx,
        None,
    );
    assert!(!handle.is_finished(), "nothing runs before drive()");
    assert!(server.log().is_empty(), "no request before drive()");
    run.drive().await;
    assert!(handle.is_finished());
    let mut events = Vec::new();
    while let Ok(event) = rx.try_recv() {
        events.push(event);
    }
    assert_eq!(labels(&events), ["503", "200"]);
    assert_eq!(finished(&events).0.kind, OutcomeKind::Succeeded);
    assert!(events.iter().all(|e| e.run_id() == 9));
}
