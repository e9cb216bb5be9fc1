//! A `retryscope run` killed with SIGKILL mid-run: what it had finished is in the history, and
//! the next start shows the run as `interrupted`.

use assert_cmd::cargo::CommandCargoExt;
use retryscope::demo::DemoServer;
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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let server = runtime
        .block_on(DemoServer::start(0))
        .expect("demo server binds a free port");
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
                    .is_some_and(|r| r.attempts.first().is_some_and(|a| a.wait.is_some()))
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
    assert_eq!(stored.attempts.len(), 1);
    assert_eq!(stored.attempts[0].outcome.status(), Some(503));
    let wait = stored.attempts[0]
        .wait
        .as_ref()
        .expect("the planned wait was committed");
    assert!(wait.planned_ms > 1_000, "{wait:?}");
    assert_eq!(wait.measured_ms, None, "the wait never ended");
}
