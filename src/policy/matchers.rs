//! Response matchers (DESIGN.md §8) compiled once per run: regexes built (size-limited), JSON
//! pointers split, header names kept. Each check says in words what it saw, so the verdict can
//! name the matcher that decided (`retryable: body contains "rate limit"`, `not ready: /state is
//! "pending", want "done"`).
//!
//! Also the building block of the throttling class's `throttling.response` (DESIGN.md §7).

use super::json_pointer::{Lookup, lookup_pointer, lookup_pointer_in_cut_body, pointer_tokens};
use crate::model::{ResponseMatcher, ResponseSummary, StatusSet};
use serde_json::Value;

/// Size limit of one compiled regex (`regex::RegexBuilder::size_limit`), bytes: 256 KiB. A
/// pattern over it is refused when the profile is loaded ("regex is too large").
pub const MAX_REGEX_SIZE: usize = 256 * 1024;

/// Longest quoted value in a verdict, characters; longer ones end with `…`.
const QUOTE_CHARS: usize = 60;

/// A matcher that cannot be compiled, with the field path of the offending key
/// (`success_when[0].body_matches`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at {path}")]
pub struct MatcherError {
    /// Field path of the key, e.g. `retry_on.response[1].matches`.
    pub path: String,
    /// What is wrong, lowercase.
    pub message: String,
}

/// A list of matchers (OR), compiled. Empty = no condition.
#[derive(Debug, Clone, Default)]
pub struct MatcherList {
    matchers: Vec<CompiledMatcher>,
}

/// One matcher (AND of its keys), compiled.
#[derive(Debug, Clone)]
pub struct CompiledMatcher {
    checks: Vec<Check>,
}

#[derive(Debug, Clone)]
enum Check {
    Status(StatusSet),
    HeaderPresent(String),
    HeaderEquals(String, String),
    HeaderMatches(String, regex::Regex),
    Pointer {
        pointer: String,
        tokens: Vec<String>,
        want: PointerWant,
    },
    BodyContains(String, regex::bytes::Regex),
    BodyMatches(regex::bytes::Regex),
}

#[derive(Debug, Clone)]
enum PointerWant {
    Equals(Value),
    Exists(bool),
}

impl MatcherList {
    /// Compiles `matchers`; `path` is the list's field path (`success_when`,
    /// `retry_on.response`) used in errors.
    ///
    /// # Errors
    /// [`MatcherError`] for the first matcher that is empty, has both `header` and
    /// `json_pointer`, has a key without its subject (`equals` alone, `matches` without
    /// `header`, `exists` without `json_pointer`), a non-string `equals` for a header, a bad
    /// pointer, or a regex that does not compile or exceeds [`MAX_REGEX_SIZE`].
    pub fn compile(matchers: &[ResponseMatcher], path: &str) -> Result<Self, MatcherError> {
        let matchers = matchers
            .iter()
            .enumerate()
            .map(|(i, m)| CompiledMatcher::compile(m, &format!("{path}[{i}]")))
            .collect::<Result<_, _>>()?;
        Ok(Self { matchers })
    }

    /// Whether the list has no matcher.
    pub fn is_empty(&self) -> bool {
        self.matchers.is_empty()
    }

    /// Tests `response` against each matcher in order: `Ok(text)` names the first that holds
    /// (`body contains "rate limit"`; keys joined by ` and `), `Err(texts)` says for each matcher
    /// the first key that failed (`/state is "pending", want "done"`). An empty list gives
    /// `Err(vec![])`.
    ///
    /// # Errors
    /// `Err` is not a failure of the call: it is the "no matcher holds" answer.
    pub fn check(&self, response: &ResponseSummary) -> Result<String, Vec<String>> {
        let mut failed = Vec::with_capacity(self.matchers.len());
        for matcher in &self.matchers {
            match matcher.check(response) {
                Ok(held) => return Ok(held),
                Err(why) => failed.push(why),
            }
        }
        Err(failed)
    }
}

impl CompiledMatcher {
    /// Compiles one matcher; `path` is its field path (`success_when[0]`).
    ///
    /// # Errors
    /// See [`MatcherList::compile`].
    pub fn compile(m: &ResponseMatcher, path: &str) -> Result<Self, MatcherError> {
        let fail = |key: &str, message: String| MatcherError {
            path: if key.is_empty() {
                path.to_owned()
            } else {
                format!("{path}.{key}")
            },
            message,
        };
        if m.is_empty() {
            return Err(fail(
                "",
                "an empty matcher would match every response; give it a key (status, header, json_pointer, body_contains, body_matches)".into(),
            ));
        }
        if m.header.is_some() && m.json_pointer.is_some() {
            return Err(fail(
                "json_pointer",
                "a matcher tests either a header or a json_pointer, not both (`equals` would be ambiguous); split it into two matchers".into(),
            ));
        }
        let mut checks = Vec::new();
        if let Some(set) = &m.status {
            checks.push(Check::Status(set.clone()));
        }
        match (&m.header, &m.json_pointer) {
            (Some(name), None) => {
                if m.exists.is_some() {
                    return Err(fail("exists", "`exists` goes with json_pointer; a header alone already means it is present".into()));
                }
                checks.push(header_check(name, m, &fail)?);
            }
            (None, Some(pointer)) => {
                if m.matches.is_some() {
                    return Err(fail(
                        "matches",
                        "`matches` goes with header; for the body use body_matches".into(),
                    ));
                }
                let tokens = pointer_tokens(pointer).map_err(|e| fail("json_pointer", e))?;
                let want = match (&m.equals, m.exists) {
                    (Some(_), Some(_)) => {
                        return Err(fail(
                            "exists",
                            "use either `equals` or `exists` with a json_pointer".into(),
                        ));
                    }
                    (Some(v), None) => PointerWant::Equals(v.clone()),
                    (None, exists) => PointerWant::Exists(exists.unwrap_or(true)),
                };
                checks.push(Check::Pointer {
                    pointer: pointer.clone(),
                    tokens,
                    want,
                });
            }
            _ => {
                for (key, set) in [
                    ("equals", m.equals.is_some()),
                    ("matches", m.matches.is_some()),
                    ("exists", m.exists.is_some()),
                ] {
                    if set {
                        return Err(fail(
                            key,
                            format!("`{key}` needs a `header` or `json_pointer` to test"),
                        ));
                    }
                }
            }
        }
        if let Some(text) = &m.body_contains {
            // The text is searched for as it is (escaped); only its length can make it fail.
            let re = bytes_regex(&regex::escape(text)).map_err(|_| {
                fail(
                    "body_contains",
                    format!(
                        "the text is too long to look for ({} characters); use a shorter part of it",
                        text.chars().count()
                    ),
                )
            })?;
            checks.push(Check::BodyContains(text.clone(), re));
        }
        if let Some(pattern) = &m.body_matches {
            let re = bytes_regex(pattern).map_err(|e| fail("body_matches", e))?;
            checks.push(Check::BodyMatches(re));
        }
        Ok(Self { checks })
    }

    /// `Ok(what held)`, keys joined by ` and `, or `Err(the first key that failed)`.
    ///
    /// # Errors
    /// `Err` is the "does not hold" answer, in words.
    pub fn check(&self, response: &ResponseSummary) -> Result<String, String> {
        let mut held = Vec::with_capacity(self.checks.len());
        for check in &self.checks {
            held.push(check.check(response)?);
        }
        Ok(held.join(" and "))
    }
}

fn header_check(
    name: &str,
    m: &ResponseMatcher,
    fail: &impl Fn(&str, String) -> MatcherError,
) -> Result<Check, MatcherError> {
    match (&m.equals, &m.matches) {
        (Some(_), Some(_)) => Err(fail(
            "matches",
            "use either `equals` or `matches` with a header".into(),
        )),
        (Some(Value::String(v)), None) => Ok(Check::HeaderEquals(name.to_owned(), v.clone())),
        (Some(other), None) => Err(fail(
            "equals",
            format!("a header's `equals` is a string; write \"{other}\" in quotes"),
        )),
        (None, Some(pattern)) => {
            let re = regex::RegexBuilder::new(pattern)
                .size_limit(MAX_REGEX_SIZE)
                .build()
                .map_err(|e| fail("matches", regex_message(&e)))?;
            Ok(Check::HeaderMatches(name.to_owned(), re))
        }
        (None, None) => Ok(Check::HeaderPresent(name.to_owned())),
    }
}

fn bytes_regex(pattern: &str) -> Result<regex::bytes::Regex, String> {
    regex::bytes::RegexBuilder::new(pattern)
        .size_limit(MAX_REGEX_SIZE)
        .build()
        .map_err(|e| regex_message(&e))
}

/// `invalid regex: unclosed group` / `regex is too large (over 262144 bytes compiled)`.
pub(crate) fn regex_message(e: &regex::Error) -> String {
    match e {
        regex::Error::CompiledTooBig(limit) => {
            format!("regex is too large (over {limit} bytes compiled); simplify it")
        }
        regex::Error::Syntax(text) => {
            let why = text
                .lines()
                .find_map(|l| l.strip_prefix("error: "))
                .unwrap_or(text.as_str());
            format!("invalid regex: {why}")
        }
        other => format!("invalid regex: {other}"),
    }
}

impl Check {
    fn check(&self, r: &ResponseSummary) -> Result<String, String> {
        match self {
            Check::Status(set) => {
                if set.contains(r.status) {
                    Ok(format!("status {}", r.status))
                } else {
                    Err(format!("status {}, want {set}", r.status))
                }
            }
            Check::HeaderPresent(name) => match header_values(r, name).next() {
                Some(_) => Ok(format!("header {name} is present")),
                None => Err(format!("no header {name}")),
            },
            Check::HeaderEquals(name, want) => {
                let mut seen = None;
                for v in header_values(r, name) {
                    if v == want {
                        return Ok(format!("header {name} is {}", quote(v)));
                    }
                    seen.get_or_insert(v);
                }
                Err(match seen {
                    Some(v) => format!("header {name} is {}, want {}", quote(v), quote(want)),
                    None => format!("no header {name}, want {}", quote(want)),
                })
            }
            Check::HeaderMatches(name, re) => {
                let mut seen = None;
                for v in header_values(r, name) {
                    if re.is_match(v) {
                        return Ok(format!("header {name} {} matches /{re}/", quote(v)));
                    }
                    seen.get_or_insert(v);
                }
                Err(match seen {
                    Some(v) => format!("header {name} is {}, want a match of /{re}/", quote(v)),
                    None => format!("no header {name}, want a match of /{re}/"),
                })
            }
            Check::Pointer {
                pointer,
                tokens,
                want,
            } => {
                let found = if r.body.truncated {
                    lookup_pointer_in_cut_body(&r.body.bytes, tokens)
                } else {
                    lookup_pointer(&r.body.bytes, tokens)
                };
                pointer_check(pointer, found, want)
            }
            Check::BodyContains(text, re) => {
                if re.is_match(&r.body.bytes) {
                    Ok(format!("body contains {}", quote(text)))
                } else {
                    Err(format!("body does not contain {}", quote(text)))
                }
            }
            Check::BodyMatches(re) => {
                if re.is_match(&r.body.bytes) {
                    Ok(format!("body matches /{re}/"))
                } else {
                    Err(format!("body does not match /{re}/"))
                }
            }
        }
    }
}

fn pointer_check(pointer: &str, found: Lookup, want: &PointerWant) -> Result<String, String> {
    let shown = if pointer.is_empty() { "body" } else { pointer };
    match (want, found) {
        (PointerWant::Equals(w), Lookup::Found(v)) if json_equal(&v, w) => {
            Ok(format!("{shown} is {}", json_text(&v)))
        }
        (PointerWant::Equals(w), Lookup::Found(v)) => Err(format!(
            "{shown} is {}, want {}",
            json_text(&v),
            json_text(w)
        )),
        (PointerWant::Equals(w), Lookup::Missing) => {
            Err(format!("{shown} is missing, want {}", json_text(w)))
        }
        (PointerWant::Equals(w), Lookup::NotJson) => {
            Err(format!("body is not JSON, want {shown} = {}", json_text(w)))
        }
        (PointerWant::Exists(true), Lookup::Found(_)) => Ok(format!("{shown} exists")),
        (PointerWant::Exists(true), Lookup::Missing) => Err(format!("{shown} is missing")),
        (PointerWant::Exists(true), Lookup::NotJson) => {
            Err(format!("body is not JSON, want {shown} to exist"))
        }
        (PointerWant::Exists(false), Lookup::Found(v)) => {
            Err(format!("{shown} is {}, want it missing", json_text(&v)))
        }
        (PointerWant::Exists(false), Lookup::Missing) => Ok(format!("{shown} is missing")),
        (PointerWant::Exists(false), Lookup::NotJson) => {
            Err(format!("body is not JSON, want {shown} to be missing"))
        }
    }
}

/// JSON equality where numbers compare by value (`3` equals `3.0`).
#[allow(
    clippy::float_cmp,
    reason = "JSON equality is exact: 3 equals 3.0, 0.1 + 0.2 does not equal 0.3"
)]
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

fn header_values<'a>(r: &'a ResponseSummary, name: &'a str) -> impl Iterator<Item = &'a str> {
    r.headers
        .iter()
        .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Compact JSON, cut to [`QUOTE_CHARS`].
fn json_text(v: &Value) -> String {
    cut(&serde_json::to_string(v).unwrap_or_default())
}

/// `"text"` with JSON escapes, cut to [`QUOTE_CHARS`].
fn quote(text: &str) -> String {
    json_text(&Value::String(text.to_owned()))
}

fn cut(text: &str) -> String {
    crate::model::quote::cut_chars(text, QUOTE_CHARS)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::testkit::summary as response;

    fn list(v: serde_json::Value) -> MatcherList {
        let matchers: Vec<ResponseMatcher> = serde_json::from_value(v).unwrap();
        MatcherList::compile(&matchers, "success_when").unwrap()
    }

    fn compile_error(v: serde_json::Value) -> MatcherError {
        let matchers: Vec<ResponseMatcher> = serde_json::from_value(v).unwrap();
        MatcherList::compile(&matchers, "retry_on.response").unwrap_err()
    }

    #[test]
    fn each_key_says_what_held_or_failed() {
        let pending = response(
            200,
            &[("x-state", "pending")],
            r#"{"state": "pending", "n": 3}"#,
        );
        let cases: Vec<(serde_json::Value, Result<&str, &str>)> = vec![
            (json!({"status": [200]}), Ok("status 200")),
            (
                json!({"status": ["500-599"]}),
                Err("status 200, want 500-599"),
            ),
            (
                json!({"header": "X-State"}),
                Ok("header X-State is present"),
            ),
            (json!({"header": "X-Other"}), Err("no header X-Other")),
            (
                json!({"header": "X-State", "equals": "pending"}),
                Ok(r#"header X-State is "pending""#),
            ),
            (
                json!({"header": "X-State", "equals": "done"}),
                Err(r#"header X-State is "pending", want "done""#),
            ),
            (
                json!({"header": "X-Other", "equals": "done"}),
                Err(r#"no header X-Other, want "done""#),
            ),
            (
                json!({"header": "x-state", "matches": "^pend"}),
                Ok(r#"header x-state "pending" matches /^pend/"#),
            ),
            (
                json!({"header": "x-state", "matches": "^done"}),
                Err(r#"header x-state is "pending", want a match of /^done/"#),
            ),
            (
                json!({"json_pointer": "/state", "equals": "done"}),
                Err(r#"/state is "pending", want "done""#),
            ),
            (
                json!({"json_pointer": "/state", "equals": "pending"}),
                Ok(r#"/state is "pending""#),
            ),
            (json!({"json_pointer": "/n", "equals": 3.0}), Ok("/n is 3")),
            (
                json!({"json_pointer": "/job", "equals": "done"}),
                Err(r#"/job is missing, want "done""#),
            ),
            (json!({"json_pointer": "/state"}), Ok("/state exists")),
            (
                json!({"json_pointer": "/job", "exists": true}),
                Err("/job is missing"),
            ),
            (
                json!({"json_pointer": "/job", "exists": false}),
                Ok("/job is missing"),
            ),
            (
                json!({"json_pointer": "/n", "exists": false}),
                Err("/n is 3, want it missing"),
            ),
            (
                json!({"body_contains": "pending"}),
                Ok(r#"body contains "pending""#),
            ),
            (
                json!({"body_contains": "rate limit"}),
                Err(r#"body does not contain "rate limit""#),
            ),
            (
                json!({"body_matches": "(?i)PEND"}),
                Ok("body matches /(?i)PEND/"),
            ),
            (
                json!({"body_matches": "done"}),
                Err("body does not match /done/"),
            ),
            (
                json!({"status": [200], "json_pointer": "/state", "equals": "pending", "body_contains": "n"}),
                Ok(r#"status 200 and /state is "pending" and body contains "n""#),
            ),
            // AND: the first key that fails decides.
            (
                json!({"status": [200], "json_pointer": "/state", "equals": "done", "body_contains": "zzz"}),
                Err(r#"/state is "pending", want "done""#),
            ),
        ];
        for (matcher, want) in cases {
            let got = list(json!([matcher.clone()])).check(&pending);
            let want = want.map(str::to_owned).map_err(|e| vec![e.to_owned()]);
            assert_eq!(got, want, "{matcher}");
        }
    }

    #[test]
    fn a_list_is_or_and_names_the_first_that_holds() {
        let l = list(json!([
            {"json_pointer": "/state", "equals": "done"},
            {"body_contains": "rate limit"},
            {"status": [200]}
        ]));
        let r = response(200, &[], "rate limit exceeded");
        assert_eq!(l.check(&r), Ok(r#"body contains "rate limit""#.to_owned()));
        let r = response(503, &[], "busy");
        assert_eq!(
            l.check(&r),
            Err(vec![
                r#"body is not JSON, want /state = "done""#.to_owned(),
                r#"body does not contain "rate limit""#.to_owned(),
                "status 503, want 200".to_owned(),
            ])
        );
        assert_eq!(MatcherList::default().check(&r), Err(vec![]));
    }

    #[test]
    fn equals_null_and_objects_compare_exactly() {
        let r = response(200, &[], r#"{"error": null, "o": {"a": 1, "b": [true]}}"#);
        let l = list(json!([{"json_pointer": "/error", "equals": null}]));
        assert_eq!(l.check(&r), Ok("/error is null".to_owned()));
        let l = list(json!([{"json_pointer": "/o", "equals": {"b": [true], "a": 1.0}}]));
        assert!(l.check(&r).is_ok());
        let l = list(json!([{"json_pointer": "/o", "equals": {"b": [false], "a": 1}}]));
        assert!(l.check(&r).is_err());
    }

    #[test]
    fn long_values_are_cut_in_the_verdict() {
        let long = "x".repeat(500);
        let r = response(200, &[], &format!(r#"{{"state": "{long}"}}"#));
        let l = list(json!([{"json_pointer": "/state", "equals": "done"}]));
        let why = &l.check(&r).unwrap_err()[0];
        assert!(why.len() < 120, "{why}");
        assert!(why.contains('…'), "{why}");
    }

    #[test]
    fn unusable_matchers_are_refused_with_their_path() {
        let cases = [
            (json!([{}]), "retry_on.response[0]", "empty matcher"),
            (
                json!([{"status": [429]}, {"body_matches": "(unclosed"}]),
                "retry_on.response[1].body_matches",
                "invalid regex: unclosed group",
            ),
            (
                json!([{"header": "x", "matches": "a{2"}]),
                "retry_on.response[0].matches",
                "invalid regex",
            ),
            (
                json!([{"body_matches": "\\w{1000}{1000}"}]),
                "retry_on.response[0].body_matches",
                "regex is too large",
            ),
            (
                json!([{"header": "x", "json_pointer": "/a"}]),
                "retry_on.response[0].json_pointer",
                "not both",
            ),
            (
                json!([{"equals": "done"}]),
                "retry_on.response[0].equals",
                "needs a `header` or `json_pointer`",
            ),
            (
                json!([{"json_pointer": "state", "equals": "done"}]),
                "retry_on.response[0].json_pointer",
                "must start with `/`",
            ),
            (
                json!([{"header": "x", "equals": 3}]),
                "retry_on.response[0].equals",
                "is a string",
            ),
            (
                json!([{"json_pointer": "/a", "matches": "x"}]),
                "retry_on.response[0].matches",
                "goes with header",
            ),
            (
                json!([{"header": "x", "exists": true}]),
                "retry_on.response[0].exists",
                "goes with json_pointer",
            ),
        ];
        for (v, path, message) in cases {
            let e = compile_error(v.clone());
            assert_eq!(e.path, path, "{v}");
            assert!(e.message.contains(message), "{v}: {}", e.message);
        }
    }

    #[test]
    fn body_text_too_long_to_look_for_says_so_not_regex() {
        let e = compile_error(json!([{"body_contains": "a".repeat(20_000)}]));
        assert_eq!(e.path, "retry_on.response[0].body_contains");
        assert!(
            e.message
                .contains("too long to look for (20000 characters)")
                && !e.message.contains("regex"),
            "{}",
            e.message
        );
    }
}
