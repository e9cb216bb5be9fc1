//! The Batch tab's optional assertions as typed: a status set, a `POINTER=VALUE`, a body text,
//! parsed by the CLI's code ([`crate::service::parse_expect_status`] and friends) so both faces
//! accept and refuse the same input with the same words.

use crate::model::ResponseMatcher;

/// The three assertion fields (each empty: no such assertion).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AssertionFields {
    /// Status set (`200-299,304`), as `--expect-status`.
    pub status: String,
    /// `POINTER=VALUE` (`/state="done"`), as `--expect-json`.
    pub json: String,
    /// Text the body contains, as `--expect-body`.
    pub body: String,
}

/// What is wrong with each field, ready to show under it (`None`: fine or empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AssertionProblems {
    /// The status field's problem.
    pub status: Option<String>,
    /// The JSON field's problem.
    pub json: Option<String>,
    /// The body field's problem (a blank text).
    pub body: Option<String>,
}

impl AssertionFields {
    /// The assertions, in the CLI's order (status, JSON, body).
    ///
    /// # Errors
    /// The problem of each field that does not parse or compile.
    pub fn parsed(&self) -> Result<Vec<ResponseMatcher>, AssertionProblems> {
        let mut problems = AssertionProblems::default();
        let status = self.status.trim();
        let statuses = if status.is_empty() {
            Vec::new()
        } else {
            match crate::service::parse_expect_status(status) {
                Ok(set) => vec![set],
                Err(e) => {
                    problems.status = Some(format!("Expect status: {e}"));
                    Vec::new()
                }
            }
        };
        let json = self.json.trim();
        let jsons = if json.is_empty() {
            Vec::new()
        } else {
            // Compiled alone so a bad pointer is named under its own field.
            match crate::service::parse_expect_json(json)
                .and_then(|m| crate::service::expect_assertions(&[], vec![m], &[]))
            {
                Ok(list) => list,
                Err(e) => {
                    problems.json = Some(format!("Expect JSON: {e}"));
                    Vec::new()
                }
            }
        };
        // Empty: no assertion; blank (only spaces): refused, as `--expect-body ' '` is.
        let bodies: Vec<String> = if self.body.is_empty() {
            Vec::new()
        } else {
            match crate::service::parse_expect_body(&self.body) {
                Ok(text) => vec![text],
                Err(e) => {
                    problems.body = Some(format!("Expect body: {e}"));
                    Vec::new()
                }
            }
        };
        if problems != AssertionProblems::default() {
            return Err(problems);
        }
        crate::service::expect_assertions(&statuses, jsons, &bodies).map_err(|e| {
            AssertionProblems {
                status: Some(e),
                ..AssertionProblems::default()
            }
        })
    }

    /// The problems to show under the fields (none while they parse).
    pub fn problems(&self) -> AssertionProblems {
        self.parsed().err().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_fields_are_no_assertions_and_bad_ones_are_named_per_field() {
        assert_eq!(AssertionFields::default().parsed(), Ok(Vec::new()));
        let fields = AssertionFields {
            status: "200-299".into(),
            json: "/state=done".into(),
            body: "ok".into(),
        };
        assert_eq!(fields.parsed().map(|l| l.len()), Ok(3));
        let bad = AssertionFields {
            status: "299-200".into(),
            json: "state".into(),
            body: String::new(),
        };
        let p = bad.problems();
        assert!(
            p.status
                .unwrap()
                .starts_with("Expect status: range 299-200 is reversed")
        );
        assert!(
            p.json
                .unwrap()
                .starts_with("Expect JSON: needs POINTER=VALUE")
        );
        let blank = AssertionFields {
            body: "   ".into(),
            ..AssertionFields::default()
        };
        assert!(
            blank
                .problems()
                .body
                .unwrap()
                .starts_with("Expect body: an empty or blank text matches (nearly) every body")
        );
    }
}
