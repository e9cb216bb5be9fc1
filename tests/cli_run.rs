//! `retryscope run` against the demo server started in this test process (loopback only).
//! These need the real engine, policy and demo server.

mod demo_support;

use assert_cmd::Command;
use demo_support::Demo;

/// A demo server on 127.0.0.1 with the runtime that serves it.
fn retryscope() -> Command {
    demo_support::sandboxed()
}

#[test]
fn servicenow_example_retries_twice_then_succeeds() {
    let demo = Demo::start();
    let url = demo.url("/status/429?times=2&key=cli-run-servicenow");
    let out = retryscope()
        .args([
            "run",
            "--builtin",
            "servicenow-exponential",
            "--seed",
            "1234",
            &url,
        ])
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(0)
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let attempts: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("attempt "))
        .collect();
    assert_eq!(attempts.len(), 3, "{stdout}");
    assert!(
        attempts[0].contains("  429  ") && attempts[0].contains("retryable"),
        "{stdout}"
    );
    assert!(
        attempts[2].contains("  200  ") && attempts[2].contains("success"),
        "{stdout}"
    );
    let waits: Vec<&str> = stdout.lines().filter(|l| l.starts_with("wait ")).collect();
    assert_eq!(waits.len(), 2, "{stdout}");
    for w in &waits {
        assert!(w.contains("planned ") && w.contains("-> actual "), "{w}");
        assert!(w.contains("exponential"), "explanation verbatim: {w}");
    }
    assert!(
        stdout.contains("seed 1234 (replay with --seed 1234)"),
        "{stdout}"
    );
}

#[test]
fn json_lines_parse_and_end_with_run_finished() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let profile = demo_support::fast_profile(&dir);
    let url = demo.url("/status/503?times=1&key=cli-run-json");
    let out = retryscope()
        .args(["run", "--json", "--profile"])
        .arg(&profile)
        .arg(&url)
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(0)
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let events: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["event"].as_str()).collect();
    assert_eq!(kinds.first(), Some(&"run_started"), "{stdout}");
    assert_eq!(kinds.last(), Some(&"run_finished"), "{stdout}");
    assert_eq!(
        kinds.iter().filter(|k| **k == "attempt_finished").count(),
        2,
        "{stdout}"
    );
    assert_eq!(
        kinds.iter().filter(|k| **k == "wait_scheduled").count(),
        1,
        "{stdout}"
    );
    // Every line is a RunEvent.
    for line in stdout.lines() {
        serde_json::from_str::<retryscope::model::RunEvent>(line).expect("a RunEvent");
    }
}

#[test]
fn not_retryable_status_exits_1() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let profile = demo_support::fast_profile(&dir);
    let url = demo.url("/status/404?times=5&key=cli-run-404");
    retryscope()
        .args(["run", "--profile"])
        .arg(&profile)
        .arg(&url)
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(1)
        .stdout(predicates::str::contains("stop"));
}

#[test]
fn secret_headers_are_masked() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let profile = demo_support::fast_profile(&dir);
    let out = retryscope()
        .args([
            "run",
            "-H",
            "Authorization: Bearer s3cr3t-value",
            "-H",
            "X-Plain: visible",
        ])
        .arg("--profile")
        .arg(&profile)
        .arg(demo.url("/status/200?key=cli-run-secret"))
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .expect("runs");
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let stderr = String::from_utf8(out.stderr).expect("utf-8");
    assert!(stdout.contains("> Authorization: ***"), "{stdout}");
    // The request line first, then the headers sent.
    assert!(stdout.starts_with("GET http://127.0.0.1:"), "{stdout}");
    assert!(stdout.contains("> X-Plain: visible"), "{stdout}");
    assert!(
        !stdout.contains("s3cr3t") && !stderr.contains("s3cr3t"),
        "{stdout}{stderr}"
    );
}

#[test]
fn refused_connection_is_not_a_usage_error() {
    // Nothing listens on the demo server's port after it is dropped.
    let url = {
        let demo = Demo::start();
        demo.url("/status/200")
    };
    retryscope()
        .args(["run", "--max-retries", "0", &url])
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(1)
        .stderr(predicates::str::contains("panicked").not());
}

use predicates::prelude::PredicateBooleanExt;

#[test]
fn ctrl_c_cancels_the_run_and_exits_130() {
    use std::io::Read;
    let demo = Demo::start();
    let mut child = demo_support::sandboxed_std()
        .args(["run", "--builtin", "curl-retry"])
        .arg(demo.url("/status/503?times=10&key=cli-run-ctrl-c"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawns");
    // Read until the first wait (1 s with curl-retry) has been announced.
    let mut stdout = child.stdout.take().expect("piped");
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    while !String::from_utf8_lossy(&seen).contains("planned") {
        let n = stdout.read(&mut buf).expect("reads");
        assert!(
            n > 0,
            "ended before waiting: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&buf[..n]);
    }
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    stdout.read_to_end(&mut seen).expect("reads the rest");
    let code = child.wait().expect("exits").code();
    let text = String::from_utf8_lossy(&seen);
    assert_eq!(code, Some(130), "{text}");
    assert!(text.contains("cancelled"), "{text}");
    assert!(text.contains("replay with --seed"), "{text}");
}

#[test]
fn an_attempt_in_flight_shows_before_it_ends_and_ctrl_c_ends_its_line() {
    use std::io::Read;
    let demo = Demo::start();
    let mut child = demo_support::sandboxed_std()
        .arg("run")
        .arg(demo.url("/hang"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawns");
    // The hanging attempt never finishes: its line must show anyway.
    let mut stdout = child.stdout.take().expect("piped");
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    while !String::from_utf8_lossy(&seen).contains("attempt 1  ") {
        let n = stdout.read(&mut buf).expect("reads");
        assert!(n > 0, "ended early: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    stdout.read_to_end(&mut seen).expect("reads the rest");
    let code = child.wait().expect("exits").code();
    let text = String::from_utf8_lossy(&seen);
    assert_eq!(code, Some(130), "{text}");
    assert!(
        text.contains("  aborted after ")
            && text.contains(" ms\ncancelled during attempt 1  (1 attempt, "),
        "{text}"
    );
    assert!(text.ends_with('\n'), "{text:?}");
}

#[test]
fn url_passwords_never_print() {
    let demo = Demo::start();
    let url = demo.url("/echo").replace("http://", "http://user:s3cret@");
    for json in [false, true] {
        let mut cmd = retryscope();
        cmd.arg("run");
        if json {
            cmd.arg("--json");
        }
        let out = cmd
            .arg(&url)
            .timeout(std::time::Duration::from_secs(30))
            .assert()
            .code(0)
            .get_output()
            .clone();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!stdout.contains("s3cret"), "{stdout}");
        assert!(
            stdout.contains("***:***@") && !stdout.contains("user:"),
            "{stdout}"
        );
    }
}

/// Starts `retryscope ARGS…`, reads stdout until `ready` shows, sends `signal`, returns the
/// exit code and all of stdout.
fn stop_with(args: &[&str], ready: &str, signal: &str) -> (Option<i32>, String) {
    use std::io::Read;
    let mut child = demo_support::sandboxed_std()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut stdout = child.stdout.take().expect("piped");
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    while !String::from_utf8_lossy(&seen).contains(ready) {
        let n = stdout.read(&mut buf).expect("reads");
        assert!(n > 0, "ended early: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    let status = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    stdout.read_to_end(&mut seen).expect("reads the rest");
    let code = child.wait().expect("exits").code();
    (code, String::from_utf8_lossy(&seen).into_owned())
}

#[test]
fn sigterm_and_sighup_cancel_the_run_cleanly_and_end_with_a_newline() {
    let demo = Demo::start();
    let url = demo.url("/hang");
    for (signal, exit) in [("-TERM", 143), ("-HUP", 129)] {
        let (code, text) = stop_with(&["run", &url], "attempt 1  ", signal);
        assert_eq!(code, Some(exit), "{signal}: {text}");
        assert!(
            text.contains("\ncancelled during attempt 1"),
            "{signal}: {text}"
        );
        assert!(text.ends_with('\n'), "{signal}: {text:?}");
    }
}

#[test]
fn demo_server_stops_on_sigint_and_sigterm_with_a_final_line() {
    for signal in ["-INT", "-TERM"] {
        let (code, text) = stop_with(&["demo-server", "--port", "0"], "listening on", signal);
        assert_eq!(code, Some(0), "{text}");
        assert!(text.ends_with("\ndemo server stopped\n"), "{text:?}");
    }
}

/// `retryscope run … --har H -o O URL` with stdout closed before the first line (`| head -0`)
/// or writing into a full disk (`> /dev/full`): the run still ends, is recorded, and its
/// files are written; the exit code says what happened to stdout.
fn run_without_stdout(
    stdout: std::process::Stdio,
    close_at_once: bool,
    path: &str,
) -> (Option<i32>, String, tempfile::TempDir, Demo) {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let profile = demo_support::fast_profile(&dir);
    let mut child = demo_support::sandboxed_std();
    child
        .env("RETRYSCOPE_DATA_DIR", dir.path())
        .arg("run")
        .arg("--profile")
        .arg(&profile)
        .arg("--har")
        .arg(dir.path().join("run.har"))
        .arg("-o")
        .arg(dir.path().join("body.json"))
        .arg(demo.url(path));
    let (code, stderr) = exit_and_stderr(child, stdout, close_at_once);
    (code, stderr, dir, demo)
}

/// Runs `command` with `stdout` (closed as soon as it starts when `close_at_once`, as
/// `| head -0` does); returns its exit code and stderr.
fn exit_and_stderr(
    mut command: std::process::Command,
    stdout: std::process::Stdio,
    close_at_once: bool,
) -> (Option<i32>, String) {
    let mut child = command
        .stdout(stdout)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawns");
    if close_at_once {
        drop(child.stdout.take());
    }
    let out = child.wait_with_output().expect("exits");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The runs `history list --json` shows in `dir`.
fn recorded(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let out = demo_support::retryscope(dir)
        .args(["history", "list", "--json"])
        .assert()
        .code(0)
        .get_output()
        .clone();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

#[test]
fn a_closed_stdout_still_records_the_run_and_writes_its_files() {
    let (code, stderr, dir, _demo) = run_without_stdout(
        std::process::Stdio::piped(),
        true,
        "/status/503?times=2&key=closed-stdout",
    );
    assert_eq!(code, Some(141), "{stderr}");
    assert_eq!(stderr, "", "a closed pipe is said by the exit code only");
    let runs = recorded(dir.path());
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["outcome"], "succeeded", "{runs:?}");
    assert_eq!(runs[0]["attempts"], 3, "{runs:?}");
    let har: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("run.har")).expect("HAR written"))
            .expect("HAR is JSON");
    assert_eq!(har["log"]["entries"].as_array().map(Vec::len), Some(3));
    let body = std::fs::read_to_string(dir.path().join("body.json")).expect("-o written");
    assert!(body.contains("\"status\":200"), "{body}");

    // A run that did not succeed keeps its own code: the failure says more than the pipe.
    let (code, stderr, dir, _demo) = run_without_stdout(
        std::process::Stdio::piped(),
        true,
        "/status/404?key=closed-stdout-404",
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(recorded(dir.path())[0]["outcome"], "stopped");
}

#[test]
fn a_full_stdout_still_records_the_run_and_says_so_once() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // Not Linux: no /dev/full to write to.
    };
    let (code, stderr, dir, _demo) =
        run_without_stdout(full.into(), false, "/status/503?times=1&key=full-stdout");
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        stderr.matches("error: cannot write the output: ").count(),
        1,
        "{stderr}"
    );
    let runs = recorded(dir.path());
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["outcome"], "succeeded", "{runs:?}");
    assert!(dir.path().join("run.har").is_file());
    assert!(dir.path().join("body.json").is_file());
}

/// `run -o - URL` whose stdout is closed or full before the body went out: the summary says
/// how much of the body was written, never that all of it was.
#[test]
fn a_body_cut_short_on_stdout_is_not_called_written() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |stdout: std::process::Stdio, close_at_once: bool| {
        let mut command = demo_support::sandboxed_std();
        command
            .env("RETRYSCOPE_DATA_DIR", dir.path())
            .args(["run", "--no-history", "-o", "-"])
            .arg(demo.url("/bytes?n=5000000"));
        exit_and_stderr(command, stdout, close_at_once)
    };
    let (code, stderr) = run(std::process::Stdio::piped(), true);
    assert_eq!(code, Some(141), "{stderr}");
    assert!(!stderr.contains("bytes written to stdout"), "{stderr}");
    assert!(
        stderr.contains(
            "error: the body was not delivered whole: stdout was closed after 0 of 5000000 bytes"
        ),
        "{stderr}"
    );
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // Not Linux: no /dev/full to write to.
    };
    let (code, stderr) = run(full.into(), false);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(!stderr.contains("bytes written to stdout"), "{stderr}");
    assert!(
        stderr.contains("stdout could not be written after 0 of 5000000 bytes"),
        "{stderr}"
    );
}
