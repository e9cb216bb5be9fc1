//! RFC 6901 JSON pointers looked up in a body without building the whole document: the walk
//! follows the pointer's tokens, passes over every other member by its structure
//! ([`super::json_skip`]), and stops as soon as the target is found or proved missing. So a
//! `/state` at the top of a 1 MiB body costs microseconds, and even a pointer to the last member
//! only scans (never allocates) the rest.

use super::json_skip::{skip_space, string_end, value_end};
use serde::Deserialize as _;
use serde_json::Value;

/// What a pointer lookup found.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// The pointer resolves to this value.
    Found(Value),
    /// The body is JSON (as far as it was read) and the pointer does not resolve.
    Missing,
    /// The body is not JSON (or is cut before the pointer's target was reached).
    NotJson,
}

/// Splits a pointer into its unescaped tokens (`~1` → `/`, `~0` → `~`).
///
/// # Errors
/// A message when the pointer is neither empty nor starts with `/`, or holds a `~` not followed
/// by `0` or `1`.
pub fn pointer_tokens(pointer: &str) -> Result<Vec<String>, String> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(format!(
            "json pointer {pointer:?} must start with `/` (or be empty for the whole body)"
        ));
    };
    rest.split('/')
        .map(|token| {
            let mut out = String::with_capacity(token.len());
            let mut chars = token.chars();
            while let Some(c) = chars.next() {
                if c == '~' {
                    match chars.next() {
                        Some('0') => out.push('~'),
                        Some('1') => out.push('/'),
                        _ => {
                            return Err(format!(
                                "json pointer {pointer:?} has a `~` not followed by 0 or 1 (write ~0 for ~, ~1 for /)"
                            ));
                        }
                    }
                } else {
                    out.push(c);
                }
            }
            Ok(out)
        })
        .collect()
}

/// Looks `tokens` (from [`pointer_tokens`]) up in `body`.
///
/// The walk follows the pointer's tokens through the document and passes over every other
/// member or element by its structure (strings and brackets, `policy::json_skip`); the value it
/// finds is parsed by `serde_json`. So a member the pointer does not name is not validated: a body
/// that is broken only inside such a member still answers for the pointer, as it would have
/// had that member been cut off. The first of duplicate keys counts.
///
/// ```
/// use retryscope::policy::{Lookup, lookup_pointer, pointer_tokens};
/// let body = br#"{"job": {"state": "done", "steps": [1, 2]}, "pad": "x"}"#;
/// let at = |p: &str| lookup_pointer(body, &pointer_tokens(p).unwrap());
/// assert_eq!(at("/job/state"), Lookup::Found(serde_json::json!("done")));
/// assert_eq!(at("/job/steps/1"), Lookup::Found(serde_json::json!(2)));
/// assert_eq!(at("/job/nope"), Lookup::Missing);
/// assert_eq!(lookup_pointer(b"<html>", &[]), Lookup::NotJson);
/// ```
pub fn lookup_pointer(body: &[u8], tokens: &[String]) -> Lookup {
    let mut at = skip_space(body, 0);
    for token in tokens {
        let step = match body.get(at) {
            Some(b'{') => member(body, at + 1, token),
            Some(b'[') => element(body, at + 1, token),
            // A scalar where the pointer wants to go deeper: missing, if it is JSON at all.
            Some(_) => match parse_value(body, at) {
                Some(_) => Step::Missing,
                None => Step::Broken,
            },
            None => Step::Broken,
        };
        match step {
            Step::At(next) => at = next,
            Step::Missing => return Lookup::Missing,
            Step::Broken => return Lookup::NotJson,
        }
    }
    parse_value(body, at).map_or(Lookup::NotJson, Lookup::Found)
}

/// The value starting at `at`, parsed by `serde_json` (the bytes after it are not read).
fn parse_value(body: &[u8], at: usize) -> Option<Value> {
    let mut de = serde_json::Deserializer::from_slice(body.get(at..)?);
    Value::deserialize(&mut de).ok()
}

/// Where one token of the walk led.
enum Step {
    /// The token's value starts at this index.
    At(usize),
    /// The container is JSON as far as it was read and holds no such member or element.
    Missing,
    /// Not JSON where the walk went (or cut before it got there).
    Broken,
}

/// The member named `token` of the object whose `{` is just before `at`.
fn member(body: &[u8], mut at: usize, token: &str) -> Step {
    let mut first = true;
    loop {
        at = skip_space(body, at);
        match body.get(at) {
            Some(b'}') if first => return Step::Missing,
            Some(b'"') => {}
            _ => return Step::Broken,
        }
        let Some(key_end) = string_end(body, at + 1) else {
            return Step::Broken;
        };
        let Some(hit) = key_is(&body[at..key_end], token) else {
            return Step::Broken;
        };
        at = skip_space(body, key_end);
        if body.get(at) != Some(&b':') {
            return Step::Broken;
        }
        at = skip_space(body, at + 1);
        if hit {
            return Step::At(at);
        }
        let Some(end) = value_end(body, at) else {
            return Step::Broken;
        };
        at = skip_space(body, end);
        match body.get(at) {
            Some(b',') => at += 1,
            Some(b'}') => return Step::Missing,
            _ => return Step::Broken,
        }
        first = false;
    }
}

/// Whether the quoted key `quoted` (quotes included) is `token`; `None`: not a JSON string.
fn key_is(quoted: &[u8], token: &str) -> Option<bool> {
    let inner = &quoted[1..quoted.len() - 1];
    if !inner.contains(&b'\\') {
        return Some(inner == token.as_bytes());
    }
    let key: String = serde_json::from_slice(quoted).ok()?;
    Some(key == token)
}

/// The element `token` (an RFC 6901 index) of the array whose `[` is just before `at`.
fn element(body: &[u8], mut at: usize, token: &str) -> Step {
    // RFC 6901 §4: an index is `0` or digits without a leading zero; `-` never resolves.
    let index = match token.parse::<usize>() {
        Ok(i) if token == "0" || !token.starts_with('0') => i,
        _ => return Step::Missing,
    };
    at = skip_space(body, at);
    if body.get(at) == Some(&b']') {
        return Step::Missing;
    }
    for _ in 0..index {
        let Some(end) = value_end(body, at) else {
            return Step::Broken;
        };
        at = skip_space(body, end);
        match body.get(at) {
            Some(b',') => at = skip_space(body, at + 1),
            Some(b']') => return Step::Missing,
            _ => return Step::Broken,
        }
    }
    Step::At(at)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(body: &str, pointer: &str) -> Lookup {
        lookup_pointer(body.as_bytes(), &pointer_tokens(pointer).unwrap())
    }

    #[test]
    fn table() {
        let doc = r#"{"a": {"b": [10, {"c": null}], "e~f": 1, "g/h": 2, "k\"l": 3}, "z": "last"}"#;
        let cases: &[(&str, Lookup)] = &[
            ("", Lookup::Found(serde_json::from_str(doc).unwrap())),
            ("/z", Lookup::Found(json!("last"))),
            ("/a/b/0", Lookup::Found(json!(10))),
            ("/a/b/1/c", Lookup::Found(Value::Null)),
            ("/a/e~0f", Lookup::Found(json!(1))),
            ("/a/g~1h", Lookup::Found(json!(2))),
            ("/a/k\"l", Lookup::Found(json!(3))),
            ("/a/b/2", Lookup::Missing),
            ("/a/b/01", Lookup::Missing),
            ("/a/b/-", Lookup::Missing),
            ("/a/b/0/x", Lookup::Missing),
            ("/a/b/1/c/d", Lookup::Missing),
            ("/nope", Lookup::Missing),
            ("/z/0", Lookup::Missing),
        ];
        for (pointer, want) in cases {
            assert_eq!(&at(doc, pointer), want, "{pointer}");
        }
    }

    #[test]
    fn early_found_tolerates_a_cut_body_and_garbage_is_not_json() {
        assert_eq!(
            at(r#"{"state": "pending", "log": "abc"#, "/state"),
            Lookup::Found(json!("pending"))
        );
        assert_eq!(at(r#"{"log": "abc"#, "/state"), Lookup::NotJson);
        assert_eq!(at("rate limit exceeded", "/state"), Lookup::NotJson);
        assert_eq!(at("", "/state"), Lookup::NotJson);
        // Decided before the trailing garbage is read: the walk stops as soon as it knows.
        assert_eq!(at(r#"{"a": 1} trailing"#, "/b"), Lookup::Missing);
    }

    #[test]
    fn bad_pointers_are_named() {
        assert!(
            pointer_tokens("state")
                .unwrap_err()
                .contains("must start with `/`")
        );
        assert!(pointer_tokens("/a~2").unwrap_err().contains("~0 for ~"));
        assert_eq!(pointer_tokens("/").unwrap(), vec![String::new()]);
        assert_eq!(at(r#"{"": 5}"#, "/"), Lookup::Found(json!(5)));
    }
}
