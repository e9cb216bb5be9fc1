//! RFC 6901 JSON pointers looked up in a body without building the whole document: the walk
//! follows the pointer's tokens, skips every other member with `IgnoredAny`, and stops as soon as
//! the target is found or proved missing. So a `/state` at the top of a 1 MiB body costs
//! microseconds, and even a pointer to the last member only scans (never allocates) the rest.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

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
    let mut state = State::Pending;
    let mut de = serde_json::Deserializer::from_slice(body);
    let walked = Walk {
        tokens,
        state: &mut state,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    match (state, walked) {
        (State::Found(v), _) => Lookup::Found(v),
        (State::Missing, _) | (State::Pending, Ok(())) => Lookup::Missing,
        (State::Pending, Err(_)) => Lookup::NotJson,
    }
}

/// Where the walk ended; set before the walk stops early (with [`STOP`] as its error).
enum State {
    Pending,
    Found(Value),
    Missing,
}

/// The error a walk returns to stop early once its [`State`] is decided.
const STOP: &str = "json pointer walk stopped";

struct Walk<'a> {
    tokens: &'a [String],
    state: &'a mut State,
}

impl Walk<'_> {
    fn decide<E: de::Error>(self, state: State) -> Result<(), E> {
        *self.state = state;
        Err(E::custom(STOP))
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.tokens.is_empty() {
            let value = Value::deserialize(d)?;
            return self.decide(State::Found(value));
        }
        d.deserialize_any(self)
    }
}

use serde::Deserialize as _;

/// Missing: a scalar where the pointer wants to go deeper.
macro_rules! scalar_is_missing {
    ($($name:ident: $ty:ty),*) => {
        $(fn $name<E: de::Error>(self, _: $ty) -> Result<(), E> {
            self.decide(State::Missing)
        })*
    };
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    scalar_is_missing!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str);

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.decide(State::Missing)
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.decide(State::Missing)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some((token, rest)) = self.tokens.split_first() else {
            return Ok(());
        };
        while let Some(hit) = map.next_key_seed(KeyIs(token))? {
            if hit {
                return map.next_value_seed(Walk {
                    tokens: rest,
                    state: self.state,
                });
            }
            map.next_value::<IgnoredAny>()?;
        }
        self.decide(State::Missing)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some((token, rest)) = self.tokens.split_first() else {
            return Ok(());
        };
        // RFC 6901 §4: an index is `0` or digits without a leading zero; `-` never resolves.
        let index = match token.parse::<usize>() {
            Ok(i) if token == "0" || !token.starts_with('0') => i,
            _ => return self.decide(State::Missing),
        };
        for _ in 0..index {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return self.decide(State::Missing);
            }
        }
        let state = &mut *self.state;
        if let Some(()) = seq.next_element_seed(Walk {
            tokens: rest,
            state,
        })? {
            Ok(())
        } else {
            *self.state = State::Missing;
            Err(de::Error::custom(STOP))
        }
    }
}

/// A key seed that answers whether the key equals the token, without allocating.
struct KeyIs<'a>(&'a str);

impl<'de> DeserializeSeed<'de> for KeyIs<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for KeyIs<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<bool, E> {
        Ok(key == self.0)
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
