//! Other tools' retry settings: round trips where the format allows (import(export(p)) keeps
//! what maps), every unmapped setting reported with its path, errors that say what and where,
//! and the `profile export` / `profile import` commands.

mod demo_support;

use retryscope::interop::retry_formats::{
    Carried, FormatError, ImportError, RetryFormat, export, import,
};
use retryscope::model::{
    Backoff, ErrorKind, HeaderUnit, RetryProfile, StatusRange, StatusSet, Strategy,
};

/// The one problem of a failed import (a second one would be a problem the file does not have).
fn one(e: ImportError) -> FormatError {
    assert_eq!(e.issues.len(), 1, "one problem expected: {e}");
    e.issues.into_iter().next().expect("one")
}

fn base_profile(backoff: Backoff, statuses: &[u16]) -> RetryProfile {
    let mut p = retryscope::profile::builtin("aws-standard").expect("builtin");
    p.name = "round trip".into();
    p.backoff = backoff;
    p.retry_on.status = StatusSet(statuses.iter().map(|c| StatusRange::single(*c)).collect());
    p
}

fn computed(strategy: Strategy, base: u64, max: Option<u64>) -> Backoff {
    let mut b = Backoff::new(strategy);
    b.base_delay_ms = base;
    b.max_delay_ms = max;
    b.jitter_ratio = 0.0;
    b
}

#[test]
fn every_builtin_exports_to_every_format_and_data_formats_read_back() {
    for builtin in retryscope::profile::builtins() {
        for format in RetryFormat::ALL {
            let out = export(&builtin.profile, format);
            assert!(
                !out.text.trim().is_empty(),
                "{} → {}",
                builtin.id,
                format.id()
            );
            if out.commented {
                assert!(
                    out.text.contains(&builtin.profile.name),
                    "{} → {}: the comments name the profile",
                    builtin.id,
                    format.id()
                );
                for gap in &out.not_expressed {
                    assert!(
                        out.text.contains(gap.as_str()),
                        "{} → {}: {gap}",
                        builtin.id,
                        format.id()
                    );
                }
            }
            if format.can_import() {
                let back = import(format, &out.text, "back").unwrap_or_else(|e| {
                    panic!(
                        "{} → {} → import: {e}\n{}",
                        builtin.id,
                        format.id(),
                        out.text
                    )
                });
                // Unlimited has no count in these tools: written as their largest, read back as it.
                let expected = match builtin.profile.max_retries {
                    None => back.profile.max_retries,
                    Some(n) => Some(n),
                };
                assert_eq!(
                    back.profile.max_retries,
                    expected,
                    "{} via {}",
                    builtin.id,
                    format.id()
                );
                // An importer writes no setting that has no effect (`profile validate` would
                // warn about it: `jitter_ratio 0 has no effect … remove it`).
                let dead = retryscope::profile::warnings(&back.profile);
                assert!(
                    dead.iter().all(|w| !w.message.contains("has no effect")),
                    "{} via {}: {dead:?}",
                    builtin.id,
                    format.id()
                );
            }
        }
    }
}

#[test]
fn grpc_round_trip_keeps_backoff_codes_and_deadline() {
    let mut p = base_profile(
        computed(Strategy::FullJitter, 100, Some(1000)),
        &[429, 502, 503, 504],
    );
    p.max_retries = Some(3);
    p.deadline_ms = Some(2500);
    p.retry_on.errors = vec![ErrorKind::Timeout];
    let out = export(&p, RetryFormat::GrpcConfig);
    assert!(!out.commented, "service config JSON has no comments");
    let doc: serde_json::Value = serde_json::from_str(&out.text).expect("plain JSON");
    assert_eq!(doc["methodConfig"][0]["retryPolicy"]["maxAttempts"], 4);
    assert_eq!(
        doc["methodConfig"][0]["retryPolicy"]["initialBackoff"],
        "0.1s"
    );
    assert_eq!(doc["methodConfig"][0]["timeout"], "2.5s");
    let back = import(RetryFormat::GrpcConfig, &out.text, "g")
        .expect("imports")
        .profile;
    assert_eq!(back.max_retries, Some(3));
    assert_eq!(back.backoff.strategy, Strategy::ResponseHeader, "pushback");
    let fb = back.backoff.fallback.as_deref().expect("A6's backoff");
    assert_eq!(fb.strategy, Strategy::FullJitter);
    assert_eq!(fb.base_delay_ms, 100);
    assert_eq!(fb.max_delay_ms, Some(1000));
    assert_eq!(back.deadline_ms, Some(2500));
    assert_eq!(back.retry_on.status.to_string(), "429, 502, 503, 504");
    assert!(back.retry_on.errors.contains(&ErrorKind::Timeout));
}

#[test]
fn envoy_round_trip_keeps_backoff_codes_and_timeouts() {
    let mut p = base_profile(computed(Strategy::FullJitter, 25, Some(250)), &[429, 503]);
    p.max_retries = Some(2);
    p.deadline_ms = Some(15_000);
    p.timeouts.total_ms = Some(2000);
    p.timeouts.read_ms = Some(500);
    p.retry_on.errors = vec![ErrorKind::Connect, ErrorKind::ConnectTimeout];
    let out = export(&p, RetryFormat::Envoy);
    let back = import(RetryFormat::Envoy, &out.text, "e")
        .expect("imports")
        .profile;
    assert_eq!(back.max_retries, Some(2));
    assert_eq!(
        (
            back.backoff.strategy,
            back.backoff.base_delay_ms,
            back.backoff.max_delay_ms
        ),
        (Strategy::FullJitter, 25, Some(250))
    );
    assert_eq!(back.retry_on.status.to_string(), "429, 503");
    assert_eq!(
        back.retry_on.errors,
        vec![ErrorKind::Connect, ErrorKind::ConnectTimeout]
    );
    assert_eq!(back.deadline_ms, Some(15_000));
    assert_eq!(
        (back.timeouts.total_ms, back.timeouts.read_ms),
        (Some(2000), Some(500))
    );
}

#[test]
fn polly_round_trip_keeps_backoff_and_timeouts() {
    let mut p = base_profile(
        computed(Strategy::ExponentialProportional, 2000, Some(30_000)),
        &[408, 429],
    );
    p.max_retries = Some(5);
    p.deadline_ms = Some(90_000);
    p.timeouts.total_ms = Some(10_000);
    let out = export(&p, RetryFormat::Polly);
    assert!(out.text.contains("\"Delay\": \"00:00:02\""), "{}", out.text);
    let back = import(RetryFormat::Polly, &out.text, "p")
        .expect("imports")
        .profile;
    assert_eq!(back.max_retries, Some(5));
    assert_eq!(back.backoff.strategy, Strategy::ExponentialProportional);
    assert_eq!(
        (back.backoff.base_delay_ms, back.backoff.max_delay_ms),
        (2000, Some(30_000))
    );
    assert_eq!(
        (back.deadline_ms, back.timeouts.total_ms),
        (Some(90_000), Some(10_000))
    );
    // Fixed waits are Polly's Constant.
    let fixed = base_profile(computed(Strategy::Fixed, 1500, None), &[503]);
    let back = import(
        RetryFormat::Polly,
        &export(&fixed, RetryFormat::Polly).text,
        "c",
    )
    .expect("imports");
    assert_eq!(
        (
            back.profile.backoff.strategy,
            back.profile.backoff.base_delay_ms
        ),
        (Strategy::Fixed, 1500)
    );
}

#[test]
fn dapr_round_trip_keeps_constant_policy_codes_and_timeout() {
    let mut p = base_profile(
        computed(Strategy::Fixed, 5000, None),
        &[429, 500, 501, 502, 503],
    );
    p.max_retries = Some(7);
    p.timeouts.total_ms = Some(3000);
    let out = export(&p, RetryFormat::Dapr);
    assert!(
        out.text.contains("httpStatusCodes: \"429,500-503\""),
        "{}",
        out.text
    );
    let back = import(RetryFormat::Dapr, &out.text, "d")
        .expect("imports")
        .profile;
    assert_eq!(back.max_retries, Some(7));
    assert_eq!(
        (back.backoff.strategy, back.backoff.base_delay_ms),
        (Strategy::Fixed, 5000)
    );
    assert_eq!(back.retry_on.status.to_string(), "429, 500-503");
    assert_eq!(back.timeouts.total_ms, Some(3000));
}

#[test]
fn aws_config_round_trip_keeps_the_attempt_count() {
    let mut p = retryscope::profile::builtin("aws-standard").expect("builtin");
    p.max_retries = Some(4);
    let out = export(&p, RetryFormat::AwsConfig);
    assert!(out.text.contains("max_attempts = 5"), "{}", out.text);
    let back = import(RetryFormat::AwsConfig, &out.text, "a")
        .expect("imports")
        .profile;
    assert_eq!(back.max_retries, Some(4));
    assert_eq!(
        back.backoff, p.backoff,
        "standard mode is the aws-standard built-in"
    );
}

fn unmapped(format: RetryFormat, text: &str) -> Vec<(String, Carried, String)> {
    import(format, text, "x")
        .unwrap_or_else(|e| panic!("imports: {e}"))
        .unmapped
        .into_iter()
        .map(|u| (u.path, u.carried, u.reason))
        .collect()
}

fn has(list: &[(String, Carried, String)], path: &str, reason_part: &str) -> bool {
    list.iter()
        .any(|(p, _, r)| p == path && r.contains(reason_part))
}

#[test]
fn grpc_throttling_hedging_and_unknown_keys_are_reported() {
    let text = r#"{
      "methodConfig": [{
        "name": [{"service": "echo.Echo"}],
        "retryPolicy": {
          "maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 1.5,
          "retryableStatusCodes": ["UNAVAILABLE", "ABORTED"], "colour": "red"
        }
      }, {"name": [{}], "hedgingPolicy": {"maxAttempts": 3}}],
      "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}
    }"#;
    let list = unmapped(RetryFormat::GrpcConfig, text);
    assert!(has(&list, "retryThrottling", "shared per host"), "{list:?}");
    let budget = import(RetryFormat::GrpcConfig, text, "x")
        .expect("imports")
        .profile
        .retry_budget
        .expect("retryThrottling is the retry budget");
    assert_eq!(
        (
            budget.capacity,
            budget.success_increment,
            budget.min_balance
        ),
        (10.0, 0.1, 5.0)
    );
    assert!(
        has(
            &list,
            "methodConfig[0].retryPolicy.backoffMultiplier",
            "doubles"
        ),
        "{list:?}"
    );
    assert!(
        has(
            &list,
            "methodConfig[0].retryPolicy.retryableStatusCodes[1]",
            "no HTTP answer"
        ),
        "{list:?}"
    );
    assert!(
        has(
            &list,
            "methodConfig[0].retryPolicy.colour",
            "unknown setting"
        ),
        "{list:?}"
    );
    assert!(
        has(&list, "methodConfig[1]", "only the first methodConfig"),
        "{list:?}"
    );
}

#[test]
fn envoy_header_matchers_and_host_selection_are_reported() {
    let text = "retry_policy:\n  retry_on: 5xx,retriable-headers\n  num_retries: 2\n  \
                retriable_headers:\n    - name: x-retry\n  retry_host_predicate:\n    - name: previous_hosts\n";
    let list = unmapped(RetryFormat::Envoy, text);
    assert!(
        has(&list, "retry_policy.retriable_headers", "response matchers"),
        "{list:?}"
    );
    assert!(
        has(&list, "retry_policy.retry_on", "response matchers"),
        "{list:?}"
    );
    assert!(
        has(&list, "retry_policy.retry_host_predicate", "host selection"),
        "{list:?}"
    );
    let p = import(RetryFormat::Envoy, text, "x")
        .expect("imports")
        .profile;
    assert!(p.retry_on.status.contains(599) && p.retry_on.errors.contains(&ErrorKind::Reset));
    // Envoy's defaults: base 25 ms, max 10 × base.
    assert_eq!(
        (p.backoff.base_delay_ms, p.backoff.max_delay_ms),
        (25, Some(250))
    );
}

#[test]
fn dapr_forever_and_circuit_breakers_are_reported() {
    let text = "apiVersion: dapr.io/v1alpha1\nkind: Resiliency\nmetadata:\n  name: r\nspec:\n  policies:\n    \
                retries:\n      forever:\n        policy: constant\n        duration: 500ms\n        maxRetries: -1\n    \
                circuitBreakers:\n      cb:\n        trip: consecutiveFailures > 5\n  targets:\n    apps:\n      b:\n        retry: forever\n";
    let list = unmapped(RetryFormat::Dapr, text);
    assert!(
        has(
            &list,
            "spec.policies.retries.forever.maxRetries",
            "unlimited retries"
        ),
        "{list:?}"
    );
    assert!(
        has(&list, "spec.policies.circuitBreakers", "circuit breakers"),
        "{list:?}"
    );
    let p = import(RetryFormat::Dapr, text, "x")
        .expect("imports")
        .profile;
    assert_eq!(p.backoff.base_delay_ms, 500);
    assert_eq!(p.max_retries, Some(u32::MAX));
}

#[test]
fn aws_quota_and_other_keys_are_reported() {
    let text = "[default]\nregion = eu-west-1\nretry_mode = adaptive\nmax_attempts = 6\n\n[profile dev]\nretry_mode = legacy\n";
    let list = unmapped(RetryFormat::AwsConfig, text);
    assert!(
        has(&list, "[default].region", "not a retry setting"),
        "{list:?}"
    );
    assert!(
        has(&list, "[default].retry_mode", "retry quota"),
        "{list:?}"
    );
    assert!(
        has(&list, "[default].retry_mode", "ThrottlingException"),
        "{list:?}"
    );
    assert!(
        has(&list, "[default].retry_mode", "rate limiter"),
        "{list:?}"
    );
    assert!(
        has(&list, "[profile dev]", "only one profile section"),
        "{list:?}"
    );
}

#[test]
fn aws_credentials_in_a_config_are_named_but_never_shown() {
    let text = "[default]\nregion = eu-west-1\naws_secret_access_key = S3KR1TKEYzz\naws_session_token = T0KENzz\nmax_attempts = 3\n";
    let imported = import(RetryFormat::AwsConfig, text, "x").expect("imports");
    let shown = format!("{:?}", imported.unmapped);
    assert!(
        !shown.contains("S3KR1T") && !shown.contains("T0KEN"),
        "{shown}"
    );
    let value = |path: &str| {
        imported
            .unmapped
            .iter()
            .find(|u| u.path == path)
            .map(|u| u.value.clone())
    };
    assert_eq!(
        value("[default].aws_secret_access_key").as_deref(),
        Some("***")
    );
    assert_eq!(value("[default].aws_session_token").as_deref(), Some("***"));
    assert_eq!(value("[default].region").as_deref(), Some("\"eu-west-1\""));
}

#[test]
fn polly_circuit_breaker_and_linear_are_reported() {
    let text = "{ // appsettings\n \"Http\": { \"Standard\": {\n  \"Retry\": { \"MaxRetryAttempts\": 4, \"BackoffType\": \"Linear\", \
                \"Delay\": \"00:00:00.5\", \"UseJitter\": false, \"ShouldRetryAfterHeader\": false },\n  \
                \"CircuitBreaker\": { \"FailureRatio\": 0.1 } } } }";
    let list = unmapped(RetryFormat::Polly, text);
    assert!(
        has(&list, "Http.Standard.CircuitBreaker", "circuit breakers"),
        "{list:?}"
    );
    assert!(
        has(
            &list,
            "Http.Standard.Retry.BackoffType",
            "no linear strategy"
        ),
        "{list:?}"
    );
    let p = import(RetryFormat::Polly, text, "x")
        .expect("imports")
        .profile;
    assert_eq!((p.max_retries, p.backoff.base_delay_ms), (Some(4), 500));
}

#[test]
fn errors_say_what_and_where() {
    let bad_duration = r#"{"methodConfig":[{"retryPolicy":{"maxAttempts":3,"initialBackoff":"100ms","maxBackoff":"1s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}"#;
    let e = import(RetryFormat::GrpcConfig, bad_duration, "x")
        .map_err(one)
        .expect_err("100ms is not proto JSON");
    assert_eq!(e.path, "methodConfig[0].retryPolicy.initialBackoff");
    assert!(
        e.to_string()
            .contains("expected a duration like \"1.5s\", found \"100ms\""),
        "{e}"
    );
    let e = import(
        RetryFormat::Envoy,
        "retry_policy:\n  num_retries: [1\n",
        "x",
    )
    .map_err(one)
    .expect_err("syntax");
    assert!(e.line.is_some(), "{e:?}");
    let e = import(
        RetryFormat::AwsConfig,
        "[default]\nmax_attempts = many\n",
        "x",
    )
    .map_err(one)
    .expect_err("not a number");
    assert!(
        e.to_string()
            .starts_with("2:1: [default].max_attempts: expected a whole number"),
        "{e}"
    );
    let e = import(RetryFormat::Polly, r#"{"Retry": {"Delay": "soon"}}"#, "x")
        .map_err(one)
        .expect_err("bad TimeSpan");
    assert_eq!(e.path, "Retry.Delay");
    let e = import(RetryFormat::Dapr, "kind: Component\n", "x")
        .map_err(one)
        .expect_err("wrong kind");
    assert!(e.to_string().contains("expected Resiliency"), "{e}");
    let e = import(RetryFormat::Urllib3, "retry = Retry(3)", "x")
        .map_err(one)
        .expect_err("code");
    assert!(
        e.to_string().contains("can be exported but not imported"),
        "{e}"
    );
}

/// A file with two bad values lists both, each at its own line:column, in file order: JSON
/// (gRPC), JSON with comments (Polly, whose reader sorts keys), YAML (Envoy, Dapr) and INI (AWS).
#[test]
fn every_bad_value_is_listed_at_its_line_and_column() {
    let grpc = r#"{
  "methodConfig": [{
    "retryPolicy": {
      "maxAttempts": "many",
      "initialBackoff": "100ms",
      "maxBackoff": "1s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE"]
    }
  }]
}"#;
    let polly = "{\"Retry\": {\n  \"MaxRetryAttempts\": -1,\n  \"Delay\": \"soon\"\n}}";
    let envoy = "retry_policy:\n  retry_on: 5xx\n  num_retries: many\n  per_try_timeout: soon\n";
    let dapr = "kind: Resiliency\nspec:\n  policies:\n    retries:\n      r:\n        policy: constant\n        duration: soon\n        maxRetries: many\n";
    let aws = "[default]\nretry_mode = bogus\nmax_attempts = many\n";
    let policy = "methodConfig[0].retryPolicy";
    let cases = [
        (
            RetryFormat::GrpcConfig,
            grpc,
            [
                ("methodConfig[0].retryPolicy.maxAttempts", 4, 8),
                ("methodConfig[0].retryPolicy.initialBackoff", 5, 8),
            ],
        ),
        (
            RetryFormat::Polly,
            polly,
            [("Retry.MaxRetryAttempts", 2, 4), ("Retry.Delay", 3, 4)],
        ),
        (
            RetryFormat::Envoy,
            envoy,
            [
                ("retry_policy.num_retries", 3, 3),
                ("retry_policy.per_try_timeout", 4, 3),
            ],
        ),
        (
            RetryFormat::Dapr,
            dapr,
            [
                ("spec.policies.retries.r.duration", 7, 9),
                ("spec.policies.retries.r.maxRetries", 8, 9),
            ],
        ),
        (
            RetryFormat::AwsConfig,
            aws,
            [
                ("[default].retry_mode", 2, 1),
                ("[default].max_attempts", 3, 1),
            ],
        ),
    ];
    for (format, text, want) in cases {
        let e = import(format, text, "x").expect_err(text);
        let got: Vec<(&str, Option<usize>, Option<usize>)> = e
            .issues
            .iter()
            .map(|p| (p.path.as_str(), p.line, p.column))
            .collect();
        let want: Vec<(&str, Option<usize>, Option<usize>)> = want
            .iter()
            .map(|(path, line, column)| (*path, Some(*line), Some(*column)))
            .collect();
        assert_eq!(got, want, "{}: {e}", format.id());
    }
    // Each bad item of a list is said; the good ones between are read.
    let codes = r#"{"methodConfig":[{"retryPolicy":{"maxAttempts":3,"initialBackoff":"1s","maxBackoff":"2s","backoffMultiplier":2,"retryableStatusCodes":["NOPE","UNAVAILABLE",99]}}]}"#;
    let e = import(RetryFormat::GrpcConfig, codes, "x").expect_err("two bad codes");
    let paths: Vec<&str> = e.issues.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            format!("{policy}.retryableStatusCodes[0]"),
            format!("{policy}.retryableStatusCodes[2]"),
        ],
        "{e}"
    );
    // Both faces print one `FILE:LINE:COL:` line per problem.
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("route.yaml");
    std::fs::write(&file, envoy).expect("write");
    let out = demo_support::sandboxed()
        .args(["profile", "import", "--from", "envoy"])
        .arg(&file)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    let shown = file.display();
    assert!(
        lines[0].starts_with(&format!(
            "error: {shown}:3:3: cannot import Envoy retry_policy (YAML): retry_policy.num_retries: expected a whole number"
        )),
        "{stderr}"
    );
    assert!(
        lines[1].starts_with(&format!(
            "{shown}:4:3: cannot import Envoy retry_policy (YAML): retry_policy.per_try_timeout:"
        )),
        "{stderr}"
    );
}

#[test]
fn cli_export_and_import() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = demo_support::sandboxed()
        .args([
            "profile",
            "export",
            "--to",
            "grpc",
            "--builtin",
            "aws-standard",
        ])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is the JSON");
    assert_eq!(json["methodConfig"][0]["retryPolicy"]["maxAttempts"], 3);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not expressible in grpc:"));

    let envoy = dir.path().join("route.yaml");
    std::fs::write(
        &envoy,
        "retry_policy:\n  retry_on: gateway-error\n  num_retries: 2\n  retry_priority: {}\n",
    )
    .expect("write");
    let saved = dir.path().join("from-envoy.json");
    let out = demo_support::sandboxed()
        .args(["profile", "import", "--from", "envoy"])
        .arg(&envoy)
        .arg("-o")
        .arg(&saved)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not mapped: retry_policy.retry_priority"),
        "{stderr}"
    );
    let p = retryscope::profile::load_file(&saved).expect("the saved profile loads");
    assert_eq!((p.name.as_str(), p.max_retries), ("route", Some(2)));

    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"methodConfig\": 5}").expect("write");
    let out = demo_support::sandboxed()
        .args(["profile", "import", "--from", "grpc"])
        .arg(&bad)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "bad.json:1:3: cannot import gRPC service config (JSON): methodConfig: expected a list"
        ),
        "{stderr}"
    );
    assert!(
        stderr.starts_with(&format!("error: {}:", bad.display())),
        "the file leads, as compilers write it: {stderr}"
    );

    let out = demo_support::sandboxed()
        .args([
            "profile",
            "export",
            "--to",
            "yaml",
            "--builtin",
            "aws-standard",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("unknown format `yaml`; expected one of curl, urllib3")
    );
}

/// `profile export -o FILE` counts what the target cannot express in words: "1 setting", "3
/// settings", never "setting(s)".
#[test]
fn cli_export_counts_the_settings_not_expressible_in_words() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pairs: Vec<(&str, RetryFormat, usize)> = retryscope::profile::builtins()
        .iter()
        .flat_map(|b| {
            RetryFormat::ALL
                .into_iter()
                .map(move |f| (b.id, f, export(&b.profile, f).not_expressed.len()))
        })
        .collect();
    let one = pairs
        .iter()
        .find(|(_, _, n)| *n == 1)
        .expect("an export with one gap");
    let more = pairs
        .iter()
        .find(|(_, _, n)| *n > 1)
        .expect("an export with gaps");
    for (builtin, format, n) in [one, more] {
        let out = dir.path().join(format!("{builtin}.{}", format.extension()));
        let run = demo_support::sandboxed()
            .args([
                "profile",
                "export",
                "--to",
                format.id(),
                "--builtin",
                builtin,
            ])
            .arg("-o")
            .arg(&out)
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{stderr}");
        let said = retryscope::model::counted(*n as u64, "setting", "settings");
        assert!(
            stderr.contains(&format!("; {said} not expressible")),
            "{builtin} → {}: {stderr}",
            format.id()
        );
        assert!(!stderr.contains("(s)"), "{stderr}");
    }
}

/// Unlimited retries have no count in gRPC or the AWS config: the largest that fits is written,
/// as attempts (retries + 1), and the note says retries. Format 2's budget is named as a gap.
#[test]
fn unlimited_retries_export_the_largest_count_that_fits_and_budgets_are_named() {
    let mut p: RetryProfile = serde_json::from_value(serde_json::json!({
        "format": retryscope::model::PROFILE_FORMAT, "name": "u", "max_retries": null,
        "deadline_ms": 2000, "backoff": {"strategy": "fixed", "base_delay_ms": 100},
        "retry_budget": {"capacity": 10}
    }))
    .expect("profile");
    let grpc = export(&p, RetryFormat::GrpcConfig);
    assert!(
        grpc.text.contains("\"maxAttempts\": 4294967295"),
        "{}",
        grpc.text
    );
    assert!(
        grpc.not_expressed
            .iter()
            .any(|g| g.contains("written as 4294967294 retries")),
        "{:?}",
        grpc.not_expressed
    );
    assert!(
        grpc.not_expressed
            .iter()
            .any(|g| g.starts_with("retry budget")),
        "{:?}",
        grpc.not_expressed
    );
    let aws = export(&p, RetryFormat::AwsConfig);
    assert!(
        aws.text.contains("max_attempts = 2147483647"),
        "{}",
        aws.text
    );
    assert!(
        aws.text.contains("written as 2147483646 retries"),
        "{}",
        aws.text
    );
    p.max_retries = Some(3);
    let dapr = export(&p, RetryFormat::Dapr);
    assert!(dapr.text.contains("maxRetries: 3"), "{}", dapr.text);
}

// ---- retry budgets and unlimited counts in other tools' terms -----------------

#[test]
fn grpc_retry_throttling_round_trips_the_a6_budget_exactly() {
    let a6 = retryscope::profile::builtin("grpc-a6").expect("built-in");
    let out = export(&a6, RetryFormat::GrpcConfig);
    let doc: serde_json::Value = serde_json::from_str(&out.text).expect("JSON");
    assert_eq!(
        doc["retryThrottling"],
        serde_json::json!({"maxTokens": 10, "tokenRatio": 0.1})
    );
    assert!(
        !out.not_expressed.iter().any(|g| g.contains("retry budget")),
        "the A6 budget is gRPC's own: {:?}",
        out.not_expressed
    );
    let back = import(RetryFormat::GrpcConfig, &out.text, "a6")
        .expect("imports")
        .profile;
    assert_eq!(back.retry_budget, a6.retry_budget);
}

/// gRPC always honours `grpc-retry-pushback-ms`: an imported service config reads it (as a
/// `response_header` backoff over A6's full-jitter backoff), and the export of such a profile
/// names no header gap, while a profile that ignores pushback says gRPC will not.
#[test]
fn grpc_pushback_is_imported_as_a_header_delay_and_exported_without_a_gap() {
    let text = r#"{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3,
        "initialBackoff": "0.2s", "maxBackoff": "2s", "backoffMultiplier": 2,
        "retryableStatusCodes": ["UNAVAILABLE"]}}]}"#;
    let imported = import(RetryFormat::GrpcConfig, text, "svc").expect("imports");
    let b = &imported.profile.backoff;
    assert_eq!(b.strategy, Strategy::ResponseHeader);
    assert_eq!(b.headers.len(), 1);
    assert_eq!(
        (b.headers[0].name.as_str(), b.headers[0].unit),
        ("grpc-retry-pushback-ms", HeaderUnit::GrpcPushbackMs)
    );
    let fb = b.fallback.as_deref().expect("A6's backoff");
    assert_eq!(
        (fb.strategy, fb.base_delay_ms, fb.max_delay_ms),
        (Strategy::FullJitter, 200, Some(2000))
    );
    assert!(
        imported
            .unmapped
            .iter()
            .any(|u| u.path == "(grpc-retry-pushback-ms)" && u.reason.contains("initialBackoff")),
        "{:?}",
        imported.unmapped
    );
    let out = export(&imported.profile, RetryFormat::GrpcConfig);
    assert!(
        !out.not_expressed
            .iter()
            .any(|g| g.contains("pushback") || g.contains("delay headers")),
        "{:?}",
        out.not_expressed
    );
    let doc: serde_json::Value = serde_json::from_str(&out.text).expect("JSON");
    assert_eq!(
        doc["methodConfig"][0]["retryPolicy"]["initialBackoff"],
        "0.2s"
    );
    // A6's own example retries UNAVAILABLE only: a connect timeout is a connection failure
    // (UNAVAILABLE), not DEADLINE_EXCEEDED.
    let a6 = retryscope::profile::builtin("grpc-a6").expect("built-in");
    let doc: serde_json::Value =
        serde_json::from_str(&export(&a6, RetryFormat::GrpcConfig).text).expect("JSON");
    assert_eq!(
        doc["methodConfig"][0]["retryPolicy"]["retryableStatusCodes"],
        serde_json::json!(["UNAVAILABLE"])
    );

    let aws = retryscope::profile::builtin("aws-standard-2026").expect("built-in");
    let out = export(&aws, RetryFormat::GrpcConfig);
    for gap in [
        "server delay headers x-amz-retry-after",
        "combine max/clamp",
        "gRPC always honours",
    ] {
        assert!(
            out.not_expressed.iter().any(|g| g.contains(gap)),
            "{gap}: {:?}",
            out.not_expressed
        );
    }
}

#[test]
fn a_budget_grpc_cannot_hold_is_written_nearest_with_its_gaps() {
    let aws = retryscope::profile::builtin("aws-standard").expect("built-in");
    let out = export(&aws, RetryFormat::GrpcConfig);
    let doc: serde_json::Value = serde_json::from_str(&out.text).expect("JSON");
    assert_eq!(doc["retryThrottling"]["maxTokens"], 500);
    assert_eq!(doc["retryThrottling"]["tokenRatio"], 1.0);
    for part in [
        "costs (transient 5, timeout 10, throttling 5)",
        "never refunds",
        "charge \"retry\"",
        "maxTokens / 2",
    ] {
        assert!(
            out.not_expressed
                .iter()
                .any(|g| g.starts_with("retry budget") && g.contains(part)),
            "{part}: {:?}",
            out.not_expressed
        );
    }
    let e = import(
        RetryFormat::GrpcConfig,
        r#"{"methodConfig":[{"retryPolicy":{"maxAttempts":3,"initialBackoff":"1s","maxBackoff":"2s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}],"retryThrottling":{"maxTokens":5000,"tokenRatio":0.1}}"#,
        "x",
    )
    .map_err(one).expect_err("maxTokens above 1000");
    assert_eq!(e.path, "retryThrottling.maxTokens");
}

#[test]
fn the_aws_quota_round_trips_through_the_shared_config() {
    for id in ["aws-standard", "aws-standard-2026"] {
        let p = retryscope::profile::builtin(id).expect("built-in");
        let out = export(&p, RetryFormat::AwsConfig);
        assert!(
            !out.not_expressed.iter().any(|g| g.contains("quota")),
            "{id}: the quota is the SDK's own: {:?}",
            out.not_expressed
        );
    }
    let std = retryscope::profile::builtin("aws-standard").expect("built-in");
    let back = import(
        RetryFormat::AwsConfig,
        &export(&std, RetryFormat::AwsConfig).text,
        "a",
    )
    .expect("imports");
    assert_eq!(back.profile.retry_budget, std.retry_budget);
    assert!(
        !back.unmapped.iter().any(|u| u.reason.contains("yet")),
        "{:?}",
        back.unmapped
    );
    // A profile without a budget, or with another one, is told what the SDK will do.
    let mut none = std.clone();
    none.retry_budget = None;
    let gaps = export(&none, RetryFormat::AwsConfig).not_expressed;
    assert!(
        gaps.iter()
            .any(|g| g.starts_with("no retry budget: the SDK's quota")),
        "{gaps:?}"
    );
    let mut other = std.clone();
    if let Some(b) = &mut other.retry_budget {
        b.capacity = 50.0;
    }
    let gaps = export(&other, RetryFormat::AwsConfig).not_expressed;
    assert!(
        gaps.iter()
            .any(|g| g.starts_with("retry budget (capacity 50") && g.contains("500 tokens")),
        "{gaps:?}"
    );
    // Legacy mode has no quota.
    let legacy = import(
        RetryFormat::AwsConfig,
        "[default]\nretry_mode = legacy\n",
        "l",
    )
    .expect("imports");
    assert_eq!(legacy.profile.retry_budget, None);
}

#[test]
fn polly_int_max_value_is_unlimited_with_a_deadline_and_says_why_without_one() {
    let with_deadline = r#"{ "Resilience": {
        "Retry": { "MaxRetryAttempts": 2147483647, "BackoffType": "Constant", "Delay": "00:00:01", "UseJitter": false },
        "TotalRequestTimeout": { "Timeout": "00:00:30" } } }"#;
    let back = import(RetryFormat::Polly, with_deadline, "forever").expect("imports");
    assert_eq!(back.profile.max_retries, None, "unlimited");
    assert_eq!(back.profile.deadline_ms, Some(30_000));
    assert!(
        !back
            .unmapped
            .iter()
            .any(|u| u.path.ends_with("MaxRetryAttempts")),
        "exact: {:?}",
        back.unmapped
    );
    // Round trip: unlimited retries until a deadline go out as int.MaxValue and come back.
    let out = export(&back.profile, RetryFormat::Polly);
    assert!(
        out.text.contains("\"MaxRetryAttempts\": 2147483647"),
        "{}",
        out.text
    );
    let again = import(RetryFormat::Polly, &out.text, "forever").expect("imports");
    assert_eq!(
        (again.profile.max_retries, again.profile.deadline_ms),
        (None, Some(30_000))
    );

    let no_deadline = r#"{ "Retry": { "MaxRetryAttempts": 2147483647, "BackoffType": "Constant", "Delay": "00:00:01" } }"#;
    let back = import(RetryFormat::Polly, no_deadline, "forever").expect("imports");
    assert_eq!(back.profile.max_retries, Some(2_147_483_647));
    let note = back
        .unmapped
        .iter()
        .find(|u| u.path == "Retry.MaxRetryAttempts")
        .expect("the count is noted");
    assert_eq!(note.carried, Carried::Approximated);
    assert!(
        note.reason.contains("need a deadline") && note.reason.contains("TotalRequestTimeout"),
        "{}",
        note.reason
    );
    assert!(
        back.profile.description.contains("Retry.MaxRetryAttempts"),
        "the import note names it: {}",
        back.profile.description
    );
}

// ---- import errors a fresh user can act on --------------------

#[test]
fn an_unclosed_ini_section_header_is_named_at_its_own_line() {
    let text = "# shared config\n[default\nretry_mode = standard\nmax_attempts = 3\n";
    let e = import(RetryFormat::AwsConfig, text, "x")
        .map_err(one)
        .expect_err("unclosed header");
    assert_eq!((e.line, e.column), (Some(2), Some(1)), "{e:?}");
    assert_eq!(e.message, "section header `[default` has no closing `]`");
    assert!(!e.message.contains("Some("), "no Rust debug text: {e}");
    // A `]` further down must not swallow the lines between into a section name.
    let text = "[default\nmax_attempts = 3\n[profile dev]\n";
    let e = import(RetryFormat::AwsConfig, text, "x")
        .map_err(one)
        .expect_err("unclosed header");
    assert_eq!(e.line, Some(1), "{e:?}");
    // Indented headers point at the `[`.
    let e = import(RetryFormat::AwsConfig, "  [default\n", "x")
        .map_err(one)
        .expect_err("unclosed");
    assert_eq!((e.line, e.column), (Some(1), Some(3)), "{e:?}");
}

#[test]
fn yaml_syntax_errors_give_the_position_once() {
    for format in [RetryFormat::Envoy, RetryFormat::Dapr] {
        let e = import(format, "retry_policy:\n  num_retries: [1\n  x: 2\n", "x")
            .map_err(one)
            .expect_err("syntax");
        assert!(e.line.is_some() && e.column.is_some(), "{e:?}");
        let shown = e.to_string();
        let place = format!("{}:{}: ", e.line.unwrap_or(0), e.column.unwrap_or(0));
        assert!(
            shown.starts_with(&place) && !shown.contains("line"),
            "{}: the position once, first: {shown}",
            format.id()
        );
    }
}

#[test]
fn a_value_the_profile_refuses_is_named_by_the_files_own_key() {
    // 25 h: more than a profile's 24 h limit for a delay.
    let grpc = r#"{"methodConfig":[{"retryPolicy":{"maxAttempts":3,"initialBackoff":"90000s","maxBackoff":"90000s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}"#;
    let both = import(RetryFormat::GrpcConfig, grpc, "x").expect_err("too long");
    let [base, max] = both.issues.as_slice() else {
        panic!("both delays are too long: {both}");
    };
    for (e, key, field) in [
        (base, "initialBackoff", "profile's backoff.base_delay_ms"),
        (max, "maxBackoff", "profile's backoff.fallback.max_delay_ms"),
    ] {
        assert_eq!(e.path, format!("methodConfig[0].retryPolicy.{key}"), "{e}");
        assert!(e.message.contains("more than 24 h"), "{e}");
        assert!(
            e.message.contains(field),
            "the profile field is said after: {e}"
        );
    }
    // Max below base: the max's key is named.
    let grpc = r#"{"methodConfig":[{"retryPolicy":{"maxAttempts":3,"initialBackoff":"2s","maxBackoff":"1s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}"#;
    let e = import(RetryFormat::GrpcConfig, grpc, "x")
        .map_err(one)
        .expect_err("max below base");
    assert_eq!(e.path, "methodConfig[0].retryPolicy.maxBackoff", "{e}");
    let envoy = "retry_policy:\n  retry_on: 5xx\n  retry_back_off:\n    base_interval: 90000s\n";
    let e = import(RetryFormat::Envoy, envoy, "x")
        .map_err(one)
        .expect_err("too long");
    assert_eq!(e.path, "retry_policy.retry_back_off.base_interval", "{e}");
    let polly = r#"{"Retry": {"Delay": "1.02:00:00", "UseJitter": false}}"#;
    let e = import(RetryFormat::Polly, polly, "x")
        .map_err(one)
        .expect_err("too long");
    assert_eq!(e.path, "Retry.Delay", "{e}");
    // A count beyond what a profile holds is cut, and said so at the file's key.
    let grpc = r#"{"methodConfig":[{"retryPolicy":{"maxAttempts":99999999999,"initialBackoff":"1s","maxBackoff":"2s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}"#;
    let list = unmapped(RetryFormat::GrpcConfig, grpc);
    assert!(
        has(
            &list,
            "methodConfig[0].retryPolicy.maxAttempts",
            "imported as 4294967295"
        ),
        "{list:?}"
    );
    assert!(
        !has(
            &list,
            "methodConfig[0].retryPolicy.maxAttempts",
            "imported as written"
        ),
        "{list:?}"
    );
}

#[test]
fn cli_import_errors_lead_with_the_file_and_its_line_column() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ini = dir.path().join("config");
    std::fs::write(&ini, "[default\nretry_mode = standard\n").expect("write");
    let out = demo_support::sandboxed()
        .args(["profile", "import", "--from", "aws-config"])
        .arg(&ini)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "error: {}:1:1: cannot import AWS shared config (INI): section header `[default` has no closing `]`",
            ini.display()
        )),
        "{stderr}"
    );
    // Without a position the file still leads, alone.
    std::fs::write(&ini, "# nothing here\n").expect("write");
    let out = demo_support::sandboxed()
        .args(["profile", "import", "--from", "aws-config"])
        .arg(&ini)
        .output()
        .expect("runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: {}: cannot import AWS shared config (INI): no [default] or [profile NAME] section\n",
            ini.display()
        )
    );
}

/// gRPC A6's rules on a retry policy: each value it forbids is an error at its JSON path.
#[test]
fn grpc_values_a6_forbids_are_errors_at_their_path() {
    let policy = |initial: &str, max: &str, multiplier: &str, attempts: &str, codes: &str| {
        format!(
            r#"{{"methodConfig":[{{"retryPolicy":{{"maxAttempts":{attempts},"initialBackoff":"{initial}","maxBackoff":"{max}","backoffMultiplier":{multiplier},"retryableStatusCodes":{codes}}}}}]}}"#
        )
    };
    let at = "methodConfig[0].retryPolicy.";
    for (text, key, said) in [
        (
            policy("0s", "1s", "2", "3", r#"["UNAVAILABLE"]"#),
            "initialBackoff",
            "initialBackoff must be greater than 0 (gRPC A6), found \"0s\"",
        ),
        (
            policy("0.1s", "0.000s", "2", "3", r#"["UNAVAILABLE"]"#),
            "maxBackoff",
            "maxBackoff must be greater than 0 (gRPC A6), found \"0.000s\"",
        ),
        (
            policy("0.1s", "1s", "0", "3", r#"["UNAVAILABLE"]"#),
            "backoffMultiplier",
            "backoffMultiplier must be greater than 0",
        ),
        (
            policy("0.1s", "1s", "2", "1", r#"["UNAVAILABLE"]"#),
            "maxAttempts",
            "maxAttempts must be at least 2",
        ),
        (
            policy("0.1s", "1s", "2", "3", "[]"),
            "retryableStatusCodes",
            "retryableStatusCodes must name at least one status code (gRPC A6)",
        ),
    ] {
        let e = import(RetryFormat::GrpcConfig, &text, "x")
            .map_err(one)
            .expect_err(&text);
        assert_eq!(e.path, format!("{at}{key}"), "{e}");
        assert!(e.message.contains(said), "{e}");
    }
    // The smallest positive values import (rounded up to 1 ms).
    let p = import(
        RetryFormat::GrpcConfig,
        &policy("0.0001s", "2s", "2", "2", r#"["UNAVAILABLE"]"#),
        "x",
    )
    .expect("imports")
    .profile;
    assert_eq!(p.backoff.base_delay_ms, 1);
}

/// gRPC service-config syntax errors count columns from 1, in characters, like every other
/// position (`serde_json` gives 0 at the start of a line and counts bytes).
#[test]
fn grpc_syntax_errors_have_one_based_character_columns() {
    use retryscope::interop::retry_formats::RetryFormat;
    let ended = retryscope::interop::retry_formats::import(
        RetryFormat::GrpcConfig,
        "{\"methodConfig\": [\n",
        "g",
    )
    .map_err(one)
    .expect_err("cut short");
    assert_eq!((ended.line, ended.column), (Some(2), Some(1)), "{ended}");
    let accented = retryscope::interop::retry_formats::import(
        RetryFormat::GrpcConfig,
        "{\"methodConfig\": [{\"name\": [{\"service\": \"é\"}], \"retryPolicy\": {\"maxAttempts\": tru}}]}",
        "g",
    )
    .map_err(one).expect_err("bad literal");
    assert_eq!(
        (accented.line, accented.column),
        (Some(1), Some(82)),
        "{accented}"
    );
}

/// Numbers in exports print as typed, not with float noise (`1 − 0.7` as
/// 0.30000000000000004): every format, over strategies, ratios and ms values whose sums and
/// conversions are inexact in binary.
#[test]
fn exports_carry_no_float_noise() {
    let noise = regex::Regex::new(r"\d\.\d{9,}").unwrap();
    let strategies = [
        "exponential",
        "exponential_proportional",
        "full_jitter",
        "equal_jitter",
        "decorrelated_jitter",
        "fixed",
    ];
    for strategy in strategies {
        for (base, cap) in [(300, 1200), (110, 3300), (70, 700)] {
            for ratio in [0.1, 0.3, 0.7, 0.9] {
                let text = format!(
                    r#"{{"format": "retryscope-profile/2", "name": "n", "max_retries": 3,
                    "backoff": {{"strategy": "{strategy}", "base_delay_ms": {base},
                      "max_delay_ms": {cap}, "jitter_ratio": {ratio}, "jitter_window_ms": 300}},
                    "timeouts": {{"connect_ms": 700, "read_ms": 1100, "total_ms": 3300}},
                    "deadline_ms": 7100}}"#
                );
                let Ok(p) = retryscope::profile::load_str(&text) else {
                    continue; // a field this strategy refuses
                };
                for format in RetryFormat::ALL {
                    let out = export(&p, format);
                    for said in std::iter::once(&out.text).chain(&out.not_expressed) {
                        assert!(
                            !noise.is_match(said),
                            "{format:?} {strategy} {base}/{cap} p={ratio}: {said}"
                        );
                    }
                }
            }
        }
    }
}

/// A profile that retries nothing (no retryable status or error) is exported as no retries in
/// every format, not as the target's defaults for what is left empty.
#[test]
fn a_profile_that_retries_nothing_exports_as_no_retries() {
    let text = r#"{"format": "retryscope-profile/2", "name": "none", "max_retries": 3,
        "retry_on": {"status": [], "errors": []},
        "backoff": {"strategy": "exponential", "base_delay_ms": 1000, "max_delay_ms": 10000}}"#;
    let p = retryscope::profile::load_str(text).unwrap();
    let said = |format| {
        let out = export(&p, format);
        format!("{}\n{}", out.text, out.not_expressed.join("\n"))
    };
    let dapr = said(RetryFormat::Dapr);
    assert!(dapr.contains("maxRetries: 0"), "{dapr}");
    let urllib3 = said(RetryFormat::Urllib3);
    assert!(urllib3.contains("total=0"), "{urllib3}");
    assert!(!urllib3.contains("429"), "{urllib3}");
    let polly = said(RetryFormat::Polly);
    assert!(polly.contains("\"MaxRetryAttempts\": 0"), "{polly}");
    assert!(!polly.contains(" :"), "no stray space: {polly}");
    let grpc = said(RetryFormat::GrpcConfig);
    assert!(!grpc.contains("retryPolicy\""), "{grpc}");
    assert!(grpc.contains("retries nothing"), "{grpc}");
    assert!(said(RetryFormat::CurlFlags).contains("--retry 0"));
    assert!(said(RetryFormat::Envoy).contains("num_retries: 0"));
    assert!(said(RetryFormat::AwsConfig).contains("max_attempts = 1"));
    assert!(said(RetryFormat::Tenacity).contains("stop_after_attempt(1)"));
}

/// A profile that retries nothing (max retries 0, or nothing retryable) round-trips through
/// every format that is data as 0 retries, and every code format writes 0 retries.
#[test]
fn a_profile_that_retries_nothing_round_trips_through_every_format() {
    let mut zero = retryscope::profile::builtin("aws-standard").expect("builtin");
    zero.name = "zero".into();
    zero.max_retries = Some(0);
    let nothing = retryscope::profile::load_str(
        r#"{"format": "retryscope-profile/2", "name": "nothing", "max_retries": 3,
        "retry_on": {"status": [], "errors": []}, "deadline_ms": 5000,
        "backoff": {"strategy": "exponential", "base_delay_ms": 1000, "max_delay_ms": 10000}}"#,
    )
    .expect("loads");
    for p in [&zero, &nothing] {
        for format in RetryFormat::ALL {
            let out = export(p, format);
            if format.can_import() {
                let back = import(format, &out.text, "back").unwrap_or_else(|e| {
                    panic!("{} via {}: {e}\n{}", p.name, format.id(), out.text)
                });
                assert_eq!(
                    back.profile.max_retries,
                    Some(0),
                    "{} via {}:\n{}",
                    p.name,
                    format.id(),
                    out.text
                );
            } else {
                let said = match format {
                    RetryFormat::CurlFlags => "--retry 0",
                    RetryFormat::Urllib3 => "total=0",
                    RetryFormat::Tenacity => "stop_after_attempt(1)",
                    other => panic!("{} is data: it imports", other.id()),
                };
                assert!(
                    out.text.contains(said),
                    "{} → {}: {}",
                    p.name,
                    format.id(),
                    out.text
                );
            }
        }
    }
    // The deadline a retry-nothing gRPC config keeps (its methodConfig `timeout`) comes back.
    let grpc = export(&nothing, RetryFormat::GrpcConfig);
    let back = import(RetryFormat::GrpcConfig, &grpc.text, "back").expect("imports");
    assert_eq!(back.profile.deadline_ms, Some(5000), "{}", grpc.text);
    assert!(
        back.unmapped
            .iter()
            .any(|u| u.reason.contains("imported as max_retries 0")),
        "{:?}",
        back.unmapped
    );
    // Still refused: a negative count, and a config that configures no call at all.
    let e = import(
        RetryFormat::Polly,
        r#"{"Retry": {"MaxRetryAttempts": -1}}"#,
        "x",
    )
    .map_err(one)
    .expect_err("negative");
    assert!(e.to_string().contains("must be 0 or more, found -1"), "{e}");
    let e = import(RetryFormat::GrpcConfig, r#"{"methodConfig": []}"#, "x")
        .map_err(one)
        .expect_err("empty");
    assert!(e.to_string().contains("no methodConfig entry"), "{e}");
}

/// A profile that retries connection errors only: Dapr reads an empty `httpStatusCodes` as
/// "every HTTP error", so the export writes no list and says what Dapr will do instead.
#[test]
fn dapr_export_of_a_profile_retrying_no_status_says_dapr_retries_every_http_error() {
    let mut p = base_profile(computed(Strategy::Fixed, 1000, None), &[]);
    p.max_retries = Some(9);
    let out = export(&p, RetryFormat::Dapr);
    assert!(!out.text.contains("matching:"), "{}", out.text);
    assert!(out.text.contains("every HTTP error status"), "{}", out.text);
    p.max_retries = Some(0);
    let none = export(&p, RetryFormat::Dapr);
    assert!(none.text.contains("maxRetries: 0"), "{}", none.text);
    assert!(
        !none.text.contains("every HTTP error status"),
        "{}",
        none.text
    );
}

/// Messages written for a programmer by the libraries under the importers (`set
/// DuplicateKeyPolicy in Options`, `stream did not contain valid UTF-8`, `curl --retry flags
/// is code`) reach the user in plain words of what is wrong and where.
#[test]
fn cli_import_says_library_problems_in_plain_words() {
    let dir = tempfile::tempdir().expect("temp dir");
    let import = |from: &str, path: &std::path::Path| {
        let out = demo_support::sandboxed()
            .args(["profile", "import", "--from", from])
            .arg(path)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let yaml = dir.path().join("route.yaml");
    std::fs::write(&yaml, "retry_policy:\n  num_retries: 2\n  num_retries: 3\n").expect("write");
    assert_eq!(
        import("envoy", &yaml),
        format!(
            "error: {}:3:3: cannot import Envoy retry_policy (YAML): the key `num_retries` appears twice in the same map (keep one)\n",
            yaml.display()
        )
    );
    // Windows Notepad's "Unicode": UTF-16 with a byte-order mark.
    let utf16 = dir.path().join("appsettings.json");
    let bytes: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(
            r#"{"Retry": {"MaxRetryAttempts": 2}}"#
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    std::fs::write(&utf16, bytes).expect("write");
    assert_eq!(
        import("polly", &utf16),
        format!(
            "error: {}:1:1: cannot import Polly v8 (appsettings JSON): the file is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8\n",
            utf16.display()
        )
    );
    // A UTF-8 byte-order mark is passed over.
    let bom = dir.path().join("bom.json");
    std::fs::write(&bom, "\u{feff}{\"Retry\": {\"MaxRetryAttempts\": 2}}").expect("write");
    demo_support::sandboxed()
        .args(["profile", "import", "--from", "polly"])
        .arg(&bom)
        .assert()
        .code(0)
        .stdout(predicates::str::contains("\"max_retries\": 2"));
    // A code format is refused before the file is read, in a sentence that is English.
    let stderr = import("curl", &dir.path().join("never-read.txt"));
    assert!(
        stderr.starts_with(
            "error: invalid value 'curl' for '--from <FORMAT>': curl --retry flags can be exported but not imported (it is code, not a settings file); --from takes polly, grpc, envoy, dapr, aws-config"
        ),
        "{stderr}"
    );
    for jargon in ["is code, not data", "Options", "stream did not contain"] {
        assert!(!stderr.contains(jargon), "{stderr}");
    }
}
