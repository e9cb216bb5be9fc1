//! How a message quotes what a user or a file gave: control characters escaped, so printing
//! it can neither break a line nor drive the terminal (ESC sequences, BEL, NUL), and long text
//! cut, so one 100,000-character URL does not make a 100 KB error line. Every message that
//! quotes input goes through [`quote_input`] (or [`escape_controls`] where length is bounded).

/// Most characters of input one message quotes before cutting it.
pub const QUOTE_MAX_CHARS: usize = 200;

/// `text` with control characters (newlines, escape, …) written as Rust escapes (`\n`,
/// `\u{1b}`); everything else as is.
pub fn escape_controls(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// What keeps `text` from being one line of plain text: `contains a line break at character 4`
/// (1-based, counted in `text`), or `contains a control character (U+0007) at character 4`;
/// `None` when there is none. `tab_ok`: a tab is allowed (a header value).
pub fn control_problem(text: &str, tab_ok: bool) -> Option<String> {
    let (index, c) = text
        .chars()
        .enumerate()
        .find(|(_, c)| c.is_control() && !(tab_ok && *c == '\t'))?;
    let what = match c {
        '\n' | '\r' => "a line break".to_owned(),
        _ => format!("a control character (U+{:04X})", u32::from(c)),
    };
    Some(format!("contains {what} at character {}", index + 1))
}

/// `text` cut after `max` characters with `…` (whole when shorter); no escaping.
pub fn cut_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// `text` in at most `width` characters: whole when it fits, else cut with `…` as its last
/// character (a table column, a one-line message).
pub fn fit_chars(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    cut_chars(text, width.saturating_sub(1))
}

/// `text` filling exactly `width` terminal columns (Unicode East Asian width, as terminals draw
/// it: a CJK character or an emoji takes two): padded with spaces when narrower, cut with `…`
/// when wider. For the name column of a table printed on a terminal.
pub fn fit_columns(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    let char_width = |c: char| c.width().unwrap_or(0);
    let total: usize = text.chars().map(char_width).sum();
    let mut out = String::with_capacity(text.len() + width);
    let mut used = 0;
    if total <= width {
        out.push_str(text);
        used = total;
    } else {
        for c in text.chars() {
            let w = char_width(c);
            if used + w + 1 > width {
                break;
            }
            out.push(c);
            used += w;
        }
        out.push('…');
        used += 1;
    }
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(used)));
    out
}

/// `text` as a message quotes it: controls escaped ([`escape_controls`]) and, past
/// [`QUOTE_MAX_CHARS`] characters, cut with `… (N characters)` giving the whole length.
pub fn quote_input(text: &str) -> String {
    let chars = text.chars().count();
    if chars <= QUOTE_MAX_CHARS {
        return escape_controls(text);
    }
    format!(
        "{} ({chars} characters)",
        escape_controls(&cut_chars(text, QUOTE_MAX_CHARS))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_columns_counts_wide_characters_twice() {
        assert_eq!(fit_columns("abc", 5), "abc  ");
        // Two CJK characters are four columns.
        assert_eq!(fit_columns("東京", 5), "東京 ");
        assert_eq!(fit_columns("東京大阪", 5), "東京…");
        assert_eq!(fit_columns("東京大阪", 6), "東京… ");
        assert_eq!(fit_columns("abcdefgh", 5), "abcd…");
        for text in ["東京大阪名古屋", "a🚀b🚀c🚀", "plain ascii name"] {
            let fitted = fit_columns(text, 7);
            let columns: usize = fitted
                .chars()
                .map(|c| unicode_width::UnicodeWidthChar::width(c).unwrap_or(0))
                .sum();
            assert_eq!(columns, 7, "{fitted:?}");
        }
    }

    #[test]
    fn controls_are_escaped_and_long_text_is_cut_with_its_length() {
        assert_eq!(
            escape_controls("a\nb\u{1b}[31m\u{7}\0"),
            "a\\nb\\u{1b}[31m\\u{7}\\u{0}"
        );
        assert_eq!(quote_input("plain"), "plain");
        let long = "é".repeat(1000);
        let quoted = quote_input(&long);
        assert_eq!(quoted, format!("{}… (1000 characters)", "é".repeat(200)));
        assert_eq!(cut_chars("abcdef", 3), "abc…");
        assert_eq!(cut_chars("abc", 3), "abc");
        assert_eq!(fit_chars("abcdef", 4), "abc…");
        assert_eq!(fit_chars("abcd", 4), "abcd");
    }
}
