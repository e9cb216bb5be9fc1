//! The window's curl hooks (egui_kittest, no window, no network): a curl command pasted into
//! the URL field or the Import curl… box fills the composer; Export curl… and an attempt's
//! Copy as curl put the command on the clipboard, secrets masked unless asked.

mod ui_support;

use chrono::DateTime;
use egui::{Key, Modifiers, OutputCommand};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retryscope::model::{BodyKind, KeyValue, OutcomeKind, RequestSpec, Verdict};
use retryscope::testkit::EventScript;
use retryscope::testkit::{response, retry};
use retryscope::ui::timeline::{RunsState, SentRequest};
use std::time::{Duration, Instant};
use ui_support::workbench;

const COMMAND: &str = "curl 'http://127.0.0.1:9/echo' \\\n  -sS \\\n  -H 'X-Trace: t-1' \\\n  \
                       -H 'Authorization: Bearer sekrit-token' \\\n  --json '{\"a\":1}'";

fn copied<S>(h: &Harness<'_, S>) -> Vec<String> {
    h.output()
        .platform_output
        .commands
        .iter()
        .filter_map(|c| match c {
            OutputCommand::CopyText(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

fn click_and_copy<S>(h: &mut Harness<'_, S>, label: &str) -> Vec<String> {
    h.get_by_label(label).click();
    h.step();
    let texts = copied(h);
    h.run();
    texts
}

#[test]
fn pasting_a_curl_command_into_the_url_field_fills_the_composer() {
    let (state, _probe) = workbench();
    let mut h = ui_support::harness_sized(state, [1400.0, 1100.0]);
    h.run();
    h.get_by_label("URL").focus();
    h.run();
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run();
    h.event(egui::Event::Paste(COMMAND.into()));
    h.run();
    let draft = &h.state().request.composer.draft;
    assert_eq!(draft.url, "http://127.0.0.1:9/echo");
    assert_eq!(draft.method, "POST");
    assert_eq!(draft.body.kind, BodyKind::Json);
    assert_eq!(draft.body.json, "{\"a\":1}");
    assert!(draft.headers.contains(&KeyValue::new("X-Trace", "t-1")));
    assert!(
        h.query_by_label("Imported from curl; not carried over:")
            .is_some()
    );
    assert!(h.query_by_label("• -s (ignored: output option)").is_some());
    h.get_by_label("Dismiss").click();
    h.run();
    assert!(
        h.query_by_label("Imported from curl; not carried over:")
            .is_none()
    );
}

#[test]
fn import_curl_box_fills_the_composer_and_export_copies_it_masked() {
    let (state, _probe) = workbench();
    let mut h = ui_support::harness_sized(state, [1400.0, 1100.0]);
    h.run();
    h.get_by_label("Import curl…").click();
    h.run();
    h.get_by_label("curl command").focus();
    h.run();
    h.event(egui::Event::Paste(
        "curl -X PUT http://127.0.0.1:9/x -d 'a=1".into(),
    ));
    h.run();
    h.get_by_label("Import").click();
    h.run();
    assert!(
        h.query_by_label_contains("is never closed").is_some(),
        "the quoting error is shown in the box"
    );
    h.get_by_label("curl command").focus();
    h.run();
    h.event(egui::Event::Text("'".into()));
    h.run();
    h.get_by_label("Import").click();
    h.run();
    assert!(h.query_by_label("curl command").is_none(), "modal closed");
    let draft = &h.state().request.composer.draft;
    assert_eq!(
        (draft.method.as_str(), draft.url.as_str()),
        ("PUT", "http://127.0.0.1:9/x")
    );
    assert_eq!(draft.body.text, "a=1");

    h.state_mut()
        .request
        .composer
        .draft
        .headers
        .push(KeyValue::new("Cookie", "sid=cookie-secret"));
    h.get_by_label("Export curl…").click();
    h.run();
    let masked = click_and_copy(&mut h, "Copy");
    assert_eq!(masked.len(), 1, "{masked:?}");
    assert!(masked[0].contains("-H 'Cookie: ***'"), "{}", masked[0]);
    assert!(!masked[0].contains("cookie-secret"));
    h.get_by_label("Copied the request as curl (secrets masked)");
    h.get_by_label("Export curl…").click();
    h.run();
    h.get_by_label("Include secrets").click();
    h.run();
    let clear = click_and_copy(&mut h, "Copy");
    assert!(
        clear[0].contains("-H 'Cookie: sid=cookie-secret'"),
        "{}",
        clear[0]
    );
    h.get_by_label("Copied the request as curl, secrets included");
}

struct Screen {
    runs: RunsState,
    now: Instant,
}

#[test]
fn an_attempt_is_copied_as_curl_with_secrets_masked() {
    let start = DateTime::parse_from_rfc3339("2026-11-30T14:00:00.000+01:00").expect("valid");
    let url = "http://127.0.0.1:8080/status/503";
    let script = EventScript::new(1, "GET", url, start)
        .attempt(response(503, &[], "busy"), retry("503 is retryable"), 12.0)
        .wait(10, 11.0)
        .attempt(response(200, &[], "ok"), Verdict::SUCCESS, 0.5)
        .finish(OutcomeKind::Succeeded, "succeeded on attempt 2", Some(200));
    let t0 = Instant::now();
    let mut runs = RunsState::default();
    runs.add_run(1, "GET /status/503".into());
    let mut spec = RequestSpec::get(url);
    spec.headers.push(KeyValue::new("X-Api-Key", "key-secret"));
    spec.headers
        .push(KeyValue::new("X-Note", "var-secret inside"));
    runs.set_request(
        1,
        SentRequest {
            spec,
            secrets: vec!["var-secret".into()],
        },
    );
    for (event, ms) in script.timed() {
        runs.apply(event, t0 + Duration::from_secs_f64(ms / 1000.0));
    }
    let screen = Screen {
        runs,
        now: t0 + Duration::from_secs(10),
    };
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 1000.0))
        .build_ui_state(
            |ui, s: &mut Screen| {
                let _ = s.runs.ui(ui, s.now);
            },
            screen,
        );
    h.run();
    h.get_by_label("#2").click();
    h.run();
    let masked = click_and_copy(&mut h, "Copy as curl");
    assert_eq!(
        masked,
        [format!(
            "curl '{url}' \\\n  -H 'X-Api-Key: ***' \\\n  -H 'X-Note: *** inside' \\\n  -L"
        )]
    );
    let har = click_and_copy(&mut h, "Copy as HAR");
    assert_eq!(har.len(), 1);
    assert!(
        !har[0].contains("key-secret") && !har[0].contains("var-secret"),
        "{}",
        har[0]
    );
    let har: serde_json::Value = serde_json::from_str(&har[0]).expect("HAR JSON");
    let entries = har["log"]["entries"].as_array().expect("entries");
    let statuses: Vec<&serde_json::Value> =
        entries.iter().map(|e| &e["response"]["status"]).collect();
    assert_eq!(statuses, [503, 200]);
    assert_eq!(entries[0]["_retryscope"]["planned_wait_ms"], 10);
    assert_eq!(entries[0]["_retryscope"]["measured_wait_ms"], 11.0);
    assert_eq!(entries[0]["request"]["headers"][0]["value"], "***");
    assert_eq!(har["log"]["_retryscope"]["outcome"], "succeeded");
    let csv = click_and_copy(&mut h, "Copy as CSV");
    assert_eq!(
        csv[0].matches("\r\n").count(),
        3,
        "header and 2 attempts: {}",
        csv[0]
    );
    assert!(!csv[0].contains("var-secret"));
    let events = click_and_copy(&mut h, "Copy events");
    assert!(events[0].lines().count() >= 5, "{}", events[0]);
    assert!(
        events[0]
            .lines()
            .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
    );
    h.get_by_label("with secrets").click();
    h.run();
    let clear = click_and_copy(&mut h, "Copy as curl");
    assert!(
        clear[0].contains("key-secret") && clear[0].contains("var-secret"),
        "{clear:?}"
    );
}

#[test]
fn import_har_lists_entries_and_the_chosen_one_fills_the_composer() {
    use retryscope::service::CoreLink;
    use retryscope::ui::file_dialogs::ScriptedDialogs;
    use retryscope::ui::workbench::{WorkbenchSetup, WorkbenchState};
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("network.har");
    std::fs::write(
        &path,
        r#"{"log":{"version":"1.2","creator":{"name":"Firefox","version":"133"},"entries":[
          {"request":{"method":"GET","url":"http://127.0.0.1:9/first?token=har-secret","headers":[]},
           "response":{"status":200}},
          {"request":{"method":"POST","url":"http://127.0.0.1:9/second","headers":[
             {"name":"Content-Type","value":"application/json"},{"name":"X-A","value":"b"}],
           "postData":{"mimeType":"application/json","text":"{\"n\":1}"}},
           "response":{"status":503}}]}}"#,
    )
    .expect("write HAR");
    let (engine, _probe) = CoreLink::probe();
    let state = WorkbenchState::new(WorkbenchSetup {
        link: engine,
        dialogs: Box::new(ScriptedDialogs::new([Some(path)])),
        demo_base_url: Some(ui_support::DEMO.into()),
        library_dir: None,
        persisted: None,
    });
    let mut h = ui_support::harness_sized(state, [1400.0, 1100.0]);
    h.run();
    h.get_by_label("Import HAR…").click();
    h.run();
    h.run();
    assert!(
        h.query_by_label("GET http://127.0.0.1:9/first?token=*** → 200")
            .is_some(),
        "entries are listed with secrets masked"
    );
    h.get_by_label("POST http://127.0.0.1:9/second → 503")
        .click();
    h.run();
    let draft = &h.state().request.composer.draft;
    assert_eq!(
        (draft.method.as_str(), draft.url.as_str()),
        ("POST", "http://127.0.0.1:9/second")
    );
    assert_eq!(draft.body.kind, BodyKind::Json);
    assert_eq!(draft.body.json, "{\"n\":1}");
    assert_eq!(draft.headers, [KeyValue::new("X-A", "b")]);
    assert!(!h.state().request.composer.har_import.is_open());
}

/// A workbench whose run 1 went 503, wait, 200 (events played through its link), its file
/// dialogs answering as `dialogs` says.
fn finished_run_with(
    dialogs: retryscope::ui::file_dialogs::ScriptedDialogs,
) -> egui_kittest::Harness<'static, retryscope::ui::workbench::WorkbenchState> {
    use retryscope::service::CoreLink;
    use retryscope::ui::workbench::{WorkbenchSetup, WorkbenchState};
    let (link, probe) = CoreLink::probe();
    let state = WorkbenchState::new(WorkbenchSetup {
        link,
        dialogs: Box::new(dialogs),
        demo_base_url: Some(ui_support::DEMO.into()),
        library_dir: None,
        persisted: None,
    });
    let mut h = ui_support::harness_sized(state, [1280.0, 800.0]);
    h.run();
    h.get_by_label("Send").click();
    h.run();
    let start = DateTime::parse_from_rfc3339("2026-11-30T14:00:00.000+01:00").expect("valid");
    let script = EventScript::new(1, "GET", "http://127.0.0.1:9/status/503", start)
        .attempt(response(503, &[], "busy"), retry("503 is retryable"), 12.0)
        .wait(10, 11.0)
        .attempt(response(200, &[], "ok"), Verdict::SUCCESS, 3.0)
        .finish(OutcomeKind::Succeeded, "succeeded on attempt 2", Some(200));
    for (event, _) in script.events() {
        assert!(probe.send_run(event.clone()), "workbench listens");
    }
    h.run();
    h
}

#[test]
fn export_png_saves_the_selected_runs_plot_off_the_frame() {
    use retryscope::ui::file_dialogs::ScriptedDialogs;
    let dir = tempfile::tempdir().expect("tempdir");
    // No extension: `.png` is added.
    let chosen = dir.path().join("plot");
    let mut h = finished_run_with(ScriptedDialogs::new([Some(chosen.clone())]));
    h.get_by_label("Export PNG…").click();
    h.run();
    let written = dir.path().join("plot.png");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !written.exists() && Instant::now() < deadline {
        // Steps the frame while the worker thread draws (a failure bound, not a timing test).
        std::thread::sleep(Duration::from_millis(20));
        h.run();
    }
    let bytes = std::fs::read(&written).expect("the plot was written");
    assert_eq!(&bytes[1..4], b"PNG");
    // The file is renamed into place before the worker sends its result.
    while h.query_by_label_contains("timeline plot saved").is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        h.run();
    }
    assert!(
        h.query_by_label_contains("timeline plot saved").is_some(),
        "the status line says where it went"
    );
}

#[test]
fn save_as_file_writes_the_runs_har_csv_and_events_off_the_frame() {
    use retryscope::ui::file_dialogs::ScriptedDialogs;
    let dir = tempfile::tempdir().expect("tempdir");
    let names = ["run", "attempts", "events"];
    let mut h = finished_run_with(ScriptedDialogs::new(
        names.iter().map(|n| Some(dir.path().join(n))),
    ));
    // (file written, what it starts with, the status line's words)
    let expected = [
        ("run.har", "{", "run as HAR saved"),
        ("attempts.csv", "run_id,", "attempts CSV saved"),
        ("events.jsonl", "{", "run's events saved"),
    ];
    // The menu button sits on a line of its own when the row is full, never wrapped inside.
    let button = h.get_by_label("Save as file").rect();
    assert!(
        button.height() < 40.0 && button.width() > 60.0,
        "one line: {button:?}"
    );
    for (item, (file, starts, said)) in ["HAR file…", "CSV file…", "Events file (JSON Lines)…"]
        .into_iter()
        .zip(expected)
    {
        h.get_by_label("Save as file").click();
        h.run();
        h.get_by_label(item).click();
        h.run();
        let written = dir.path().join(file);
        let deadline = Instant::now() + Duration::from_secs(10);
        while (!written.exists() || h.query_by_label_contains(said).is_none())
            && Instant::now() < deadline
        {
            // Steps the frame while the worker writes (a failure bound, not a timing test).
            std::thread::sleep(Duration::from_millis(20));
            h.run();
        }
        let text = std::fs::read_to_string(&written).expect("the file was written");
        assert!(text.starts_with(starts), "{file}: {text}");
        assert!(
            h.query_by_label_contains(said).is_some(),
            "the status line says where {file} went"
        );
    }
    let har: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run.har")).expect("har"))
            .expect("HAR is JSON");
    assert_eq!(har["log"]["entries"].as_array().map(Vec::len), Some(2));
    let events = std::fs::read_to_string(dir.path().join("events.jsonl")).expect("events");
    assert!(events.lines().count() >= 5, "{events}");
}
