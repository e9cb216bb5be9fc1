//! `retryscope curl` against the demo server started in this test process (loopback only).

mod demo_support;

use assert_cmd::Command;
use demo_support::Demo;

fn retryscope() -> Command {
    demo_support::sandboxed()
}

#[test]
fn a_pasted_command_retries_under_the_profile_and_warns_about_ignored_options() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let profile = demo_support::fast_profile(&dir);
    let url = demo.url("/status/503?times=2&key=cli-curl-1");
    let out = retryscope()
        .args([
            "curl",
            "curl",
            "-S",
            &url,
            "-H",
            "X-Trace: t-1",
            "--proxy",
            "http://127.0.0.1:1",
        ])
        .arg("--profile")
        .arg(&profile)
        .args(["--seed", "5"])
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(0)
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let stderr = String::from_utf8(out.stderr).expect("utf-8");
    let attempts = stdout.lines().filter(|l| l.starts_with("attempt ")).count();
    assert_eq!(attempts, 3, "{stdout}");
    assert!(stdout.contains("> X-Trace: t-1"), "{stdout}");
    assert!(stdout.contains("seed 5"), "{stdout}");
    assert_eq!(
        stderr, "warning: curl import: --proxy (ignored: not supported)\n",
        "-S is accepted without a warning (errors are always shown)"
    );
}

/// `-s` is honoured as `run -s` (no attempt, wait or request-header lines), never ignored
/// silently; `-o -` writes the body to stdout as curl does, the timeline going to stderr.
#[test]
fn silent_hides_the_timeline_and_output_dash_writes_the_body_to_stdout() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let profile = demo_support::fast_profile(&dir);
    let url = demo.url("/status/503?times=1&key=cli-curl-silent");
    let out = retryscope()
        .args(["curl", "-s", "-H", "X-Trace: t-2", &url, "--profile"])
        .arg(&profile)
        .assert()
        .code(0)
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "no warning for -s"
    );
    assert!(
        !stdout
            .lines()
            .any(|l| l.starts_with("attempt ") || l.starts_with("wait ")),
        "{stdout}"
    );
    assert!(!stdout.contains("> X-Trace"), "{stdout}");
    assert!(stdout.contains("succeeded on attempt 2"), "{stdout}");

    let out = retryscope()
        .args(["curl", "-o", "-", &demo.url("/bytes?n=5000"), "--profile"])
        .arg(&profile)
        .assert()
        .code(0)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.stdout,
        vec![b'x'; 5000],
        "only the whole body: {stderr}"
    );
    assert!(stderr.contains("attempt 1 "), "{stderr}");
    assert!(
        stderr.contains("body: 5000 bytes written to stdout"),
        "{stderr}"
    );
    retryscope()
        .args(["curl", "--jsonl", "-o", "-", &demo.url("/status/200")])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "-o - writes the body to stdout, where --jsonl writes the events",
        ));
}

#[test]
fn json_body_basic_auth_and_json_lines_output() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let profile = demo_support::fast_profile(&dir);
    let command = format!(
        "curl '{}' \\\n  -u 'ada:pw-secret-1' \\\n  --json '{{\"a\":1}}'",
        demo.url("/echo")
    );
    let out = retryscope()
        .arg("curl")
        .arg("--jsonl")
        .arg(&command)
        .arg("--profile")
        .arg(&profile)
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(0)
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON Lines"))
        .collect();
    assert_eq!(lines[0]["event"], "run_started");
    assert_eq!(lines[0]["method"], "POST");
    let finished = lines
        .iter()
        .find(|e| e["event"] == "attempt_finished")
        .expect("one attempt");
    let body = finished["outcome"]["body"]["bytes"]["utf8"]
        .as_str()
        .expect("text body");
    let echo: serde_json::Value = serde_json::from_str(body).expect("the echo is JSON");
    assert_eq!(echo["body"], "{\"a\":1}", "{echo}");
    let headers = echo["headers"].as_array().expect("headers");
    let has = |name: &str, value: &str| {
        headers
            .iter()
            .any(|h| h[0] == name && h[1].as_str().is_some_and(|v| v.starts_with(value)))
    };
    assert!(has("content-type", "application/json"), "{echo}");
    assert!(has("accept", "application/json"), "{echo}");
    // The echoed credential is the request's own secret: masked whole, as `run` masks it.
    assert!(has("authorization", "***"), "{echo}");
    assert!(!stdout.contains("pw-secret-1"), "{stdout}");
}

#[test]
fn unreadable_commands_are_usage_errors_naming_the_option() {
    retryscope()
        .args(["curl", "http://127.0.0.1:1/", "-m", "soon"])
        .assert()
        .code(2)
        .stderr("error: `-m` (word 2): give seconds greater than 0, e.g. 2.5\n");
    retryscope()
        .args(["curl", "-s"])
        .assert()
        .code(2)
        .stderr("error: the curl command has no URL\n");
}

#[test]
fn run_har_writes_one_entry_per_attempt_with_secrets_masked() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let profile = demo_support::fast_profile(&dir);
    let har_path = dir.path().join("run.har");
    let url = demo.url("/status/503?times=2&key=cli-har-1");
    retryscope()
        .arg("run")
        .arg("--profile")
        .arg(&profile)
        .arg("--har")
        .arg(&har_path)
        .args(["-H", "Authorization: Bearer har-secret-1", &url])
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&har_path).expect("HAR written");
    assert!(!text.contains("har-secret-1"), "{text}");
    assert!(
        !text.contains("cli-har-1"),
        "the `key` query value is secret, also where the server echoes it: {text}"
    );
    let har: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let entries = har["log"]["entries"].as_array().expect("entries");
    let statuses: Vec<&serde_json::Value> =
        entries.iter().map(|e| &e["response"]["status"]).collect();
    assert_eq!(statuses, [503, 503, 200]);
    assert_eq!(entries[0]["_retryscope"]["verdict"], "retry");
    assert!(entries[0]["_retryscope"]["measured_wait_ms"].is_number());
    let file = retryscope::interop::HarFile::parse(&text).expect("reads back");
    assert_eq!(file.draft(2).expect("entry").method, "GET");
}

#[test]
fn secrets_the_server_echoes_are_masked_as_run_masks_them() {
    let demo = Demo::start();
    let url = demo.url("/echo?token=CURLQSEC1&x=1");
    let out = retryscope()
        .args(["curl", &url])
        .assert()
        .get_output()
        .clone();
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(printed.contains("token=***"), "{printed}");
    assert!(
        !printed.contains("CURLQSEC1"),
        "echoed query secret printed:\n{printed}"
    );
}

#[test]
fn a_leading_json_is_curls_json_body_and_jsonl_prints_events() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = demo_support::retryscope(dir.path())
        .args(["curl", "--json", "{\"a\":1}", &demo.url("/echo"), "--jsonl"])
        .assert()
        .code(0)
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("--jsonl prints JSON Lines"))
        .collect();
    assert_eq!(lines[0]["method"], "POST", "--json DATA implies POST");
    let finished = lines
        .iter()
        .find(|e| e["event"] == "attempt_finished")
        .expect("one attempt");
    let echo: serde_json::Value = serde_json::from_str(
        finished["outcome"]["body"]["bytes"]["utf8"]
            .as_str()
            .expect("text body"),
    )
    .expect("the echo is JSON");
    assert_eq!(echo["body"], "{\"a\":1}", "{echo}");
}

#[test]
fn no_history_among_the_curl_words_is_ours_and_records_nothing() {
    let demo = Demo::start();
    let data = tempfile::tempdir().expect("tempdir");
    let out = demo_support::retryscope(data.path())
        .args(["curl", "curl", &demo.url("/status/200"), "--no-history"])
        .assert()
        .code(0)
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).expect("utf-8");
    assert!(
        !stderr.contains("--no-history"),
        "not warned as a curl option: {stderr}"
    );
    assert!(
        !data.path().join("history.sqlite3").exists(),
        "nothing recorded"
    );
}

/// A command copied with secrets masked holds `***` where each secret was: `curl` (and `run`)
/// refuse to send it, exit 2, naming the place, and nothing reaches the server.
#[test]
fn a_masked_secret_is_never_sent() {
    let demo = Demo::start();
    for (flag, value) in [
        ("-H", "Authorization: ***"),
        ("-H", "Authorization: Bearer ***"),
        ("-u", "bob:***"),
        ("-b", "sid=***"),
    ] {
        let url = demo.url("/echo?case=masked");
        let out = retryscope()
            .args(["curl", "curl", &url, flag, value])
            .timeout(std::time::Duration::from_secs(30))
            .assert()
            .code(2)
            .get_output()
            .clone();
        let stderr = String::from_utf8(out.stderr).expect("utf-8");
        assert!(
            stderr.contains("is `***`, the mask a copy or export writes for a secret"),
            "{flag} {value}: {stderr}"
        );
    }
    let out = retryscope()
        .args([
            "run",
            "-H",
            "X-Api-Key: ***",
            &demo.url("/echo?case=masked"),
        ])
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("header X-Api-Key is `***`"));
    assert!(demo.server.log().is_empty(), "nothing was sent");
}

/// A missing `-d @FILE` or `-F name=@FILE` is refused before anything is sent, naming the
/// file once, in the words `run` uses.
#[test]
fn a_missing_body_file_is_named_once_before_anything_is_sent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("missing.json");
    let missing = missing.display().to_string();
    for (flag, value, said) in [
        ("-d", format!("@{missing}"), "cannot read body file: "),
        (
            "-F",
            format!("f=@{missing}"),
            "cannot read the file of -F f: ",
        ),
    ] {
        let out = retryscope()
            .args(["curl", flag, &value, "http://127.0.0.1:9/echo"])
            .assert()
            .code(2)
            .get_output()
            .clone();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let error = stderr
            .lines()
            .find(|l| l.starts_with("error: "))
            .unwrap_or_else(|| panic!("no error line: {stderr}"));
        assert!(
            error.starts_with(&format!("error: {missing}: {said}")),
            "{stderr}"
        );
        assert_eq!(stderr.matches(missing.as_str()).count(), 1, "{stderr}");
        assert!(!stderr.contains("body.p"), "no field paths: {stderr}");
        assert!(out.stdout.is_empty(), "nothing was run");
    }
}

/// `-T FILE` sends the file as the body of a PUT, as curl does.
#[test]
fn upload_file_puts_the_file() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "line one\nline two\n").expect("written");
    let out = retryscope()
        .args(["curl", "-T"])
        .arg(&file)
        .arg(demo.url("/echo?case=upload"))
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(0)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("ignored"), "{stderr}");
    let log = demo.server.log();
    let [sent] = log.as_slice() else {
        panic!("one request: {log:?}")
    };
    assert_eq!(
        (sent.method.as_str(), sent.body.as_str()),
        ("PUT", "line one\nline two\n")
    );
}

/// Without -L a redirect stops the run (curl does not follow it either): the run ends with a
/// hint to add -L; with -L, and for a 304, there is none.
#[test]
fn an_unfollowed_redirect_hints_at_minus_l() {
    let demo = Demo::start();
    let run = |args: &[&str]| {
        let out = retryscope()
            .arg("curl")
            .arg("--no-history")
            .args(args)
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .expect("runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let hint = "hint: curl follows redirects only with -L: add -L to follow it";
    let stdout = run(&[&demo.url("/redirect?to=/status/200&status=302")]);
    assert!(stdout.contains("302 redirect not followed"), "{stdout}");
    assert!(stdout.trim_end().ends_with(hint), "{stdout}");
    let stdout = run(&["-L", &demo.url("/redirect?to=/status/200&status=302")]);
    assert!(!stdout.contains(hint), "{stdout}");
    let stdout = run(&[&demo.url("/redirect?to=/status/200&status=304")]);
    assert!(stdout.contains("304 is not retryable"), "{stdout}");
    assert!(!stdout.contains(hint), "{stdout}");
}
