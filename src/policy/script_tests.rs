//! Unit tests of custom (Rhai) script backoffs: values, stops, errors with line:column, and
//! runaway scripts stopped by the operation limit.

use super::tests::{backoff, ctx, header_backoff, profile, response};
use super::*;
use crate::model::{ErrorKind, NetError, Strategy};

fn script_policy(source: &str) -> Result<Policy, PolicyError> {
    let mut bo = backoff(Strategy::Custom, 1000, Some(10_000), 250);
    bo.script = Some(source.into());
    Policy::new(profile(bo))
}

fn run_script(source: &str, outcome: &AttemptOutcome) -> WaitDecision {
    let policy = script_policy(source).expect("compiles");
    policy.next_wait(&ctx(2, outcome), &mut rng_from_seed(11))
}

#[test]
fn script_happy_path_with_rand_and_context() {
    let src = r#"
        fn get_delay(ctx) {
            print("ignored"); debug("ignored");
            if ctx.status != 503 || ctx.error != () { return (); }
            if ctx.retry != 2 || ctx.attempt != 2 || ctx.prev_wait_ms != () { return "bad ctx"; }
            if ctx.headers["x-hint"] != "7" || ctx.max_delay_ms != 10000 { return "bad ctx"; }
            ctx.base_delay_ms * ctx.retry + rand() * ctx.jitter_window_ms
        }
    "#;
    let outcome = response(503, &[("X-Hint", "7")]);
    let WaitDecision::Wait(e) = run_script(src, &outcome) else {
        panic!("wait expected")
    };
    assert!((2000..=2250).contains(&e.wait_ms), "{}", e.text);
    assert_eq!(e.draws.len(), 1);
    assert_eq!(e.draws[0].name, "rand");
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "in [2000, 2250]"
    )]
    let expected = (2000.0 + e.draws[0].value * 250.0).ceil() as u64;
    assert_eq!(e.wait_ms, expected);
    assert!(
        e.text.starts_with("retry 2: custom get_delay(ctx) = "),
        "{}",
        e.text
    );
    assert!(e.text.contains("(rand() = "), "{}", e.text);
    // The draw came from the run's RNG, and the RNG moved on by exactly that draw.
    let mut rng = rng_from_seed(11);
    let policy = script_policy(src).expect("compiles");
    let _ = policy.next_wait(&ctx(2, &outcome), &mut rng);
    let mut reference = rng_from_seed(11);
    let first = draws::draw(&mut reference, 0.0, 1.0);
    assert_eq!(first, e.draws[0].value);
    assert_eq!(
        draws::draw(&mut rng, 0.0, 1.0),
        draws::draw(&mut reference, 0.0, 1.0)
    );
}

#[test]
fn script_values_and_stop() {
    let ok = |src: &str| match run_script(src, &response(503, &[])) {
        WaitDecision::Wait(e) => e.wait_ms,
        other => panic!("{src}: {other:?}"),
    };
    assert_eq!(ok("fn get_delay(ctx) { 1500 }"), 1500);
    assert_eq!(ok("fn get_delay(ctx) { 0 }"), 0);
    assert_eq!(ok("fn get_delay(ctx) { 12.1 }"), 13);
    assert_eq!(ok("fn get_delay(ctx) { 999999999 }"), 10_000);
    assert_eq!(
        run_script("fn get_delay(ctx) { () }", &response(503, &[])),
        WaitDecision::Stop {
            reason: "custom script returned () for retry 2: not retrying".into()
        }
    );
    let net = AttemptOutcome::Error(NetError {
        kind: ErrorKind::Timeout,
        message: "t".into(),
        dns: None,
    });
    assert_eq!(
        ok_outcome(
            "fn get_delay(ctx) { if ctx.status == () && ctx.error == \"timeout\" { 5 } else { 6 } }",
            &net
        ),
        5
    );
    assert_eq!(
        ok_outcome(
            "fn get_delay(ctx) { retry_after(ctx.headers[\"retry-after\"]) }",
            &response(429, &[("Retry-After", "1.5")])
        ),
        1500
    );
    assert_eq!(
        run_script(
            "fn get_delay(ctx) { retry_after(\"nope\") }",
            &response(503, &[])
        ),
        WaitDecision::Stop {
            reason: "custom script returned () for retry 2: not retrying".into()
        }
    );
    assert_eq!(
        run_script(
            "fn get_delay(ctx) { retry_after(ctx.headers[\"retry-after\"]) }",
            &response(503, &[])
        ),
        WaitDecision::Stop {
            reason: "custom script returned () for retry 2: not retrying".into()
        }
    );
}

fn ok_outcome(src: &str, outcome: &AttemptOutcome) -> u64 {
    match run_script(src, outcome) {
        WaitDecision::Wait(e) => e.wait_ms,
        other => panic!("{src}: {other:?}"),
    }
}

#[test]
fn script_bad_values_are_errors_quoting_the_value() {
    let cases = [
        ("fn get_delay(ctx) { 0.0 / 0.0 }", "returned NaN"),
        ("fn get_delay(ctx) { 1.0 / 0.0 }", "returned +infinity"),
        ("fn get_delay(ctx) { -1.0 / 0.0 }", "returned -infinity"),
        ("fn get_delay(ctx) { -5 }", "returned -5;"),
        ("fn get_delay(ctx) { -0.5 }", "returned -0.5;"),
        (
            "fn get_delay(ctx) { \"soon\" }",
            "returned the string \"soon\";",
        ),
        ("fn get_delay(ctx) { #{ wait: 5 } }", "returned a map #{"),
        ("fn get_delay(ctx) { [1, 2] }", "returned an array [1, 2]"),
        ("fn get_delay(ctx) { true }", "returned bool `true`"),
    ];
    for (src, want) in cases {
        match run_script(src, &response(503, &[])) {
            WaitDecision::ScriptError { message } => {
                assert!(message.contains(want), "{src}: {message}");
                assert!(
                    message.contains("finite number ≥ 0 (ms) or ()"),
                    "{message}"
                );
            }
            other => panic!("{src}: {other:?}"),
        }
    }
    match run_script("fn get_delay(ctx) { ctx.nope.x }", &response(503, &[])) {
        WaitDecision::ScriptError { message } => {
            assert!(message.starts_with("script error: "), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn script_compile_errors_have_line_and_column() {
    let err =
        script_policy("fn get_delay(ctx) {\n    let x = ;\n    x\n}").expect_err("syntax error");
    let PolicyError::Script {
        line,
        column,
        message,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!((*line, *column), (2, 13), "{message}");
    assert!(
        err.to_string()
            .starts_with("script error at line 2, column 13: "),
        "{err}"
    );
    let err = script_policy("fn get_delay(ctx) { eval(\"1\") }").expect_err("eval is disabled");
    assert!(matches!(err, PolicyError::Script { line: 1, .. }), "{err}");
    let err = script_policy("fn delay(ctx) { 5 }").expect_err("no get_delay");
    assert!(err.to_string().contains("fn get_delay(ctx)"), "{err}");
}

fn assert_stopped_quickly(src: &str, want: &str) {
    let policy = script_policy(src).expect("compiles");
    let start = std::time::Instant::now();
    let decision = policy.next_wait(&ctx(1, &response(503, &[])), &mut rng_from_seed(1));
    let took = start.elapsed();
    match decision {
        WaitDecision::ScriptError { message } => {
            assert!(message.contains(want), "{src}: {message}");
        }
        other => panic!("{src}: {other:?}"),
    }
    // The limit's own message proves the script was stopped, not that it finished; how fast
    // is a benchmark question (a wall-clock assertion here failed on a loaded machine).
    eprintln!("{src}: stopped after {took:?}");
}

#[test]
fn endless_loop_is_stopped_quickly() {
    assert_stopped_quickly(
        "fn get_delay(ctx) { loop { } }",
        "operations (endless loop?)",
    );
    assert_stopped_quickly(
        "fn get_delay(ctx) { let x = 0; while true { x += 1; } x }",
        "operations (endless loop?)",
    );
}

#[test]
fn endless_recursion_is_stopped_quickly() {
    assert_stopped_quickly(
        "fn f(x) { f(x + 1) } fn get_delay(ctx) { f(0) }",
        "endless recursion?",
    );
    assert_stopped_quickly("fn get_delay(ctx) { get_delay(ctx) }", "endless recursion?");
}

#[test]
fn endless_allocation_is_stopped_quickly() {
    assert_stopped_quickly(
        "fn get_delay(ctx) { let s = \"x\"; loop { s += s; } }",
        "too large",
    );
    assert_stopped_quickly(
        "fn get_delay(ctx) { let a = [1]; loop { a += a; } }",
        "too large",
    );
    assert_stopped_quickly(
        "fn get_delay(ctx) { let a = []; loop { a.push(\"xx\"); } }",
        "too large",
    );
    assert_stopped_quickly(
        "fn get_delay(ctx) { let m = #{}; loop { m = #{ a: m, b: m }; } }",
        "too large",
    );
    // Growing a map key by key is cut by the operation budget before the size limit; either way
    // it ends quickly with a clear error.
    assert_stopped_quickly(
        "fn get_delay(ctx) { let m = #{}; let i = 0; loop { m[`k${i}`] = i; i += 1; } }",
        "script stopped",
    );
}

#[test]
fn simulate_reports_quantiles_and_bounds() {
    let mut p = profile(backoff(Strategy::Exponential, 1000, Some(10_000), 1500));
    p.max_retries = Some(3);
    let stats = simulate(&p, 1000, 7).expect("simulates");
    assert_eq!(stats.len(), 3);
    for (i, s) in stats.iter().enumerate() {
        assert_eq!(s.retry as usize, i + 1);
        assert!(s.wait.min <= s.wait.p50 && s.wait.p50 <= s.wait.p95 && s.wait.p95 <= s.wait.max);
        assert!(s.wait.max <= s.bound_max);
        assert!(s.cumulative.max >= s.wait.max);
    }
    assert_eq!(
        [stats[0].bound_max, stats[1].bound_max, stats[2].bound_max],
        [2500.0, 4500.0, 8500.0]
    );
    // Same seed, same numbers.
    assert_eq!(simulate(&p, 1000, 7).expect("simulates"), stats);
    // Cumulative of wait 1 is wait 1.
    assert_eq!(stats[0].cumulative, stats[0].wait);

    let mut h = profile(header_backoff(1500));
    h.max_retries = Some(2);
    let stats = simulate(&h, 200, 1).expect("simulates");
    assert_eq!(stats[0].bound_max, 1000.0);
    assert!(stats[0].wait.max <= 1000.0);

    let mut c = profile(Backoff::new(Strategy::Custom));
    c.backoff.script =
        Some("fn get_delay(ctx) { if ctx.retry > 2 { () } else { 100 * ctx.retry } }".into());
    c.max_retries = Some(4);
    let stats = simulate(&c, 10, 1).expect("simulates");
    assert_eq!(stats[1].wait.max, 200.0);
    assert_eq!(stats[1].cumulative.max, 300.0);
    assert_eq!(stats[2].wait, Quantiles::default());
    assert_eq!((stats[1].reached, stats[2].reached), (10, 0));
    c.backoff.script = Some("fn get_delay(ctx) {".into());
    assert!(simulate(&c, 10, 1).is_err());
}

#[test]
fn streaming_simulation_matches_exact_within_the_stated_accuracy() {
    // The same seeded samples, stored both ways: min, max and reached agree exactly, p50 and
    // p95 are at most 0.1 % above the exact nearest-rank values (exact below 2048 ms).
    for strategy in [Strategy::Exponential, Strategy::DecorrelatedJitter] {
        let mut p = profile(backoff(strategy, 1000, Some(60_000), 1500));
        p.max_retries = Some(12);
        let run = |exact| {
            super::simulate::sample_runs(&p, 4000, 11, &mut |_| true, exact)
                .expect("simulates")
                .expect("not cancelled")
        };
        let (exact, streaming) = (run(true), run(false));
        for (e, s) in exact.iter().zip(&streaming) {
            assert_eq!(
                (s.retry, s.reached, s.bound_max),
                (e.retry, e.reached, e.bound_max)
            );
            for (e, s) in [(e.wait, s.wait), (e.cumulative, s.cumulative)] {
                assert_eq!((s.min, s.max), (e.min, e.max), "{strategy:?}");
                for (e, s) in [(e.p50, s.p50), (e.p95, s.p95)] {
                    let tolerance = if e < 2048.0 { 0.0 } else { e / 1000.0 };
                    assert!(
                        s >= e && s - e <= tolerance,
                        "{strategy:?}: {s} vs exact {e}"
                    );
                }
            }
        }
        assert_ne!(
            exact, streaming,
            "large values fall into wider buckets, so the two differ somewhere"
        );
    }
}

#[test]
fn simulate_with_reports_progress_and_cancels() {
    let mut p = profile(backoff(Strategy::Exponential, 1000, Some(10_000), 1500));
    p.max_retries = Some(1000);
    // 1000 retries: a call every 65536 / 1000 = 65 samples, never after the last one.
    let mut calls = Vec::new();
    let stats = simulate_with(&p, 200, 3, &mut |done| {
        calls.push(done);
        true
    })
    .expect("simulates")
    .expect("not cancelled");
    assert_eq!(calls, [65, 130, 195]);
    assert_eq!(stats, simulate(&p, 200, 3).expect("simulates"));
    let mut seen = 0;
    let cancelled = simulate_with(&p, 10_000, 3, &mut |done| {
        seen = done;
        done < 130
    });
    assert_eq!(cancelled, Ok(None));
    assert_eq!(seen, 130, "stops at the first false");
    // Few retries: at most 1024 samples between calls.
    p.max_retries = Some(2);
    let mut calls = 0;
    simulate_with(&p, 5000, 3, &mut |_| {
        calls += 1;
        true
    })
    .expect("simulates");
    assert_eq!(calls, 4);
}

#[test]
fn huge_simulations_stream_instead_of_keeping_every_value() {
    // 1000 retries × 3000 samples is above the exact limit: fixed waits of 5 s land in one
    // histogram bucket whose top is above 5000, yet every quantile is reported exactly,
    // clamped into the exact min and max.
    let mut p = profile(backoff(Strategy::Fixed, 5000, None, 0));
    p.max_retries = Some(1000);
    const { assert!(3000 * 1000 > SIMULATE_EXACT_MAX) };
    let stats = simulate(&p, 3000, 1).expect("simulates");
    let last = stats.last().expect("1000 rows");
    assert_eq!(last.reached, 3000);
    assert_eq!(
        last.wait,
        Quantiles {
            min: 5000.0,
            p50: 5000.0,
            p95: 5000.0,
            max: 5000.0
        }
    );
    assert_eq!(last.cumulative.max, 5_000_000.0);
}

#[test]
fn simulate_ends_samples_at_the_deadline_as_the_engine_does() {
    // Fixed 1000 ms waits, 10 retries, a 3500 ms deadline: waits 1–3 fit (3000 ms), wait 4
    // would end at 4000 ms, past the deadline, so no sample reaches retry 4.
    let mut p = profile(backoff(Strategy::Fixed, 1000, None, 0));
    p.max_retries = Some(10);
    p.deadline_ms = Some(3500);
    let stats = simulate(&p, 50, 1).expect("simulates");
    let reached: Vec<u32> = stats.iter().map(|s| s.reached).collect();
    assert_eq!(reached, [50, 50, 50, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(stats[2].cumulative.max, 3000.0);
    // A custom script sees the time left.
    let mut c = profile(Backoff::new(Strategy::Custom));
    c.backoff.script = Some("fn get_delay(ctx) { ctx.time_left_ms / 2 }".into());
    c.max_retries = Some(2);
    c.deadline_ms = Some(1000);
    let stats = simulate(&c, 3, 1).expect("simulates");
    assert_eq!((stats[0].wait.max, stats[1].wait.max), (500.0, 250.0));
}

#[test]
fn simulate_surfaces_script_errors_with_the_retry() {
    let cases = [
        ("throw \"boom\"", "boom"),
        ("0.0 / 0.0", "NaN"),
        ("-500", "-500"),
        ("\"100\"", "the string \"100\""),
        ("1.0 / 0.0", "+infinity"),
        ("loop {}", "operations"),
        ("get_delay(ctx)", "nested deeper"),
    ];
    for (body, want) in cases {
        let mut c = profile(Backoff::new(Strategy::Custom));
        // Retry 1 is fine; retry 2 fails, so the error must name retry 2.
        c.backoff.script = Some(format!(
            "fn get_delay(ctx) {{ if ctx.retry < 2 {{ 100 }} else {{ {body} }} }}"
        ));
        c.max_retries = Some(3);
        let err = simulate(&c, 5, 1).expect_err(body);
        let PolicyError::ScriptRuntime { retry, message } = &err else {
            panic!("{body}: {err:?}");
        };
        assert_eq!(*retry, 2, "{body}");
        assert!(message.contains(want), "{body}: {message}");
        assert!(err.to_string().contains("retry 2"), "{err}");
    }
}

#[test]
fn simulate_counts_runs_that_stopped() {
    let mut c = profile(Backoff::new(Strategy::Custom));
    // About half the runs stop (return ()) at retry 2.
    c.backoff.script =
        Some("fn get_delay(ctx) { if ctx.retry == 2 && rand() < 0.5 { () } else { 100 } }".into());
    c.max_retries = Some(3);
    let stats = simulate(&c, 1000, 3).expect("() is not an error");
    assert_eq!(stats[0].reached, 1000);
    assert!(
        (300..700).contains(&stats[1].reached),
        "{}",
        stats[1].reached
    );
    assert_eq!(stats[2].reached, stats[1].reached);
    assert_eq!(stats[1].wait.min, 100.0);
    assert_eq!(stats[2].cumulative.max, 300.0);
}

#[test]
fn huge_retry_after_is_quoted_not_printed_as_seconds() {
    let policy = Policy::new(profile(header_backoff(0))).expect("valid");
    for raw in ["18446744073709551616", "86401"] {
        let outcome = response(429, &[("Retry-After", raw)]);
        assert_eq!(
            policy.next_wait(&ctx(1, &outcome), &mut rng_from_seed(1)),
            WaitDecision::Stop {
                reason: format!(
                    "server asked for more than 24 h (Retry-After {raw:?}), max delay is 10 s"
                )
            }
        );
    }
    // Exactly 24 h is still a number.
    let outcome = response(429, &[("Retry-After", "86400")]);
    let WaitDecision::Stop { reason } = policy.next_wait(&ctx(1, &outcome), &mut rng_from_seed(1))
    else {
        panic!("stops")
    };
    assert!(reason.starts_with("server asked for 86400 s"), "{reason}");
}
