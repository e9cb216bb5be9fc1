//! JSON Lines batch lists: one object per line, `{"method": "POST", "url": "…", "headers":
//! {"Accept": "application/json"}, "body": {"a": 1}, "name": "create", "profile":
//! "aws-standard"}`. Only `url` is required; blank lines are skipped.
//!
//! - `method`: any token, default `GET` (standard methods upper-cased, as everywhere).
//! - `headers`: an object of names to values, or a list of `[name, value]` pairs (the only way
//!   to send one header twice).
//! - `body`: a string is sent as text (its Content-Type from `headers`, else
//!   `text/plain; charset=utf-8`); any other JSON value is sent as JSON
//!   (`application/json`); `null` or absent: no body.
//! - `name`, `profile`: the item's label and its own profile (built-in or saved name).
//!
//! Unknown keys are problems (a typo such as `hedaers` would otherwise drop the headers).

use super::char_column;
use super::item_check::check_spec;
use super::problem::{ListPlace, ListProblem, ListProblemKind};
use crate::model::{BatchRequest, Body, KeyValue, RequestSpec, standard_method_case};
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// One line as written.
#[derive(Deserialize)]
#[serde(expecting = "an object with a `url` (and optionally method, headers, body, name, profile)")]
struct Line {
    method: Option<String>,
    url: Option<String>,
    headers: Option<HeaderRows>,
    body: Option<serde_json::Value>,
    name: Option<String>,
    profile: Option<String>,
    /// Every other key: each one is a problem.
    #[serde(flatten)]
    unknown: BTreeMap<String, serde_json::Value>,
}

/// `headers` in either shape.
struct HeaderRows(Vec<KeyValue>);

impl<'de> Deserialize<'de> for HeaderRows {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(HeaderRowsVisitor)
    }
}

struct HeaderRowsVisitor;

impl<'de> Visitor<'de> for HeaderRowsVisitor {
    type Value = HeaderRows;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of header names to values, or a list of [name, value] pairs")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut rows = Vec::new();
        while let Some((name, value)) = map.next_entry::<String, String>()? {
            rows.push(KeyValue::new(name, value));
        }
        Ok(HeaderRows(rows))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut rows = Vec::new();
        while let Some(HeaderPair(name, value)) = seq.next_element::<HeaderPair>()? {
            rows.push(KeyValue::new(name, value));
        }
        Ok(HeaderRows(rows))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(HeaderRows(Vec::new()))
    }
}

/// One `["name", "value"]` of `headers` in its list shape (serde's tuple would say "a tuple of
/// size 2").
struct HeaderPair(String, String);

impl<'de> Deserialize<'de> for HeaderPair {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(HeaderPairVisitor)
    }
}

struct HeaderPairVisitor;

impl<'de> Visitor<'de> for HeaderPairVisitor {
    type Value = HeaderPair;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a [name, value] pair of strings")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let name = seq
            .next_element::<String>()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let value = seq
            .next_element::<String>()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        let mut extra = 0;
        while seq.next_element::<de::IgnoredAny>()?.is_some() {
            extra += 1;
        }
        if extra > 0 {
            return Err(de::Error::invalid_length(2 + extra, &self));
        }
        Ok(HeaderPair(name, value))
    }
}

/// Reads every line of `text` into `list`.
pub(super) fn parse(text: &str, list: &mut super::Feed<'_>) {
    for (index, raw) in text.split('\n').enumerate() {
        let line_no = index as u64 + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(line, line_no) {
            Ok(item) => {
                // The sink's refusal (an unknown profile) is placed at its value too.
                let before = list.problems.len();
                list.push_item(item);
                if let Some(p) = list.problems.get_mut(before) {
                    p.place = value_place(line, line_no, &p.kind);
                }
            }
            Err(problems) => list.problems.extend(problems),
        }
    }
}

/// One non-blank line as an item, or its problems.
fn parse_line(line: &str, line_no: u64) -> Result<BatchRequest, Vec<ListProblem>> {
    let parsed: Line = serde_json::from_str(line).map_err(|e| {
        // A line that is JSON but not an object (`"just a string"`, `42`, `[1]`) is wrong from
        // its first character: serde_json would point past the value.
        let start = line.find(|c: char| !c.is_whitespace());
        let column = match start {
            Some(at) if e.is_data() && !line[at..].starts_with('{') => {
                Some(char_column(line, at + 1))
            }
            _ => (e.column() > 0).then(|| char_column(line, e.column())),
        };
        vec![ListProblem::new(
            ListPlace::Line {
                line: line_no,
                column,
            },
            ListProblemKind::Json {
                message: crate::model::plain_json_error(&e),
            },
        )]
    })?;
    if !parsed.unknown.is_empty() {
        let offsets = value_offsets(line);
        let mut problems: Vec<ListProblem> = parsed
            .unknown
            .keys()
            .map(|key| {
                // The key's own quotes: the last ones before its value.
                let column = offsets
                    .get(key)
                    .and_then(|&at| line[..at].rfind(&format!("\"{key}\"")))
                    .map(|byte| char_column(line, byte + 1));
                ListProblem::new(
                    ListPlace::Line {
                        line: line_no,
                        column,
                    },
                    ListProblemKind::UnknownKey { key: key.clone() },
                )
            })
            .collect();
        problems.sort_by_key(|p| match p.place {
            ListPlace::Line { column, .. } => column,
            ListPlace::Entry { .. } | ListPlace::EntryField { .. } => None,
        });
        return Err(problems);
    }
    let url = parsed.url.unwrap_or_default();
    let mut spec = RequestSpec::get(url.trim());
    if let Some(method) = parsed.method {
        spec.method = standard_method_case(method.trim());
    }
    if let Some(HeaderRows(rows)) = parsed.headers {
        spec.headers = rows;
    }
    spec.body = match parsed.body {
        None | Some(serde_json::Value::Null) => Body::None,
        Some(serde_json::Value::String(text)) => Body::Text {
            text,
            content_type: None,
        },
        Some(value) => Body::Json {
            text: value.to_string(),
        },
    };
    check_spec(&spec)
        .map_err(|kind| vec![ListProblem::new(value_place(line, line_no, &kind), kind)])?;
    Ok(BatchRequest {
        name: parsed.name.filter(|n| !n.trim().is_empty()),
        request: spec,
        profile: parsed
            .profile
            .map(|p| p.trim().to_owned())
            .filter(|p| !p.is_empty()),
        source_line: Some(line_no),
    })
}

/// Where the value of each top-level key of the JSON object `line` starts, as a byte offset:
/// found by the JSON parser, so a key written inside a string value is not taken for one.
fn value_offsets(line: &str) -> HashMap<String, usize> {
    let raw: HashMap<String, &RawValue> = serde_json::from_str(line).unwrap_or_default();
    raw.into_iter()
        .map(|(key, value)| (key, value.get().as_ptr().addr() - line.as_ptr().addr()))
        .collect()
}

/// Line `line_no` at the column where the value `kind` is about starts in `line` (`url` for a
/// bad scheme, `headers` for a bad or masked header, `profile` for an unknown one); without a
/// column when that key is not in the line.
fn value_place(line: &str, line_no: u64, kind: &ListProblemKind) -> ListPlace {
    use crate::model::LimitProblem::{HeaderTooLong, TooManyHeaders};
    let key = match kind {
        ListProblemKind::Missing { field } => Some(*field),
        ListProblemKind::BadMethod { .. } => Some("method"),
        ListProblemKind::MaskedSecret { place } if !place.starts_with("header ") => Some("url"),
        ListProblemKind::BadUrl { .. } => Some("url"),
        ListProblemKind::BadHeader { .. }
        | ListProblemKind::MaskedSecret { .. }
        | ListProblemKind::Limit(TooManyHeaders { .. } | HeaderTooLong { .. }) => Some("headers"),
        ListProblemKind::UnknownProfile { .. } | ListProblemKind::BrokenProfile { .. } => {
            Some("profile")
        }
        _ => None,
    };
    let column = key
        .and_then(|key| value_offsets(line).get(key).copied())
        .map(|at| char_column(line, at + 1));
    ListPlace::Line {
        line: line_no,
        column,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> super::super::BatchList {
        super::super::parse_batch_list(text, super::super::BatchListFormat::JsonLines)
    }

    #[test]
    fn both_header_shapes_and_every_body_kind() {
        let list = read(concat!(
            r#"{"url": "http://127.0.0.1:8080/a", "headers": {"Accept": "text/plain"}}"#,
            "\n\n   \n",
            r#"{"method": "post", "url": "http://127.0.0.1:8080/b", "headers": [["X-A", "1"], ["X-A", "2"]], "body": {"a": [1, 2]}, "name": "create", "profile": " aws-standard "}"#,
            "\r\n",
            r#"{"method": "PURGE", "url": "http://127.0.0.1:8080/c", "body": "plain", "headers": null}"#,
        ));
        assert_eq!(list.problems, []);
        assert_eq!(list.items.len(), 3);
        let a = &list.items[0];
        assert_eq!(a.request.method, "GET");
        assert_eq!(a.request.headers, [KeyValue::new("Accept", "text/plain")]);
        assert_eq!(a.request.body, Body::None);
        assert_eq!(a.source_line, Some(1));
        let b = &list.items[1];
        assert_eq!(b.request.method, "POST");
        assert_eq!(b.request.headers.len(), 2);
        assert_eq!(
            b.request.body,
            Body::Json {
                text: r#"{"a":[1,2]}"#.into()
            }
        );
        assert_eq!(b.name.as_deref(), Some("create"));
        assert_eq!(b.profile.as_deref(), Some("aws-standard"));
        assert_eq!(b.source_line, Some(4));
        let c = &list.items[2];
        assert_eq!(c.request.method, "PURGE");
        assert!(matches!(&c.request.body, Body::Text { text, .. } if text == "plain"));
        assert_eq!(c.source_line, Some(5));
    }

    #[test]
    fn every_bad_line_is_named_with_its_column() {
        let list = read(concat!(
            r#"{"url": "http://127.0.0.1/ok"}"#,
            "\n",
            r#"{"url": "http://127.0.0.1/x", "hedaers": {}}"#,
            "\n",
            r#"{"url": "http://127.0.0.1/x", "headers": 5}"#,
            "\n",
            r#"{"url": "http://127.0.0.1/x""#,
            "\n",
            r#"{"method": "GET"}"#,
            "\n",
            r#"{"url": "127.0.0.1:8080/x"}"#,
            "\n",
            "[1]\n",
        ));
        assert_eq!(list.items.len(), 1);
        let lines: Vec<u64> = list.problems.iter().map(|p| p.place.ordinal()).collect();
        assert_eq!(lines, [2, 3, 4, 5, 6, 7]);
        assert_eq!(
            list.problems[0].to_string(),
            "line 2, column 31: unknown key `hedaers` (an item has: method, url, headers, body, name, profile)"
        );
        assert!(
            list.problems[1].to_string().starts_with(
                "line 3, column 42: expected an object of header names to values, or a list of [name, value] pairs, found the number 5"
            ),
            "{}",
            list.problems[1]
        );
        assert!(matches!(
            list.problems[2].kind,
            ListProblemKind::Json { .. }
        ));
        assert_eq!(
            list.problems[3].kind,
            ListProblemKind::Missing { field: "url" }
        );
        assert!(matches!(
            list.problems[4].kind,
            ListProblemKind::BadUrl { .. }
        ));
        assert!(
            list.problems[5]
                .to_string()
                .contains("expected an object with a `url`"),
            "{}",
            list.problems[5]
        );
    }

    #[test]
    fn a_line_that_is_not_an_object_is_named_at_its_first_character() {
        let list = read("\"just a string\"\n  42\n[1, 2]\n");
        let said: Vec<(ListPlace, String)> = list
            .problems
            .iter()
            .map(|p| (p.place.clone(), p.kind.to_string()))
            .collect();
        let at = |line, column| ListPlace::Line {
            line,
            column: Some(column),
        };
        assert_eq!(said[0].0, at(1, 1));
        assert!(
            said[0].1.starts_with("expected an object with a `url`")
                && said[0].1.ends_with("found the string \"just a string\""),
            "{said:?}"
        );
        assert_eq!(said[1].0, at(2, 3));
        assert!(said[1].1.ends_with("found the number 42"), "{said:?}");
        assert_eq!(said[2].0, at(3, 1));
        assert!(said[2].1.ends_with("found a list"), "{said:?}");
    }

    #[test]
    fn a_header_pair_of_the_wrong_length_is_said_in_plain_words() {
        let list = read(concat!(
            r#"{"url": "http://127.0.0.1/a", "headers": [["X-A"]]}"#,
            "\n",
            r#"{"url": "http://127.0.0.1/b", "headers": [["X-A", "1", "2"]]}"#,
        ));
        let said: Vec<String> = list.problems.iter().map(ToString::to_string).collect();
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(
            said[0].ends_with("expected a [name, value] pair of strings, found 1 item"),
            "{said:?}"
        );
        assert!(
            said[1].ends_with("expected a [name, value] pair of strings, found 3 items"),
            "{said:?}"
        );
        assert!(!said.iter().any(|s| s.contains("tuple")), "{said:?}");
    }

    #[test]
    fn a_bad_value_is_named_at_the_column_where_it_starts() {
        let list = read(concat!(
            r#"{"name": "\"url\": x", "url": "ftp://127.0.0.1/x"}"#,
            "\n",
            r#"{"url": "http://127.0.0.1/", "method": "GE T"}"#,
            "\n",
            r#"{"url": "http://127.0.0.1/", "headers": {"X Y": "1"}}"#,
            "\n",
            r#"{"headers": [["Authorization", "Bearer ***"]], "url": "http://127.0.0.1/"}"#,
            "\n",
            r#"{"headers": {}, "url": "http://127.0.0.1/?key=***"}"#,
            "\n",
            r#"{"url": " "}"#,
            "\n",
            r#"{"name": "hedaers", "url": "http://127.0.0.1/", "hedaers": {}}"#,
        ));
        let said: Vec<String> = list.problems.iter().map(|p| p.located("l.jsonl")).collect();
        let starts: Vec<&str> = said
            .iter()
            .map(|s| &s[..s.find(": ").unwrap_or(0)])
            .collect();
        assert_eq!(
            starts,
            [
                "l.jsonl:1:31",
                "l.jsonl:2:40",
                "l.jsonl:3:41",
                "l.jsonl:4:13",
                "l.jsonl:5:24",
                "l.jsonl:6:9",
                "l.jsonl:7:49"
            ],
            "{said:#?}"
        );
        assert!(
            said[3].contains("header Authorization is `***`"),
            "{said:?}"
        );
        assert!(!said.iter().any(|s| s.contains("Bearer")), "{said:?}");
    }

    #[test]
    fn an_unknown_profile_is_named_at_its_value() {
        let text = concat!(
            r#"{"url": "http://127.0.0.1/a", "profile": "nope"}"#,
            "\n",
            r#"{"name": "\"profile\": 1", "url": "http://127.0.0.1/b"}"#,
        );
        let mut sink = |item: BatchRequest, _: bool| {
            item.profile
                .map(|name| ListProblemKind::UnknownProfile { name })
                .or(Some(ListProblemKind::Missing { field: "profile" }))
        };
        let (list, _) = super::super::parse_batch_list_streaming(
            text,
            super::super::BatchListFormat::JsonLines,
            &mut sink,
        );
        let places: Vec<&ListPlace> = list.problems.iter().map(|p| &p.place).collect();
        let at = |line, column| ListPlace::Line { line, column };
        assert_eq!(
            places,
            [&at(1, Some(42)), &at(2, None)],
            "a key inside a string value is not one"
        );
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let list = read(r#"{"name": "café ☕", "url": "http://127.0.0.1/", "x": 1}"#);
        assert_eq!(
            list.problems[0].place,
            ListPlace::Line {
                line: 1,
                column: Some(48)
            }
        );
    }
}
