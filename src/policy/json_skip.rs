//! Skipping a JSON value by its structure alone, for [`super::lookup_pointer`]: strings (with
//! their escapes) and brackets are followed, nothing else is read. `serde_json`'s validating skip
//! (`IgnoredAny`) reads every byte of every number and literal; this scan reads less, which is
//! what keeps a pointer to the last member of a 1 MiB body under 1 ms (BENCHMARKS.md "Conditions
//! on responses"). The values a lookup returns are still
//! parsed, and so checked, by `serde_json`; only the members it passes over are not validated.

/// The index just after the JSON string whose opening quote is at `at - 1` (so `at` is its first
/// byte), or `None` when the body ends inside it.
pub(super) fn string_end(body: &[u8], mut at: usize) -> Option<usize> {
    while let Some(&b) = body.get(at) {
        at += 1;
        match b {
            b'"' => return Some(at),
            b'\\' => at += 1,
            _ => {}
        }
    }
    None
}

/// The index just after the value that starts at `at` (no whitespace before it), or `None`
/// when the body ends first, a closing bracket does not match its opening one, or there is no
/// value (a `,`, `:`, `]` or `}` where a value should be). Scalars are taken as the bytes up to
/// the next delimiter, not checked.
pub(super) fn value_end(body: &[u8], at: usize) -> Option<usize> {
    match *body.get(at)? {
        b'"' => string_end(body, at + 1),
        b'[' | b'{' => container_end(body, at),
        b',' | b':' | b']' | b'}' => None,
        _ => {
            let len = body[at..]
                .iter()
                .position(|&b| matches!(b, b',' | b']' | b'}' | b':') || is_space(b))
                .unwrap_or(body.len() - at);
            Some(at + len)
        }
    }
}

/// The index just after the array or object opened at `at`.
fn container_end(body: &[u8], mut at: usize) -> Option<usize> {
    // The closers still expected, innermost last.
    let mut open: Vec<u8> = Vec::new();
    while let Some(&b) = body.get(at) {
        at += 1;
        match b {
            b'"' => at = string_end(body, at)?,
            b'[' => open.push(b']'),
            b'{' => open.push(b'}'),
            b']' | b'}' => {
                if open.pop() != Some(b) {
                    return None;
                }
                if open.is_empty() {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

/// JSON whitespace (RFC 8259 §2).
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The first index at or after `at` that is not whitespace.
pub(super) fn skip_space(body: &[u8], at: usize) -> usize {
    at + body
        .get(at..)
        .map_or(0, |rest| rest.iter().take_while(|&&b| is_space(b)).count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_end_where_they_end() {
        let cases: &[(&str, Option<usize>)] = &[
            (r#""a\"b" ,"#, Some(6)),
            (r#"[1, "]", {"k": [2]}] x"#, Some(20)),
            ("12.5e3,", Some(6)),
            ("true}", Some(4)),
            ("null", Some(4)),
            ("[1, 2}", None),
            (r#"{"a": "cut"#, None),
            ("[[]", None),
            (",", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(value_end(text.as_bytes(), 0), *want, "{text}");
        }
    }

    #[test]
    fn space_is_skipped() {
        assert_eq!(skip_space(b" \t\r\n x", 0), 5);
        assert_eq!(skip_space(b"x", 0), 0);
        assert_eq!(skip_space(b"  ", 5), 5);
    }
}
