//! Settings that are valid but can never take effect: warnings, not errors (the profile still
//! loads and runs). Front ends show them beside the problems (`profile validate` prints
//! `warning: FILE:line:col: path: message`; positions come from the loader).
//!
//! - a `throttling.status` code that triage never retries (not in `retry_on.status`, or decided
//!   a success first), so its class and backoff never apply — unless `on_other_status` is
//!   `retry` or `retry_on.response` matchers can make such a response retryable;
//! - `clamp_above_ms` on a backoff that does not clamp (not `response_header` with
//!   `combine: "clamp"`, or a fallback, which never reads headers).

use super::issue::ProfileIssue;
use crate::model::{Backoff, Combine, OtherStatusAction, RetryProfile, Strategy, Throttling};

/// Every dead setting of `profile`, each at its field path (no position), in field order.
pub fn warnings(profile: &RetryProfile) -> Vec<ProfileIssue> {
    let mut out = Vec::new();
    dead_throttling_statuses(profile, &mut out);
    dead_clamp(&profile.backoff, "backoff", false, &mut out);
    if let Some(b) = &profile.throttling.backoff {
        dead_clamp(b, "throttling.backoff", false, &mut out);
    }
    out
}

fn dead_throttling_statuses(profile: &RetryProfile, out: &mut Vec<ProfileIssue>) {
    let t = &profile.throttling;
    // The untouched default ([429], no backoff, no matchers) is not something the user wrote.
    if *t == Throttling::default()
        || profile.on_other_status == OtherStatusAction::Retry
        || !profile.retry_on.response.is_empty()
    {
        return;
    }
    for (i, range) in t.status.0.iter().enumerate() {
        if range.low > range.high || range.high > 599 || range.low < 100 {
            continue; // an error, reported by the validator
        }
        let success: Vec<u16> = (range.low..=range.high)
            .filter(|c| profile.success_status.contains(*c))
            .collect();
        let unretried: Vec<u16> = (range.low..=range.high)
            .filter(|c| {
                !profile.success_status.contains(*c) && !profile.retry_on.status.contains(*c)
            })
            .collect();
        let mut why = Vec::new();
        if !unretried.is_empty() {
            why.push(format!(
                "{} {} not in retry_on.status, so never retried",
                codes_text(&unretried),
                if unretried.len() == 1 { "is" } else { "are" }
            ));
        }
        if !success.is_empty() {
            why.push(format!(
                "{} {} in success_status, which is decided first",
                codes_text(&success),
                if success.len() == 1 { "is" } else { "are" }
            ));
        }
        if !why.is_empty() {
            let it = if unretried.len() + success.len() == 1 {
                "it"
            } else {
                "them"
            };
            out.push(ProfileIssue::new(
                format!("throttling.status[{i}]"),
                format!(
                    "{}: the throttling class never applies to {it}; retry {it} (retry_on.status) or remove {it} here",
                    why.join("; ")
                ),
            ));
        }
    }
}

/// `429` / `503, 504` / `500-599` (sorted codes; runs of three or more as ranges).
fn codes_text(codes: &[u16]) -> String {
    crate::model::StatusSet::from_codes(codes).to_string()
}

fn dead_clamp(b: &Backoff, path: &str, is_fallback: bool, out: &mut Vec<ProfileIssue>) {
    if let Some(x) = b.clamp_above_ms {
        let why = if is_fallback {
            Some("a fallback never reads a delay header; remove it".to_owned())
        } else if b.strategy != Strategy::ResponseHeader {
            Some(format!(
                "strategy `{}` reads no delay header (clamping is for response_header with combine \"clamp\"); remove it",
                b.strategy.id()
            ))
        } else if b.combine != Combine::Clamp {
            Some(format!(
                "combine is \"{}\", not \"clamp\"; remove it or set combine to \"clamp\"",
                combine_id(b.combine)
            ))
        } else {
            None
        };
        if let Some(why) = why {
            out.push(ProfileIssue::new(
                format!("{path}.clamp_above_ms"),
                format!("clamp_above_ms {x} has no effect: {why}"),
            ));
        }
    }
    if let Some(fb) = &b.fallback {
        dead_clamp(fb, &format!("{path}.fallback"), true, out);
    }
}

fn combine_id(c: Combine) -> String {
    serde_json::to_value(c)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(extra: &serde_json::Value) -> RetryProfile {
        let mut doc = serde_json::json!({
            "format": crate::model::PROFILE_FORMAT,
            "name": "t",
            "backoff": { "strategy": "fixed", "base_delay_ms": 10 }
        });
        if let (Some(d), Some(e)) = (doc.as_object_mut(), extra.as_object()) {
            d.extend(e.clone());
        }
        serde_json::from_value(doc).expect("profile")
    }

    fn paths(p: &RetryProfile) -> Vec<String> {
        warnings(p).into_iter().map(|w| w.path).collect()
    }

    #[test]
    fn a_throttling_status_that_is_never_retried_is_named() {
        let p = profile(&serde_json::json!({
            "retry_on": { "status": [429, 503] },
            "throttling": { "status": [429, 418, 200] }
        }));
        let w = warnings(&p);
        assert_eq!(
            w.iter().map(|w| w.path.as_str()).collect::<Vec<_>>(),
            ["throttling.status[1]", "throttling.status[2]"]
        );
        assert!(
            w[0].message
                .starts_with("418 is not in retry_on.status, so never retried"),
            "{}",
            w[0].message
        );
        assert!(
            w[1].message.contains("200 is in success_status"),
            "{}",
            w[1].message
        );
        // Retried through on_other_status or response matchers: alive.
        let mut other = p.clone();
        other.on_other_status = OtherStatusAction::Retry;
        assert!(paths(&other).is_empty());
        // The default class is not the user's to fix.
        let plain = profile(&serde_json::json!({ "retry_on": { "status": [503] } }));
        assert!(paths(&plain).is_empty());
    }

    #[test]
    fn clamp_above_ms_where_nothing_clamps_is_named() {
        let p = profile(&serde_json::json!({
            "backoff": {
                "strategy": "response_header", "base_delay_ms": 10, "clamp_above_ms": 5000,
                "combine": "max",
                "fallback": { "strategy": "fixed", "base_delay_ms": 10, "clamp_above_ms": 1 }
            }
        }));
        let w = warnings(&p);
        assert_eq!(
            w.iter().map(|w| w.path.as_str()).collect::<Vec<_>>(),
            ["backoff.clamp_above_ms", "backoff.fallback.clamp_above_ms"]
        );
        assert!(
            w[0].message.contains("combine is \"max\""),
            "{}",
            w[0].message
        );
        let fixed = profile(&serde_json::json!({
            "backoff": { "strategy": "fixed", "base_delay_ms": 10, "clamp_above_ms": 5000 }
        }));
        assert_eq!(paths(&fixed), ["backoff.clamp_above_ms"]);
        let aws = crate::profile::builtin("aws-standard-2026").expect("built-in");
        assert!(paths(&aws).is_empty(), "{:?}", warnings(&aws));
    }

    #[test]
    fn no_built_in_has_a_dead_setting() {
        for b in crate::profile::builtins() {
            assert!(
                warnings(&b.profile).is_empty(),
                "{}: {:?}",
                b.id,
                warnings(&b.profile)
            );
        }
    }
}
