//! The shipped JSON Schema equals the generated one, every built-in and good fixture conforms to
//! it (checked by the `jsonschema` crate, the validator the loader uses), and the loader's limits
//! are the schema's.

use retryscope::profile::{BUILTIN_SOURCES, load_str, schema_json, validate};
use serde_json::Value;

fn schema() -> Value {
    serde_json::from_str(retryscope::profile::SHIPPED_SCHEMA).expect("the shipped schema is JSON")
}

#[test]
fn shipped_schema_matches_the_code() {
    let shipped = std::fs::read_to_string("assets/retry-profile.schema.json").expect("shipped");
    assert!(
        shipped == schema_json(),
        "assets/retry-profile.schema.json is stale; regenerate it with \
         `cargo run -- profile schema > assets/retry-profile.schema.json`"
    );
    assert_eq!(retryscope::profile::SHIPPED_SCHEMA, shipped);
}

#[test]
fn schema_is_strict_about_unknown_fields() {
    let schema = schema();
    assert_eq!(schema["additionalProperties"], Value::Bool(false));
    assert_eq!(
        schema["$defs"]["Backoff"]["additionalProperties"],
        Value::Bool(false)
    );
    let required = schema["required"].as_array().expect("required list");
    assert!(required.contains(&Value::from("format")));
}

#[test]
fn builtins_and_good_fixture_match_the_schema() {
    let validator = jsonschema::validator_for(&schema()).expect("the schema compiles");
    let mut docs: Vec<(String, String)> = BUILTIN_SOURCES
        .iter()
        .map(|(id, text)| ((*id).to_owned(), (*text).to_owned()))
        .collect();
    docs.push((
        "good.json".into(),
        std::fs::read_to_string("tests/fixtures/good.json").expect("fixture"),
    ));
    for (name, text) in docs {
        let doc: Value = serde_json::from_str(&text).expect("json");
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(
            errors.is_empty(),
            "{name} does not match the schema: {errors:#?}"
        );
    }
}

#[test]
fn the_schema_catches_violations() {
    let validator = jsonschema::validator_for(&schema()).expect("the schema compiles");
    let doc = serde_json::json!({
        "format": "retryscope-profile/1",
        "name": "x",
        "extra": 1,
        "max_retries": -1,
        "backoff": {"strategy": "nope", "base_delay_ms": 18_446_744_073_709_551_616.0_f64}
    });
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| e.instance_path().to_string())
        .collect();
    assert_eq!(
        errors.len(),
        4,
        "extra, max_retries, strategy, base_delay_ms beyond u64: {errors:#?}"
    );
}

/// Format 2 lifted the old limit of 1000: `max_retries` is any u32 or `null` (unlimited, which
/// needs a deadline), in the schema, the loader and `validate` alike.
#[test]
fn max_retries_is_any_u32_or_null_and_unlimited_needs_a_deadline() {
    assert_eq!(
        schema()["properties"]["max_retries"]["maximum"],
        Value::from(u32::MAX)
    );
    let doc = |n: &str, deadline: &str| {
        format!(
            r#"{{"format": "retryscope-profile/2", "name": "x", "max_retries": {n}, "deadline_ms": {deadline}, "backoff": {{"strategy": "fixed"}}}}"#
        )
    };
    let at_limit = load_str(&doc("4294967295", "null")).expect("u32::MAX is fine");
    assert_eq!(at_limit.max_retries, Some(u32::MAX));
    let e = load_str(&doc("4294967296", "null")).expect_err("one more is refused");
    assert_eq!(e.issues.len(), 1, "{e}");
    assert!(
        e.issues[0].to_string().starts_with("1:49: max_retries: "),
        "{e}"
    );
    let unlimited = load_str(&doc("null", "60000")).expect("unlimited with a deadline");
    assert_eq!(unlimited.max_retries, None);
    let e = load_str(&doc("null", "null")).expect_err("unlimited without a deadline");
    assert_eq!(
        e.issues[0].to_string(),
        "1:49: max_retries: unlimited retries need a deadline; set deadline_ms or give max_retries a number"
    );
    let mut in_code = unlimited;
    in_code.deadline_ms = None;
    let issues = validate(&in_code);
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].path, "max_retries");
    assert_eq!(
        issues[0].message, e.issues[0].message,
        "the same words in code"
    );
}

/// The loader searches a huge document for violations with every array cut to its first 1000
/// elements (src/profile/shape.rs), which finds exactly the full document's violations at those
/// paths only while no keyword judges an array as a whole.
#[test]
fn no_keyword_judges_a_whole_array() {
    fn keys(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                for (k, child) in map {
                    out.push(k.clone());
                    keys(child, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|i| keys(i, out)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    keys(&schema(), &mut found);
    for keyword in [
        "minItems",
        "maxItems",
        "uniqueItems",
        "contains",
        "prefixItems",
        "unevaluatedItems",
    ] {
        assert!(
            !found.iter().any(|k| k == keyword),
            "`{keyword}` in the schema: revisit shape::cut_arrays"
        );
    }
}
