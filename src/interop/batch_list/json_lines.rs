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

use super::item_check::check_spec;
use super::problem::{ListPlace, ListProblem, ListProblemKind};
use super::{BatchList, char_column};
use crate::model::{BatchRequest, Body, KeyValue, RequestSpec, standard_method_case};
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::fmt;

/// One line as written.
#[derive(Deserialize)]
#[serde(expecting = "an object with a `url` (and optionally method, headers, body, name, profile)")]
struct Line {
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    headers: Option<HeaderRows>,
    #[serde(default)]
    body: Option<serde_json::Value>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
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
        while let Some((name, value)) = seq.next_element::<(String, String)>()? {
            rows.push(KeyValue::new(name, value));
        }
        Ok(HeaderRows(rows))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(HeaderRows(Vec::new()))
    }
}

/// Reads every line of `text` into `list`.
pub(super) fn parse(text: &str, list: &mut BatchList) {
    for (index, raw) in text.split('\n').enumerate() {
        let line_no = index as u64 + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(line, line_no) {
            Ok(item) => list.items.push(item),
            Err(problems) => list.problems.extend(problems),
        }
    }
}

/// One non-blank line as an item, or its problems.
fn parse_line(line: &str, line_no: u64) -> Result<BatchRequest, Vec<ListProblem>> {
    let parsed: Line = serde_json::from_str(line).map_err(|e| {
        let column = (e.column() > 0).then(|| char_column(line, e.column()));
        vec![ListProblem::new(
            ListPlace::Line {
                line: line_no,
                column,
            },
            ListProblemKind::Json {
                message: without_position(&e),
            },
        )]
    })?;
    if !parsed.unknown.is_empty() {
        let mut problems: Vec<ListProblem> = parsed
            .unknown
            .keys()
            .map(|key| {
                let column = line
                    .find(&format!("\"{key}\""))
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
            ListPlace::Entry { .. } => None,
        });
        return Err(problems);
    }
    let at_line = |kind| vec![ListProblem::new(ListPlace::line(line_no), kind)];
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
    check_spec(&spec).map_err(at_line)?;
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

/// `serde_json`'s message without the ` at line L column C` it appends, in plain words.
fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    crate::model::plain_parse_message(text.strip_suffix(&suffix).unwrap_or(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> BatchList {
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
