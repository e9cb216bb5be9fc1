//! `retryscope run` with conditions on responses (DESIGN.md §8) against the demo server on
//! 127.0.0.1: the verdict names the matcher in the text timeline, the JSON events and the
//! history's replay.

mod demo_support;

use demo_support::{Demo, retryscope};

/// A profile file in `dir` with 5 ms fixed waits, 5 retries and `conditions` (JSON members).
fn write_profile(dir: &tempfile::TempDir, name: &str, conditions: &str) -> std::path::PathBuf {
    let path = dir.path().join(format!("{name}.json"));
    let text = format!(
        r#"{{"format": "retryscope-profile/1", "name": "{name}", "max_retries": 5, {conditions},
  "backoff": {{ "strategy": "fixed", "base_delay_ms": 5 }} }}"#
    );
    std::fs::write(&path, text).expect("write");
    path
}

fn stdout(cmd: &mut assert_cmd::Command) -> String {
    let out = cmd.assert().code(0).get_output().clone();
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn polling_verdicts_show_in_text_json_and_history() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let profile = write_profile(
        &dir,
        "poll",
        r#""success_when": [{ "json_pointer": "/state", "equals": "done" }]"#,
    );
    let url = demo.url("/job?ready_after=2&key=cli-poll");
    let text = stdout(
        retryscope(dir.path())
            .args(["run", "--no-body", "--profile"])
            .arg(&profile)
            .arg(&url),
    );
    let attempts: Vec<&str> = text.lines().filter(|l| l.starts_with("attempt ")).collect();
    assert_eq!(attempts.len(), 3, "{text}");
    for line in &attempts[..2] {
        assert!(
            line.ends_with(r#"not ready: /state is "pending", want "done""#),
            "{line}"
        );
    }
    // The success names the condition that held, as the retries name theirs.
    assert!(
        attempts[2].ends_with(r#"success: /state is "done""#),
        "{text}"
    );

    // The history replays the same verdicts.
    let listed = stdout(retryscope(dir.path()).args(["history", "list", "--json"]));
    let id = listed
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|v| v["id"].as_str().map(str::to_owned))
        .expect("a recorded run");
    let shown = stdout(retryscope(dir.path()).args(["history", "show", &id]));
    assert_eq!(shown, text);

    let profile = write_profile(
        &dir,
        "soft",
        r#""retry_on": { "response": [{ "body_contains": "rate limit exceeded" }] }"#,
    );
    let url = demo.url("/soft-limit?times=1&key=cli-soft");
    let json = stdout(
        retryscope(dir.path())
            .args(["run", "--json", "--no-history", "--profile"])
            .arg(&profile)
            .arg(&url),
    );
    let reasons: Vec<String> = json
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["event"] == "attempt_finished")
        .map(|v| v["verdict"].to_string())
        .collect();
    assert_eq!(reasons.len(), 2, "{json}");
    assert!(
        reasons[0].contains(r#"body contains \"rate limit exceeded\""#),
        "{}",
        reasons[0]
    );
}
