//! `retryscope simulate --contention` and `--stack`: the strategy lab on the command line.

mod demo_support;

use std::io::Read;

fn stdout_of(args: &[&str]) -> String {
    let out = demo_support::sandboxed()
        .arg("simulate")
        .args(args)
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8(out.stdout).expect("utf-8")
}

/// A small seeded contention run printed as JSON Lines.
const SEEDED_CONTENTION: &[&str] = &[
    "--contention",
    "--clients",
    "20",
    "--runs",
    "3",
    "--seed",
    "5",
    "--builtin",
    "aws-standard",
    "--json",
];

#[test]
fn contention_json_has_one_object_per_strategy() {
    let text = stdout_of(SEEDED_CONTENTION);
    let objects: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let ids: Vec<&str> = objects
        .iter()
        .map(|o| o["strategy"].as_str().expect("strategy"))
        .collect();
    assert_eq!(
        ids,
        [
            "no_jitter",
            "full_jitter",
            "equal_jitter",
            "decorrelated_jitter",
            "seed001_exponential",
            "seed000_proportional",
            "profile"
        ]
    );
    for o in &objects {
        for key in ["total_calls", "completion_ms", "gave_up", "peak_load"] {
            assert!(o[key].is_number(), "{key} in {o}");
        }
        assert_eq!(o["clients"], 20);
        assert_eq!(o["model"], "occ");
        assert!(o["total_calls"].as_f64() >= Some(20.0), "{o}");
    }
    // The standard strategies retry without limit: nobody gives up.
    assert_eq!(objects[1]["gave_up"], 0.0);
    // The same seed prints the same figures.
    let again = stdout_of(SEEDED_CONTENTION);
    assert_eq!(text, again);
}

#[test]
fn contention_table_against_a_capacity_server() {
    let text = stdout_of(&[
        "--contention",
        "--model",
        "capacity",
        "--capacity",
        "10",
        "--retry-after",
        "--clients",
        "30",
        "--runs",
        "2",
        "--seed",
        "1",
        "--builtin",
        "servicenow-response-header",
    ]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with(
            "contention: 30 clients against a capacity server (10 req/s, 429 above, with Retry-After), 2 runs each"
        ),
        "{text}"
    );
    assert_eq!(lines.len(), 2 + 7, "{text}");
    assert!(
        lines[8].starts_with("profile \"ServiceNow example (response header)\""),
        "{text}"
    );
}

#[test]
fn contention_flags_are_checked() {
    let out = demo_support::sandboxed()
        .args(["simulate", "--clients", "10"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("--contention"));
    let out = demo_support::sandboxed()
        .args([
            "simulate",
            "--contention",
            "--model",
            "capacity",
            "--capacity",
            "0",
        ])
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--capacity: expected a number of requests a second above 0, found 0")
    );
    demo_support::sandboxed()
        .args(["simulate", "--contention", "--clients", "1001"])
        .assert()
        .code(2);
}

#[test]
fn stack_multiplies_attempts() {
    let text = stdout_of(&[
        "--stack",
        "vbscript-module,aws-standard",
        "--runs",
        "10",
        "--seed",
        "2",
    ]);
    assert!(
        text.contains("1. \"VBScript HTTP module (seed 000)\": 3 retries (4 attempts)"),
        "{text}"
    );
    assert!(
        text.contains(
            "2. \"AWS SDK standard retry mode\": 2 retries (3 attempts), retry budget 500 tokens"
        ),
        "{text}"
    );
    assert!(
        text.contains("worst case, ignoring budgets: 12 attempts reach the server"),
        "{text}"
    );
    let json = stdout_of(&[
        "--stack",
        "vbscript-module,aws-standard",
        "--runs",
        "10",
        "--seed",
        "2",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(json.trim()).expect("one object");
    assert_eq!(v["worst_attempts"], 12);
    assert_eq!(v["expected_attempts"], 12.0);
    assert_eq!(v["simulated"]["mean_attempts"], 12.0);
}

#[test]
fn stack_takes_files_and_names_unknown_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fast = demo_support::fast_profile(&dir);
    let spec = format!("{},aws-standard", fast.display());
    let text = stdout_of(&["--stack", &spec, "--runs", "5", "--seed", "1"]);
    assert!(
        text.contains("worst case, ignoring budgets: 12 attempts"),
        "{text}"
    );
    let out = demo_support::sandboxed()
        .args(["simulate", "--stack", "aws-standard,no-such-profile"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown profile `no-such-profile`"));
}

#[cfg(target_os = "linux")]
#[test]
fn stack_takes_library_profile_names_and_says_why_one_does_not_load() {
    let config = tempfile::tempdir().expect("temp dir");
    let library = config.path().join("retryscope").join("profiles");
    std::fs::create_dir_all(&library).expect("library folder");
    let fast = tempfile::tempdir().expect("temp dir");
    let profile = std::fs::read_to_string(demo_support::fast_profile(&fast)).expect("profile");
    std::fs::write(library.join("team.json"), &profile).expect("written");
    std::fs::write(library.join("aws-standard.json"), &profile).expect("written");
    std::fs::write(library.join("broken.json"), "{ \"format\": ").expect("written");
    let stack = |spec: &str| {
        demo_support::sandboxed()
            .env("XDG_CONFIG_HOME", config.path())
            .args(["simulate", "--stack", spec, "--runs", "2", "--seed", "1"])
            .output()
            .expect("runs")
    };
    let out = stack("team,aws-standard");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "warning: the built-in profile `aws-standard` hides the library profile of that name (pick it by `fast`, or rename it): "
        ),
        "{stderr}"
    );
    let out = stack("team,broken");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error: library profile `broken` does not load: ")
            && stderr.contains("broken.json:1:"),
        "{stderr}"
    );
    // Only the layers named are warned about.
    let out = stack("team");
    assert!(out.stderr.is_empty(), "{out:?}");
}

#[test]
fn stack_expectation_follows_a_layer_that_does_not_retry_the_failure() {
    // The ServiceNow example retries only 429; the simulated server answers 503. Before, the
    // analysis said "expected 4.00" beside a simulated mean of 1.00.
    let text = stdout_of(&[
        "--stack",
        "vbscript-module,servicenow-exponential",
        "--runs",
        "20",
        "--seed",
        "3",
    ]);
    assert!(
        text.contains("2. \"ServiceNow example (exponential)\": 3 retries (4 attempts); its triage does not retry 503: one attempt per call"),
        "{text}"
    );
    assert!(
        text.contains("worst case: 4 attempts reach the server"),
        "{text}"
    );
    assert!(text.contains("expected: 4.00 attempts"), "{text}");
    let json = stdout_of(&[
        "--stack",
        "vbscript-module,servicenow-exponential",
        "--runs",
        "20",
        "--seed",
        "3",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(json.trim()).expect("one object");
    assert_eq!(v["not_retrying_layers"], serde_json::json!([2]));
    assert_eq!(v["worst_attempts"], 4);
    assert_eq!(v["worst_attempts_saturated"], false);
    assert_eq!(v["analytic_ignores"], serde_json::json!([]));
    assert_eq!(v["expected_attempts"], v["simulated"]["mean_attempts"]);
    // With the AWS quota inside, the analysis says it leaves the budget out.
    let text = stdout_of(&[
        "--stack",
        "vbscript-module,aws-standard",
        "--runs",
        "200",
        "--seed",
        "3",
    ]);
    assert!(
        text.contains("expected, ignoring budgets: 12.00 attempts"),
        "{text}"
    );
}

#[test]
fn stack_reports_a_worst_case_past_u64_and_bounds_the_simulation() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("huge.json");
    // 2^32 attempts a layer: two layers make 2^64, one more than u64 holds.
    std::fs::write(
        &path,
        br#"{
  "format": "retryscope-profile/1",
  "name": "huge",
  "max_retries": 4294967295,
  "retry_on": { "status": [503] },
  "backoff": { "strategy": "fixed", "base_delay_ms": 1 }
}"#,
    )
    .expect("write");
    let spec = format!("{0},{0}", path.display());
    let json = stdout_of(&["--stack", &spec, "--runs", "5", "--seed", "1", "--json"]);
    let v: serde_json::Value = serde_json::from_str(json.trim()).expect("one object");
    assert_eq!(v["worst_attempts_saturated"], true);
    assert_eq!(v["worst_attempts"], u64::MAX);
    // 1001 × 1001 simulated attempts a call: 5 calls would pass the 2,000,000 bound.
    assert_eq!(v["simulated"]["capped_runs"], true);
    assert_eq!(v["simulated"]["runs"], 1);
    assert_eq!(v["simulated"]["requested_runs"], 5);
    let text = stdout_of(&["--stack", &spec, "--runs", "5", "--seed", "1"]);
    assert!(
        text.contains(
            "worst case: more than 18446744073709551615 attempts (overflows u64) reach the server"
        ),
        "{text}"
    );
    assert!(
        text.contains("note: 5 calls × the worst case per call exceed 2000000 simulated server attempts; simulated 1 call instead"),
        "{text}"
    );
}

/// Starts `args`, waits for the first line of stdout (printed once the signal handlers are
/// installed), sends SIGINT; returns the exit code, stdout and stderr.
fn interrupt(args: &[&str]) -> (Option<i32>, String, String) {
    let mut child = demo_support::sandboxed_std()
        .arg("simulate")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut stdout = child.stdout.take().expect("piped");
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    while !String::from_utf8_lossy(&seen).contains('\n') {
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
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("piped")
        .read_to_string(&mut stderr)
        .expect("reads stderr");
    let code = child.wait().expect("exits").code();
    (code, String::from_utf8_lossy(&seen).into_owned(), stderr)
}

#[test]
fn ctrl_c_stops_a_stack_simulation_with_what_was_done() {
    const THOUSAND: &str = "tests/fixtures/thousand_retries.json";
    let spec = format!("{THOUSAND},{THOUSAND},{THOUSAND}");
    // One call of 1001³ attempts, cut at 2,000,000: seconds in a debug build.
    let (code, stdout, stderr) = interrupt(&["--stack", &spec, "--runs", "1", "--seed", "1"]);
    assert_eq!(code, Some(130), "{stdout}{stderr}");
    assert!(stdout.contains("simulated 0 calls"), "{stdout}");
    assert!(
        stderr.starts_with("simulate --stack stopped by Ctrl-C after 0 of 1 calls ("),
        "one line, no bar off a terminal: {stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn ctrl_c_stops_a_contention_simulation_with_exit_130() {
    let (code, stdout, stderr) = interrupt(&[
        "--contention",
        "--clients",
        "1000",
        "--runs",
        "100000",
        "--seed",
        "1",
    ]);
    assert_eq!(code, Some(130), "{stdout}{stderr}");
    assert!(stdout.starts_with("contention: 1000 clients"), "{stdout}");
    assert!(
        stderr.starts_with(
            "simulate --contention stopped by Ctrl-C during \"no jitter\"; 0 of 7 strategies done"
        ),
        "{stderr}"
    );
}

/// `--contention --cap-ms` below `--base-ms` is refused as a profile's max below its base
/// is, before anything is simulated.
#[test]
fn a_contention_cap_below_its_base_is_refused() {
    let out = demo_support::sandboxed_std()
        .args([
            "simulate",
            "--contention",
            "--base-ms",
            "5000",
            "--cap-ms",
            "10",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --cap-ms 10 is smaller than --base-ms 5000; raise the cap or lower the base\n"
    );
    assert!(out.stdout.is_empty());
}
