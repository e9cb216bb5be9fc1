//! The JSON-pointer lookup of `success_when` / `retry_on.response` conditions agrees with
//! `serde_json`'s own `Value::pointer` on any JSON document, however it is spaced and escaped;
//! and where it passes members over without validating them, it says so by design (policy
//! docs): a broken member the pointer does not name does not change the answer.

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use retryscope::policy::{Lookup, lookup_pointer, pointer_tokens};
use serde_json::{Value, json};

/// Any JSON value a few levels deep, keys drawn from a small set (so pointers often hit) that
/// includes ones needing escapes in JSON and in pointers.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        "[a-z\"\\\\/ \u{e9}\n]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("state".to_owned()),
        Just("a/b".to_owned()),
        Just("t~x".to_owned()),
        Just("q\"k".to_owned()),
        Just(String::new()),
        "[a-c]{1,2}",
    ]
}

/// A pointer of up to 4 tokens, each a key or an index, escaped per RFC 6901.
fn pointer() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        key(),
        (0usize..7).prop_map(|i| i.to_string()),
        Just("01".to_owned()),
        Just("-".to_owned()),
    ];
    prop::collection::vec(token, 0..4).prop_map(|tokens| {
        let mut pointer = String::new();
        for t in &tokens {
            pointer.push('/');
            pointer.push_str(&t.replace('~', "~0").replace('/', "~1"));
        }
        pointer
    })
}

/// The document written compactly, pretty-printed, or with unicode escapes in its strings.
fn written(v: &Value, style: u8) -> Vec<u8> {
    match style {
        0 => serde_json::to_vec(v).unwrap(),
        1 => serde_json::to_vec_pretty(v).unwrap(),
        _ => serde_json::to_string(v)
            .unwrap()
            .replace('e', "\\u0065")
            .into_bytes(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn agrees_with_serde_json_pointer(v in json_value(), p in pointer(), style in 0u8..3) {
        // Style 2 escapes `e` everywhere, also outside strings (`true`, `1e5`): keep it to
        // documents whose only `e`s are inside strings.
        let body = written(&v, style);
        prop_assume!(style < 2 || serde_json::from_slice::<Value>(&body).is_ok());
        let want = match v.pointer(&p) {
            Some(found) => Lookup::Found(found.clone()),
            None => Lookup::Missing,
        };
        prop_assert_eq!(lookup_pointer(&body, &pointer_tokens(&p).unwrap()), want);
    }
}

fn at(body: &str, pointer: &str) -> Lookup {
    lookup_pointer(body.as_bytes(), &pointer_tokens(pointer).unwrap())
}

#[test]
fn a_member_the_pointer_passes_over_is_not_validated_but_the_path_is() {
    // Passed over: a broken scalar inside another member does not change the answer.
    assert_eq!(
        at(r#"{"log": [1, tru, 2.x], "state": "done"}"#, "/state"),
        Lookup::Found(json!("done"))
    );
    // The found value itself is parsed, and so checked.
    assert_eq!(at(r#"{"state": tru}"#, "/state"), Lookup::NotJson);
    // Brackets and strings are followed, so a mismatched bracket or a cut string is not JSON.
    assert_eq!(
        at(r#"{"log": [1, 2}, "state": "done"}"#, "/state"),
        Lookup::NotJson
    );
    assert_eq!(
        at(r#"{"log": "cut, "state": "done"}"#, "/state"),
        Lookup::NotJson
    );
    // Where the walk goes, the syntax is checked.
    assert_eq!(
        at(r#"{"log" 1, "state": "done"}"#, "/state"),
        Lookup::NotJson
    );
    assert_eq!(
        at(r#"{"log": 1 "state": "done"}"#, "/state"),
        Lookup::NotJson
    );
    assert_eq!(at("{log: 1}", "/state"), Lookup::NotJson);
    assert_eq!(at("[1, 2", "/5"), Lookup::NotJson);
    assert_eq!(at("[1, 2]", "/5"), Lookup::Missing);
    assert_eq!(at("  {}  ", "/state"), Lookup::Missing);
    assert_eq!(at(r#""text""#, "/state"), Lookup::Missing);
    assert_eq!(at("<html>", "/state"), Lookup::NotJson);
}
