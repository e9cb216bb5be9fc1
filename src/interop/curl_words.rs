//! Splitting a pasted curl command into its words: POSIX shell quoting (via `shell-words`),
//! `\` line continuations, bash's `$'…'` ANSI-C quoting (Chrome's "Copy as cURL (bash)" uses it
//! for bodies with control characters or `!`), and Windows cmd copies (`^` continuations and
//! `^"` escapes, Chrome's "Copy as cURL (cmd)").

use super::curl::CurlError;

/// The words of `command`, quotes removed, continuations joined.
///
/// # Errors
/// [`CurlError::Quote`] for a quote that is never closed (with its character offset).
pub fn split_words(command: &str) -> Result<Vec<String>, CurlError> {
    let posix = posix_text(command)?;
    shell_words::split(&posix).map_err(|_| CurlError::Quote {
        offset: unclosed_quote(&posix).unwrap_or(0),
    })
}

/// `command` in POSIX shell quoting (cmd copies and `$'…'` rewritten).
fn posix_text(command: &str) -> Result<String, CurlError> {
    let command = without_dangling_continuation(command);
    if is_cmd_style(command) {
        Ok(cmd_to_posix(command))
    } else {
        ansi_c_to_posix(command)
    }
}

/// Whether a POSIX shell would expand a variable in `command`: `${…}`, or `$` then a capital
/// letter (`$TOKEN`; query options such as `$filter` are lower case), unquoted or in double
/// quotes, not escaped. A pasted command is not run by a shell, so such a word is sent as typed.
pub fn expands_a_variable(command: &str) -> bool {
    let Ok(posix) = posix_text(command) else {
        return false;
    };
    let (mut single, mut double) = (false, false);
    let mut chars = posix.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if !single => {
                chars.next();
            }
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '$' if !single
                && chars
                    .peek()
                    .is_some_and(|n| *n == '{' || n.is_ascii_uppercase()) =>
            {
                return true;
            }
            _ => {}
        }
    }
    false
}

/// `command` without a final line continuation that continues nothing (`curl URL \` pasted
/// without its next line): an odd count of trailing backslashes ends in a continuation, an
/// even count is escaped backslashes and stays.
fn without_dangling_continuation(command: &str) -> &str {
    let trimmed = command.trim_end();
    let backslashes = trimmed.len() - trimmed.trim_end_matches('\\').len();
    if backslashes % 2 == 1 {
        trimmed[..trimmed.len() - 1].trim_end()
    } else {
        command
    }
}

/// Whether `command` was copied for Windows cmd: a line ending in `^`, or `^"` quoting, seen
/// before any single quote. cmd copies never quote with `'` (Chrome's start `curl ^"https…`),
/// while a POSIX command may hold `^"` inside a single-quoted value (`-d '^"'`).
fn is_cmd_style(command: &str) -> bool {
    let first_single = command.find('\'').unwrap_or(usize::MAX);
    ["^\n", "^\r\n", "^\""]
        .iter()
        .filter_map(|p| command.find(p))
        .any(|at| at < first_single)
}

/// cmd's escapes to POSIX: `^` + newline joins lines, `^x` is a literal `x`; double quotes
/// then quote as in POSIX (Chrome writes a literal `"` inside a value as `\^"`, so `\"`).
fn cmd_to_posix(command: &str) -> String {
    let mut out = String::with_capacity(command.len());
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '^' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\r') if chars.peek() == Some(&'\n') => {
                chars.next();
            }
            Some('\n') | None => {}
            Some(other) => out.push(other),
        }
    }
    out
}

/// Rewrites every `$'…'` word part as a plain single-quoted string and joins `\` + CRLF
/// continuations like `\` + LF; everything else is passed through for `shell-words`.
fn ansi_c_to_posix(command: &str) -> Result<String, CurlError> {
    #[derive(PartialEq)]
    enum State {
        Normal,
        Single,
        Double,
    }
    let mut out = String::with_capacity(command.len());
    let mut state = State::Normal;
    let mut iter = command.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        match state {
            State::Normal => match c {
                '\\' => match iter.next() {
                    Some((_, '\r')) if iter.peek().is_some_and(|(_, n)| *n == '\n') => {
                        iter.next();
                        out.push_str("\\\n");
                    }
                    Some((_, n)) => {
                        out.push('\\');
                        out.push(n);
                    }
                    None => out.push('\\'),
                },
                '\'' => {
                    state = State::Single;
                    out.push(c);
                }
                '"' => {
                    state = State::Double;
                    out.push(c);
                }
                '$' if iter.peek().is_some_and(|(_, n)| *n == '\'') => {
                    iter.next();
                    let text = ansi_c_body(&mut iter).ok_or_else(|| CurlError::Quote {
                        offset: command[..i].chars().count(),
                    })?;
                    out.push('\'');
                    out.push_str(&text.replace('\'', "'\\''"));
                    out.push('\'');
                }
                _ => out.push(c),
            },
            State::Single => {
                if c == '\'' {
                    state = State::Normal;
                }
                out.push(c);
            }
            State::Double => {
                out.push(c);
                if c == '\\' {
                    if let Some((_, n)) = iter.next() {
                        out.push(n);
                    }
                } else if c == '"' {
                    state = State::Normal;
                }
            }
        }
    }
    Ok(out)
}

/// Reads an ANSI-C quoted body up to its closing `'` (already past `$'`); `None` when the
/// quote is never closed. Escapes: `\a \b \e \E \f \n \r \t \v \\ \' \" \?`, octal `\nnn`,
/// `\xHH`, `\uHHHH`, `\UHHHHHHHH`, `\cX`; unknown escapes are kept as written, like bash.
fn ansi_c_body(iter: &mut std::iter::Peekable<std::str::CharIndices<'_>>) -> Option<String> {
    let mut bytes: Vec<u8> = Vec::new();
    let push_char = |bytes: &mut Vec<u8>, c: char| {
        let mut buf = [0u8; 4];
        bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    };
    loop {
        let (_, c) = iter.next()?;
        match c {
            '\'' => break,
            '\\' => {
                let (_, e) = iter.next()?;
                match e {
                    'a' => bytes.push(0x07),
                    'b' => bytes.push(0x08),
                    'e' | 'E' => bytes.push(0x1b),
                    'f' => bytes.push(0x0c),
                    'n' => bytes.push(b'\n'),
                    'r' => bytes.push(b'\r'),
                    't' => bytes.push(b'\t'),
                    'v' => bytes.push(0x0b),
                    '\\' | '\'' | '"' | '?' => push_char(&mut bytes, e),
                    '0'..='7' => {
                        let mut value = e.to_digit(8).unwrap_or(0);
                        for _ in 0..2 {
                            match iter.peek().and_then(|(_, d)| d.to_digit(8)) {
                                Some(d) => {
                                    value = value * 8 + d;
                                    iter.next();
                                }
                                None => break,
                            }
                        }
                        bytes.push(u8::try_from(value & 0xff).unwrap_or(0));
                    }
                    'x' | 'u' | 'U' => {
                        let max = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let mut value = 0u32;
                        let mut digits = 0;
                        while digits < max {
                            match iter.peek().and_then(|(_, d)| d.to_digit(16)) {
                                Some(d) => {
                                    value = value * 16 + d;
                                    digits += 1;
                                    iter.next();
                                }
                                None => break,
                            }
                        }
                        if digits == 0 {
                            push_char(&mut bytes, '\\');
                            push_char(&mut bytes, e);
                        } else if e == 'x' {
                            bytes.push(u8::try_from(value).unwrap_or(0));
                        } else {
                            push_char(
                                &mut bytes,
                                char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER),
                            );
                        }
                    }
                    'c' => {
                        let (_, x) = iter.next()?;
                        bytes.push(u8::try_from(u32::from(x) & 0x1f).unwrap_or(0));
                    }
                    other => {
                        push_char(&mut bytes, '\\');
                        push_char(&mut bytes, other);
                    }
                }
            }
            other => push_char(&mut bytes, other),
        }
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Character offset of the quote left open in `text`, if any.
fn unclosed_quote(text: &str) -> Option<usize> {
    let mut open: Option<(char, usize)> = None;
    let mut escaped = false;
    for (i, c) in text.chars().enumerate() {
        match open {
            // Outside quotes and inside double quotes a backslash escapes the next character.
            None | Some(('"', _)) if escaped => escaped = false,
            None | Some(('"', _)) if c == '\\' => escaped = true,
            None if c == '\'' || c == '"' => open = Some((c, i)),
            Some((q, _)) if c == q => open = None,
            None | Some(_) => {}
        }
    }
    open.map(|(_, i)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        split_words(s).expect("splits")
    }

    #[test]
    fn a_final_backslash_that_continues_nothing_is_dropped() {
        assert_eq!(words("curl 'http://h/' \\"), ["curl", "http://h/"]);
        assert_eq!(words("curl 'http://h/' \\  \n"), ["curl", "http://h/"]);
        assert_eq!(
            words("curl 'http://h/' -H 'X: a' \\\n"),
            ["curl", "http://h/", "-H", "X: a"]
        );
        // Two backslashes are one escaped backslash, a word of its own.
        assert_eq!(words("curl http://h/ \\\\"), ["curl", "http://h/", "\\"]);
    }

    #[test]
    fn a_caret_quote_inside_single_quotes_is_posix_text() {
        // Found by tests/input_props.rs: `-d '^"'` was read as a cmd copy and lost its `^`.
        assert_eq!(
            words("curl 'http://h/' -d '^\"' -H 'X: a^\nb'"),
            ["curl", "http://h/", "-d", "^\"", "-H", "X: a^\nb"]
        );
    }

    #[test]
    fn posix_quotes_and_continuations() {
        assert_eq!(
            words("curl 'http://h/a b' \\\n  -H \"X: \\\"q\\\"\" \\\r\n -d it\\'s"),
            ["curl", "http://h/a b", "-H", "X: \"q\"", "-d", "it's"]
        );
        assert_eq!(
            words("curl -d 'line1\\\nline2'"),
            ["curl", "-d", "line1\\\nline2"],
            "a backslash-newline inside single quotes is literal"
        );
    }

    #[test]
    fn ansi_c_quoting_as_chrome_writes_it() {
        assert_eq!(
            words(r#"curl --data-raw $'{\"a\":\"it\'s\\n\u0021\"}\n' -H $'x: \x41\101'"#),
            [
                "curl",
                "--data-raw",
                "{\"a\":\"it's\\n!\"}\n",
                "-H",
                "x: AA"
            ]
        );
        assert_eq!(words("curl a$'b\\tc'd"), ["curl", "ab\tcd"]);
    }

    #[test]
    fn windows_cmd_copies() {
        assert_eq!(
            words(
                "curl ^\"http://h/?a=1^&b=2^\" ^\r\n  -H ^\"x: \\^\"y\\^\"^\" ^\n  --data-raw ^\"^{^}^\""
            ),
            [
                "curl",
                "http://h/?a=1&b=2",
                "-H",
                "x: \"y\"",
                "--data-raw",
                "{}"
            ]
        );
    }

    #[test]
    fn unclosed_quotes_say_where() {
        assert_eq!(
            split_words("curl -H 'x: y").expect_err("open quote"),
            CurlError::Quote { offset: 8 }
        );
        assert_eq!(
            split_words("curl -d $'abc").expect_err("open ansi-c quote"),
            CurlError::Quote { offset: 8 }
        );
        // The quote is the 9th character: the message counts from 1, as columns do.
        assert!(
            split_words("curl -H 'x: y")
                .expect_err("open quote")
                .to_string()
                .contains("at character 9 ")
        );
    }
}
