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
