//! HAR 1.2 export of a run, validated against the `har-schema` npm package's JSON schemas
//! (vendored in tests/fixtures/har-schema with their licence), and HAR import: entries listed,
//! an entry back as a draft, export → import giving back the request.

use chrono::DateTime;
use retryscope::interop::{HarFile, draft_of_spec, run_to_har};
use retryscope::model::secrets::{Masked, mask_event, mask_spec, secret_values};
use retryscope::model::{
    Body, ErrorKind, KeyValue, OutcomeKind, RequestSpec, RunEvent, RunFold, Verdict,
};
use retryscope::testkit::EventScript;
use retryscope::testkit::{net_error, response, retry};
use serde_json::Value;

const SCHEMA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/har-schema");

/// Serves the vendored schema files by their `$id` (`log.json#` → `log.json`), never the network.
struct VendoredSchemas;

impl jsonschema::Retrieve for VendoredSchemas {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let name = uri
            .path()
            .as_str()
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_owned();
        let is_json = std::path::Path::new(&name)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if !is_json || name.contains("..") {
            return Err(format!("not a vendored schema: {uri}").into());
        }
        let text = std::fs::read_to_string(format!("{SCHEMA_DIR}/{name}"))?;
        Ok(serde_json::from_str(&text)?)
    }
}

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(format!("{SCHEMA_DIR}/har.json")).expect("har.json");
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    jsonschema::options()
        .with_retriever(VendoredSchemas)
        .should_validate_formats(true)
        .build(&schema)
        .expect("the har-schema files compile")
}

fn assert_valid(har: &Value) {
    let v = validator();
    let errors: Vec<String> = v
        .iter_errors(har)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{har:#}");
}

const URL: &str = "http://127.0.0.1:8080/status/503?times=2&token=tok-secret-1";

fn spec() -> RequestSpec {
    let mut spec = RequestSpec::get(URL);
    spec.method = "POST".into();
    spec.headers
        .push(KeyValue::new("Accept", "application/json"));
    spec.headers
        .push(KeyValue::new("Authorization", "Bearer auth-secret-2"));
    spec.headers
        .push(KeyValue::new("X-Note", "has var-secret-3 in it"));
    spec.body = Body::Json {
        text: "{\"order\":42}".into(),
    };
    spec.idempotency_key = Some("idem-1".into());
    spec
}

/// 503 with a secret cookie, wait; a reset; then 200.
fn events() -> Vec<RunEvent> {
    let start = DateTime::parse_from_rfc3339("2026-11-30T14:00:00.000+01:00").expect("valid");
    EventScript::new(1, "POST", URL, start)
        .attempt(
            response(
                503,
                &[
                    ("content-type", "text/plain"),
                    ("set-cookie", "sid=cookie-secret-4"),
                ],
                "busy",
            ),
            retry("503 is retryable"),
            12.0,
        )
        .wait(100, 101.5)
        .attempt(
            net_error(ErrorKind::Reset, "connection reset"),
            retry("reset is retryable"),
            3.0,
        )
        .wait(200, 200.25)
        .attempt(
            response(200, &[("content-type", "application/json")], "{}"),
            Verdict::SUCCESS,
            4.0,
        )
        .finish(OutcomeKind::Succeeded, "succeeded on attempt 3", Some(200))
        .events()
        .iter()
        .map(|(e, _)| e.clone())
        .collect()
}

/// The secret values a run of [`spec`] masks: a secret variable's, and the request's own.
fn secrets() -> Vec<String> {
    let mut all = vec!["var-secret-3".to_owned()];
    all.extend(secret_values(&spec()));
    all
}

/// The fold of `events`, masked with `secrets` as a run's recording masks them.
fn fold_of(events: &[RunEvent], secrets: &[String]) -> RunFold {
    RunFold::of_events(1, events.iter().map(|e| mask_event(e.clone(), secrets)))
}

/// [`spec`] masked as a run's recording masks it.
fn masked_spec() -> Masked<RequestSpec> {
    mask_spec(&spec(), &secrets())
}

/// `events` of the request [`spec`] as HAR, no secret values, secrets masked.
fn export_events(events: &[RunEvent]) -> Value {
    run_to_har(&fold_of(events, &[]), Some(&masked_spec()))
}

/// [`events`] as HAR, masked as a run masks them.
fn export() -> Value {
    run_to_har(&fold_of(&events(), &secrets()), Some(&masked_spec()))
}

#[test]
fn export_is_valid_har_1_2_with_one_entry_per_attempt() {
    let har = export();
    assert_valid(&har);
    // The schema has teeth: an entry without timings, or a request without headers, fails.
    let mut broken = har.clone();
    broken["log"]["entries"][1]
        .as_object_mut()
        .expect("entry")
        .remove("timings");
    broken["log"]["entries"][2]["request"]["headers"] = Value::from("none");
    assert_eq!(validator().iter_errors(&broken).count(), 2);
    let entries = har["log"]["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 3);
    let statuses: Vec<&Value> = entries.iter().map(|e| &e["response"]["status"]).collect();
    assert_eq!(statuses, [503, 0, 200]);
    let first = &entries[0];
    assert_eq!(first["_retryscope"]["attempt"], 1);
    assert_eq!(first["_retryscope"]["verdict"], "retry");
    assert_eq!(first["_retryscope"]["reason"], "503 is retryable");
    assert_eq!(first["_retryscope"]["planned_wait_ms"], 100);
    assert_eq!(first["_retryscope"]["measured_wait_ms"], 101.5);
    assert!(first["_retryscope"]["explanation"].is_string());
    assert_eq!(first["timings"]["connect"], -1, "not measured");
    assert_eq!(first["timings"]["ssl"], -1, "not measured");
    assert_eq!(first["time"], 12.0);
    assert_eq!(entries[1]["response"]["_error"], "reset: connection reset");
    assert_eq!(entries[2]["_retryscope"]["verdict"], "success");
    assert_eq!(har["log"]["_retryscope"]["outcome"], "succeeded");
    assert!(
        first["startedDateTime"]
            .as_str()
            .expect("text")
            .starts_with("2026-11-30T14:00:00.000+01:00")
    );
}

/// Asserts that `text` holds none of the secrets the sample run sends.
fn assert_no_secret(text: &str) {
    for secret in [
        "tok-secret-1",
        "auth-secret-2",
        "var-secret-3",
        "cookie-secret-4",
    ] {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
}

#[test]
fn export_masks_every_secret() {
    let text = export().to_string();
    assert_no_secret(&text);
}

#[test]
fn export_then_import_gives_back_the_request() {
    let text = serde_json::to_string_pretty(&export()).expect("json");
    let file = HarFile::parse(&text).expect("our HAR reads back");
    let list = file.summaries();
    assert_eq!(list.len(), 3);
    assert_eq!(list[0].method, "POST");
    assert_eq!(list[0].status, Some(503));
    assert_eq!(list[1].status, None, "the reset attempt had no response");
    assert!(
        list[0].url.ends_with("token=***"),
        "listed masked: {}",
        list[0].url
    );
    let draft = file.draft(0).expect("entry 0");
    // The request as the run recorded it: its secrets masked.
    let want = draft_of_spec(&masked_spec());
    assert_eq!(draft.method, want.method);
    assert_eq!(draft.url, want.url);
    assert_eq!(draft.headers, want.headers);
    assert_eq!(draft.body, want.body);
    assert_eq!(
        (draft.idempotency_enabled, draft.idempotency_key.as_str()),
        (true, "idem-1")
    );
    assert!(file.draft(3).is_err());
}

#[test]
fn a_browser_har_entry_fills_a_draft() {
    let har = r#"{"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},
      "pages":[],"entries":[
        {"startedDateTime":"2026-11-30T13:00:00.000Z","time":12.5,
         "request":{"method":"GET","url":"http://127.0.0.1:8080/app","httpVersion":"http/2.0",
           "headers":[{"name":":authority","value":"127.0.0.1:8080"},{"name":"accept","value":"text/html"}],
           "queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},
         "response":{"status":200,"statusText":"","httpVersion":"http/2.0","headers":[],"cookies":[],
           "content":{"size":0,"mimeType":"text/html"},"redirectURL":"","headersSize":-1,"bodySize":-1},
         "cache":{},"timings":{"send":0,"wait":10,"receive":2.5}},
        {"startedDateTime":"2026-11-30T13:00:01.000Z","time":20,
         "request":{"method":"post","url":"http://127.0.0.1:8080/api/orders?x=1","httpVersion":"http/2.0",
           "headers":[{"name":"content-type","value":"application/x-www-form-urlencoded"},
                      {"name":"content-length","value":"7"},{"name":"cookie","value":"sid=1"}],
           "queryString":[{"name":"x","value":"1"}],"cookies":[],"headersSize":-1,"bodySize":7,
           "postData":{"mimeType":"application/x-www-form-urlencoded","text":"a=1&b=2"}},
         "response":{"status":0,"statusText":"","httpVersion":"","headers":[],"cookies":[],
           "content":{"size":0,"mimeType":""},"redirectURL":"","headersSize":-1,"bodySize":-1,"_error":"net::ERR_FAILED"},
         "cache":{},"timings":{"send":0,"wait":0,"receive":0}}]}}"#;
    let file = HarFile::parse(har).expect("browser HAR");
    let list = file.summaries();
    assert_eq!(
        list.iter()
            .map(|e| (e.method.as_str(), e.status))
            .collect::<Vec<_>>(),
        [("GET", Some(200)), ("post", None)]
    );
    let get = file.draft(0).expect("entry 0");
    assert_eq!(
        get.headers,
        [KeyValue::new("accept", "text/html")],
        "pseudo-headers left out"
    );
    let post = file.draft(1).expect("entry 1");
    assert_eq!(post.method, "POST");
    assert_eq!(post.url, "http://127.0.0.1:8080/api/orders?x=1");
    assert_eq!(post.body.text, "a=1&b=2");
    assert_eq!(post.body.content_type, "application/x-www-form-urlencoded");
    assert_eq!(post.headers, [KeyValue::new("cookie", "sid=1")]);
    let err = HarFile::parse("{\"log\": 3}").expect_err("not HAR");
    assert!(err.to_string().starts_with("not a HAR file: "), "{err}");
}

#[test]
fn attempts_as_csv_and_events_as_json_lines_are_masked() {
    use retryscope::interop::{attempts_csv, events_json_lines};
    let fold = fold_of(&events(), &secrets());
    let csv = attempts_csv(&fold, "1");
    let lines: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(lines.len(), 5, "header, 3 attempts, final CRLF: {csv}");
    assert!(lines[0].starts_with("run_id,attempt,started_at,method,url,status,error_kind"));
    assert!(
        lines[1].starts_with(
            "1,1,2026-11-30T14:00:00+01:00,POST,\
             http://127.0.0.1:8080/status/503?times=2&token=***,503,,,retry,503 is retryable,12.000,"
        ),
        "{}",
        lines[1]
    );
    assert!(lines[1].contains(",100,101.500,"), "{}", lines[1]);
    assert!(
        lines[2].contains(",reset,connection reset,retry,reset is retryable,3.000,"),
        "{}",
        lines[2]
    );
    assert_no_secret(&csv);
    let json = events_json_lines(&fold);
    assert_no_secret(&json);
    let parsed: Vec<RunEvent> = json
        .lines()
        .map(|l| serde_json::from_str(l).expect("an event per line"))
        .collect();
    assert_eq!(parsed.len(), events().len());
}

#[test]
fn measured_phases_fill_har_timings_and_a_reused_connection_is_not_zero() {
    use retryscope::model::{ConnectionUse, Timings};
    let start = DateTime::parse_from_rfc3339("2026-11-30T14:00:00.000+01:00").expect("valid");
    let new_connection = Timings {
        resolve_ms: Some(0.5),
        connection: ConnectionUse::New,
        connect_start_ms: Some(0.5),
        connect_ms: Some(1.5),
        sent_ms: Some(2.5),
        headers_ms: Some(9.0),
        total_ms: 10.0,
        ..Timings::default()
    };
    let reused = Timings {
        resolve_ms: Some(0.25),
        connection: ConnectionUse::Reused,
        sent_ms: Some(0.5),
        headers_ms: Some(4.0),
        total_ms: 5.0,
        ..Timings::default()
    };
    let events: Vec<RunEvent> = EventScript::new(1, "POST", URL, start)
        .start_attempt()
        .finish_attempt_timed(
            response(503, &[], "busy"),
            retry("503 is retryable"),
            new_connection,
        )
        .wait(10, 10.0)
        .start_attempt()
        .finish_attempt_timed(response(200, &[], "{}"), Verdict::SUCCESS, reused)
        .finish(OutcomeKind::Succeeded, "succeeded on attempt 2", Some(200))
        .events()
        .iter()
        .map(|(e, _)| e.clone())
        .collect();
    let har = export_events(&events);
    assert_valid(&har);
    let first = &har["log"]["entries"][0]["timings"];
    assert_eq!(first["dns"], 0.5);
    assert_eq!(first["connect"], 1.5, "measured: {first}");
    assert_eq!(first["send"], 0.5);
    assert_eq!(first["wait"], 6.5);
    assert_eq!(first["receive"], 1.0);
    let second = &har["log"]["entries"][1]["timings"];
    assert_eq!(second["connect"], -1, "reused: does not apply, {second}");
    assert!(
        second["comment"]
            .as_str()
            .is_some_and(|c| c.contains("connection reused")),
        "{second}"
    );
    let sum: f64 = ["blocked", "dns", "connect", "send", "wait", "receive"]
        .iter()
        .filter_map(|k| second[*k].as_f64())
        .filter(|v| *v >= 0.0)
        .sum();
    assert!((sum - 5.0).abs() < 1e-9, "timings add up to time: {second}");
}

/// The events recorded into a history database in `dir` (as `run` records them), read back.
fn stored_run(dir: &std::path::Path) -> retryscope::store::StoredRun {
    use retryscope::store::{HistoryRecorder, HistoryStore};
    let mut store = HistoryStore::open_in(dir).expect("history opens");
    let secrets = vec!["var-secret-3".to_owned()];
    let mut recorder = HistoryRecorder::new(
        &spec(),
        &retryscope::profile::builtin("servicenow-exponential").expect("builtin"),
        secrets,
        1024,
    );
    for event in events() {
        if let Some(write) = recorder.fold(&event) {
            store.apply(&write).expect("row written");
        }
    }
    store
        .run(recorder.id())
        .expect("readable")
        .expect("the run is there")
}

#[test]
fn history_export_of_a_stored_run_is_valid_har_and_reimports() {
    let dir = tempfile::tempdir().expect("tempdir");
    let stored = stored_run(dir.path());
    let text = retryscope::cli::history_export::har(&stored).expect("encodes");
    let har: Value = serde_json::from_str(&text).expect("JSON");
    assert_valid(&har);
    let entries = har["log"]["entries"].as_array().expect("entries");
    let statuses: Vec<&Value> = entries.iter().map(|e| &e["response"]["status"]).collect();
    assert_eq!(statuses, [503, 0, 200], "one entry per attempt, in order");
    assert_eq!(entries[0]["_retryscope"]["planned_wait_ms"], 100);
    assert_eq!(entries[0]["_retryscope"]["measured_wait_ms"], 101.5);
    assert_eq!(har["log"]["_retryscope"]["outcome"], "succeeded");
    assert_no_secret(&text);
    let file = HarFile::parse(&text).expect("our HAR reads back");
    assert_eq!(file.summaries().len(), 3);
    let draft = file.draft(0).expect("entry 0");
    assert_eq!(draft.method, "POST");
    assert!(draft.url.ends_with("token=***"), "{}", draft.url);
    assert!(
        draft
            .headers
            .iter()
            .any(|h| h.name == "Authorization" && h.value == "***"),
        "{:?}",
        draft.headers
    );
    assert_eq!(draft.body.json, "{\"order\":42}");
}

/// [`events`] with the retry budget changes a run with AWS's quota makes: a charge after each
/// retried attempt (before its wait), a refund after the success.
fn events_with_budget() -> Vec<RunEvent> {
    use retryscope::model::{BudgetChange, BudgetChangeKind, OutcomeClass};
    let change = |attempt: u32, kind, before: f64, after: f64| RunEvent::BudgetChanged {
        run_id: 1,
        attempt,
        change: BudgetChange {
            kind,
            class: Some(OutcomeClass::Transient),
            amount: (before - after).abs(),
            before,
            after,
            capacity: 500.0,
            scope: "host http://127.0.0.1:8080".into(),
            text: format!("retry budget {before} → {after} of 500"),
        },
    };
    let mut out = Vec::new();
    for e in events() {
        let finished = match &e {
            RunEvent::AttemptFinished { attempt, .. } => Some(*attempt),
            _ => None,
        };
        out.push(e);
        match finished {
            Some(1) => out.push(change(1, BudgetChangeKind::Charge, 500.0, 495.0)),
            Some(2) => out.push(change(2, BudgetChangeKind::Charge, 495.0, 490.0)),
            Some(3) => out.push(change(3, BudgetChangeKind::Refund, 490.0, 495.0)),
            _ => {}
        }
    }
    out
}

#[test]
fn budget_tokens_reach_the_csv_the_har_and_the_png_title() {
    let events = events_with_budget();
    let csv = retryscope::interop::attempts_csv(&fold_of(&events, &[]), "1");
    let lines: Vec<&str> = csv.split("\r\n").collect();
    assert!(
        lines[0].ends_with(",wait_explanation,tokens_before,tokens_after"),
        "{}",
        lines[0]
    );
    assert!(lines[1].ends_with(",500,495"), "{}", lines[1]);
    assert!(lines[2].ends_with(",495,490"), "{}", lines[2]);
    assert!(lines[3].ends_with(",490,495"), "{}", lines[3]);
    // Without a budget the columns are there and empty.
    let plain = retryscope::interop::attempts_csv(&fold_of(&self::events(), &[]), "1");
    assert!(
        plain
            .split("\r\n")
            .nth(1)
            .unwrap_or_default()
            .ends_with(",,")
    );

    let har = export_events(&events);
    assert_valid(&har);
    let entries = har["log"]["entries"].as_array().expect("entries");
    let ours = |i: usize| &entries[i]["_retryscope"];
    assert_eq!(
        (
            ours(0)["tokens_before"].clone(),
            ours(0)["tokens_after"].clone()
        ),
        (serde_json::json!(500.0), serde_json::json!(495.0))
    );
    assert_eq!(ours(2)["budget"][0]["kind"], "refund");
    assert_eq!(ours(2)["budget"][0]["scope"], "host http://127.0.0.1:8080");
    let plain_har = export_events(&self::events());
    assert!(plain_har["log"]["entries"][0]["_retryscope"]["budget"].is_null());

    let plot = retryscope::interop::TimelinePlot::of_fold(&fold_of(&events, &[]));
    assert!(
        plot.title
            .ends_with("; retry budget 500 → 495 of 500 tokens"),
        "{}",
        plot.title
    );
    assert!(
        !retryscope::interop::TimelinePlot::of_fold(&fold_of(&self::events(), &[]))
            .title
            .contains("budget")
    );
}

/// An attempt that followed a redirect: its entry keeps the first request with the final
/// response, says so in `comment`, and lists the hops (masked) in `_retryscope.redirects`; the
/// draft imported from it follows redirects again (a browser's entry, one hop, does not).
#[test]
fn a_redirected_attempt_lists_its_hops_and_reimports_following_them() {
    let mut events = events();
    for e in &mut events {
        if let RunEvent::AttemptFinished {
            attempt: 3, hops, ..
        } = e
        {
            hops.push(retryscope::model::Hop {
                method: "POST".into(),
                url: URL.into(),
                status: 302,
                location: "/final?sig=hop-secret-5".into(),
                dropped_headers: Vec::new(),
            });
        }
    }
    let har = export_events(&events);
    assert_valid(&har);
    let entry = &har["log"]["entries"][2];
    assert_eq!(entry["_retryscope"]["redirects"][0]["status"], 302);
    assert!(
        entry["comment"]
            .as_str()
            .is_some_and(|c| c.contains("after 1 redirect")),
        "{entry}"
    );
    let text = har.to_string();
    assert!(!text.contains("hop-secret-5"), "{text}");
    assert!(har["log"]["entries"][0].get("comment").is_none());
    let file = HarFile::parse(&text).expect("reads back");
    assert!(file.draft(2).expect("entry 2").follow_redirects);
    assert!(!file.draft(0).expect("entry 0").follow_redirects);
}

/// The CSV row of an attempt a run ended in says it was cut off; a wait cut off is said on the
/// row of the attempt before it, whose verdict stays `retry`.
#[test]
fn csv_rows_of_a_run_cut_off_say_so() {
    let start = DateTime::parse_from_rfc3339("2026-11-30T14:00:00.000+01:00").expect("valid");
    let rows = |events: &[RunEvent]| -> Vec<Vec<String>> {
        retryscope::interop::attempts_csv(&fold_of(events, &[]), "1")
            .split("\r\n")
            .filter(|l| !l.is_empty())
            .map(|l| l.split(',').map(str::to_owned).collect())
            .collect()
    };
    let verdict = retryscope::interop::CSV_COLUMNS
        .iter()
        .position(|c| *c == "verdict")
        .expect("a verdict column");
    // Cancelled during attempt 2.
    let in_attempt = EventScript::new(1, "GET", URL, start)
        .attempt(response(429, &[], ""), retry("429 is retryable"), 3.0)
        .wait(10, 10.0)
        .start_attempt()
        .finish(OutcomeKind::Cancelled, "cancelled during attempt 2", None);
    let events: Vec<RunEvent> = in_attempt.events().iter().map(|(e, _)| e.clone()).collect();
    let csv = rows(&events);
    assert_eq!(csv.len(), 3, "{csv:?}");
    assert_eq!(csv[1][verdict], "retry");
    assert_eq!(csv[1][verdict + 1], "429 is retryable");
    assert_eq!(csv[2][verdict], "cancelled");
    assert_eq!(
        csv[2][verdict - 1],
        "no answer recorded (cancelled)",
        "error_message"
    );
    // A past run cut off by the end of its process during the wait before retry 1.
    let in_wait = EventScript::new(1, "GET", URL, start)
        .attempt(response(503, &[], ""), retry("503 is retryable"), 3.0)
        .schedule_wait(500)
        .finish(
            OutcomeKind::Interrupted,
            "interrupted after 1 attempt",
            Some(503),
        );
    let events: Vec<RunEvent> = in_wait.events().iter().map(|(e, _)| e.clone()).collect();
    let csv = rows(&events);
    assert_eq!(csv.len(), 2, "{csv:?}");
    assert_eq!(
        csv[1][verdict], "retry",
        "attempt 1 was answered and retryable"
    );
    assert_eq!(
        csv[1][verdict + 1],
        "503 is retryable; the wait before retry 1 was cut off (interrupted)"
    );
    // A run still going (no run_finished yet) is not cut off.
    let live = EventScript::new(1, "GET", URL, start).start_attempt();
    let events: Vec<RunEvent> = live.events().iter().map(|(e, _)| e.clone()).collect();
    assert_eq!(rows(&events)[1][verdict], "");
}
