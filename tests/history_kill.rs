//! A `retryscope run` killed with SIGKILL mid-run: what it had finished is in the history, and
//! the next start shows the run as `interrupted`.

mod demo_support;

use assert_cmd::cargo::CommandCargoExt;
use retryscope::store::{HISTORY_FILE, HistoryStore, RunFilter};
use std::time::{Duration, Instant};

/// Retries 5xx after a wait of many seconds (exponential, base 60 s), so the run is still waiting when it is killed.
const SLOW_PROFILE: &str = r#"{
  "format": "retryscope-profile/1",
  "name": "Slow",
  "max_retries": 3,
  "retry_on": { "status": ["500-599"] },
  "backoff": { "strategy": "exponential", "base_delay_ms": 60000, "max_delay_ms": 60000 },
  "seed": 1
}"#;

#[test]
fn a_killed_run_keeps_its_finished_attempts_and_shows_as_interrupted() {
    let demo = demo_support::Demo::start();
    let server = &demo.server;
    let dir = tempfile::tempdir().expect("tempdir");
    let profile = dir.path().join("slow.json");
    std::fs::write(&profile, SLOW_PROFILE).expect("profile written");

    let mut child = std::process::Command::cargo_bin("retryscope")
        .expect("binary built")
        .env("RETRYSCOPE_KEYRING", "memory")
        .env("RETRYSCOPE_DATA_DIR", dir.path())
        .args(["run", "--profile"])
        .arg(&profile)
        .arg("--data-dir")
        .arg(dir.path())
        .arg(server.url("/status/503"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("starts");

    // Wait until attempt 1 is committed (the process is alive, so opening does not mark it).
    // The file is opened only once the run created it, so this test never races its creation.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        // Attempt 1 and the wait planned after it.
        let exists = dir.path().join(HISTORY_FILE).exists();
        let committed = exists
            && HistoryStore::open_in(dir.path()).ok().is_some_and(|s| {
                s.list(&RunFilter::default())
                    .ok()
                    .and_then(|runs| runs.first().map(|r| r.id.clone()))
                    .and_then(|id| s.run(&id).ok().flatten())
                    .is_some_and(|r| r.fold.attempts.first().is_some_and(|a| a.wait.is_some()))
            });
        if committed {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "attempt 1 and its wait were never committed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    assert_eq!(server.log().len(), 1, "killed during the long wait");

    let out = std::process::Command::cargo_bin("retryscope")
        .expect("binary built")
        .args(["history", "list", "--json", "--data-dir"])
        .arg(dir.path())
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let runs: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(runs.len(), 1, "{text}");
    assert_eq!(runs[0]["outcome"], "interrupted");
    assert_eq!(runs[0]["attempts"], 1);
    let id = runs[0]["id"].as_str().expect("id");
    let shown = std::process::Command::cargo_bin("retryscope")
        .expect("binary built")
        .args(["history", "show", id, "--data-dir"])
        .arg(dir.path())
        .output()
        .expect("runs");
    let shown = String::from_utf8(shown.stdout).expect("utf-8");
    assert!(
        shown.contains("attempt 1 ") && shown.contains("503"),
        "{shown}"
    );
    assert!(shown.contains("interrupted after 1 attempt"), "{shown}");
    assert!(
        shown.contains("  -> interrupted during the wait (the process ended)\n"),
        "{shown}"
    );
    assert!(!shown.contains("cut short"), "{shown}");
    assert_eq!(runs[0]["last_status"], 503, "the last status seen");
    let stored = HistoryStore::open_in(dir.path())
        .expect("opens")
        .run(id)
        .expect("reads")
        .expect("found");
    assert_eq!(stored.fold.attempts.len(), 1);
    assert_eq!(
        stored.fold.attempts[0].short_label().as_deref(),
        Some("503")
    );
    let wait = stored.fold.attempts[0]
        .wait
        .as_ref()
        .expect("the planned wait was committed");
    assert!(wait.planned_ms > 1_000, "{wait:?}");
    assert!(wait.interrupted, "the wait never ended: {wait:?}");
    let csv = std::process::Command::cargo_bin("retryscope")
        .expect("binary built")
        .args(["history", "export", id, "--format", "csv", "--data-dir"])
        .arg(dir.path())
        .output()
        .expect("runs");
    let csv = String::from_utf8(csv.stdout).expect("utf-8");
    let row = csv.lines().nth(1).expect("attempt 1's row");
    assert!(
        row.contains(",retry,503 is retryable; the wait before retry 1 was cut off (interrupted),"),
        "{csv}"
    );
}

/// Attempt 1 hangs until its 1 s timeout, then retry 1 (after 10 ms) hangs too.
const HANG_PROFILE: &str = r#"{
  "format": "retryscope-profile/1",
  "name": "Hang",
  "max_retries": 3,
  "retry_on": { "status": ["500-599"], "errors": ["timeout"] },
  "backoff": { "strategy": "fixed", "base_delay_ms": 10 },
  "timeouts": { "total_ms": 1000 },
  "seed": 1
}"#;

/// Starts `retryscope run --profile PROFILE URL` recording into `dir`.
fn start_run(dir: &std::path::Path, profile_json: &str, url: &str) -> std::process::Child {
    let profile = dir.join("profile.json");
    std::fs::write(&profile, profile_json).expect("profile written");
    std::process::Command::cargo_bin("retryscope")
        .expect("binary built")
        .env("RETRYSCOPE_KEYRING", "memory")
        .env("RETRYSCOPE_DATA_DIR", dir)
        .args(["run", "--profile"])
        .arg(&profile)
        .arg("--data-dir")
        .arg(dir)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("starts")
}

/// Waits until the one recorded run has a committed start of attempt `n` that has no record
/// (the attempt is in flight); returns the run's id.
fn wait_for_unanswered(dir: &std::path::Path, n: u32) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let exists = dir.join(HISTORY_FILE).exists();
        let found = exists
            .then(|| HistoryStore::open_in(dir).ok())
            .flatten()
            .and_then(|s| {
                let id = s.list(&RunFilter::default()).ok()?.first()?.id.clone();
                let stored = s.run(&id).ok()??;
                Some((id, stored.unanswered()?.number))
            });
        if let Some((id, number)) = found {
            assert!(number <= n, "attempt {n} was missed (now {number})");
            if number == n {
                return id;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the start of attempt {n} was never committed"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `retryscope SUBCOMMAND… --data-dir DIR`'s standard output.
fn cli_stdout(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::cargo_bin("retryscope")
        .expect("binary built")
        .args(args)
        .arg("--data-dir")
        .arg(dir)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn an_attempt_killed_in_flight_is_recorded_as_started_and_interrupted_in_every_view() {
    let demo = demo_support::Demo::start();
    let server = &demo.server;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut child = start_run(dir.path(), HANG_PROFILE, &server.url("/hang"));
    // Attempt 2's start is an update of the run's row (attempt 1's rode in its insert).
    let id = wait_for_unanswered(dir.path(), 2);
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    assert_eq!(server.log().len(), 2, "killed during attempt 2");

    let listed: serde_json::Value =
        serde_json::from_str(cli_stdout(dir.path(), &["history", "list", "--json"]).trim())
            .expect("one JSON line");
    assert_eq!(listed["outcome"], "interrupted");
    assert_eq!(listed["attempts"], 2, "the cut-off attempt counts as made");

    let shown = cli_stdout(dir.path(), &["history", "show", &id]);
    let line = shown
        .lines()
        .find(|l| l.starts_with("attempt 2 "))
        .unwrap_or_else(|| panic!("no line for attempt 2: {shown}"));
    assert!(
        line.ends_with("  no answer recorded (interrupted)"),
        "{shown}"
    );
    assert!(
        shown.contains("timeout error"),
        "attempt 1 timed out: {shown}"
    );
    assert!(shown.contains("interrupted after 2 attempts"), "{shown}");
    // Never measured: how far the records reach (attempt 2's start, after attempt 1's 1 s
    // timeout) is a lower bound, not "0.00 s" and not "error".
    assert!(
        shown.contains("interrupted after 2 attempts  (at least 1.")
            && shown.contains("the process ended later, when is not recorded"),
        "{shown}"
    );
    assert!(!shown.contains("error:"), "{shown}");

    let lines: Vec<serde_json::Value> = cli_stdout(dir.path(), &["history", "show", &id, "--json"])
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON Lines"))
        .collect();
    assert!(
        lines.iter().all(|l| l["run_id"] == id.as_str()),
        "{lines:?}"
    );
    let [.., unanswered, finished] = lines.as_slice() else {
        panic!("too few lines: {lines:?}");
    };
    assert_eq!(unanswered["event"], "attempt_unanswered");
    assert_eq!(unanswered["attempt"], 2);
    assert_eq!(unanswered["message"], "no answer recorded (interrupted)");
    assert_eq!(finished["event"], "run_finished");
    assert_eq!(finished["outcome"]["kind"], "interrupted");
    assert_eq!(finished["elapsed_ms"], serde_json::Value::Null);
    let until = finished["recorded_until_ms"].as_f64().expect("a number");
    assert!(
        until >= 1000.0,
        "attempt 2 started after attempt 1's 1 s timeout: {until}"
    );

    let csv = cli_stdout(dir.path(), &["history", "export", &id, "--format", "csv"]);
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 3, "header, attempt 1, attempt 2: {csv}");
    assert!(rows[2].contains(",2,"), "{csv}");
    assert!(
        rows[2].contains("no answer recorded (interrupted),interrupted,"),
        "the cut-off attempt's verdict says so: {csv}"
    );

    let har: serde_json::Value = serde_json::from_str(&cli_stdout(
        dir.path(),
        &["history", "export", &id, "--format", "har"],
    ))
    .expect("HAR is JSON");
    assert_eq!(har["log"]["_retryscope"]["outcome"], "interrupted");
    let entries = har["log"]["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 2);
    assert_eq!(
        entries[1]["response"]["_error"],
        "no answer recorded (interrupted)"
    );
    // HAR 1.2 allows -1 only in blocked/dns/connect/ssl: 0, said to be no measurement.
    assert_eq!(entries[1]["time"], 0.0);
    assert_eq!(entries[1]["timings"]["wait"], 0);
    assert_eq!(entries[1]["_retryscope"]["length_measured"], false);
    assert!(entries[0]["time"].as_f64().is_some_and(|t| t >= 1000.0));
    assert_eq!(
        har["log"]["_retryscope"]["elapsed_ms"],
        serde_json::Value::Null
    );

    let json: serde_json::Value = serde_json::from_str(&cli_stdout(
        dir.path(),
        &["history", "export", &id, "--format", "json"],
    ))
    .expect("JSON");
    assert_eq!(json["run"]["outcome"], "interrupted");
    assert_eq!(json["attempts"].as_array().map(Vec::len), Some(1));
    assert_eq!(json["unanswered"]["number"], 2);
    assert_eq!(json["unanswered"]["method"], "GET");
}

#[cfg(unix)]
#[test]
fn ctrl_c_during_an_attempt_records_it_as_started_and_the_run_as_cancelled() {
    let demo = demo_support::Demo::start();
    let server = &demo.server;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut child = start_run(dir.path(), SLOW_PROFILE, &server.url("/hang"));
    let id = wait_for_unanswered(dir.path(), 1);
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let status = child.wait().expect("reaped");
    assert_eq!(status.code(), Some(130), "Ctrl-C exits 130");

    let listed: serde_json::Value =
        serde_json::from_str(cli_stdout(dir.path(), &["history", "list", "--json"]).trim())
            .expect("one JSON line");
    assert_eq!(listed["outcome"], "cancelled");
    assert_eq!(listed["attempts"], 1);
    let shown = cli_stdout(dir.path(), &["history", "show", &id]);
    let line = shown
        .lines()
        .find(|l| l.starts_with("attempt 1 "))
        .unwrap_or_else(|| panic!("no line for attempt 1: {shown}"));
    // As a live run's text says it: the run's end was measured.
    assert!(line.contains("  aborted after "), "{shown}");
    assert!(shown.contains("cancelled during attempt 1"), "{shown}");
    let har: serde_json::Value = serde_json::from_str(&cli_stdout(
        dir.path(),
        &["history", "export", &id, "--format", "har"],
    ))
    .expect("HAR is JSON");
    assert_eq!(har["log"]["_retryscope"]["outcome"], "cancelled");
    assert_eq!(
        har["log"]["entries"][0]["response"]["_error"],
        "no answer recorded (cancelled)"
    );
}
