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

/// Looks `tokens` (from [`pointer_tokens`]) up in `body`, the whole of a response body: it must
/// be one JSON document (trailing bytes, a second document or an unclosed object make it
/// [`Lookup::NotJson`]). Of duplicate keys the last counts, as for `serde_json::Value`.
///
/// The walk checks the syntax of every object and array on the pointer's path (keys, colons,
/// commas, the closing bracket) and passes over the members it does not name by their strings
/// and brackets alone (`policy::json_skip`); the value it finds is parsed by `serde_json`. So
/// a scalar inside a member the pointer does not name is not validated: a body broken only there
/// (`{"log": [nul], "state": "done"}`) still answers for `/state` (DESIGN.md §8).
///
/// ```
/// use retryscope::policy::{Lookup, lookup_pointer, pointer_tokens};
/// let body = br#"{"job": {"state": "done", "steps": [1, 2]}, "pad": "x"}"#;
/// let at = |p: &str| lookup_pointer(body, &pointer_tokens(p).unwrap());
/// assert_eq!(at("/job/state"), Lookup::Found(serde_json::json!("done")));
/// assert_eq!(at("/job/steps/1"), Lookup::Found(serde_json::json!(2)));
/// assert_eq!(at("/job/nope"), Lookup::Missing);
/// assert_eq!(lookup_pointer(b"<html>", &[]), Lookup::NotJson);
/// assert_eq!(lookup_pointer(br#"{"job": 1} trailing"#, &[]), Lookup::NotJson);
/// ```
pub fn lookup_pointer(body: &[u8], tokens: &[String]) -> Lookup {
    walk(body, tokens, true)
}

/// [`lookup_pointer`] in a body preview cut short (the response was longer than the kept
/// preview): what follows the cut is unknown, so the walk answers from what it has — a member
/// found before the cut is found (the last of its duplicates seen), a pointer that needs what
/// was cut off is [`Lookup::NotJson`].
pub fn lookup_pointer_in_cut_body(body: &[u8], tokens: &[String]) -> Lookup {
    walk(body, tokens, false)
}

fn walk(body: &[u8], tokens: &[String], complete: bool) -> Lookup {
    let mut at = skip_space(body, 0);
    // Where the top-level value ends (`None`: past the cut of a cut body).
    let mut top_end = None;
    for (depth, token) in tokens.iter().enumerate() {
        let scan = match body.get(at) {
            Some(b'{') => member(body, at + 1, token, complete),
            Some(b'[') => element(body, at + 1, token, complete),
            // A scalar where the pointer wants to go deeper: missing, if the body is JSON.
            Some(_) => {
                return match whole_or_prefix(body, at, complete) {
                    Some(_) => Lookup::Missing,
                    None => Lookup::NotJson,
                };
            }
            None => return Lookup::NotJson,
        };
        let Some(Scan { hit, end }) = scan else {
            return Lookup::NotJson;
        };
        if depth == 0 {
            top_end = end;
        }
        match hit {
            Some(next) => at = next,
            None if ends_clean(body, top_end, complete) => return Lookup::Missing,
            None => return Lookup::NotJson,
        }
    }
    if tokens.is_empty() {
        return whole_or_prefix(body, at, complete).map_or(Lookup::NotJson, Lookup::Found);
    }
    match parse_value(body, at) {
        Some(v) if ends_clean(body, top_end, complete) => Lookup::Found(v),
        _ => Lookup::NotJson,
    }
}

/// True when nothing but whitespace follows the top-level value (always, in a cut body).
fn ends_clean(body: &[u8], top_end: Option<usize>, complete: bool) -> bool {
    !complete || top_end.is_some_and(|end| skip_space(body, end) == body.len())
}

/// The value at `at`: the whole body parsed as one document when it is complete, else the
/// value that starts there.
fn whole_or_prefix(body: &[u8], at: usize, complete: bool) -> Option<Value> {
    if complete {
        serde_json::from_slice(body).ok()
    } else {
        parse_value(body, at)
    }
}

/// The value starting at `at`, parsed by `serde_json` (the bytes after it are not read).
fn parse_value(body: &[u8], at: usize) -> Option<Value> {
    let mut de = serde_json::Deserializer::from_slice(body.get(at..)?);
    Value::deserialize(&mut de).ok()
}

/// What the scan of one object or array on the pointer's path found: where the token's value
/// starts (`None`: no such member or element) and where the container ends (`None`: a cut body
/// ended first).
struct Scan {
    hit: Option<usize>,
    end: Option<usize>,
}

/// Scans the object whose `{` is just before `at` to its `}`, noting where the last member
/// named `token` starts. `None`: broken syntax (in a cut body: before any such member).
fn member(body: &[u8], mut at: usize, token: &str, complete: bool) -> Option<Scan> {
    let mut hit = None;
    // In a cut body a failure after a hit is the cut: answer with the hit.
    let cut = |hit: Option<usize>| (!complete && hit.is_some()).then_some(Scan { hit, end: None });
    at = skip_space(body, at);
    if body.get(at) == Some(&b'}') {
        return Some(Scan {
            hit: None,
            end: Some(at + 1),
        });
    }
    loop {
        if body.get(at) != Some(&b'"') {
            return cut(hit);
        }
        let Some(key_end) = string_end(body, at + 1) else {
            return cut(hit);
        };
        let Some(is_token) = key_is(&body[at..key_end], token) else {
            return cut(hit);
        };
        at = skip_space(body, key_end);
        if body.get(at) != Some(&b':') {
            return cut(hit);
        }
        at = skip_space(body, at + 1);
        if is_token {
            hit = Some(at);
        }
        let Some(end) = value_end(body, at) else {
            return cut(hit);
        };
        at = skip_space(body, end);
        match body.get(at) {
            Some(b',') => at = skip_space(body, at + 1),
            Some(b'}') => {
                return Some(Scan {
                    hit,
                    end: Some(at + 1),
                });
            }
            _ => return cut(hit),
        }
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

/// Scans the array whose `[` is just before `at` for element `token` (an RFC 6901 index), to
/// its `]` in a complete body (in a cut body it stops at the element).
fn element(body: &[u8], mut at: usize, token: &str, complete: bool) -> Option<Scan> {
    // RFC 6901 §4: an index is `0` or digits without a leading zero; `-` never resolves.
    let index = match token.parse::<usize>() {
        Ok(i) if token == "0" || !token.starts_with('0') => Some(i),
        _ => None,
    };
    at = skip_space(body, at);
    if body.get(at) == Some(&b']') {
        return Some(Scan {
            hit: None,
            end: Some(at + 1),
        });
    }
    let mut hit = None;
    let mut i = 0;
    loop {
        if Some(i) == index {
            hit = Some(at);
            if !complete {
                return Some(Scan { hit, end: None });
            }
        }
        let end = value_end(body, at)?;
        at = skip_space(body, end);
        match body.get(at) {
            Some(b',') => at = skip_space(body, at + 1),
            Some(b']') => {
                return Some(Scan {
                    hit,
                    end: Some(at + 1),
                });
            }
            _ => return None,
        }
        i += 1;
    }
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

    fn in_cut(body: &str, pointer: &str) -> Lookup {
        lookup_pointer_in_cut_body(body.as_bytes(), &pointer_tokens(pointer).unwrap())
    }

    #[test]
    fn a_cut_body_answers_from_what_it_has_and_garbage_is_not_json() {
        assert_eq!(
            in_cut(r#"{"state": "pending", "log": "abc"#, "/state"),
            Lookup::Found(json!("pending"))
        );
        assert_eq!(
            in_cut(r#"{"state": "pending", "state": "done", "lo"#, "/state"),
            Lookup::Found(json!("done"))
        );
        assert_eq!(in_cut(r#"{"log": "abc"#, "/state"), Lookup::NotJson);
        assert_eq!(
            in_cut(r#"[1, 2, {"a": 3}, 4"#, "/2/a"),
            Lookup::Found(json!(3))
        );
        assert_eq!(in_cut("rate limit exceeded", "/state"), Lookup::NotJson);
        assert_eq!(in_cut("", "/state"), Lookup::NotJson);
        // The same bodies whole: not one JSON document.
        assert_eq!(
            at(r#"{"state": "pending", "log": "abc"#, "/state"),
            Lookup::NotJson
        );
        assert_eq!(at("", "/state"), Lookup::NotJson);
    }

    #[test]
    fn a_whole_body_must_be_one_document_and_the_last_duplicate_counts() {
        for body in [
            r#"{"state": "done"} xyz"#,
            r#"{"state": "done"}{"state": "pending"}"#,
            r#"{"state": "done""#,
            r#"{"state": "done", garbage"#,
            r#"{"state": "done",}"#,
            "[1, 2] 3",
        ] {
            assert_eq!(at(body, "/state"), Lookup::NotJson, "{body}");
            assert_eq!(at(body, "/b"), Lookup::NotJson, "{body}");
        }
        assert_eq!(at(r#"{"a": 1} trailing"#, "/b"), Lookup::NotJson);
        assert_eq!(at(r#" {"a": 1}  "#, "/b"), Lookup::Missing);
        assert_eq!(
            at(r#"{"state": "done", "state": "pending"}"#, "/state"),
            Lookup::Found(json!("pending"))
        );
        assert_eq!(
            at(r#"{"a": {"x": 1}, "a": {"y": 2}}"#, "/a/y"),
            Lookup::Found(json!(2))
        );
        assert_eq!(
            at(r#"{"a": {"x": 1}, "a": {"y": 2}}"#, "/a/x"),
            Lookup::Missing
        );
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
