//! `retryscope simulate --contention` and `--stack`: the strategy lab on the command line.

mod demo_support;

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
        text.contains("worst case: 12 attempts reach the server"),
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
    assert!(text.contains("worst case: 12 attempts"), "{text}");
    let out = demo_support::sandboxed()
        .args(["simulate", "--stack", "aws-standard,no-such-profile"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unknown built-in profile `no-such-profile`")
    );
}
