//! A parsed data document (JSON, JSON with comments, YAML, INI) as one ordered tree, so every
//! importer walks the same shape and names each setting by its path (`retryPolicy.maxAttempts`).

use super::report::FormatError;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// One value of a data document. Maps keep the file's key order.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// `null` / `~`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A whole number.
    Int(i128),
    /// A number with a fraction or exponent.
    Float(f64),
    /// A string (YAML plain scalars that are not numbers or booleans land here too).
    Str(String),
    /// A list.
    List(Vec<Node>),
    /// A map, in file order.
    Map(Vec<(String, Node)>),
}

impl Node {
    /// The value as a short text for reports: strings quoted, lists and maps summarised.
    pub fn describe(&self) -> String {
        match self {
            Node::Null => "null".into(),
            Node::Bool(b) => b.to_string(),
            Node::Int(i) => i.to_string(),
            Node::Float(f) => f.to_string(),
            Node::Str(s) => format!("{s:?}"),
            Node::List(items) => {
                let inner: Vec<String> = items.iter().take(8).map(Node::describe).collect();
                let more = if items.len() > 8 { ", …" } else { "" };
                format!("[{}{more}]", inner.join(", "))
            }
            Node::Map(entries) => {
                let keys: Vec<&str> = entries.iter().take(6).map(|(k, _)| k.as_str()).collect();
                let more = if entries.len() > 6 { ", …" } else { "" };
                format!("{{{}{more}}}", keys.join(", "))
            }
        }
    }

    /// `expected {what}, found {this value}` at `path`.
    fn expected(&self, path: &str, what: &str) -> FormatError {
        FormatError::new(path, format!("expected {what}, found {}", self.describe()))
    }

    /// The entries when this is a map.
    ///
    /// # Errors
    /// `expected a map` at `path`.
    pub fn map(&self, path: &str) -> Result<&[(String, Node)], FormatError> {
        match self {
            Node::Map(entries) => Ok(entries),
            other => Err(other.expected(path, "a map of settings")),
        }
    }

    /// The items when this is a list.
    ///
    /// # Errors
    /// `expected a list` at `path`.
    pub fn list(&self, path: &str) -> Result<&[Node], FormatError> {
        match self {
            Node::List(items) => Ok(items),
            other => Err(other.expected(path, "a list")),
        }
    }

    /// The text when this is a string (a number is accepted and written out).
    ///
    /// # Errors
    /// `expected a string` at `path`.
    pub fn text(&self, path: &str) -> Result<String, FormatError> {
        match self {
            Node::Str(s) => Ok(s.clone()),
            Node::Int(i) => Ok(i.to_string()),
            Node::Float(f) => Ok(f.to_string()),
            other => Err(other.expected(path, "a string")),
        }
    }

    /// A whole number (a string of digits is accepted, as INI and YAML files write them).
    ///
    /// # Errors
    /// `expected a whole number` at `path`.
    pub fn int(&self, path: &str) -> Result<i128, FormatError> {
        let bad = || self.expected(path, "a whole number");
        match self {
            Node::Int(i) => Ok(*i),
            #[allow(clippy::cast_possible_truncation)]
            Node::Float(f) if f.fract() == 0.0 && f.abs() < 1e18 => Ok(*f as i128),
            Node::Str(s) => s.trim().parse::<i128>().map_err(|_| bad()),
            _ => Err(bad()),
        }
    }

    /// A number (whole or decimal; a numeric string is accepted).
    ///
    /// # Errors
    /// `expected a number` at `path`.
    pub fn number(&self, path: &str) -> Result<f64, FormatError> {
        let bad = || self.expected(path, "a number");
        match self {
            #[allow(clippy::cast_precision_loss)]
            Node::Int(i) => Ok(*i as f64),
            Node::Float(f) if f.is_finite() => Ok(*f),
            Node::Str(s) => s
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .ok_or_else(bad),
            _ => Err(bad()),
        }
    }

    /// A boolean (`"true"`/`"false"` strings are accepted, as INI files write them).
    ///
    /// # Errors
    /// `expected true or false` at `path`.
    pub fn flag(&self, path: &str) -> Result<bool, FormatError> {
        match self {
            Node::Bool(b) => Ok(*b),
            Node::Str(s) if s.eq_ignore_ascii_case("true") => Ok(true),
            Node::Str(s) if s.eq_ignore_ascii_case("false") => Ok(false),
            other => Err(other.expected(path, "true or false")),
        }
    }

    /// A duration text read by `parse` (one of `super::durations`' parsers), in ms.
    ///
    /// # Errors
    /// `expected a string`, or the parser's message, at `path`.
    pub fn duration(
        &self,
        path: &str,
        parse: fn(&str) -> Result<u64, String>,
    ) -> Result<u64, FormatError> {
        parse(&self.text(path)?).map_err(|e| FormatError::new(path, e))
    }

    /// The value under `key` when this is a map.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// `parent.key`, or `key` at the root.
pub fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// `parent[index]`.
pub fn index(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Int(i128::from(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Int(i128::from(v)))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Node, E> {
        Ok(Node::Int(v))
    }
    fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<Node, E> {
        i128::try_from(v)
            .map(Node::Int)
            .map_err(|_| E::custom("number too large"))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Node::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries: Vec<(String, Node)> = Vec::new();
        while let Some((key, value)) = map.next_entry::<KeyText, Node>()? {
            entries.push((key.0, value));
        }
        Ok(Node::Map(entries))
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

/// A map key written as text whatever its YAML type (`200: …` is the key `"200"`).
struct KeyText(String);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let node = Node::deserialize(d)?;
        Ok(KeyText(match node {
            Node::Str(s) => s,
            other => other.describe(),
        }))
    }
}

/// Parses strict JSON.
///
/// # Errors
/// The syntax error with its line and column.
pub fn parse_json(text: &str) -> Result<Node, FormatError> {
    serde_json::from_str::<Node>(text).map_err(|e| {
        FormatError::syntax(
            Some(e.line()),
            // serde_json counts bytes, and 0 at a line's very start: 1-based characters.
            Some(crate::model::char_column(text, e.line(), e.column())),
            crate::model::plain_json_error(&e),
        )
    })
}

/// Parses JSON with `//` and `/* */` comments and trailing commas (.NET's appsettings.json).
///
/// # Errors
/// The syntax error with its line.
pub fn parse_jsonc(text: &str) -> Result<Node, FormatError> {
    let options = jsonc_parser::ParseOptions::default();
    match jsonc_parser::parse_to_value(text, &options) {
        Ok(Some(value)) => Ok(from_jsonc(value)),
        Ok(None) => Err(FormatError::syntax(
            None,
            None,
            "the file holds no JSON value".into(),
        )),
        Err(e) => Err(FormatError::syntax(
            Some(e.line_display()),
            Some(e.column_display()),
            e.kind().to_string().to_lowercase(),
        )),
    }
}

fn from_jsonc(value: jsonc_parser::JsonValue<'_>) -> Node {
    use jsonc_parser::JsonValue as J;
    match value {
        J::Null => Node::Null,
        J::Boolean(b) => Node::Bool(b),
        J::String(s) => Node::Str(s.into_owned()),
        J::Number(n) => match n.parse::<i128>() {
            Ok(i) => Node::Int(i),
            Err(_) => n
                .parse::<f64>()
                .map_or_else(|_| Node::Str(n.to_owned()), Node::Float),
        },
        J::Array(items) => Node::List(items.take_inner().into_iter().map(from_jsonc).collect()),
        J::Object(obj) => {
            let mut entries: Vec<(String, Node)> = obj
                .take_inner()
                .into_iter()
                .map(|(k, v)| (k.into_owned(), from_jsonc(v)))
                .collect();
            // The parser's map is unordered: sort so reports are stable.
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Node::Map(entries)
        }
    }
}

/// Parses one YAML document (anchors resolved, no tags or includes).
///
/// # Errors
/// The syntax error with its line and column.
pub fn parse_yaml(text: &str) -> Result<Node, FormatError> {
    serde_saphyr::from_str::<Node>(text).map_err(|e| {
        let (line, column) = e.location().map_or((None, None), |l| {
            (
                usize::try_from(l.line()).ok(),
                usize::try_from(l.column()).ok(),
            )
        });
        FormatError::syntax(
            line,
            column,
            plain_yaml_message(&without_locations(
                e.to_string().lines().next().unwrap_or_default().trim(),
            )),
        )
    })
}

/// The YAML parser's messages that speak to a programmer (`set DuplicateKeyPolicy in
/// Options`, `use from_str_multiple`) in plain words of what is wrong in the file; serde's
/// ones as [`crate::model::plain_parse_message`] says them; any other as it is.
fn plain_yaml_message(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("duplicate mapping key") {
        let key = rest
            .split(", set DuplicateKeyPolicy")
            .next()
            .unwrap_or_default()
            .trim_start_matches(':')
            .trim();
        return if key.is_empty() {
            "a key appears twice in the same map (keep one)".to_owned()
        } else {
            format!("the key `{key}` appears twice in the same map (keep one)")
        };
    }
    if message.starts_with("multiple YAML documents detected") {
        return "more than one YAML document (a second `---`): give one document".to_owned();
    }
    if let Some(what) = message.strip_prefix("budget breached:") {
        return budget_message(what.trim());
    }
    if message == "alias references unknown anchor" {
        return "an alias (`*name`) names no anchor (`&name`) defined before it".to_owned();
    }
    crate::model::plain_parse_message(message)
}

/// The YAML reader's safety limit `what` (`Nodes { nodes: 250001 }`, `Depth { depth: 129 }`)
/// in our words: the document is too big or too deep to be a retry configuration.
fn budget_message(what: &str) -> String {
    let kind = what.split([' ', '{']).next().unwrap_or_default();
    let count: String = what.chars().filter(char::is_ascii_digit).collect();
    let thing = match kind {
        "Nodes" => "values",
        "Depth" | "InclusionDepth" | "PropertyExpansionDepth" => "levels of nesting",
        "Aliases" | "AliasAnchorRatio" | "RecordedAnchorEvents" | "RecordedAnchorBytes" => {
            "alias expansions (`*name`)"
        }
        "Anchors" => "anchors (`&name`)",
        "Documents" => "documents",
        "ScalarBytes" | "CommentBytes" | "InputBytes" => "bytes of text",
        "MergeKeys" => "merge keys (`<<`)",
        _ => "parser events",
    };
    let many = if count.is_empty() {
        format!("too many {thing}")
    } else {
        format!(
            "more than {} {thing}",
            count
                .parse::<u64>()
                .map_or(count.clone(), |n| n.saturating_sub(1).to_string())
        )
    };
    format!(
        "the YAML document is too big to be a retry configuration ({many}); it was not read further"
    )
}

/// `message` without the `error: line L column C:` / ` at line L, column C` (and `(defined at
/// …)` / `(used at …)`) parts the YAML parser writes into it: the error carries its position
/// apart, and the front ends print it once, in front.
fn without_locations(message: &str) -> String {
    static LOCATION: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\s*\(?(?:(?:defined|used) )?(?:at )?line \d+,? column \d+\)?:?").ok()
    });
    let Some(re) = LOCATION.as_ref() else {
        return message.to_owned();
    };
    let bare = re.replace_all(message, "");
    let bare = bare.trim();
    let bare = bare.strip_prefix("error:").unwrap_or(bare);
    let bare = bare.trim().trim_end_matches([',', ':']).trim();
    if bare.is_empty() {
        message.to_owned()
    } else {
        bare.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_maps_keep_their_order_and_numbers_stay_numbers() {
        let node = parse_yaml("b: 1\na: 2.5\nc: [x, true, ~]\n").expect("parses");
        let Node::Map(entries) = &node else {
            panic!("map expected: {node:?}");
        };
        let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["b", "a", "c"]);
        assert_eq!(node.get("b"), Some(&Node::Int(1)));
        assert_eq!(node.get("a"), Some(&Node::Float(2.5)));
        assert_eq!(
            node.get("c").map(Node::describe).as_deref(),
            Some("[\"x\", true, null]")
        );
    }

    #[test]
    fn syntax_errors_carry_a_line() {
        let e = parse_yaml("a: [1, 2\nb: 3\n").expect_err("unclosed list");
        assert!(e.line.is_some(), "{e:?}");
        let e = parse_json("{\n  \"a\": 1,\n  \"b\" 2\n}").expect_err("missing colon");
        assert_eq!(e.line, Some(3), "{e:?}");
        let e = parse_jsonc("{\n // fine\n \"a\": 1,\n \"b\": }").expect_err("no value");
        assert_eq!(e.line, Some(4), "{e:?}");
    }

    #[test]
    fn yaml_messages_do_not_repeat_the_position() {
        let e = parse_yaml("a: [1, 2\nb: 3\n").expect_err("unclosed list");
        assert!(e.line.is_some() && e.column.is_some(), "{e:?}");
        assert!(!e.message.contains("line "), "{e:?}");
        assert!(!e.message.is_empty());
        assert_eq!(
            without_locations("did not find ',' at line 3, column 1"),
            "did not find ','"
        );
        assert_eq!(
            without_locations("error: line 2 column 2: illegal placement of ':' indicator"),
            "illegal placement of ':' indicator"
        );
        assert_eq!(
            without_locations(
                "invalid u16 (defined at line 1, column 10) (used at line 3, column 7)"
            ),
            "invalid u16"
        );
    }

    #[test]
    fn the_yaml_readers_limits_are_said_in_our_words() {
        assert_eq!(
            budget_message("Nodes { nodes: 250001 }"),
            "the YAML document is too big to be a retry configuration (more than 250000 values); it was not read further"
        );
        assert!(budget_message("SequenceUnbalanced").contains("(too many parser events)"));
        let text = format!("a: [{}]\n", vec!["1"; 260_000].join(","));
        let e = parse_yaml(&text).expect_err("over the limit");
        assert!(
            e.message.starts_with("the YAML document is too big"),
            "{}",
            e.message
        );
        assert!(!e.message.contains('{'), "{}", e.message);
    }

    #[test]
    fn yaml_messages_speak_of_the_file_not_of_the_parser() {
        let said = |text: &str| parse_yaml(text).expect_err("refused").message;
        assert_eq!(
            said("a: 1\na: 2\n"),
            "the key `a` appears twice in the same map (keep one)"
        );
        assert_eq!(
            said("a: 1\n---\nb: 2\n"),
            "more than one YAML document (a second `---`): give one document"
        );
        assert_eq!(
            said("a: *nope\n"),
            "an alias (`*name`) names no anchor (`&name`) defined before it"
        );
        for text in [
            "a: 1\na: 2\n",
            "? [x]\n: 1\n? [x]\n: 2\n",
            "a: 1\n---\nb: 2\n",
        ] {
            let message = said(text);
            for jargon in ["Options", "Policy", "from_str"] {
                assert!(!message.contains(jargon), "{text:?}: {message}");
            }
        }
    }

    #[test]
    fn jsonc_accepts_comments() {
        let node = parse_jsonc("{ // c\n \"a\": 1, /* d */ \"b\": [1,], }").expect("parses");
        assert_eq!(node.get("a"), Some(&Node::Int(1)));
    }
}
