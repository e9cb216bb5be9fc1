//! Sets of HTTP status codes written as codes and ranges, e.g. `[408, 429, "500-599"]`.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// One entry of a [`StatusSet`]: a single code (`429`) or an inclusive range (`"500-599"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusRange {
    /// First code of the range (inclusive).
    pub low: u16,
    /// Last code of the range (inclusive); equal to `low` for a single code.
    pub high: u16,
}

impl StatusRange {
    /// A range holding just `code`.
    pub fn single(code: u16) -> Self {
        Self {
            low: code,
            high: code,
        }
    }

    /// Inclusive range `low..=high`.
    pub fn new(low: u16, high: u16) -> Self {
        Self { low, high }
    }

    /// Whether `code` lies in the range.
    pub fn contains(&self, code: u16) -> bool {
        (self.low..=self.high).contains(&code)
    }
}

impl fmt::Display for StatusRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.low == self.high {
            write!(f, "{}", self.low)
        } else {
            write!(f, "{}-{}", self.low, self.high)
        }
    }
}

/// A set of HTTP status codes, kept as the user wrote it (order and ranges preserved).
///
/// JSON shape: an array whose items are integers (`429`) or `"low-high"` strings (`"500-599"`;
/// surrounding spaces and spaces around the dash are trimmed).
/// Validation (codes in 100–599, `low <= high`) happens in `profile::validate`, not here, so that a
/// bad file can still be loaded far enough to report every problem at once.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StatusSet(pub Vec<StatusRange>);

impl StatusSet {
    /// Whether any entry contains `code`.
    pub fn contains(&self, code: u16) -> bool {
        self.0.iter().any(|r| r.contains(code))
    }

    /// The set of `codes` (sorted, without repeats), runs of three or more consecutive codes
    /// written as one range: `[429, 500, 501, …, 599]` → `429, 500-599`; `[503, 504]` stays
    /// two codes.
    pub fn from_codes(codes: &[u16]) -> Self {
        let mut out = Vec::new();
        let mut i = 0;
        while i < codes.len() {
            let mut j = i;
            while j + 1 < codes.len() && codes[j + 1] == codes[j] + 1 {
                j += 1;
            }
            if j - i >= 2 {
                out.push(StatusRange::new(codes[i], codes[j]));
            } else {
                out.extend(codes[i..=j].iter().map(|c| StatusRange::single(*c)));
            }
            i = j + 1;
        }
        Self(out)
    }

    /// The default success set: 200–299.
    pub fn default_success() -> Self {
        Self(vec![StatusRange::new(200, 299)])
    }

    /// The default retryable set: 408, 429, 500–599 (the VBScript seed's triage).
    pub fn default_retry() -> Self {
        Self(vec![
            StatusRange::single(408),
            StatusRange::single(429),
            StatusRange::new(500, 599),
        ])
    }

    /// Parses the editor's text form, e.g. `"408, 429, 500-599"`.
    ///
    /// # Errors
    /// Returns a message naming the first token that is not a code or `low-high` range.
    pub fn parse_list(text: &str) -> Result<Self, String> {
        let mut out = Vec::new();
        for token in text
            .split([',', ' ', ';'])
            .map(str::trim)
            .filter(|t| !t.is_empty())
        {
            out.push(parse_entry(token)?);
        }
        Ok(Self(out))
    }
}

impl fmt::Display for StatusSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{r}")?;
        }
        Ok(())
    }
}

fn parse_entry(token: &str) -> Result<StatusRange, String> {
    let bad = || format!("`{token}` is not a status code or a range like 500-599");
    match token.split_once('-') {
        Some((a, b)) => {
            let low = a.trim().parse::<u16>().map_err(|_| bad())?;
            let high = b.trim().parse::<u16>().map_err(|_| bad())?;
            Ok(StatusRange::new(low, high))
        }
        None => token
            .parse::<u16>()
            .map(StatusRange::single)
            .map_err(|_| bad()),
    }
}

impl Serialize for StatusSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for r in &self.0 {
            if r.low == r.high {
                seq.serialize_element(&r.low)?;
            } else {
                seq.serialize_element(&r.to_string())?;
            }
        }
        seq.end()
    }
}

/// What every bad entry's message says is expected.
const EXPECTED_ENTRY: &str = r#"a status code (100–599) or a range like "500-599""#;

/// One array item: an integer that fits a `u16` or a `"low-high"` / `"code"` string.
///
/// Strings are trimmed, and spaces around the dash are allowed (`" 500 - 599 "` is `500-599`),
/// as in the editor's text form. Codes outside 100–599 and reversed ranges are accepted here
/// and reported by `profile::validate` together with every other problem. Anything else
/// (negative, fractional, too large, `[]`, `{}`, `true`, `null`, `"abc"`) fails with
/// `expected a status code (100–599) or a range like "500-599", found -5`.
struct Entry(StatusRange);

fn bad_entry<E: serde::de::Error>(found: impl fmt::Display) -> E {
    E::custom(format!("expected {EXPECTED_ENTRY}, found {found}"))
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde_json::Value;
        let single = |c: u16| Entry(StatusRange::single(c));
        match Value::deserialize(d)? {
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64().unwrap_or(f64::NAN)) {
                (Some(u), _, _) => u16::try_from(u).map(single).map_err(|_| bad_entry(u)),
                (None, Some(i), _) => Err(bad_entry(i)),
                // `200.0` is displayed by Rust as `200`: say it is a decimal number.
                (_, _, v) if v.fract() == 0.0 && v.is_finite() => {
                    Err(bad_entry(format_args!("{v:.1} (a decimal number)")))
                }
                (_, _, v) => Err(bad_entry(v)),
            },
            Value::String(v) => parse_entry(v.trim())
                .map(Entry)
                .map_err(|_| bad_entry(format_args!("{v:?}"))),
            Value::Bool(v) => Err(bad_entry(v)),
            Value::Null => Err(bad_entry("null")),
            Value::Array(_) => Err(bad_entry("an array")),
            Value::Object(_) => Err(bad_entry("an object")),
        }
    }
}

struct SetVisitor;

impl<'de> serde::de::Visitor<'de> for SetVisitor {
    type Value = StatusSet;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"an array of status codes and ranges, e.g. [429, "500-599"]"#)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<StatusSet, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        // Each item goes through `next_element`, so a path tracker sees its index.
        while let Some(Entry(range)) = seq.next_element()? {
            out.push(range);
        }
        Ok(StatusSet(out))
    }
}

impl<'de> Deserialize<'de> for StatusSet {
    /// An array of entries (see the type's docs); a bad entry's error names what was found.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(SetVisitor)
    }
}

impl JsonSchema for StatusSet {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "StatusSet".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "HTTP status codes: integers (429) or inclusive ranges as \"low-high\" strings (\"500-599\").",
            "type": "array",
            "items": {
                "anyOf": [
                    { "type": "integer", "minimum": 100, "maximum": 599 },
                    { "type": "string", "pattern": "^[1-5][0-9][0-9]-[1-5][0-9][0-9]$" }
                ]
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_codes_and_ranges() {
        let set: StatusSet = serde_json::from_str(r#"[408, 429, "500-599"]"#).expect("parses");
        assert!(set.contains(503));
        assert!(set.contains(408));
        assert!(!set.contains(404));
        assert_eq!(
            serde_json::to_string(&set).expect("serializes"),
            r#"[408,429,"500-599"]"#
        );
    }

    #[test]
    fn bad_entries_say_what_was_found() {
        for (json, found) in [
            ("[429, -5]", "found -5"),
            ("[429.5]", "found 429.5"),
            ("[[]]", "found an array"),
            ("[{}]", "found an object"),
            (r#"["abc"]"#, r#"found "abc""#),
            (r#"["500-"]"#, r#"found "500-""#),
            ("[70000]", "found 70000"),
            ("[null]", "found null"),
            ("[true]", "found true"),
        ] {
            let err = serde_json::from_str::<StatusSet>(json).expect_err(json);
            let msg = err.to_string();
            assert!(
                msg.starts_with(&format!(
                    r#"expected a status code (100–599) or a range like "500-599", {found}"#
                )),
                "{json}: {msg}"
            );
        }
    }

    #[test]
    fn spaces_in_ranges_are_trimmed() {
        let set: StatusSet = serde_json::from_str(r#"[" 500 - 599 ", "429", 99]"#).expect("parses");
        assert_eq!(set.to_string(), "500-599, 429, 99");
    }

    #[test]
    fn parse_list_reports_bad_token() {
        let err = StatusSet::parse_list("429, 5xx").expect_err("5xx is not a code");
        assert!(err.contains("`5xx`"), "{err}");
        assert_eq!(
            StatusSet::parse_list("408 429,500-599")
                .expect("valid")
                .to_string(),
            "408, 429, 500-599"
        );
    }
}
