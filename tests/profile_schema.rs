//! The shipped JSON Schema equals the generated one, and every built-in and good fixture
//! conforms to it (checked by a small validator of the keywords schemars emits).

use retryscope::profile::{BUILTIN_SOURCES, schema_json};
use serde_json::Value;

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
    let schema: Value = serde_json::from_str(&schema_json()).expect("json");
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
    let schema: Value = serde_json::from_str(&schema_json()).expect("json");
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
        let mut errors = Vec::new();
        check(&schema, &schema, &doc, name.clone(), &mut errors);
        assert!(
            errors.is_empty(),
            "{name} does not match the schema: {errors:#?}"
        );
    }
}

#[test]
fn the_validator_catches_violations() {
    let schema: Value = serde_json::from_str(&schema_json()).expect("json");
    let doc = serde_json::json!({
        "format": "retryscope-profile/1",
        "name": "x",
        "extra": 1,
        "max_retries": -1,
        "backoff": {"strategy": "nope"}
    });
    let mut errors = Vec::new();
    check(&schema, &schema, &doc, String::new(), &mut errors);
    assert!(errors.len() >= 3, "{errors:#?}");
}

/// Validates `value` against `schema` for the keywords schemars 1 emits for our types:
/// $ref, type (string or list), properties, required, additionalProperties, items, enum,
/// const, oneOf/anyOf, minimum/maximum, format uint*.
fn check(root: &Value, schema: &Value, value: &Value, at: String, errors: &mut Vec<String>) {
    let Some(s) = schema.as_object() else {
        return; // `true` schema
    };
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.trim_start_matches("#/$defs/");
        check(root, &root["$defs"][name], value, at.clone(), errors);
    }
    if let Some(t) = s.get("type") {
        let types: Vec<&str> = match t {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.iter().any(|t| type_matches(t, value)) {
            errors.push(format!("{at}: {value} is not of type {types:?}"));
            return;
        }
    }
    if let Some(options) = s.get("enum").and_then(Value::as_array)
        && !options.contains(value)
    {
        errors.push(format!("{at}: {value} is not one of {options:?}"));
    }
    if let Some(c) = s.get("const")
        && c != value
    {
        errors.push(format!("{at}: {value} is not {c}"));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(branches) = s.get(key).and_then(Value::as_array) {
            let matching = branches
                .iter()
                .filter(|b| {
                    let mut e = Vec::new();
                    check(root, b, value, at.clone(), &mut e);
                    e.is_empty()
                })
                .count();
            let ok = if key == "oneOf" {
                matching == 1
            } else {
                matching >= 1
            };
            if !ok {
                errors.push(format!(
                    "{at}: {value} matches {matching} branches of {key}"
                ));
            }
        }
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = s.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            errors.push(format!("{at}: {n} < minimum {min}"));
        }
        if let Some(max) = s.get("maximum").and_then(Value::as_f64)
            && n > max
        {
            errors.push(format!("{at}: {n} > maximum {max}"));
        }
    }
    if let Some(obj) = value.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        if let Some(required) = s.get("required").and_then(Value::as_array) {
            for r in required.iter().filter_map(Value::as_str) {
                if !obj.contains_key(r) {
                    errors.push(format!("{at}: missing required `{r}`"));
                }
            }
        }
        for (k, v) in obj {
            let child = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            match props.and_then(|p| p.get(k)) {
                Some(ps) => check(root, ps, v, child, errors),
                None => {
                    if s.get("additionalProperties") == Some(&Value::Bool(false)) {
                        errors.push(format!("{at}: unexpected property `{k}`"));
                    }
                }
            }
        }
    }
    if let (Some(items), Some(arr)) = (s.get("items"), value.as_array()) {
        for (i, v) in arr.iter().enumerate() {
            check(root, items, v, format!("{at}[{i}]"), errors);
        }
    }
}

fn type_matches(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        _ => false,
    }
}
