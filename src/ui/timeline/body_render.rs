//! How a response body preview is shown: pretty JSON, text, or a hex dump for binary.

use super::units::format_bytes;
use crate::model::BodyPreview;
use std::fmt::Write as _;

/// Bytes shown in a hex dump of a binary body.
pub const HEX_DUMP_BYTES: usize = 512;

/// A body preview prepared for display (computed once per selected attempt, not per frame).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyRender {
    /// No body bytes.
    Empty,
    /// The preview parsed as JSON; pretty-printed.
    Json(String),
    /// Valid UTF-8 that is not JSON (or JSON cut off by the preview cap), shown as is.
    Text(String),
    /// Not UTF-8: a hex dump of the first [`HEX_DUMP_BYTES`] bytes.
    Binary {
        /// Hex dump lines: offset, 16 bytes in hex, printable ASCII.
        hex_dump: String,
    },
}

impl BodyRender {
    /// Prepares `preview` for display. JSON is detected by parsing, not by `Content-Type`.
    pub fn from_preview(preview: &BodyPreview) -> Self {
        if preview.bytes.is_empty() {
            return BodyRender::Empty;
        }
        match std::str::from_utf8(&preview.bytes) {
            Ok(text) => {
                let is_json = !preview.truncated
                    && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
                if is_json {
                    BodyRender::Json(pretty_json(text))
                } else {
                    BodyRender::Text(text.to_owned())
                }
            }
            Err(_) => BodyRender::Binary {
                hex_dump: hex_dump(&preview.bytes[..preview.bytes.len().min(HEX_DUMP_BYTES)]),
            },
        }
    }
}

impl BodyRender {
    /// The text shown: pretty JSON, the text, or the hex dump (empty for no body).
    pub fn text(&self) -> &str {
        match self {
            BodyRender::Empty => "",
            BodyRender::Json(t) | BodyRender::Text(t) => t,
            BodyRender::Binary { hex_dump } => hex_dump,
        }
    }
}

/// The notices shown above a body: binary size, truncation (`truncated: showing 1.0 MiB of
/// 5.0 MiB (5242880 bytes)`). Empty when none applies.
pub fn body_notices(preview: &BodyPreview, render: &BodyRender) -> Vec<String> {
    let mut notices = Vec::new();
    if let BodyRender::Binary { .. } = render {
        let shown = preview.bytes.len().min(HEX_DUMP_BYTES);
        notices.push(format!(
            "binary body of {} ({} bytes): hex dump of the first {shown} bytes",
            format_bytes(preview.total_bytes),
            preview.total_bytes
        ));
    }
    if preview.truncated {
        notices.push(format!(
            "truncated: showing {} of {} bytes",
            format_bytes(preview.bytes.len() as u64),
            preview.total_bytes
        ));
    }
    notices
}

/// Re-indents valid JSON text by two spaces, keeping keys in their original order and every
/// token byte for byte (`serde_json`'s `Value` would sort object keys).
pub fn pretty_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + json.len() / 4);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = json.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", depth));
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                // Keep empty containers on one line: `{}` and `[]`.
                while chars.peek().is_some_and(|n| n.is_whitespace()) {
                    chars.next();
                }
                if chars.peek().is_some_and(|&n| n == '}' || n == ']') {
                    if let Some(close) = chars.next() {
                        out.push(close);
                    }
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

/// Classic hex dump: `00000000  7b 22 61 …  |{"a…|`, 16 bytes a line.
pub fn hex_dump(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (line, chunk) in bytes.chunks(16).enumerate() {
        let _ = write!(out, "{:08x} ", line * 16);
        for i in 0..16 {
            match chunk.get(i) {
                Some(b) => {
                    let _ = write!(out, " {b:02x}");
                }
                None => out.push_str("   "),
            }
        }
        out.push_str("  |");
        out.extend(chunk.iter().map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                char::from(b)
            } else {
                '.'
            }
        }));
        out.push_str("|\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preview(bytes: &[u8], total: u64, truncated: bool) -> BodyPreview {
        BodyPreview {
            bytes: bytes.to_vec(),
            total_bytes: total,
            truncated,
        }
    }

    #[test]
    fn json_is_pretty_printed() {
        let p = preview(br#"{"ok":true}"#, 11, false);
        assert_eq!(
            BodyRender::from_preview(&p),
            BodyRender::Json("{\n  \"ok\": true\n}".to_owned())
        );
    }

    #[test]
    fn pretty_json_keeps_key_order_and_strings() {
        let text = r#"{"z":1, "a":[1,{"b":"x, {y}: \"q\""}],"e":{}, "f":[ ]}"#;
        assert_eq!(
            pretty_json(text),
            "{\n  \"z\": 1,\n  \"a\": [\n    1,\n    {\n      \"b\": \"x, {y}: \\\"q\\\"\"\n    }\n  ],\n  \"e\": {},\n  \"f\": []\n}"
        );
        assert_eq!(pretty_json("42"), "42");
    }

    #[test]
    fn text_and_truncated_json_stay_text() {
        let p = preview(b"hello", 5, false);
        assert_eq!(
            BodyRender::from_preview(&p),
            BodyRender::Text("hello".into())
        );
        let p = preview(br#"{"a":"#, 5_000_000, true);
        let r = BodyRender::from_preview(&p);
        assert_eq!(r, BodyRender::Text(r#"{"a":"#.into()));
        assert_eq!(
            body_notices(&p, &r),
            vec!["truncated: showing 5 B of 5000000 bytes".to_owned()]
        );
    }

    #[test]
    fn preview_cap_notice_names_shown_and_total_size() {
        let p = preview(&vec![b'a'; 1 << 20], 3_000_000, true);
        let r = BodyRender::from_preview(&p);
        assert_eq!(
            body_notices(&p, &r),
            vec!["truncated: showing 1 MiB of 3000000 bytes".to_owned()]
        );
    }

    #[test]
    fn binary_gets_hex_dump_of_first_512_bytes() {
        let bytes: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let p = preview(&bytes, 1000, false);
        let r = BodyRender::from_preview(&p);
        let BodyRender::Binary { hex_dump } = &r else {
            panic!("expected binary, got {r:?}");
        };
        assert_eq!(hex_dump.lines().count(), 32);
        assert!(hex_dump.starts_with("00000000  00 01 02"));
        assert_eq!(
            body_notices(&p, &r),
            vec!["binary body of 1000 B (1000 bytes): hex dump of the first 512 bytes".to_owned()]
        );
    }

    #[test]
    fn hex_dump_pads_short_lines() {
        assert_eq!(
            hex_dump(b"AB\x00"),
            format!("00000000  41 42 00{}  |AB.|\n", " ".repeat(39))
        );
    }
}
