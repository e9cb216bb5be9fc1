//! Profiles with conditions on responses (DESIGN.md §8): `retry_on.response` and `success_when`
//! load, round-trip, and their unusable matchers are named with path and position.

use retryscope::model::RetryProfile;
use retryscope::profile::load_str;

const POLLING: &str = r#"{
  "format": "retryscope-profile/1",
  "name": "poll a job",
  "retry_on": {
    "response": [{"status": [200], "body_matches": "(?i)rate limit"}]
  },
  "success_when": [{"json_pointer": "/state", "equals": "done"}],
  "backoff": {"strategy": "fixed", "base_delay_ms": 10}
}"#;

#[test]
fn conditions_load_and_round_trip() {
    let p = load_str(POLLING).expect("valid");
    assert_eq!(p.success_when.len(), 1);
    assert_eq!(p.success_when[0].json_pointer.as_deref(), Some("/state"));
    assert_eq!(p.success_when[0].equals, Some(serde_json::json!("done")));
    assert_eq!(
        p.retry_on.response[0].body_matches.as_deref(),
        Some("(?i)rate limit")
    );
    let text = serde_json::to_string_pretty(&p).expect("serialize");
    let again: RetryProfile = load_str(&text).expect("reload");
    assert_eq!(again, p);
}

#[test]
fn a_profile_without_conditions_writes_no_condition_keys() {
    let p = load_str(
        r#"{"format": "retryscope-profile/1", "name": "x", "backoff": {"strategy": "fixed"}}"#,
    )
    .expect("valid");
    let text = serde_json::to_string(&p).expect("serialize");
    assert!(!text.contains("success_when"), "{text}");
    assert!(!text.contains("\"response\""), "{text}");
}

#[test]
fn bad_matchers_are_named_with_path_and_position() {
    let text = r#"{
  "format": "retryscope-profile/1",
  "name": "bad",
  "retry_on": {"response": [{"body_contains": "ok"}, {"body_matches": "(unclosed"}]},
  "success_when": [
    {"json_pointer": "state", "equals": "done"},
    {"header": "X-State", "equals": 3}
  ],
  "backoff": {"strategy": "fixed"}
}"#;
    let e = load_str(text).expect_err("invalid");
    let found: Vec<(&str, Option<usize>)> =
        e.issues.iter().map(|i| (i.path.as_str(), i.line)).collect();
    assert!(
        found.contains(&("retry_on.response[1].body_matches", Some(4))),
        "{e}"
    );
    assert!(
        found.contains(&("success_when[0].json_pointer", Some(6))),
        "{e}"
    );
    assert!(found.contains(&("success_when[1].equals", Some(7))), "{e}");
    assert_eq!(e.issues.len(), 3, "{e}");
    let regex = &e.issues[0];
    assert!(
        regex.message.contains("invalid regex: unclosed group"),
        "{regex}"
    );
}

#[test]
fn empty_and_unknown_matcher_keys_are_refused_by_the_schema() {
    let text = r#"{"format": "retryscope-profile/1", "name": "x", "success_when": [{}],
        "backoff": {"strategy": "fixed"}}"#;
    let e = load_str(text).expect_err("empty matcher");
    let issue = e
        .issues
        .iter()
        .find(|i| i.path == "success_when[0]")
        .expect("an issue at the empty matcher");
    assert_eq!(
        issue.message,
        "expected an object with at least 1 key, found an empty object"
    );
    let text = r#"{"format": "retryscope-profile/1", "name": "x",
        "success_when": [{"json_pointer": "/a", "equal": "done"}],
        "backoff": {"strategy": "fixed"}}"#;
    let e = load_str(text).expect_err("unknown key");
    let issue = e
        .issues
        .iter()
        .find(|i| i.path.starts_with("success_when[0]"))
        .expect("an issue at the matcher");
    assert!(issue.message.contains("equals"), "{issue}");
}
