//! The one rule for a history URL filter (`history list --url TEXT`, the window's History
//! panel "URL contains"): the stored URL is the URL parser's serialisation, where non-ASCII
//! text is percent-encoded (`ünï` → `%C3%BCn%C3%AF`) and a host is punycode
//! (`bücher.example` → `xn--bcher-kva.example`). A filter matches a URL that contains the text
//! as typed, or in the form the parser stores it.

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};

/// What the URL parser percent-encodes in the path, the query and the fragment alike (the
/// WHATWG fragment set without the backtick, which a query keeps); non-ASCII is always encoded.
const ENCODED_EVERYWHERE: &AsciiSet = &CONTROLS.add(b' ').add(b'"').add(b'<').add(b'>');

/// Longest URL filter, bytes: SQLite refuses a `LIKE` pattern over 50,000 bytes, and the
/// percent-encoded form of a filter can be three times its length.
pub const URL_FILTER_MAX_BYTES: usize = 10_000;

/// The texts a URL filter looks for, blank-trimmed: `text` as typed, then its percent-encoded
/// form and its punycode host form when they differ from it. Empty for a blank filter (which
/// selects every run).
///
/// ```
/// use retryscope::store::url_filter_forms;
/// assert_eq!(url_filter_forms(" run=be "), ["run=be"]);
/// assert_eq!(url_filter_forms("ünï"), ["ünï", "%C3%BCn%C3%AF", "xn--n-nga1b"]);
/// assert_eq!(url_filter_forms("a b"), ["a b", "a%20b"]);
/// assert!(url_filter_forms("  ").is_empty());
/// ```
pub fn url_filter_forms(text: &str) -> Vec<String> {
    let text = text.trim();
    if text.is_empty() {
        return Vec::new();
    }
    let mut forms = vec![text.to_owned()];
    let mut add = |form: String| {
        if !form.is_empty() && !forms.iter().any(|f| f.eq_ignore_ascii_case(&form)) {
            forms.push(form);
        }
    };
    add(utf8_percent_encode(text, ENCODED_EVERYWHERE).to_string());
    // A host label as typed (`bücher`): its punycode. Only for non-ASCII text, which is all
    // that changes; a text that is no host (`/päth?q`) has none.
    if !text.is_ascii() {
        add(url::quirks::domain_to_ascii(text));
    }
    forms
}

/// SQL `LIKE … ESCAPE '\'` patterns for [`url_filter_forms`]: each form anywhere in the URL,
/// `%`, `_` and `\` taken literally. LIKE compares ASCII letters case-insensitively, so
/// `%c3%bc` finds `%C3%BC` too.
pub(crate) fn url_like_patterns(text: &str) -> Vec<String> {
    url_filter_forms(text)
        .iter()
        .map(|form| {
            format!(
                "%{}%",
                form.replace('\\', "\\\\")
                    .replace('%', "\\%")
                    .replace('_', "\\_")
            )
        })
        .collect()
}

/// Most patterns [`url_like_patterns`] returns (as typed, percent-encoded, punycode).
pub(crate) const URL_FORMS: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_are_literal_and_the_encoded_form_is_found_as_the_parser_stores_it() {
        assert_eq!(url_like_patterns(" 50%_x "), ["%50\\%\\_x%"]);
        assert!(url_like_patterns("").is_empty());
        let stored = url::Url::parse("http://127.0.0.1:9/p?city=ünï%20x")
            .expect("parses")
            .to_string();
        let forms = url_filter_forms("ünï%20x");
        assert!(!stored.contains(&forms[0]), "as typed: {stored}");
        assert!(stored.contains(&forms[1]), "{forms:?} in {stored}");
        let host = url::Url::parse("http://bücher.example/").expect("parses");
        assert!(
            url_filter_forms("bücher")
                .iter()
                .any(|f| host.as_str().contains(f.as_str())),
            "{host}"
        );
        assert!(url_filter_forms("ünï").len() <= URL_FORMS);
    }
}
