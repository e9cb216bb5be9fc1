//! A pre-pass over the parsed JSON that reports every wrong-typed scalar field at once (serde
//! stops at the first). Covers the top-level and nested string, number and boolean fields, and
//! that sections and header entries are objects (serde would read an array by position);
//! enums and status sets are left to serde.

use super::issue::ProfileIssue;
use serde_json::Value;

/// The type a scalar field must have.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// A JSON string.
    Text,
    /// A whole number in 0..=u32::MAX (`max_retries`, whose semantic limit is 1000).
    Count,
    /// A whole number in 0..=u64::MAX (ms, seeds).
    Whole,
    /// Any JSON number.
    Number,
    /// `true` or `false`.
    Bool,
    /// A JSON object (serde would also take an array and read it by position).
    Object,
}

impl Kind {
    fn expected(self) -> &'static str {
        match self {
            Kind::Text => "a string",
            Kind::Count => "a whole number from 0 to 1000",
            Kind::Whole => "a whole number ≥ 0",
            Kind::Number => "a number",
            Kind::Bool => "true or false",
            Kind::Object => "an object",
        }
    }

    fn accepts(self, v: &Value) -> bool {
        match self {
            Kind::Text => v.is_string(),
            Kind::Count => v.as_u64().is_some_and(|n| u32::try_from(n).is_ok()),
            Kind::Whole => v.is_u64(),
            Kind::Number => v.is_number(),
            Kind::Bool => v.is_boolean(),
            Kind::Object => v.is_object(),
        }
    }
}

/// `(field, kind, nullable)` of the top level.
const TOP: &[(&str, Kind, bool)] = &[
    ("name", Kind::Text, false),
    ("provider", Kind::Text, false),
    ("description", Kind::Text, false),
    ("max_retries", Kind::Count, false),
    ("deadline_ms", Kind::Whole, true),
    ("seed", Kind::Whole, true),
    ("retry_on", Kind::Object, false),
    ("backoff", Kind::Object, false),
    ("timeouts", Kind::Object, false),
];

/// The fields of a `backoff` (and of its `fallback`).
const BACKOFF: &[(&str, Kind, bool)] = &[
    ("base_delay_ms", Kind::Whole, false),
    ("max_delay_ms", Kind::Whole, true),
    ("jitter_window_ms", Kind::Whole, false),
    ("jitter_ratio", Kind::Number, false),
    ("hard_cap", Kind::Bool, false),
    ("script", Kind::Text, true),
    ("fallback", Kind::Object, true),
];

const RETRY_ON: &[(&str, Kind, bool)] = &[("non_idempotent", Kind::Bool, false)];

const TIMEOUTS: &[(&str, Kind, bool)] = &[
    ("resolve_ms", Kind::Whole, true),
    ("connect_ms", Kind::Whole, true),
    ("read_ms", Kind::Whole, true),
    ("total_ms", Kind::Whole, true),
];

/// Every wrong-typed scalar field of a profile document, in field order, with its path
/// (`backoff.base_delay_ms`) and a message `expected a whole number ≥ 0, found the string "3"`.
/// Positions are left unset (the loader fills them). Absent fields are fine (defaults apply).
pub fn find(doc: &Value) -> Vec<ProfileIssue> {
    let mut issues = Vec::new();
    let Some(top) = doc.as_object() else {
        return issues;
    };
    check(top, "", TOP, &mut issues);
    if let Some(backoff) = top.get("backoff").and_then(Value::as_object) {
        check(backoff, "backoff", BACKOFF, &mut issues);
        header_items(backoff, "backoff", &mut issues);
        if let Some(fallback) = backoff.get("fallback").and_then(Value::as_object) {
            check(fallback, "backoff.fallback", BACKOFF, &mut issues);
            header_items(fallback, "backoff.fallback", &mut issues);
        }
    }
    if let Some(retry_on) = top.get("retry_on").and_then(Value::as_object) {
        check(retry_on, "retry_on", RETRY_ON, &mut issues);
    }
    if let Some(timeouts) = top.get("timeouts").and_then(Value::as_object) {
        check(timeouts, "timeouts", TIMEOUTS, &mut issues);
    }
    issues
}

/// Every `headers` entry that is not an object (an array would be read by position).
fn header_items(
    backoff: &serde_json::Map<String, Value>,
    parent: &str,
    issues: &mut Vec<ProfileIssue>,
) {
    let Some(items) = backoff.get("headers").and_then(Value::as_array) else {
        return;
    };
    for (i, item) in items.iter().enumerate() {
        if !item.is_object() {
            issues.push(ProfileIssue::new(
                format!("{parent}.headers[{i}]"),
                format!(
                    "expected an object like {{\"name\": \"Retry-After\", \"unit\": \"seconds\"}}, found {}",
                    found(item)
                ),
            ));
        }
    }
}

fn check(
    object: &serde_json::Map<String, Value>,
    parent: &str,
    fields: &[(&str, Kind, bool)],
    issues: &mut Vec<ProfileIssue>,
) {
    for &(name, kind, nullable) in fields {
        let Some(v) = object.get(name) else { continue };
        if kind.accepts(v) || (nullable && v.is_null()) {
            continue;
        }
        let path = if parent.is_empty() {
            name.to_owned()
        } else {
            format!("{parent}.{name}")
        };
        let or_null = if nullable { " or null" } else { "" };
        issues.push(ProfileIssue::new(
            path,
            format!("expected {}{or_null}, found {}", kind.expected(), found(v)),
        ));
    }
}

/// `the string "3"`, `-5`, `1.5`, `true`, `null`, `an array`, `an object`.
fn found(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
        // serde_json keeps integers past u64 as floats (1.8446744073709552e+19): say what it is.
        Value::Number(n)
            if n.as_f64().is_some_and(|f| f.abs() >= 1.8e19) && n.as_u64().is_none() =>
        {
            "a number beyond 18446744073709551615".into()
        }
        other => other.to_string(),
    }
}
