//! `retryscope simulate`: bounded sampling, stopping with Ctrl-C / SIGTERM, no bar off a terminal.

mod demo_support;

use std::io::Read;

const THOUSAND: &str = "tests/fixtures/thousand_retries.json";

/// Starts a sampling that would take hours in a debug build, waits for its first line (printed
/// after the signal handlers are installed), sends `signal`; returns the exit code, stdout and
/// stderr.
fn interrupt_with(signal: &str) -> (Option<i32>, String, String) {
    let mut child = demo_support::sandboxed_std()
        .args([
            "simulate",
            "--profile",
            THOUSAND,
            "--samples",
            "4000000000",
            "--seed",
            "1",
        ])
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
        .args([signal, &child.id().to_string()])
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
fn ctrl_c_stops_a_huge_simulation_with_exit_130_and_one_line() {
    let (code, stdout, stderr) = interrupt_with("-INT");
    assert_eq!(code, Some(130), "{stdout}{stderr}");
    assert_eq!(
        stdout,
        "profile \"thousand retries\"  4000000000 samples  seed 1 (replay with --seed 1)\n"
    );
    assert_eq!(
        stderr,
        "simulate stopped by Ctrl-C before the 4000000000 samples were done; no table printed\n",
        "one line, and no progress bar when stderr is not a terminal"
    );
}

#[test]
fn sigterm_stops_a_simulation_with_exit_143() {
    let (code, _, stderr) = interrupt_with("-TERM");
    assert_eq!(code, Some(143), "{stderr}");
    assert!(
        stderr.starts_with("simulate stopped by SIGTERM"),
        "{stderr}"
    );
}

#[test]
fn a_streamed_run_still_prints_every_retry() {
    // 3000 samples × 1000 retries is above the exact limit (streamed); the table is complete
    // and its last row is retry 1000 with every sample.
    let out = demo_support::sandboxed()
        .args([
            "simulate",
            "--profile",
            THOUSAND,
            "--samples",
            "3000",
            "--seed",
            "5",
        ])
        .assert()
        .success()
        .get_output()
        .clone();
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let last = text.lines().last().expect("rows");
    assert!(last.trim_start().starts_with("1000      3000  "), "{last}");
    assert!(out.stderr.is_empty(), "no bar off a terminal");
    // Zero samples is still a usage error.
    demo_support::sandboxed()
        .args(["simulate", "--samples", "0"])
        .assert()
        .code(2);
}

/// `u32::MAX` and unlimited retries: the table lists the first 1000 and one line stands for the
/// rest (no per-retry allocation for the other four billion).
#[test]
fn huge_and_unlimited_counts_are_summarised() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = [
        (
            r#""max_retries": 4294967295, "deadline_ms": null"#,
            "retries 1001–4294967295 (4294966295 more) are not listed; each of their waits is at most 10000 ms",
        ),
        (
            r#""max_retries": null, "deadline_ms": 3600000"#,
            "retries after 1000 are not listed: unlimited retries go on until the 3600000 ms deadline; each of their waits is at most 10000 ms",
        ),
    ];
    for (i, (fields, note)) in cases.into_iter().enumerate() {
        let path = dir.path().join(format!("p{i}.json"));
        std::fs::write(
            &path,
            format!(
                r#"{{"format": "retryscope-profile/2", "name": "many", {fields},
                    "backoff": {{"strategy": "fixed", "base_delay_ms": 10000}}}}"#
            ),
        )
        .expect("write");
        let out = demo_support::sandboxed()
            .args(["simulate", "--profile"])
            .arg(&path)
            .args(["--samples", "20", "--seed", "1"])
            .assert()
            .success()
            .get_output()
            .clone();
        let text = String::from_utf8(out.stdout).expect("utf-8");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.last().copied(), Some(note), "{fields}");
        let rows = lines
            .iter()
            .filter(|l| l.trim_start().starts_with(char::is_numeric))
            .count();
        assert!(rows <= 1000, "{rows} rows");
    }
}

/// A flag the chosen mode would ignore is refused (exit 2) instead of silently dropped.
#[test]
fn flags_the_mode_ignores_are_refused() {
    let refused = [
        (
            &["--contention", "--capacity", "5"][..],
            "--capacity applies to --model capacity only",
        ),
        (
            &["--contention", "--retry-after"][..],
            "--retry-after applies to --model capacity only",
        ),
        (
            &["--contention", "--samples", "5"][..],
            "the argument '--samples <N>' cannot be used with",
        ),
        (
            &["--stack", "aws-standard", "--samples", "5"][..],
            "the argument '--samples <N>' cannot be used with",
        ),
        // Found by a fresh user: --stack ran "answering 503" with these silently dropped.
        (
            &["--stack", "aws-standard", "--clients", "5"][..],
            "cannot be used with",
        ),
        (
            &["--stack", "aws-standard", "--status", "429"][..],
            "cannot be used with",
        ),
        (&["--json"][..], "<--contention|--stack <A,B,C>...>"),
        (&["--runs", "5"][..], "<--contention|--stack <A,B,C>...>"),
    ];
    for (args, said) in refused {
        demo_support::sandboxed()
            .arg("simulate")
            .args(args)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(said));
    }
    // The flags still work where they apply.
    let out = demo_support::sandboxed()
        .args([
            "simulate",
            "--contention",
            "--model",
            "capacity",
            "--capacity",
            "50",
            "--retry-after",
            "--clients",
            "5",
            "--runs",
            "1",
            "--seed",
            "1",
            "--json",
        ])
        .assert()
        .code(0)
        .get_output()
        .clone();
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON"))
        .expect("a line");
    assert_eq!(first["model"], "capacity");
}

/// `simulate` assumes every attempt answers 503: a profile that retries only 429 makes one
/// attempt per call, and says so as `--stack` does, with no retry reached.
#[test]
fn a_profile_that_does_not_retry_503_reaches_no_retry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut profile = retryscope::profile::builtin("aws-standard").expect("built-in");
    profile.name = "only429".into();
    profile.retry_on.status = retryscope::model::StatusSet::from_codes(&[429]);
    let path = dir.path().join("only429.json");
    std::fs::write(&path, retryscope::profile::to_json_pretty(&profile)).expect("written");
    let out = demo_support::sandboxed_std()
        .args(["simulate", "--samples", "100", "--seed", "1", "--profile"])
        .arg(&path)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[1],
        "its triage does not retry 503: one attempt per call, 0 retries reached"
    );
    assert!(
        lines[2].starts_with("retries 1–2: not reached by any sample"),
        "{stdout}"
    );
    assert_eq!(lines.len(), 3, "no wait rows: {stdout}");
}
