//! The fault matrix: what the engine does against servers that misbehave — TLS
//! certificates, odd framing, bodies that trickle, stall or are huge, redirects gone wrong —,
//! DNS (a `.invalid` name, a resolver that never answers, a temporary failure), and at the
//! limits (0 retries, 1,000 retries, deadlines, cancel). Each case asserts the requests
//! that reached the server, the classification, the outcome and the words the timeline shows.
//! Everything runs on 127.0.0.1.

#![allow(clippy::unwrap_used)]

mod engine_support;
mod fault_support;

use engine_support::*;
use fault_support::{
    Behavior, Cert, RawServer, closed_port, tls_server, tls_server_signed_by_private_ca,
};
use retryscope::demo::DemoServer;
use retryscope::engine::{HostLookup, HostLookupError, LookupFuture, RunOptions, prepare_run};
use retryscope::model::{
    AttemptOutcome, DnsFailure, ErrorKind, OutcomeKind, RequestSpec, RetryProfile, RunEvent,
    Verdict,
};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn respond(bytes: &'static [u8]) -> RawServer {
    RawServer::start(move |_| Behavior::Respond(bytes.to_vec()))
}

fn response_of(events: &[RunEvent]) -> retryscope::model::ResponseSummary {
    match attempts(events).last() {
        Some((AttemptOutcome::Response(r), _, _)) => r.clone(),
        other => panic!("expected a response, got {other:?}"),
    }
}

fn stop_reason(events: &[RunEvent]) -> String {
    match attempts(events).last() {
        Some((_, _, Verdict::Stop { reason })) => reason.clone(),
        other => panic!("expected a stop verdict, got {other:?}"),
    }
}

// ---- TLS -------------------------------------------------------------------------------

/// The one network error of a GET (no retries) to a TLS server with `cert`, asserted `tls`.
async fn tls_error(cert: Cert) -> retryscope::model::NetError {
    let port = tls_server(cert);
    let events = run(
        RequestSpec::get(format!("https://127.0.0.1:{port}/")),
        fixed(5, 0),
    )
    .await;
    let error = only_error(&events);
    assert_eq!(error.kind, ErrorKind::Tls, "{}", error.message);
    error
}

#[tokio::test]
async fn a_self_signed_certificate_is_a_tls_error_not_retried_by_default() {
    let port = tls_server(Cert::SelfSigned);
    let events = run(
        RequestSpec::get(format!("https://127.0.0.1:{port}/")),
        fixed(5, 3),
    )
    .await;
    assert_eq!(labels(&events), ["tls"], "one attempt, not retried");
    let error = only_error(&events);
    assert_eq!(error.kind, ErrorKind::Tls);
    assert!(
        error
            .message
            .starts_with("the server's certificate is not signed by a trusted authority"),
        "{}",
        error.message
    );
    assert_eq!(stop_reason(&events), "tls error is not retryable");
    assert_eq!(kind(&events), OutcomeKind::Stopped);
}

#[tokio::test]
async fn with_verification_off_the_self_signed_server_answers() {
    let port = tls_server(Cert::SelfSigned);
    let mut spec = RequestSpec::get(format!("https://127.0.0.1:{port}/"));
    spec.verify_tls = false;
    let events = run(spec, fixed(5, 3)).await;
    assert_eq!(labels(&events), ["200"]);
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
    // The run says, from its first event on, that nothing was verified.
    assert!(
        matches!(
            events.first(),
            Some(RunEvent::RunStarted {
                tls_unverified: true,
                ..
            })
        ),
        "{:?}",
        events.first()
    );
    let fold = retryscope::model::RunFold::of_events(
        events.first().map_or(0, RunEvent::run_id),
        events
            .iter()
            .map(|e| retryscope::model::secrets::mask_event(e.clone(), &[])),
    );
    let rendered = retryscope::cli::timeline_text::TextTimeline::default().delta(&fold);
    assert!(
        rendered.contains(retryscope::model::TLS_UNVERIFIED_NOTE),
        "{rendered}"
    );
}

#[tokio::test]
async fn an_expired_certificate_says_it_expired() {
    let error = tls_error(Cert::Expired).await;
    assert!(
        error
            .message
            .starts_with("the server's certificate has expired"),
        "{}",
        error.message
    );
}

/// A GET of `https://127.0.0.1:PORT/` trusting the PEM `ca_pem` (written to a file) and the
/// events of its run (retries allowed, so a refusal shows it is not retried).
async fn run_trusting(port: u16, ca_pem: &str) -> Vec<RunEvent> {
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("private-ca.pem");
    std::fs::write(&ca, ca_pem).unwrap();
    let mut spec = RequestSpec::get(format!("https://127.0.0.1:{port}/"));
    spec.ca_cert = Some(ca.display().to_string());
    run(spec, fixed(5, 3)).await
}

#[tokio::test]
async fn a_certificate_for_another_name_is_refused_for_its_name() {
    // Signed by a CA the request trusts, so the only thing wrong is the name.
    let server = tls_server_signed_by_private_ca(&["wrong-name.test"]);
    let events = run_trusting(server.port, &server.ca_pem).await;
    assert_eq!(labels(&events), ["tls"], "one attempt, not retried");
    let error = only_error(&events);
    assert_eq!(error.kind, ErrorKind::Tls);
    assert!(
        error.message.starts_with(
            "the server's certificate is not valid for this host name: the request is for \
             127.0.0.1, the certificate is for wrong-name.test"
        ),
        "{}",
        error.message
    );
    assert!(
        !error.message.contains("trusted authority"),
        "{}",
        error.message
    );
    assert_eq!(stop_reason(&events), "tls error is not retryable");
}

#[tokio::test]
async fn the_right_name_signed_by_a_trusted_private_ca_answers() {
    let server = tls_server_signed_by_private_ca(&["127.0.0.1"]);
    let events = run_trusting(server.port, &server.ca_pem).await;
    assert_eq!(labels(&events), ["200"]);
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
    // Verification stayed on: the run does not say it was off.
    assert!(
        matches!(
            events.first(),
            Some(RunEvent::RunStarted {
                tls_unverified: false,
                ..
            })
        ),
        "{:?}",
        events.first()
    );
}

#[tokio::test]
async fn without_the_private_ca_the_same_server_is_an_unknown_issuer() {
    let server = tls_server_signed_by_private_ca(&["127.0.0.1"]);
    let events = run(
        RequestSpec::get(format!("https://127.0.0.1:{}/", server.port)),
        fixed(5, 0),
    )
    .await;
    let error = only_error(&events);
    assert!(
        error
            .message
            .starts_with("the server's certificate is not signed by a trusted authority")
            && error.message.contains("--cacert"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn an_unreadable_ca_file_ends_the_run_before_attempt_1_naming_the_file() {
    let server = tls_server_signed_by_private_ca(&["127.0.0.1"]);
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-ca.pem");
    let not_pem = dir.path().join("notes.txt");
    std::fs::write(&not_pem, "just some text\n").unwrap();
    for (path, why) in [
        (&missing, "no such file"),
        (&not_pem, "it holds no certificate"),
    ] {
        let mut spec = RequestSpec::get(format!("https://127.0.0.1:{}/", server.port));
        spec.ca_cert = Some(path.display().to_string());
        let events = run(spec, fixed(5, 3)).await;
        assert!(attempts(&events).is_empty(), "no attempt is made");
        let Some(RunEvent::RunFinished { outcome, .. }) = events.last() else {
            panic!("{events:?}");
        };
        assert_eq!(outcome.kind, OutcomeKind::Error);
        assert!(
            outcome
                .message
                .starts_with("cannot use the CA certificate file in ca_cert: ")
                && outcome.message.contains(why)
                && outcome.message.ends_with(&path.display().to_string()),
            "{}",
            outcome.message
        );
    }
}

// ---- framing and bodies ---------------------------------------------------------------

#[tokio::test]
async fn an_http_1_0_body_delimited_by_close_is_read_whole() {
    let server = respond(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nclose-delimited");
    let events = run(RequestSpec::get(server.url("/")), fixed(5, 2)).await;
    assert_eq!(labels(&events), ["200"]);
    let r = response_of(&events);
    assert_eq!(r.version, "HTTP/1.0");
    assert_eq!(r.body.bytes, b"close-delimited");
    assert_eq!(server.requests(), 1);
}

#[tokio::test]
async fn a_chunked_body_cut_mid_chunk_is_a_body_error_and_retried() {
    let server = respond(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n10\r\nonly-half",
    );
    let events = run(RequestSpec::get(server.url("/")), fixed(5, 1)).await;
    assert_eq!(labels(&events), ["body", "body"], "{events:?}");
    assert_eq!(server.requests(), 2, "the retry reached the server");
    assert_eq!(kind(&events), OutcomeKind::GaveUp);
}

#[tokio::test]
async fn a_trickling_body_hits_the_total_timeout() {
    let server = RawServer::start(|_| Behavior::Trickle {
        head: b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n".to_vec(),
        every: Duration::from_millis(50),
        count: 1000,
    });
    let mut spec = RequestSpec::get(server.url("/"));
    spec.timeouts.total_ms = Some(400);
    let t = Instant::now();
    let events = run(spec, fixed(5, 0)).await;
    let error = only_error(&events);
    assert_eq!(error.kind, ErrorKind::Timeout, "{}", error.message);
    assert!(
        error.message.contains("total timeout of 400 ms"),
        "{}",
        error.message
    );
    // Each byte comes well within any read timeout: only the total limit can end it.
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
}

#[tokio::test]
async fn a_server_that_accepts_and_never_reads_hits_the_read_timeout() {
    let server = RawServer::start(|_| Behavior::Silent {
        hold: Duration::from_secs(30),
    });
    let mut spec = RequestSpec::get(server.url("/"));
    spec.timeouts.read_ms = Some(300);
    let events = run(spec, fixed(5, 1)).await;
    assert_eq!(labels(&events), ["timeout", "timeout"]);
    assert_eq!(server.connections(), 2, "each attempt connected");
    assert_eq!(server.requests(), 0, "the server never read a request");
}

#[tokio::test]
async fn a_100_mb_body_is_counted_whole_and_kept_capped() {
    let server = DemoServer::start(0).await.unwrap();
    let n: u64 = 100 * 1024 * 1024;
    let events = run(
        RequestSpec::get(server.url(&format!("/bytes?n={n}"))),
        fixed(5, 0),
    )
    .await;
    let r = response_of(&events);
    assert_eq!(r.status, 200);
    assert_eq!(r.body.total_bytes, n, "every byte counted");
    assert!(r.body.truncated);
    assert!(
        r.body.bytes.len() <= 1024 * 1024,
        "the preview is capped at 1 MiB, kept {}",
        r.body.bytes.len()
    );
}

#[tokio::test]
async fn a_zero_byte_body_is_an_empty_success() {
    let server = respond(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
    let events = run(RequestSpec::get(server.url("/")), fixed(5, 1)).await;
    assert_eq!(labels(&events), ["204"]);
    let r = response_of(&events);
    assert!(r.body.bytes.is_empty());
    assert_eq!(r.body.total_bytes, 0);
}

#[tokio::test]
async fn non_utf8_header_values_are_kept_readable() {
    let server = respond(
        b"HTTP/1.1 200 OK\r\nX-Binary: caf\xe9 \xff\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
    );
    let events = run(RequestSpec::get(server.url("/")), fixed(5, 0)).await;
    let r = response_of(&events);
    let value = r.header("x-binary").expect("the header is listed");
    assert!(value.starts_with("caf"), "{value:?}");
    assert_eq!(labels(&events), ["200"]);
}

#[tokio::test]
async fn an_interim_1xx_response_is_followed_by_the_final_one() {
    let server = respond(
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nfinal",
    );
    let events = run(RequestSpec::get(server.url("/")), fixed(5, 0)).await;
    assert_eq!(labels(&events), ["200"]);
    assert_eq!(response_of(&events).body.bytes, b"final");
}

// ---- redirects --------------------------------------------------------------------------

#[tokio::test]
async fn a_redirect_loop_stops_at_the_hop_limit_and_says_where() {
    let server = respond(
        b"HTTP/1.1 302 Found\r\nLocation: /loop\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    );
    let mut spec = RequestSpec::get(server.url("/loop"));
    spec.max_redirects = 3;
    let events = run(spec, fixed(5, 2)).await;
    let error = only_error(&events);
    assert!(
        error
            .message
            .starts_with("too many redirects: more than 3 hops"),
        "{}",
        error.message
    );
    assert_eq!(attempts(&events).len(), 1, "a redirect loop is not retried");
    assert_eq!(server.requests(), 4, "the first request and 3 redirects");
}

#[tokio::test]
async fn a_redirect_to_a_closed_port_retries_the_hop_that_failed_and_names_it() {
    let closed = closed_port();
    let target = format!("http://127.0.0.1:{closed}/moved");
    let location = format!(
        "HTTP/1.1 302 Found\r\nLocation: {target}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    let server = RawServer::start(move |_| Behavior::Respond(location.clone().into_bytes()));
    let events = run(RequestSpec::get(server.url("/start")), fixed(5, 1)).await;
    assert_eq!(labels(&events), ["connect", "connect"]);
    let urls: Vec<String> = started(&events).into_iter().map(|(_, u)| u).collect();
    assert_eq!(
        urls,
        [server.url("/start"), target.clone()],
        "DESIGN §4: the retry repeats the last hop"
    );
    let error = only_error(&events);
    assert!(
        error.message.contains(&format!("127.0.0.1:{closed}")),
        "{}",
        error.message
    );
    assert_eq!(server.requests(), 1, "the first URL was asked once");
}

// ---- DNS ----------------------------------------------------------------------------------
//
// The engine resolves with `getaddrinfo`, which asks the system's configured name servers and
// cannot be pointed at a loopback socket per process. So no test here lets a name reach the
// system resolver: each run is given a `HostLookup` that answers (or never answers) in-process
// and counts the names it was asked (docs/DECISIONS.md, "DNS faults without DNS traffic").

/// An in-process name lookup: answers `script[n]` to the n-th question (the last one after).
#[derive(Debug)]
struct ScriptedLookup {
    script: Vec<Option<Result<Vec<SocketAddr>, HostLookupError>>>,
    asked: Mutex<Vec<String>>,
}

impl ScriptedLookup {
    /// `None` in the script: no answer, ever (a resolver that never replies).
    fn new(script: Vec<Option<Result<Vec<SocketAddr>, HostLookupError>>>) -> Arc<Self> {
        Arc::new(Self {
            script,
            asked: Mutex::new(Vec::new()),
        })
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

impl HostLookup for ScriptedLookup {
    fn lookup(&self, host: &str) -> LookupFuture {
        let mut asked = self.asked.lock().unwrap();
        asked.push(host.to_owned());
        let answer = self.script[(asked.len() - 1).min(self.script.len() - 1)].clone();
        Box::pin(async move {
            match answer {
                Some(answer) => answer,
                None => std::future::pending().await,
            }
        })
    }
}

async fn run_with_lookup(
    spec: RequestSpec,
    profile: RetryProfile,
    lookup: Arc<dyn HostLookup>,
) -> Vec<RunEvent> {
    let (tx, mut rx) = tokio::sync::mpsc::channel(4096);
    let options = RunOptions {
        run_id: 1,
        seed: Some(7),
        budget: None,
    };
    let (_handle, run) = prepare_run(spec, profile, options, tx, None);
    tokio::spawn(run.with_host_lookup(lookup).drive());
    let mut events = Vec::new();
    while let Some(event) = tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .unwrap()
    {
        let last = matches!(event, RunEvent::RunFinished { .. });
        events.push(event);
        if last {
            break;
        }
    }
    events
}

#[tokio::test]
async fn a_name_under_invalid_does_not_exist_is_not_retried_and_is_never_looked_up() {
    // Were the `.invalid` rule gone, this lookup would answer, the count would be 1 and the run
    // would reach the demo server: the test fails without any query leaving the machine.
    let server = DemoServer::start(0).await.unwrap();
    let lookup = ScriptedLookup::new(vec![Some(Ok(vec![server.addr()]))]);
    let url = format!(
        "http://nxdomain-api.invalid:{}/status/200",
        server.addr().port()
    );
    let events = run_with_lookup(RequestSpec::get(url), fixed(0, 3), lookup.clone()).await;
    let error = only_error(&events);
    assert_eq!(error.kind, ErrorKind::Dns);
    assert_eq!(error.dns, Some(DnsFailure::NoSuchName));
    assert!(
        error
            .message
            .contains("dns lookup of nxdomain-api.invalid failed: the host does not exist"),
        "{}",
        error.message
    );
    assert_eq!(stop_reason(&events), "host name does not exist");
    assert_eq!(finished(&events).1, 1, "not retried");
    assert!(lookup.asked().is_empty(), "{:?}", lookup.asked());
    assert_eq!(server.log().len(), 0);
}

#[tokio::test]
async fn a_resolver_that_never_answers_hits_the_resolve_timeout_and_is_retried() {
    let lookup = ScriptedLookup::new(vec![None]);
    let mut profile = fixed(0, 2);
    profile.timeouts.resolve_ms = Some(50);
    let t = Instant::now();
    let events = run_with_lookup(
        RequestSpec::get("http://silent-dns.example/x"),
        profile,
        lookup.clone(),
    )
    .await;
    let all = attempts(&events);
    assert_eq!(all.len(), 3, "{events:?}");
    for (outcome, _, verdict) in &all {
        let AttemptOutcome::Error(e) = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!((e.kind, e.dns), (ErrorKind::Dns, Some(DnsFailure::Timeout)));
        assert_eq!(
            e.message,
            "dns lookup of silent-dns.example failed: no answer within the resolve timeout of 50 ms"
        );
        if let Verdict::Retry { reason, .. } = verdict {
            assert_eq!(reason, "dns error is retryable");
        }
    }
    assert_eq!(kind(&events), OutcomeKind::GaveUp);
    assert_eq!(lookup.asked(), ["silent-dns.example"; 3]);
    // Three lookups of 50 ms each, not the OS's own multi-second resolver timeout.
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

#[tokio::test]
async fn a_temporary_failure_for_a_host_named_nxdomain_is_retried_then_answers() {
    // The cause comes from the resolver's code, not the name's text.
    let server = DemoServer::start(0).await.unwrap();
    let temporary = HostLookupError {
        cause: DnsFailure::Temporary,
        detail: "temporary failure in name resolution".into(),
    };
    let lookup = ScriptedLookup::new(vec![Some(Err(temporary)), Some(Ok(vec![server.addr()]))]);
    let url = format!(
        "http://nxdomain-api.example:{}/status/200",
        server.addr().port()
    );
    let events = run_with_lookup(RequestSpec::get(url), fixed(0, 3), lookup.clone()).await;
    assert_eq!(labels(&events), ["dns", "200"]);
    match &attempts(&events)[0] {
        (AttemptOutcome::Error(e), _, Verdict::Retry { reason, .. }) => {
            assert_eq!(e.dns, Some(DnsFailure::Temporary));
            assert_eq!(
                e.message,
                "dns lookup of nxdomain-api.example failed: temporary failure in name resolution"
            );
            assert_eq!(reason, "dns error is retryable");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(kind(&events), OutcomeKind::Succeeded);
    assert_eq!(lookup.asked(), ["nxdomain-api.example"; 2]);
    assert_eq!(
        server.log().len(),
        1,
        "the answer pinned the connection to the demo server"
    );
}

// ---- limits -------------------------------------------------------------------------------

#[tokio::test]
async fn zero_retries_send_exactly_one_request() {
    let server = DemoServer::start(0).await.unwrap();
    let events = run(
        RequestSpec::get(server.url("/status/503?times=5&key=zero")),
        fixed(0, 0),
    )
    .await;
    assert_eq!(labels(&events), ["503"]);
    assert_eq!(server.log().len(), 1);
    assert_eq!(kind(&events), OutcomeKind::GaveUp);
}

#[tokio::test]
async fn a_thousand_retries_with_zero_waits_all_reach_the_server() {
    let server = DemoServer::start(0).await.unwrap();
    let events = run(
        RequestSpec::get(server.url("/status/503?times=5000&key=many")),
        fixed(0, 1000),
    )
    .await;
    let (_, attempts_made) = finished(&events);
    assert_eq!(attempts_made, 1001);
    assert_eq!(server.log().len(), 1001);
    assert!(waits(&events).iter().all(|(planned, _, _)| *planned == 0));
    assert_eq!(kind(&events), OutcomeKind::GaveUp);
}

#[tokio::test]
async fn a_deadline_shorter_than_the_first_wait_ends_before_waiting() {
    let server = DemoServer::start(0).await.unwrap();
    let mut profile = fixed(5_000, 3);
    profile.deadline_ms = Some(1_000);
    let t = Instant::now();
    let events = run(
        RequestSpec::get(server.url("/status/503?times=5&key=deadline")),
        profile,
    )
    .await;
    assert_eq!(kind(&events), OutcomeKind::Deadline);
    assert!(waits(&events).is_empty(), "no wait started: {events:?}");
    assert_eq!(server.log().len(), 1);
    assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
}

#[tokio::test]
async fn cancel_during_a_wait_ends_the_run_and_sends_nothing_more() {
    let server = DemoServer::start(0).await.unwrap();
    let mut running = start(
        RequestSpec::get(server.url("/status/503?times=5&key=cancel-wait")),
        fixed(10_000, 3),
    );
    running
        .until(|e| matches!(e, RunEvent::WaitScheduled { .. }))
        .await;
    let t = Instant::now();
    running.handle.cancel();
    let events = running.finish().await;
    let took = t.elapsed();
    assert_eq!(kind(&events), OutcomeKind::Cancelled);
    assert_eq!(server.log().len(), 1, "nothing sent after the cancel");
    assert!(took < Duration::from_secs(2), "cancel took {took:?}");
}

#[tokio::test]
async fn cancel_during_a_hanging_request_ends_the_run_and_sends_nothing_more() {
    let server = RawServer::start(|_| Behavior::Silent {
        hold: Duration::from_secs(30),
    });
    let mut running = start(RequestSpec::get(server.url("/hang")), fixed(0, 3));
    running
        .until(|e| matches!(e, RunEvent::AttemptStarted { .. }))
        .await;
    // Let the attempt connect, so the cancel meets a request in flight.
    for _ in 0..200 {
        if server.connections() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(server.connections(), 1);
    let t = Instant::now();
    running.handle.cancel();
    let events = running.finish().await;
    let took = t.elapsed();
    assert_eq!(kind(&events), OutcomeKind::Cancelled);
    assert_eq!(server.connections(), 1, "no retry after the cancel");
    assert!(took < Duration::from_secs(2), "cancel took {took:?}");
}
