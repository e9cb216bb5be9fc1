//! A custom script that does not compile is reported through the policy layer with its
//! position inside the script (needs the real `policy::Policy::new`).

use retryscope::profile::load_str;

#[test]
fn script_compile_error_is_reported_at_backoff_script() {
    let text = r#"{
  "format": "retryscope-profile/1",
  "name": "Broken script",
  "backoff": {
    "strategy": "custom",
    "script": "fn get_delay(ctx) {\n  let x = ;\n}"
  }
}"#;
    let e = load_str(text).expect_err("script does not compile");
    assert_eq!(e.issues.len(), 1, "{e}");
    let i = &e.issues[0];
    assert_eq!(i.path, "backoff.script");
    assert!(i.message.contains("script line 2"), "{i}");
    assert_eq!(i.line, Some(6));
}

fn custom(script: &str) -> String {
    format!(
        r#"{{
  "format": "retryscope-profile/1",
  "name": "Dry run",
  "max_retries": 5,
  "backoff": {{
    "strategy": "custom",
    "script": {}
  }}
}}"#,
        serde_json::to_string(script).expect("a string")
    )
}

#[test]
fn script_that_fails_at_run_time_is_reported_by_the_dry_run() {
    for (body, want) in [
        ("throw \"no delay for you\"", "no delay for you"),
        ("0.0 / 0.0", "NaN"),
        ("-500", "-500"),
        ("\"100\"", "the string \"100\""),
        ("1.0 / 0.0", "+infinity"),
        ("loop {}", "operations"),
        ("get_delay(ctx)", "nested deeper"),
    ] {
        let script =
            format!("fn get_delay(ctx) {{\n  if ctx.retry < 3 {{ 100 }} else {{ {body} }}\n}}");
        let e = load_str(&custom(&script)).expect_err(body);
        assert_eq!(e.issues.len(), 1, "{e}");
        let i = &e.issues[0];
        assert_eq!(i.path, "backoff.script", "{i}");
        assert_eq!(i.line, Some(7), "{i}");
        assert!(i.message.contains("retry 3"), "{i}");
        assert!(i.message.contains(want), "{body}: {i}");
    }
}

#[test]
fn runtime_error_names_the_position_inside_the_script() {
    let e = load_str(&custom("fn get_delay(ctx) {\n  ctx.nope.deeper\n}")).expect_err("fails");
    let msg = &e.issues[0].message;
    assert!(msg.contains("line 2"), "{msg}");
}

#[test]
fn script_returning_unit_or_numbers_passes_the_dry_run() {
    load_str(&custom("fn get_delay(ctx) { () }")).expect("() only stops retrying");
    load_str(&custom("fn get_delay(ctx) { 100 * ctx.retry + rand() }")).expect("numbers are fine");
    // Only retries 1..=3 are tried.
    load_str(&custom(
        "fn get_delay(ctx) { if ctx.retry > 3 { -1 } else { 5 } }",
    ))
    .expect("retry 4 is not dry-run");
}

#[test]
fn script_that_fails_only_when_throttled_is_reported_by_the_429_dry_run() {
    let script = "fn get_delay(ctx) {\n  if ctx.status == 429 { 0.0 / 0.0 } else { 100 }\n}";
    let e = load_str(&custom(script)).expect_err("NaN on 429");
    assert_eq!(e.issues.len(), 1, "{e}");
    let i = &e.issues[0];
    assert_eq!(i.path, "backoff.script", "{i}");
    assert!(i.message.contains("NaN"), "{i}");
    assert!(i.message.contains("429 response and Retry-After: 1"), "{i}");
    // Honouring the header through the helper passes.
    load_str(&custom(
        "fn get_delay(ctx) {\n  let h = ctx.headers[\"retry-after\"];\n  if h != () { retry_after(h) } else { 100 }\n}",
    ))
    .expect("retry_after() of \"1\" is 1000 ms");
}

#[test]
fn script_that_fails_only_on_a_network_error_is_reported_by_the_connect_dry_run() {
    // A common slip: arithmetic on ctx.status, which is () when no response came back.
    let script = "fn get_delay(ctx) {\n  10 * (ctx.status - 400)\n}";
    let e = load_str(&custom(script)).expect_err("() - 400 fails");
    assert_eq!(e.issues.len(), 1, "{e}");
    let i = &e.issues[0];
    assert_eq!(i.path, "backoff.script", "{i}");
    assert!(i.message.contains("connection error"), "{i}");
    assert!(i.message.contains("retry 1"), "{i}");
    // Checking for () first passes.
    load_str(&custom(
        "fn get_delay(ctx) {\n  if ctx.status == () { 300 } else { 10 * (ctx.status - 400) }\n}",
    ))
    .expect("the network-error branch is handled");
}
