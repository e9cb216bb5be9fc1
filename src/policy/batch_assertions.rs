//! A batch's assertions: conditions every item's final response must meet, each a §8
//! matcher compiled with [`CompiledMatcher`]. All must hold; the first that fails names the item's
//! error in the words the user gave it (`assertion --expect-status 200 failed: status 404,
//! expected one of 200`; the Batch tab's fields take the same texts). An item whose run failed
//! too keeps the run's words before it ([`failed_run_reason`]).

use super::matchers::{CompiledMatcher, MatcherError};
use crate::model::{AttemptOutcome, ResponseMatcher};

/// Compiled assertions of one batch (empty: every successful run is `done`).
#[derive(Debug, Clone, Default)]
pub struct BatchAssertions {
    /// Each assertion's label, whether it tests the status alone, and the compiled matcher.
    checks: Vec<(String, Option<crate::model::StatusSet>, CompiledMatcher)>,
}

/// The assertion `m` in the words it was given: `--expect-status 200,201`,
/// `--expect-json /state="done"`, `--expect-body "ok"`; another shape (not made by those flags
/// or the Batch tab's fields) is `assertions[i]`.
///
/// ```
/// use retryscope::model::{ResponseMatcher, StatusSet};
/// let m = ResponseMatcher { status: Some(StatusSet::parse_list("200,201").unwrap()), ..ResponseMatcher::default() };
/// assert_eq!(retryscope::policy::assertion_label(&m, 0), "--expect-status 200,201");
/// ```
pub fn assertion_label(m: &ResponseMatcher, index: usize) -> String {
    let only = ResponseMatcher::default();
    match m {
        ResponseMatcher {
            status: Some(set), ..
        } if *m
            == (ResponseMatcher {
                status: Some(set.clone()),
                ..only.clone()
            }) =>
        {
            let codes: Vec<String> = set.0.iter().map(ToString::to_string).collect();
            format!("--expect-status {}", codes.join(","))
        }
        ResponseMatcher {
            json_pointer: Some(pointer),
            equals: Some(value),
            ..
        } if *m
            == (ResponseMatcher {
                json_pointer: Some(pointer.clone()),
                equals: Some(value.clone()),
                ..only.clone()
            }) =>
        {
            format!("--expect-json {pointer}={value}")
        }
        ResponseMatcher {
            body_contains: Some(text),
            ..
        } if *m
            == (ResponseMatcher {
                body_contains: Some(text.clone()),
                ..only
            }) =>
        {
            format!("--expect-body {text:?}")
        }
        _ => format!("assertions[{index}]"),
    }
}

/// How a failed assertion's reason starts (see [`BatchAssertions::check`]).
const ASSERTION_PREFIX: &str = "assertion ";

/// Between a failed run's words and the assertion its final response failed.
const BETWEEN: &str = "; ";

/// The reason of an item whose run failed (gave up, stopped, deadline) with a final response
/// that also fails an assertion: both, the run banner's words first.
///
/// ```
/// use retryscope::policy::{failed_run_reason, split_failed_assertion};
/// let assertion = "assertion --expect-status 200 failed: status 503, expected one of 200";
/// let reason = failed_run_reason("gave up after 3 attempts (503)", assertion);
/// assert_eq!(reason, format!("gave up after 3 attempts (503); {assertion}"));
/// assert_eq!(split_failed_assertion(&reason), ("gave up after 3 attempts (503)", Some(assertion)));
/// assert_eq!(split_failed_assertion(assertion), ("", Some(assertion)));
/// assert_eq!(split_failed_assertion("gave up"), ("gave up", None));
/// ```
pub fn failed_run_reason(run_words: &str, assertion: &str) -> String {
    format!("{run_words}{BETWEEN}{assertion}")
}

/// An item's `reason` as (the run's own words, the failed assertion it names): the whole
/// reason is the assertion when it is one ([`BatchAssertions::check`]'s words, no run words),
/// or the part after a failed run's words ([`failed_run_reason`]); no assertion otherwise.
/// Reports show the assertion in their own column, and JUnit each part once.
pub fn split_failed_assertion(reason: &str) -> (&str, Option<&str>) {
    if reason.starts_with(ASSERTION_PREFIX) {
        return ("", Some(reason));
    }
    match reason.find(&format!("{BETWEEN}{ASSERTION_PREFIX}")) {
        Some(at) => (&reason[..at], Some(&reason[at + BETWEEN.len()..])),
        None => (reason, None),
    }
}

/// The first of `assertions` holding one of `secrets` (the secret values an item sends, as
/// `model::secrets::secret_values` finds them) in any of its texts or numbers, named as
/// [`assertion_label`] names it, with the secret masked. A batch's assertions are stored with
/// it (and `batch list --json` prints them), so such an assertion would put the secret in the
/// database: DESIGN.md §9 refuses that.
///
/// ```
/// use retryscope::model::ResponseMatcher;
/// let m = ResponseMatcher { body_contains: Some("Bearer tok-123456".into()), ..ResponseMatcher::default() };
/// let secrets = vec!["tok-123456".to_owned()];
/// assert_eq!(
///     retryscope::policy::assertion_holding_secret(&[m], &secrets).as_deref(),
///     Some(r#"--expect-body "Bearer ***""#)
/// );
/// ```
pub fn assertion_holding_secret(
    assertions: &[ResponseMatcher],
    secrets: &[String],
) -> Option<String> {
    let masks = |text: &str| crate::model::mask_secret_values(text, secrets) != text;
    assertions.iter().enumerate().find_map(|(i, m)| {
        let mut value = serde_json::to_value(m).ok()?;
        if !mask_leaves(&mut value, secrets, &masks) {
            return None;
        }
        // Named from the masked matcher, so no quoting in the label can let a secret through.
        Some(
            serde_json::from_value::<ResponseMatcher>(value).map_or_else(
                |_| format!("assertions[{i}]"),
                |masked| assertion_label(&masked, i),
            ),
        )
    })
}

/// Masks `secrets` in every string, number and key of `value`; whether one held any.
fn mask_leaves(
    value: &mut serde_json::Value,
    secrets: &[String],
    masks: &impl Fn(&str) -> bool,
) -> bool {
    use serde_json::Value;
    match value {
        Value::String(s) if masks(s) => {
            *s = crate::model::mask_secret_values(s, secrets);
            true
        }
        Value::Number(n) if masks(&n.to_string()) => {
            *value = Value::String(crate::model::mask_secret_values(&n.to_string(), secrets));
            true
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |held, v| mask_leaves(v, secrets, masks) | held),
        Value::Object(map) => {
            let mut held = map.keys().any(|k| masks(k));
            for v in map.values_mut() {
                held |= mask_leaves(v, secrets, masks);
            }
            held
        }
        _ => false,
    }
}

impl BatchAssertions {
    /// Compiles `assertions`; each is named by [`assertion_label`] in verdicts.
    ///
    /// # Errors
    /// The first [`MatcherError`] (with its field path, `assertions[1].body_matches`).
    pub fn compile(assertions: &[ResponseMatcher]) -> Result<Self, MatcherError> {
        let checks = assertions
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let status_only = (m.status.is_some()
                    && *m
                        == ResponseMatcher {
                            status: m.status.clone(),
                            ..ResponseMatcher::default()
                        })
                .then(|| m.status.clone())
                .flatten();
                CompiledMatcher::compile(m, &format!("assertions[{i}]"))
                    .map(|c| (assertion_label(m, i), status_only, c))
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
        for (name, status_only, matcher) in &self.checks {
            let why = match outcome {
                Some(AttemptOutcome::Response(r)) => match (matcher.check(r), status_only) {
                    (Ok(_), _) => continue,
                    (Err(_), Some(set)) => {
                        let codes: Vec<String> = set.0.iter().map(ToString::to_string).collect();
                        format!("status {}, expected one of {}", r.status, codes.join(", "))
                    }
                    (Err(why), None) => why,
                },
                Some(AttemptOutcome::Error(e)) => format!("no response ({})", e.kind),
                None => "no attempt was made".to_owned(),
            };
            return Err(format!("{ASSERTION_PREFIX}{name} failed: {why}"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::StatusSet;

    fn response(status: u16, body: &str) -> AttemptOutcome {
        crate::testkit::response(status, &[], body)
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
        assert!(
            err.starts_with("assertion --expect-json /state=\"done\" failed: "),
            "{err}"
        );
        assert!(err.contains("pending"), "{err}");
        let err = a.check(Some(&response(404, "{}"))).expect_err("fails");
        assert_eq!(
            err,
            "assertion --expect-status 200-299 failed: status 404, expected one of 200-299"
        );
        assert!(a.check(None).is_err());
        assert_eq!(BatchAssertions::default().check(None), Ok(()));
    }

    #[test]
    fn an_assertion_holding_a_secret_is_found_and_named_masked() {
        let secrets = vec!["s3cr\"et-99".to_owned(), "1234567".to_owned()];
        let body = ResponseMatcher {
            body_contains: Some("x s3cr\"et-99".into()),
            ..ResponseMatcher::default()
        };
        let json = ResponseMatcher {
            json_pointer: Some("/n".into()),
            equals: Some(serde_json::json!(1_234_567)),
            ..ResponseMatcher::default()
        };
        let plain = ResponseMatcher {
            json_pointer: Some("/state".into()),
            equals: Some(serde_json::json!("done")),
            ..ResponseMatcher::default()
        };
        assert_eq!(
            assertion_holding_secret(&[plain.clone(), body], &secrets).as_deref(),
            Some(r#"--expect-body "x ***""#)
        );
        assert_eq!(
            assertion_holding_secret(&[json], &secrets).as_deref(),
            Some(r#"--expect-json /n="***""#)
        );
        assert_eq!(assertion_holding_secret(&[plain], &secrets), None);
        assert_eq!(
            assertion_holding_secret(
                &[ResponseMatcher {
                    body_contains: Some("123456".into()),
                    ..ResponseMatcher::default()
                }],
                &secrets
            ),
            None,
            "a part of a secret is not the secret"
        );
    }

    #[test]
    fn a_reason_without_an_assertion_has_none() {
        let none = |reason| (reason, None);
        let reason = "gave up after 2 attempts (503)";
        assert_eq!(split_failed_assertion(reason), none(reason));
        let reason = "cancelled before it was sent";
        assert_eq!(split_failed_assertion(reason), none(reason));
        let a = "assertion --expect-body \"ok\" failed: the body does not contain \"ok\"";
        assert_eq!(split_failed_assertion(a), ("", Some(a)));
        assert_eq!(
            split_failed_assertion(&failed_run_reason("deadline", a)),
            ("deadline", Some(a))
        );
    }

    #[test]
    fn labels_are_the_flags_and_other_shapes_their_place() {
        let body = ResponseMatcher {
            body_contains: Some("a \"b\"".into()),
            ..ResponseMatcher::default()
        };
        assert_eq!(assertion_label(&body, 0), r#"--expect-body "a \"b\"""#);
        let json = ResponseMatcher {
            json_pointer: Some("/n".into()),
            equals: Some(serde_json::json!(3)),
            ..ResponseMatcher::default()
        };
        assert_eq!(assertion_label(&json, 1), "--expect-json /n=3");
        let both = ResponseMatcher {
            body_contains: Some("x".into()),
            ..json
        };
        assert_eq!(assertion_label(&both, 2), "assertions[2]");
    }

    #[test]
    fn a_bad_assertion_is_refused_with_its_path() {
        let err = BatchAssertions::compile(&[ResponseMatcher::default()]).expect_err("empty");
        assert_eq!(err.path, "assertions[0]");
    }
}
