//! A batch's assertions (issue 9): conditions every item's final response must meet, each a §8
//! matcher compiled with [`CompiledMatcher`]. All must hold; the first that fails names the item's
//! error (`assertion assertions[0] failed: status 404 is not in 200-299`).

use super::matchers::{CompiledMatcher, MatcherError};
use crate::model::{AttemptOutcome, ResponseMatcher};

/// Compiled assertions of one batch (empty: every successful run is `done`).
#[derive(Debug, Clone, Default)]
pub struct BatchAssertions {
    checks: Vec<(String, CompiledMatcher)>,
}

impl BatchAssertions {
    /// Compiles `assertions`; each is named `assertions[i]` in errors and verdicts.
    ///
    /// # Errors
    /// The first [`MatcherError`] (with its field path, `assertions[1].body_matches`).
    pub fn compile(assertions: &[ResponseMatcher]) -> Result<Self, MatcherError> {
        let checks = assertions
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let name = format!("assertions[{i}]");
                CompiledMatcher::compile(m, &name).map(|c| (name, c))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { checks })
    }

    /// Whether there is no assertion.
    pub fn is_empty(&self) -> bool {
        self.checks.is_empty()
    }

    /// `Ok(())` when every assertion holds for the final attempt's `outcome`, else the reason
    /// naming the first that failed. An attempt without a response fails every assertion.
    ///
    /// # Errors
    /// `Err` is the "an assertion failed" answer, in words.
    pub fn check(&self, outcome: Option<&AttemptOutcome>) -> Result<(), String> {
        for (name, matcher) in &self.checks {
            let why = match outcome {
                Some(AttemptOutcome::Response(r)) => match matcher.check(r) {
                    Ok(_) => continue,
                    Err(why) => why,
                },
                Some(AttemptOutcome::Error(e)) => format!("no response ({})", e.kind),
                None => "no attempt was made".to_owned(),
            };
            return Err(format!("assertion {name} failed: {why}"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BodyPreview, ResponseSummary, StatusSet};

    fn response(status: u16, body: &str) -> AttemptOutcome {
        AttemptOutcome::Response(ResponseSummary {
            status,
            reason: String::new(),
            version: "HTTP/1.1".into(),
            headers: vec![],
            body: BodyPreview {
                bytes: body.as_bytes().to_vec(),
                total_bytes: body.len() as u64,
                truncated: false,
            },
        })
    }

    #[test]
    fn the_first_failing_assertion_is_named() {
        let a = BatchAssertions::compile(&[
            ResponseMatcher {
                status: Some(StatusSet::parse_list("200-299").expect("set")),
                ..ResponseMatcher::default()
            },
            ResponseMatcher {
                json_pointer: Some("/state".into()),
                equals: Some(serde_json::json!("done")),
                ..ResponseMatcher::default()
            },
        ])
        .expect("compiles");
        assert_eq!(a.check(Some(&response(200, r#"{"state":"done"}"#))), Ok(()));
        let err = a
            .check(Some(&response(200, r#"{"state":"pending"}"#)))
            .expect_err("fails");
        assert!(err.starts_with("assertion assertions[1] failed: "), "{err}");
        assert!(err.contains("pending"), "{err}");
        let err = a.check(Some(&response(404, "{}"))).expect_err("fails");
        assert!(err.starts_with("assertion assertions[0] failed"), "{err}");
        assert!(a.check(None).is_err());
        assert_eq!(BatchAssertions::default().check(None), Ok(()));
    }

    #[test]
    fn a_bad_assertion_is_refused_with_its_path() {
        let err = BatchAssertions::compile(&[ResponseMatcher::default()]).expect_err("empty");
        assert_eq!(err.path, "assertions[0]");
    }
}
