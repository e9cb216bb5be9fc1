//! Conditions on responses (DESIGN.md §8): one matcher is an object whose keys must all hold
//! (AND); a list of matchers holds when one of them does (OR).
//!
//! Used by `retry_on.response` (a match makes any response retryable) and `success_when` (a
//! success status counts only when one matcher holds). Compiled once per run by
//! `crate::policy::MatcherList`.

use super::status_set::StatusSet;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// One condition on a response; every key present must hold.
///
/// Shapes (DESIGN.md §8), combinable in one object:
/// - `{"status": [200, "500-599"]}`: the status is in the set.
/// - `{"header": "X-State", "equals": "done"}` (exact, case-sensitive value) or
///   `{"header": "X-State", "matches": "^do"}` (regex, searched anywhere); `{"header": "X"}` alone:
///   the header is present. Header names are case-insensitive; any value of a repeated header may
///   match.
/// - `{"json_pointer": "/state", "equals": "done"}` (RFC 6901 pointer into the body parsed as JSON;
///   `equals` is any JSON value, compared exactly) or `{"json_pointer": "/id", "exists": true}`
///   (`false`: the pointer must not resolve); `{"json_pointer": "/x"}` alone: it exists.
/// - `{"body_contains": "rate limit"}` (exact bytes) or `{"body_matches": "(?i)rate.?limit"}` (regex).
///
/// The body is the attempt's kept preview (1 MiB by default). A matcher has at most one of
/// `header` and `json_pointer` (`equals` belongs to it); the loader says so otherwise. An empty
/// matcher is refused (it would match every response).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("minProperties" = 1))]
pub struct ResponseMatcher {
    /// The response status is in this set (codes and `"low-high"` ranges).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<StatusSet>,
    /// A response header name (case-insensitive) that `equals` / `matches` test; alone: present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// RFC 6901 JSON pointer into the body (`/state`, `/items/0/id`; `""` is the whole body).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_pointer: Option<String>,
    /// With `header`: the exact value (a string). With `json_pointer`: the exact JSON value
    /// (`"done"`, `3`, `true`, `null`, an object…).
    #[serde(
        default,
        deserialize_with = "present_value",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "serde_json::Value")]
    pub equals: Option<serde_json::Value>,
    /// With `header`: a regex (Rust `regex` syntax) searched in the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<String>,
    /// With `json_pointer`: `true` = the pointer resolves, `false` = it does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exists: Option<bool>,
    /// The body contains this text (exact, case-sensitive bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_contains: Option<String>,
    /// A regex (Rust `regex` syntax) searched in the body's bytes (Unicode classes match valid UTF-8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_matches: Option<String>,
}

impl ResponseMatcher {
    /// Whether no key is set (such a matcher is refused by the loader).
    pub fn is_empty(&self) -> bool {
        self.status.is_none()
            && self.header.is_none()
            && self.json_pointer.is_none()
            && self.equals.is_none()
            && self.matches.is_none()
            && self.exists.is_none()
            && self.body_contains.is_none()
            && self.body_matches.is_none()
    }
}

/// `"equals": null` is the JSON value null, not "absent": wrap whatever is present in `Some`.
fn present_value<'de, D: Deserializer<'de>>(d: D) -> Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(d).map(Some)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn equals_null_is_a_value_and_absent_is_none() {
        let m: ResponseMatcher =
            serde_json::from_str(r#"{"json_pointer": "/a", "equals": null}"#).unwrap();
        assert_eq!(m.equals, Some(serde_json::Value::Null));
        let m: ResponseMatcher = serde_json::from_str(r#"{"json_pointer": "/a"}"#).unwrap();
        assert_eq!(m.equals, None);
        assert!(!m.is_empty());
        assert!(ResponseMatcher::default().is_empty());
    }

    #[test]
    fn round_trips_without_absent_keys() {
        let text = r#"{"status":[200],"body_contains":"rate limit"}"#;
        let m: ResponseMatcher = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&m).unwrap(), text);
    }

    #[test]
    fn unknown_keys_are_refused() {
        assert!(serde_json::from_str::<ResponseMatcher>(r#"{"body_contain": "x"}"#).is_err());
    }
}
