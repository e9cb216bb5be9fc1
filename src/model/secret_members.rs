//! Secret members of a request body: in JSON (a JSON body, or a text body that parses as JSON)
//! the values of members whose name the secrets rule calls secret
//! ([`super::secrets::is_secret_param`]: `password`, `client_secret`, `refresh_token`, …), at
//! any depth, every duplicate, strings and numbers alike, and everything inside an object or
//! array held by such a member; in a form-encoded text body (`-d 'user=a&password=b'`) the
//! values of such fields. Stored and exported copies of the request show them as `***` (the
//! bytes sent are unchanged), and an echo of one in a response is masked like any other
//! secret value.
//!
//! The JSON is read by a small scanner rather than parsed into a tree: a tree keeps one of two
//! duplicate names and refuses deep nesting, and both would let a secret through.

use std::ops::Range;

/// One secret value in a body: where its literal is (bytes, quotes included) and what it is
/// (a string decoded, a number as written; empty for `true`/`false`, which are not searched
/// for in echoes).
struct Found {
    span: Range<usize>,
    value: String,
}

/// The secret members' values of the body text `text` (JSON members, else form fields), each
/// once, empty ones left out; empty when the text is neither (plain text, or JSON with
/// `{{variables}}` outside strings).
pub fn json_secret_members(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for found in scan(text) {
        if !found.value.is_empty() && !out.contains(&found.value) {
            out.push(found.value);
        }
    }
    out
}

/// `text` with every secret member's value literal (see [`json_secret_members`]) replaced by
/// `"***"` in JSON (`***` in a form), the rest of the text (formatting, order, other members)
/// as typed.
pub fn mask_json_secret_members(text: &str) -> String {
    let found = scan(text);
    let json = scan_json(text).is_some();
    let mut out = text.to_owned();
    for f in found.iter().rev() {
        out.replace_range(f.span.clone(), if json { "\"***\"" } else { "***" });
    }
    out
}

/// The secret values of `text` read as JSON, else as a form.
fn scan(text: &str) -> Vec<Found> {
    scan_json(text).unwrap_or_else(|| scan_form(text))
}

/// Fields of a form-encoded text (`a=1&password=x`) whose decoded name is secret. A text with
/// whitespace or no `=` is not a form.
fn scan_form(text: &str) -> Vec<Found> {
    let trimmed = text.trim_end_matches(['\r', '\n']);
    if !trimmed.contains('=') || trimmed.contains(char::is_whitespace) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut start = 0;
    for pair in trimmed.split('&') {
        if let Some((name, value)) = pair.split_once('=') {
            let decode = |s: &str| {
                percent_encoding::percent_decode_str(&s.replace('+', " "))
                    .decode_utf8_lossy()
                    .into_owned()
            };
            if super::secrets::is_secret_param(&decode(name)) && !value.is_empty() {
                let at = start + name.len() + 1;
                out.push(Found {
                    span: at..at + value.len(),
                    value: decode(value),
                });
            }
        }
        start += pair.len() + 1;
    }
    out
}

/// A JSON token: structure, or the byte span of a string or scalar literal.
enum Token {
    Open(bool),
    Close(bool),
    Colon,
    Comma,
    Str(Range<usize>),
    Scalar(Range<usize>),
}

/// What the scanner waits for next.
#[derive(Clone, Copy)]
enum Expect {
    /// A value (or, right after `[`, the array's end); `secret` when it belongs to a secret
    /// member.
    Value { secret: bool, may_close: bool },
    /// A member name (or, right after `{`, the object's end).
    Name { may_close: bool },
    /// The `:` after a name.
    Colon { secret: bool },
    /// `,` or the end of the container.
    Next,
    /// Nothing: the document is complete.
    Done,
}

/// The secret values of `text` when it is one JSON document (a leading BOM allowed), else
/// `None`. Iterative: nesting depth is bounded only by the text.
fn scan_json(text: &str) -> Option<Vec<Found>> {
    let mut found = Vec::new();
    // (is an object, holds secret values) for each open container.
    let mut stack: Vec<(bool, bool)> = Vec::new();
    let mut expect = Expect::Value {
        secret: false,
        may_close: false,
    };
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut tokens = Tokens { text, at: start };
    while let Some(token) = tokens.next_token().ok()? {
        let inside = stack.last().is_some_and(|&(_, secret)| secret);
        expect = match (expect, token) {
            (Expect::Value { secret, .. }, Token::Open(object)) => {
                stack.push((object, secret));
                if object {
                    Expect::Name { may_close: true }
                } else {
                    Expect::Value {
                        secret,
                        may_close: true,
                    }
                }
            }
            (Expect::Value { secret, .. }, Token::Str(span)) => {
                if secret {
                    let value = serde_json::from_str::<String>(&text[span.clone()]).ok()?;
                    found.push(Found { span, value });
                }
                after_value(&stack)
            }
            (Expect::Value { secret, .. }, Token::Scalar(span)) => {
                if secret {
                    let raw = &text[span.clone()];
                    // `true` is masked in copies but not searched for in echoes.
                    let value = if raw.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
                        raw.to_owned()
                    } else {
                        String::new()
                    };
                    if raw != "null" {
                        found.push(Found { span, value });
                    }
                }
                after_value(&stack)
            }
            (Expect::Name { .. }, Token::Str(span)) => {
                let name = serde_json::from_str::<String>(&text[span]).ok()?;
                Expect::Colon {
                    secret: inside || super::secrets::is_secret_param(&name),
                }
            }
            (Expect::Colon { secret }, Token::Colon) => Expect::Value {
                secret,
                may_close: false,
            },
            (Expect::Next, Token::Comma) => match stack.last() {
                Some((true, _)) => Expect::Name { may_close: false },
                _ => Expect::Value {
                    secret: inside,
                    may_close: false,
                },
            },
            (
                Expect::Next
                | Expect::Name { may_close: true }
                | Expect::Value {
                    may_close: true, ..
                },
                Token::Close(object),
            ) if stack.last().is_some_and(|&(o, _)| o == object) => {
                stack.pop();
                after_value(&stack)
            }
            _ => return None,
        };
    }
    matches!(expect, Expect::Done).then_some(found)
}

/// What follows a complete value: `,` or an end inside a container, nothing at the top.
fn after_value(stack: &[(bool, bool)]) -> Expect {
    if stack.is_empty() {
        Expect::Done
    } else {
        Expect::Next
    }
}

/// The text is not JSON.
struct NotJson;

/// The tokens of a JSON text, from byte `at`.
struct Tokens<'a> {
    text: &'a str,
    at: usize,
}

impl Tokens<'_> {
    /// The next token, `Ok(None)` at the end.
    ///
    /// # Errors
    /// [`NotJson`] on a byte no JSON token starts with, an unterminated string, or a scalar
    /// that is not a JSON number or literal.
    fn next_token(&mut self) -> Result<Option<Token>, NotJson> {
        let bytes = self.text.as_bytes();
        while self.at < bytes.len() && matches!(bytes[self.at], b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
        let Some(&byte) = bytes.get(self.at) else {
            return Ok(None);
        };
        let start = self.at;
        self.at += 1;
        let token = match byte {
            b'{' => Token::Open(true),
            b'[' => Token::Open(false),
            b'}' => Token::Close(true),
            b']' => Token::Close(false),
            b':' => Token::Colon,
            b',' => Token::Comma,
            b'"' => {
                loop {
                    match bytes.get(self.at).ok_or(NotJson)? {
                        b'\\' => self.at += 2,
                        b'"' => break,
                        _ => self.at += 1,
                    }
                }
                self.at += 1;
                Token::Str(start..self.at)
            }
            _ => {
                // A scalar ends at whitespace, structure or a quote.
                while bytes
                    .get(self.at)
                    .is_some_and(|b| !b" \t\n\r{}[]:,\"".contains(b))
                {
                    self.at += 1;
                }
                let raw = &self.text[start..self.at];
                let scalar = serde_json::from_str::<serde_json::Value>(raw).map_err(|_| NotJson)?;
                if !(scalar.is_number() || scalar.is_boolean() || scalar.is_null()) {
                    return Err(NotJson);
                }
                Token::Scalar(start..self.at)
            }
        };
        Ok(Some(token))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_members_are_found_at_any_depth_and_masked_in_place() {
        let body = r#"{
  "grant_type": "password",
  "username": "alice",
  "password": "pa\"ss1",
  "client": {"client_secret": "cs-123456", "id": "app"},
  "items": [{"refresh_token": "rt-abcdef"}],
  "pin": 1234
}"#;
        let mut found = json_secret_members(body);
        found.sort();
        assert_eq!(found, ["cs-123456", "pa\"ss1", "rt-abcdef"]);
        let masked = mask_json_secret_members(body);
        assert_eq!(
            masked,
            r#"{
  "grant_type": "password",
  "username": "alice",
  "password": "***",
  "client": {"client_secret": "***", "id": "app"},
  "items": [{"refresh_token": "***"}],
  "pin": 1234
}"#
        );
        assert_eq!(mask_json_secret_members("not json {{x}}"), "not json {{x}}");
    }

    #[test]
    fn duplicates_numbers_nested_values_a_bom_and_deep_nesting_are_all_masked() {
        let body = "\u{feff}{\"password\": \"first-one\", \"password\": \"second-one\", \
                    \"api_key\": 98765432, \"client_secret\": {\"v\": [\"inner-secret\", true]}}";
        let mut found = json_secret_members(body);
        found.sort();
        assert_eq!(
            found,
            ["98765432", "first-one", "inner-secret", "second-one"]
        );
        assert_eq!(
            mask_json_secret_members(body),
            "\u{feff}{\"password\": \"***\", \"password\": \"***\", \
             \"api_key\": \"***\", \"client_secret\": {\"v\": [\"***\", \"***\"]}}"
        );
        let deep = format!(
            "{}{{\"password\":\"deep-secret\"}}{}",
            "[".repeat(500),
            "]".repeat(500)
        );
        assert_eq!(json_secret_members(&deep), ["deep-secret"]);
        assert!(!mask_json_secret_members(&deep).contains("deep-secret"));
    }

    #[test]
    fn broken_json_is_not_scanned_and_a_form_body_is() {
        for text in [
            "{\"password\": \"x\"",
            "{\"password\" \"x\"}",
            "[1,]",
            "{} {}",
        ] {
            assert!(scan_json(text).is_none(), "{text}");
        }
        let form = "user=alice&password=s%3Dcret+1&client_secret=cs-9999";
        assert_eq!(json_secret_members(form), ["s=cret 1", "cs-9999"]);
        assert_eq!(
            mask_json_secret_members(form),
            "user=alice&password=***&client_secret=***"
        );
        assert!(json_secret_members("password = x").is_empty(), "prose");
    }
}
