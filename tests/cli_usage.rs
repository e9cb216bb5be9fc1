//! Usage errors exit 2 with one clear line; help texts carry examples.

mod demo_support;

use assert_cmd::Command;
use predicates::prelude::*;

fn retryscope() -> Command {
    demo_support::sandboxed()
}

fn no_panic() -> impl Predicate<str> {
    predicate::str::contains("panicked").not()
}

#[test]
fn unknown_flag_exits_2() {
    retryscope()
        .args(["run", "--bogus", "http://127.0.0.1:1/"])
        .assert()
        .code(2)
        .stderr(no_panic());
    retryscope().args(["frobnicate"]).assert().code(2);
}

#[test]
fn missing_url_exits_2() {
    retryscope().args(["run"]).assert().code(2);
}

#[test]
fn relative_url_exits_2_naming_it() {
    retryscope()
        .args(["run", "example.invalid/path"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("error: invalid URL"))
        .stderr(predicate::str::contains("example.invalid/path"))
        .stderr(no_panic());
}

#[test]
fn non_http_scheme_exits_2() {
    retryscope()
        .args(["run", "ftp://127.0.0.1/file"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("scheme `ftp` is not supported"));
}

#[test]
fn header_without_colon_exits_2() {
    retryscope()
        .args(["run", "-H", "NoColon", "http://127.0.0.1:1/"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("has no colon"));
}

#[test]
fn unreadable_body_file_exits_2() {
    retryscope()
        .args([
            "run",
            "-d",
            "@tests/fixtures/no-such-body",
            "http://127.0.0.1:1/",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read body file"));
}

#[test]
fn unknown_builtin_exits_2() {
    retryscope()
        .args(["run", "--builtin", "nope", "http://127.0.0.1:1/"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown built-in profile `nope`"));
}

#[test]
fn profile_and_builtin_conflict() {
    retryscope()
        .args([
            "run",
            "--profile",
            "tests/fixtures/good.json",
            "--builtin",
            "aws-standard",
            "http://127.0.0.1:1/",
        ])
        .assert()
        .code(2);
}

#[test]
fn invalid_profile_for_run_exits_2_with_positions() {
    retryscope()
        .args([
            "run",
            "--profile",
            "tests/fixtures/many_problems.json",
            "http://127.0.0.1:1/",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "error: invalid profile tests/fixtures/many_problems.json\n",
        ))
        .stderr(predicate::str::contains(
            "tests/fixtures/many_problems.json:10:5: backoff.max_delay_ms: ",
        ));
}

#[test]
fn zero_deadline_and_timeouts_exit_2() {
    for flag in [
        "--deadline-ms",
        "--timeout-ms",
        "--connect-timeout-ms",
        "--read-timeout-ms",
    ] {
        retryscope()
            .args(["run", flag, "0", "http://127.0.0.1:1/"])
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with(format!(
                "error: {flag} must be greater than 0"
            )));
    }
}

#[test]
fn simulate_rejects_zero_samples_and_bad_profiles() {
    retryscope()
        .args(["simulate", "--samples", "0"])
        .assert()
        .code(2);
    retryscope()
        .args(["simulate", "--profile", "tests/fixtures/bad_syntax.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "bad_syntax.json:4:3: invalid JSON",
        ));
}

#[test]
fn help_texts_have_examples() {
    for args in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["simulate", "--help"],
        vec!["profile", "--help"],
        vec!["demo-server", "--help"],
    ] {
        retryscope()
            .args(&args)
            .assert()
            .success()
            .stdout(predicate::str::contains("Examples"));
    }
    retryscope()
        .args(["run", "--help"])
        .assert()
        .stdout(predicate::str::contains("Exit codes"))
        .stdout(predicate::str::contains("--idempotency-key"));
}

#[test]
fn version_names_the_version_and_commit() {
    let out = retryscope()
        .arg("--version")
        .assert()
        .success()
        .get_output()
        .clone();
    let text = String::from_utf8_lossy(&out.stdout);
    let expected = format!(
        "retryscope {} (commit {})\n",
        env!("CARGO_PKG_VERSION"),
        retryscope::build_info::COMMIT
    );
    assert_eq!(text, expected);
    // Built in a git work tree (this one, and CI's clean clone): a real commit, not "unknown".
    if std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".git")
        .exists()
    {
        assert_ne!(retryscope::build_info::COMMIT, "unknown");
    }
}

/// Runs `retryscope run ARGS…` and checks exit 2 with exactly one `error: …` line on stderr
/// holding `expected`, and nothing on stdout (the run never started).
fn rejected_before_the_run(args: &[&str], expected: &str) {
    let out = retryscope()
        .arg("run")
        .args(args)
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains(expected), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn bad_requests_are_rejected_before_the_run_with_one_line() {
    let url = "http://127.0.0.1:1/";
    rejected_before_the_run(
        &["-H", "X-A: a\nb", url],
        "-H X-A: the header value contains a line break at character 2",
    );
    rejected_before_the_run(
        &["--idempotency-key=a\nb", url],
        "--idempotency-key: the key contains a line break at character 2",
    );
    let dir = std::env::temp_dir();
    rejected_before_the_run(
        &["-d", &format!("@{}", dir.display()), url],
        "is a directory",
    );
    let long = format!("http://127.0.0.1:1/{}", "a".repeat(70_000));
    rejected_before_the_run(&[&long], "not a valid http uri");
    rejected_before_the_run(&[""], "the URL is empty");
}

/// Past 32,768 headers the HTTP library panics: the request is refused in our words first,
/// by `run` and by `curl` alike.
#[test]
fn too_many_headers_are_refused_before_the_library_panics() {
    let mut args = vec!["http://127.0.0.1:1/".to_owned()];
    for i in 0..33_000 {
        args.extend(["-H".to_owned(), format!("X-H{i}: v")]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let expected = "33000 headers is too many: a request sends at most 1000";
    rejected_before_the_run(&args, expected);
    retryscope()
        .arg("curl")
        .args(&args)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(expected))
        .stderr(no_panic());
}

#[test]
fn demo_server_port_in_use_is_one_clear_line_exit_2() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
    let port = taken.local_addr().expect("addr").port();
    let out = retryscope()
        .args(["demo-server", "--port", &port.to_string()])
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: cannot listen on 127.0.0.1:{port}: address already in use"
        )),
        "{stderr}"
    );
}

#[test]
fn a_missing_profile_names_the_file_once() {
    let stderr = demo_support::usage_error([
        "run",
        "--profile",
        "/definitely/not/here.json",
        "http://127.0.0.1:1/",
    ]);
    assert_eq!(
        stderr.matches("/definitely/not/here.json").count(),
        1,
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn help_examples_quote_urls_with_shell_characters() {
    for args in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["demo-server", "--help"],
    ] {
        let out = retryscope()
            .args(&args)
            .assert()
            .success()
            .get_output()
            .clone();
        let help = String::from_utf8_lossy(&out.stdout);
        for word in help.split_whitespace().filter(|w| w.contains("http://")) {
            if word.contains(['&', '?']) {
                assert!(
                    word.starts_with('\'') && word.ends_with('\''),
                    "unquoted `{word}` in {args:?}"
                );
            }
        }
    }
}

#[test]
fn a_full_disk_is_an_error_not_a_silent_exit() {
    let Ok(full) = std::fs::File::create("/dev/full") else {
        return; // Not Linux: no /dev/full to write to.
    };
    let out = demo_support::sandboxed_std()
        .args(["profile", "show", "aws-standard"])
        .stdout(full)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("error: cannot write the output: "),
        "{stderr}"
    );
}

#[test]
fn simulate_stops_listing_at_the_deadline_and_says_why() {
    let out = retryscope()
        .args([
            "simulate",
            "--builtin",
            "google-api-core",
            "--samples",
            "200",
            "--seed",
            "1",
        ])
        .assert()
        .success()
        .get_output()
        .clone();
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let last = text.lines().last().expect("output");
    assert!(
        last.ends_with("not reached by any sample (the 120000 ms deadline ends every run earlier)"),
        "{text}"
    );
    // No row of zeros for an unreached retry, and no cumulative wait past the deadline.
    for row in text.lines().skip(2).filter(|l| !l.starts_with("retries")) {
        let cols: Vec<f64> = row
            .split_whitespace()
            .filter_map(|c| c.parse().ok())
            .collect();
        assert!(cols[1] > 0.0, "reached > 0: {row}");
        assert!(
            cols[9] <= 120_000.0,
            "cumulative max within the deadline: {row}"
        );
    }
}

/// CLI overrides are checked like the profile they change: `--max-retries` takes any count up
/// to `u32::MAX` or `unlimited`, and unlimited needs a deadline (exit 2 before anything is sent);
/// the help says so.
#[test]
fn overrides_are_validated_with_the_profile_schema() {
    retryscope()
        .args(["run", "--max-retries", "4294967296", "http://127.0.0.1:1/"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "expected a whole number from 0 to 4294967295 or `unlimited`",
        ));
    retryscope()
        .args([
            "run",
            "--builtin",
            "aws-standard",
            "--max-retries",
            "unlimited",
            "http://127.0.0.1:1/",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--max-retries: unlimited retries need a deadline",
        ));
    retryscope()
        .args(["run", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Max retries R, 0–4294967295"));
}

/// Whole-number flags refuse a sign, a fraction, NaN and an overflow in one plain sentence
/// with their range (never Rust's "invalid digit found in string" or clap's "unexpected
/// argument '-1' found … use '-- -1'"), before anything is sent.
#[test]
fn whole_number_flags_say_their_range_for_negative_fractional_and_huge_values() {
    let u64_range = "expected a whole number from 0 to 18446744073709551615";
    let cases: [(&[&str], &str); 11] = [
        (
            &["run", "--timeout-ms", "-5", "http://127.0.0.1:1/"],
            u64_range,
        ),
        (&["run", "--seed", "-1", "http://127.0.0.1:1/"], u64_range),
        (
            &[
                "run",
                "--seed",
                "18446744073709551616",
                "http://127.0.0.1:1/",
            ],
            u64_range,
        ),
        (
            &["run", "--max-redirs", "-1", "http://127.0.0.1:1/"],
            "expected a whole number from 0 to 4294967295",
        ),
        (
            &["run", "--history-body-cap", "-1", "http://127.0.0.1:1/"],
            "expected a whole number from 0 to",
        ),
        (
            &[
                "batch",
                "--history-body-cap",
                "99999999999999999999",
                "x.jsonl",
            ],
            "expected a whole number from 0 to",
        ),
        (
            &["simulate", "--samples", "-5"],
            "expected a whole number from 1 to 4294967295",
        ),
        (
            &["history", "prune", "--older-than", "1.5"],
            "expected a whole number from 0 to 36500",
        ),
        (
            &["history", "prune", "--older-than", "NaN"],
            "expected a whole number from 0 to 36500",
        ),
        (
            &["history", "prune", "--older-than", "-1"],
            "expected a whole number from 0 to 36500",
        ),
        (&["curl", "http://127.0.0.1:1/", "--seed", "-1"], u64_range),
    ];
    for (args, expected) in cases {
        let stderr = demo_support::usage_error(args);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        for library in [
            "invalid digit",
            "too large to fit",
            "unexpected argument",
            "'-- -",
        ] {
            assert!(!stderr.contains(library), "{args:?}: {stderr}");
        }
    }
}

/// A line break in `-H` or `--idempotency-key` is said with the flag and the character where
/// it is, before anything is sent (not "invalid value for header … in headers[0]").
#[test]
fn a_line_break_in_a_header_or_idempotency_key_says_where() {
    let stderr =
        demo_support::usage_error(["run", "-H", "X-Token: abc\ndef", "http://127.0.0.1:1/"]);
    assert!(
        stderr.starts_with(
            "error: -H X-Token: the header value contains a line break at character 4;"
        ),
        "{stderr}"
    );
    let stderr = demo_support::usage_error([
        "run",
        "-X",
        "POST",
        "--idempotency-key=ab\ncd",
        "http://127.0.0.1:1/",
    ]);
    assert!(
        stderr
            .starts_with("error: --idempotency-key: the key contains a line break at character 3;"),
        "{stderr}"
    );
}

/// Input quoted in an error can neither drive the terminal nor flood it: every path that
/// quotes what it refuses (run's URL, method and header; JSON Lines, CSV and curl list lines)
/// escapes control characters, and a 100,000-character URL is cut with its length said.
#[test]
fn messages_quoting_input_escape_control_characters_and_cut_long_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let check = |args: &[&str]| {
        let out = retryscope()
            .args(args)
            .assert()
            .code(2)
            .get_output()
            .clone();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!stderr.contains(['\u{1b}', '\u{7}', '\0']), "{stderr:?}");
        assert!(stderr.contains("\\u{1b}"), "escaped, not dropped: {stderr}");
        assert!(stderr.len() < 2_000, "{} bytes: {stderr}", stderr.len());
        assert!(!stderr.contains("panicked"), "{stderr}");
    };
    check(&["run", "ht\u{1b}tp://x"]);
    check(&["run", "-X", "G\u{1b}T", "http://127.0.0.1:1/"]);
    check(&["run", "-H", "X\u{1b}\u{7}", "http://127.0.0.1:1/"]);
    // clap's own errors: the value escaped, not stripped, and cut.
    check(&["simulate", "--builtin", "aws-2026", "--seed", "1\u{1b}[31m"]);
    let huge = format!("1\u{1b}{}", "9".repeat(100_000));
    check(&["simulate", "--builtin", "aws-2026", "--seed", &huge]);
    let long = format!("nota\u{1b}{}", "u".repeat(100_000));
    let lists = [
        (
            "a.jsonl",
            format!(
                "{}\n{}\n",
                serde_json::json!({"method": "G\u{1b}T", "url": "http://127.0.0.1:1/"}),
                serde_json::json!({ "url": long })
            ),
        ),
        (
            "a.csv",
            format!("method,url\nG\u{1b}ET,http://127.0.0.1:1/\nGET,{long}\n"),
        ),
        (
            "a.txt",
            format!("curl -H 'X\u{1b}: v' http://127.0.0.1:1/\ncurl '{long}'\n"),
        ),
    ];
    for (name, text) in lists {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write list");
        check(&["batch", path.to_str().expect("utf-8 path")]);
    }
    let out = retryscope()
        .args([
            "run",
            &format!("http://127.0.0.1:1/{}", "a".repeat(100_000)),
        ])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("characters)"),
        "the length is said: {stderr}"
    );
    assert!(stderr.len() < 1_000, "{}", stderr.len());
}
