//! The forms in which a server commonly echoes a secret value back (DESIGN.md §9): inside a
//! JSON string (escaped, also with `\uXXXX` for non-ASCII and `\/`), percent- and
//! form-encoded, base64 (standard and URL-safe), and with HTML entities. Masking searches for
//! every form, so a secret containing `"` or `&` that an echo service escapes is masked too.
//! Pure: no I/O.

use super::secrets::MIN_SEARCHED_LEN;
use base64::Engine as _;
use percent_encoding::{AsciiSet, CONTROLS, NON_ALPHANUMERIC, utf8_percent_encode};
use std::fmt::Write as _;

/// What JavaScript's `encodeURIComponent` leaves alone besides letters and digits:
/// `- _ . ! ~ * ' ( )` (ECMA-262 §19.2.6.5, "uriUnreserved" and "uriMark").
const URI_COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// `secrets` (empty ones dropped) followed by each one's echo forms ([`echo_forms`]), without
/// repeats. Secrets shorter than [`MIN_SEARCHED_LEN`] characters get no extra forms: their
/// encodings are as short and would mask ordinary text.
pub fn with_echo_forms(secrets: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if !s.is_empty() && !out.contains(&s) {
            out.push(s);
        }
    };
    for s in secrets {
        push((*s).to_owned());
    }
    for s in secrets {
        if s.chars().count() >= MIN_SEARCHED_LEN {
            for form in echo_forms(s) {
                push(form);
            }
        }
    }
    out
}

/// The encoded forms of `secret` an echoing server may send, each different from `secret`
/// (none when every encoding leaves it as it is):
/// - JSON string contents: as `serde_json` escapes (`"` → `\"`, `\` → `\\`, controls as
///   `\n` / `\u001b`), the same with `/` as `\/` (PHP), and ASCII-only with every non-ASCII
///   character as `\uXXXX` (surrogate pairs past U+FFFF; lower- and upper-case hex: Python's
///   `json.dumps`, Java);
/// - percent-encoded: every byte but letters and digits (upper- and lower-case hex), as
///   `encodeURIComponent` does, and as a form field (`application/x-www-form-urlencoded`,
///   space as `+`);
/// - base64 of its UTF-8 bytes, standard (padded) and URL-safe (unpadded);
/// - HTML text: `& < > " '` as `&amp; &lt; &gt; &quot;` and `&#39;` or `&#x27;`.
pub fn echo_forms(secret: &str) -> Vec<String> {
    let json = serde_json::to_string(secret).unwrap_or_default();
    let json = json
        .strip_prefix('"')
        .and_then(|j| j.strip_suffix('"'))
        .unwrap_or_default()
        .to_owned();
    let ascii_lower = ascii_json(&json, false);
    let ascii_upper = ascii_json(&json, true);
    let percent = utf8_percent_encode(secret, NON_ALPHANUMERIC).to_string();
    let forms = [
        json.replace('/', "\\/"),
        ascii_lower.replace('/', "\\/"),
        json,
        ascii_lower,
        ascii_upper,
        percent.to_ascii_lowercase(),
        percent,
        utf8_percent_encode(secret, URI_COMPONENT).to_string(),
        utf8_percent_encode(secret, CONTROLS).to_string(),
        form_urlencoded::byte_serialize(secret.as_bytes()).collect(),
        base64::engine::general_purpose::STANDARD.encode(secret),
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(secret),
        html(secret, "&#39;"),
        html(secret, "&#x27;"),
    ];
    let mut out: Vec<String> = Vec::new();
    for f in forms {
        if f != secret && !f.is_empty() && !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// JSON string contents `json` with every non-ASCII character as `\uXXXX` (UTF-16 units).
fn ascii_json(json: &str, upper: bool) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = if upper {
                    write!(out, "\\u{unit:04X}")
                } else {
                    write!(out, "\\u{unit:04x}")
                };
            }
        }
    }
    out
}

/// `text` with HTML's special characters as entities, `'` as `apostrophe`.
fn html(text: &str, apostrophe: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str(apostrophe),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::variables::mask_secret_values;
    use proptest::prelude::*;

    #[test]
    fn a_secret_with_quotes_and_backslashes_is_masked_inside_an_echoed_json_string() {
        let secret = r#"pa"ss\wörd/1"#;
        let echoed = serde_json::json!({ "headers": { "X-Api-Key": secret } }).to_string();
        let masked = mask_secret_values(&echoed, &[secret.to_owned()]);
        assert!(!masked.contains(r#"pa\"ss"#), "{masked}");
        let back: serde_json::Value = serde_json::from_str(&masked).expect("still JSON");
        assert_eq!(back["headers"]["X-Api-Key"], "***");
    }

    #[test]
    fn every_form_is_masked_where_an_echo_puts_it() {
        let secret = "s3cr3t &<'\"> é/€😀 +=";
        for form in echo_forms(secret) {
            let echoed = format!("echo: {form} end");
            let masked = mask_secret_values(&echoed, &[secret.to_owned()]);
            assert_eq!(masked, "echo: *** end", "form {form:?}");
        }
        let python = "s3cr3t &<'\\\"> \\u00e9/\\u20ac\\ud83d\\ude00 +=";
        assert!(echo_forms(secret).contains(&python.to_owned()));
    }

    #[test]
    fn short_secrets_get_no_extra_forms() {
        assert_eq!(with_echo_forms(&["a\"b", ""]), vec!["a\"b".to_owned()]);
    }

    proptest! {
        #[test]
        // `*` is left out: a secret made of the mask's own character can reappear around it.
        fn no_encoding_of_an_arbitrary_secret_survives_masking(secret in "[^*]{6,24}") {
            let json = serde_json::to_string(&secret).unwrap_or_default();
            let echoed = [
                serde_json::json!({ "echo": &secret }).to_string(),
                format!("{{\"echo\": {}}}", ascii_json(&json, false)),
                format!("q={}", utf8_percent_encode(&secret, NON_ALPHANUMERIC)),
                format!("f={}", form_urlencoded::byte_serialize(secret.as_bytes()).collect::<String>()),
                format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(&secret)),
                format!("<p>{}</p>", html(&secret, "&#39;")),
            ];
            for text in echoed {
                let masked = mask_secret_values(&text, std::slice::from_ref(&secret));
                prop_assert!(!masked.contains(&secret), "raw secret in {masked:?}");
                for form in echo_forms(&secret) {
                    prop_assert!(!masked.contains(&form), "form {form:?} in {masked:?}");
                }
            }
        }
    }
}
