//! The batch assertions as a person types them, parsed in one place for both faces:
//! the CLI's `--expect-status SET`, `--expect-json POINTER=VALUE`, `--expect-body TEXT` and the
//! Batch tab's fields of the same names. Errors do not name the flag or field; each face adds
//! its own (`--expect-json …`, `Expect JSON: …`).

use crate::model::{ResponseMatcher, StatusSet};

/// Parses a status set (`200-299`, `200,204`) an item's final status must be in.
///
/// # Errors
/// An empty set, a reversed range, a code outside 100–599, or what
/// [`StatusSet::parse_list`] refuses.
pub fn parse_expect_status(text: &str) -> Result<StatusSet, String> {
    let set = StatusSet::parse_list(text)?;
    if set.0.is_empty() {
        return Err("expected status codes or ranges, e.g. 200-299".into());
    }
    // An assertion no response can meet would fail every item only after sending it.
    for r in &set.0 {
        if r.low > r.high {
            return Err(format!(
                "range {}-{} is reversed; write the lower code first ({}-{})",
                r.low, r.high, r.high, r.low
            ));
        }
        if r.low < 100 || r.high > 599 {
            return Err(format!("{r} is not an HTTP status (statuses are 100-599)"));
        }
    }
    Ok(set)
}

/// Parses `POINTER=VALUE` (`/state="done"`, `/count=3`; a VALUE that is not JSON is a string:
/// `/state=done`) into a matcher; the pointer is checked by [`expect_assertions`].
///
/// # Errors
/// No `=` in `raw`.
pub fn parse_expect_json(raw: &str) -> Result<ResponseMatcher, String> {
    let Some((pointer, value)) = raw.split_once('=') else {
        return Err(format!(
            "needs POINTER=VALUE (e.g. /state=\"done\"), found `{raw}`"
        ));
    };
    // Checked here, so the message names the flag's text, not an internal field path.
    crate::policy::pointer_tokens(pointer).map_err(|e| format!("`{raw}`: {e}"))?;
    let value =
        serde_json::from_str(value).unwrap_or_else(|_| serde_json::Value::String(value.to_owned()));
    Ok(ResponseMatcher {
        json_pointer: Some(pointer.to_owned()),
        equals: Some(value),
        ..ResponseMatcher::default()
    })
}

/// Checks a text the final body must contain (`--expect-body TEXT`, the tab's *Expect body*).
///
/// # Errors
/// An empty or blank text: it would match (nearly) every body, so the assertion would test
/// nothing.
pub fn parse_expect_body(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Err(
            "an empty or blank text matches (nearly) every body; give the text the body must contain"
                .into(),
        );
    }
    Ok(text.to_owned())
}

/// The batch's assertions, in the order statuses, JSON pointers, bodies; each compiled once so
/// a bad one is refused before anything is queued.
///
/// # Errors
/// `assertion: …` naming the first that does not compile (a bad JSON pointer, an empty or
/// blank body text).
pub fn expect_assertions(
    statuses: &[StatusSet],
    jsons: Vec<ResponseMatcher>,
    bodies: &[String],
) -> Result<Vec<ResponseMatcher>, String> {
    let mut out: Vec<ResponseMatcher> = statuses
        .iter()
        .map(|set| ResponseMatcher {
            status: Some(set.clone()),
            ..ResponseMatcher::default()
        })
        .collect();
    out.extend(jsons);
    for text in bodies {
        parse_expect_body(text).map_err(|e| format!("assertion: {e}"))?;
        out.push(ResponseMatcher {
            body_contains: Some(text.clone()),
            ..ResponseMatcher::default()
        });
    }
    crate::policy::BatchAssertions::compile(&out).map_err(|e| format!("assertion: {e}"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_checked_for_order_and_range() {
        assert_eq!(parse_expect_status("200-299").unwrap().0.len(), 1);
        assert!(
            parse_expect_status("299-200")
                .unwrap_err()
                .contains("reversed")
        );
        assert!(
            parse_expect_status("42")
                .unwrap_err()
                .contains("not an HTTP status")
        );
    }

    #[test]
    fn an_empty_or_blank_body_text_is_refused() {
        for text in ["", "  ", "\t"] {
            assert!(
                parse_expect_body(text)
                    .unwrap_err()
                    .starts_with("an empty or blank text matches (nearly) every body"),
                "{text:?}"
            );
            assert!(expect_assertions(&[], vec![], &[text.to_owned()]).is_err());
        }
        assert_eq!(parse_expect_body(" ok ").unwrap(), " ok ");
    }

    #[test]
    fn json_values_are_json_or_plain_strings_and_pointers_are_compiled() {
        let m = parse_expect_json("/count=3").unwrap();
        assert_eq!(m.equals, Some(serde_json::json!(3)));
        let m = parse_expect_json("/state=done").unwrap();
        assert_eq!(m.equals, Some(serde_json::json!("done")));
        assert!(
            parse_expect_json("/state")
                .unwrap_err()
                .contains("POINTER=VALUE")
        );
        // A pointer without its `/` is refused where it is typed, in the user's words.
        let bad = parse_expect_json("state=1").unwrap_err();
        assert!(
            bad.starts_with("`state=1`: json pointer \"state\" must start with `/`"),
            "{bad}"
        );
    }
}
