//! Plain words for the messages `serde` and `serde_json` give about bad input ("key must be a
//! string", "expected ident", "invalid type: integer `5`, expected a sequence"), so a user who
//! typed a profile, a batch list or a HAR file reads what was expected there, not the parser's
//! vocabulary. The caller keeps the line:column and field path; this only rewords the sentence
//! ([`plain_parse_message`]) and turns `serde_json`'s byte columns into 1-based character
//! columns ([`char_column`]).

/// `serde_json`'s message of `e` without its trailing ` at line L column C` (the error carries
/// them apart), in plain words ([`plain_parse_message`]).
pub fn plain_json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    plain_parse_message(text.strip_suffix(&suffix).unwrap_or(&text))
}

/// `message` (one of serde's or `serde_json`'s, without its position) in plain words; a
/// message this does not know is returned as it is.
///
/// ```
/// use retryscope::model::plain_parse_message as plain;
/// assert_eq!(plain("key must be a string"), "expected a field name in double quotes");
/// assert_eq!(
///     plain("invalid type: integer `5`, expected a sequence"),
///     "expected a list, found the number 5"
/// );
/// assert_eq!(plain("missing field `url`"), "the field `url` is missing");
/// ```
pub fn plain_parse_message(message: &str) -> String {
    if let Some(fixed) = syntax(message) {
        return fixed.to_owned();
    }
    for head in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(head)
            && let Some((unexpected, expected)) = rest.split_once(", expected ")
        {
            return format!(
                "expected {}, found {}",
                expected_words(expected),
                found_words(unexpected)
            );
        }
    }
    if let Some(rest) = message.strip_prefix("invalid length ")
        && let Some((len, expected)) = rest.split_once(", expected ")
    {
        let found = len.parse::<u64>().map_or_else(
            |_| format!("{len} items"),
            |n| super::counted(n, "item", "items"),
        );
        return format!("expected {}, found {found}", expected_words(expected));
    }
    if let Some(field) = message.strip_prefix("missing field ") {
        return format!("the field {field} is missing");
    }
    if let Some(field) = message.strip_prefix("duplicate field ") {
        return format!("the field {field} is given twice");
    }
    for (head, what) in [("unknown field ", "field"), ("unknown variant ", "value")] {
        if let Some(rest) = message.strip_prefix(head) {
            let allowed = rest
                .split_once(", expected one of ")
                .or_else(|| rest.split_once(", expected "));
            return match (allowed, rest.split_once(", there are no ")) {
                (Some((name, allowed)), _) => format!("unknown {what} {name} (allowed: {allowed})"),
                (None, Some((name, _))) => format!("unknown {what} {name} (none are allowed here)"),
                (None, None) => message.to_owned(),
            };
        }
    }
    message.to_owned()
}

/// `serde_json`'s syntax errors (its `ErrorCode` texts) in plain words.
fn syntax(message: &str) -> Option<&'static str> {
    Some(match message {
        "key must be a string" => "expected a field name in double quotes",
        "expected ident" => {
            "expected `true`, `false` or `null` (text in a value needs double quotes)"
        }
        "expected value" => {
            "expected a value: text in double quotes, a number, true, false, null, an object or a list"
        }
        "expected `:`" => "expected `:` after the field name",
        "expected `,` or `}`" => "expected `,` before the next field or `}` to close the object",
        "expected `,` or `]`" => "expected `,` before the next item or `]` to close the list",
        "expected `\"`" => "expected a double quote `\"`",
        "trailing comma" => "a comma before `}` or `]` (JSON allows no comma after the last item)",
        "trailing characters" => {
            "more text after the end of the JSON value (one value per file or line)"
        }
        "EOF while parsing a value" => {
            "the text ends where a value was expected (empty, or cut short)"
        }
        "EOF while parsing a list" => "the text ends inside a list: a `]` is missing",
        "EOF while parsing an object" => "the text ends inside an object: a `}` is missing",
        "EOF while parsing a string" => "the text ends inside a string: a closing `\"` is missing",
        "invalid escape" => {
            "an unknown escape after `\\` in a string (use \\\\, \\\", \\n, \\t or \\uXXXX)"
        }
        "invalid number" => "not a valid number",
        "number out of range" => "the number is too large",
        "invalid unicode code point" => "a \\u escape that is not a valid character",
        "lone leading surrogate in hex escape" | "unexpected end of hex escape" => {
            "an incomplete \\u escape in a string"
        }
        "control character (\\u0000-\\u001F) found while parsing a string" => {
            "a line break or other control character inside a string (write it as \\n, \\t, …)"
        }
        "recursion limit exceeded" => "nested more than 128 levels deep",
        _ => return None,
    })
}

/// serde's "expected …" description (`a sequence`, `u16`, `struct Entry`) in plain words.
fn expected_words(expected: &str) -> String {
    let plain = match expected {
        "a sequence" => "a list",
        "a map" => "an object",
        "a boolean" => "true or false",
        "a string" | "a borrowed string" => "a string",
        "unit" => "null",
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => "a whole number ≥ 0",
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "a whole number",
        "f32" | "f64" => "a number",
        other if other.starts_with("struct ") => "an object",
        other if other.starts_with("tuple") => "a list",
        other if other.contains("enum ") => "one of the allowed values",
        other => {
            if let Some(n) = other.strip_prefix("a tuple of size ") {
                return format!("a list of {n} items");
            }
            other
        }
    };
    plain.to_owned()
}

/// serde's description of what was found (``integer `5` ``, `map`, `string "x"`) in plain words.
fn found_words(unexpected: &str) -> String {
    let tick = |prefix: &str| {
        unexpected
            .strip_prefix(prefix)
            .map(|v| v.trim_matches('`').to_owned())
    };
    if let Some(n) = tick("integer ").or_else(|| tick("floating point ")) {
        return format!("the number {n}");
    }
    if let Some(b) = tick("boolean ") {
        return b;
    }
    if let Some(s) = unexpected.strip_prefix("string ") {
        return format!("the string {s}");
    }
    match unexpected {
        "map" => "an object".into(),
        "sequence" => "a list".into(),
        "unit value" | "null" => "null".into(),
        other => other.to_owned(),
    }
}

/// `serde_json`'s 1-based byte column on 1-based `line` as a 1-based character column (what
/// every other position counts), pointing at the character that holds that byte; the
/// column 0 `serde_json` gives at the very start of a line (the text ended after a line
/// break) is column 1.
///
/// ```
/// use retryscope::model::char_column;
/// assert_eq!(char_column("{\"a\": \"é\" x}", 1, 12), 11); // é is 2 bytes
/// assert_eq!(char_column("[\n", 2, 0), 1);
/// ```
pub fn char_column(text: &str, line: usize, byte_column: usize) -> usize {
    let Some(this) = text.split('\n').nth(line.saturating_sub(1)) else {
        return byte_column.max(1);
    };
    let mut at = byte_column.saturating_sub(1).min(this.len());
    while !this.is_char_boundary(at) {
        at -= 1;
    }
    this[..at].chars().count() + 1
}

/// A message about a place in a file the user gave, written as compilers write it, the place
/// first so editors and terminals jump to it: `FILE:LINE:COLUMN: message`, `FILE:LINE: message`
/// without a column, `FILE: message` without a line. Every such message (profile problems,
/// imported settings, batch list lines, HAR files) is written by this.
pub fn file_message<L: std::fmt::Display>(
    file: impl std::fmt::Display,
    line: Option<L>,
    column: Option<L>,
    message: impl std::fmt::Display,
) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!("{file}:{l}:{c}: {message}"),
        (Some(l), None) => format!("{file}:{l}: {message}"),
        (None, _) => format!("{file}: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::plain_parse_message as plain;

    #[test]
    fn a_file_message_leads_with_as_much_of_the_place_as_is_known() {
        use super::file_message;
        assert_eq!(
            file_message("a.yaml", Some(3), Some(5), "bad"),
            "a.yaml:3:5: bad"
        );
        assert_eq!(file_message("l.csv", Some(3), None, "bad"), "l.csv:3: bad");
        assert_eq!(
            file_message("x.har", None::<u64>, None, "bad"),
            "x.har: bad"
        );
    }

    #[test]
    fn every_serde_json_syntax_message_is_reworded() {
        for raw in [
            "key must be a string",
            "expected ident",
            "expected value",
            "expected `:`",
            "expected `,` or `}`",
            "expected `,` or `]`",
            "trailing comma",
            "trailing characters",
            "EOF while parsing a value",
            "EOF while parsing a list",
            "EOF while parsing an object",
            "EOF while parsing a string",
            "invalid escape",
            "number out of range",
            "recursion limit exceeded",
        ] {
            let said = plain(raw);
            assert_ne!(said, raw);
            for jargon in ["ident", "EOF", "key must"] {
                assert!(!said.contains(jargon), "{raw} → {said}");
            }
        }
    }

    #[test]
    fn type_messages_say_what_was_expected_then_what_was_found() {
        assert_eq!(
            plain("invalid type: map, expected a string"),
            "expected a string, found an object"
        );
        assert_eq!(
            plain("invalid type: string \"3\", expected u32"),
            "expected a whole number ≥ 0, found the string \"3\""
        );
        assert_eq!(
            plain("invalid type: null, expected struct Entry"),
            "expected an object, found null"
        );
        assert_eq!(
            plain("unknown variant `fixd`, expected one of `fixed`, `exponential`"),
            "unknown value `fixd` (allowed: `fixed`, `exponential`)"
        );
        assert_eq!(plain("something else"), "something else");
    }

    #[test]
    fn lengths_say_how_many_items_in_plain_words() {
        assert_eq!(
            plain("invalid length 1, expected a tuple of size 2"),
            "expected a list of 2 items, found 1 item"
        );
        assert_eq!(
            plain("invalid length 3, expected a [name, value] pair"),
            "expected a [name, value] pair, found 3 items"
        );
    }
}
