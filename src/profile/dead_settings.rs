//! Settings that are valid but can never take effect: warnings, not errors (the profile still
//! loads and runs). Front ends show them beside the problems (`profile validate` prints
//! `warning: FILE:line:col: path: message`; positions come from the loader).
//!
//! - a `throttling.status` code that triage never retries (not in `retry_on.status`, or decided
//!   a success first), so its class and backoff never apply — unless `on_other_status` is
//!   `retry` or `retry_on.response` matchers can make such a response retryable;
//! - `clamp_above_ms` on a backoff that does not clamp (not `response_header` with
//!   `combine: "clamp"`, or a fallback, which never reads headers);
//! - jitter settings the strategy never reads: a window `w` (`jitter_window_ms`) outside
//!   `fixed`, `exponential`, `response_header` and `custom` (its script sees it), a ratio `p` (`jitter_ratio`, default 0.2)
//!   other than the default outside `exponential_proportional`;
//! - header settings (`headers`, `combine`, `fallback`) on a strategy that reads no header;
//! - a `deadline_ms` shorter than the smallest wait before retry 1, so no retry can happen;
//! - unlimited retries (`max_retries: null`) whose every wait is 0 ms, which retry as fast as
//!   the server answers until the deadline.

use super::issue::ProfileIssue;
use crate::model::{Backoff, Combine, OtherStatusAction, RetryProfile, Strategy, Throttling};

/// Every dead setting of `profile`, each at its field path (no position), in field order.
pub fn warnings(profile: &RetryProfile) -> Vec<ProfileIssue> {
    let mut out = Vec::new();
    dead_throttling_statuses(profile, &mut out);
    dead_clamp(&profile.backoff, "backoff", false, &mut out);
    dead_backoff_fields(&profile.backoff, "backoff", &mut out);
    if let Some(b) = &profile.throttling.backoff {
        dead_clamp(b, "throttling.backoff", false, &mut out);
        dead_backoff_fields(b, "throttling.backoff", &mut out);
    }
    deadline_before_first_wait(profile, &mut out);
    unlimited_without_waiting(profile, &mut out);
    out
}

/// Unlimited retries whose backoff never waits (every wait at most 0 ms): a hot loop against the
/// server until the deadline. Strategies whose wait is not known in advance (`custom`,
/// `response_header`) are left alone.
fn unlimited_without_waiting(profile: &RetryProfile, out: &mut Vec<ProfileIssue>) {
    if profile.max_retries.is_some() {
        return;
    }
    let never_waits =
        (1..=64).all(|n| crate::policy::max_wait_bound(&profile.backoff, n) == Some(0.0));
    if !never_waits {
        return;
    }
    let until = profile.deadline_ms.map_or_else(
        || "the deadline".to_owned(),
        |d| format!("the deadline ({d} ms)"),
    );
    out.push(ProfileIssue::new(
        "max_retries",
        format!(
            "unlimited retries with a 0 ms wait retry as fast as the server answers until {until}; set backoff.base_delay_ms or a max_retries limit"
        ),
    ));
}

/// Jitter and header fields the backoff's strategy never reads (and the same in its fallback).
fn dead_backoff_fields(b: &Backoff, path: &str, out: &mut Vec<ProfileIssue>) {
    let id = b.strategy.id();
    if b.jitter_window_ms > 0 && !b.reads_jitter_window() {
        out.push(ProfileIssue::new(
            format!("{path}.jitter_window_ms"),
            format!(
                "jitter_window_ms {} has no effect: strategy `{id}` draws its own jitter and adds no window (w is read by fixed, exponential and response_header); remove it",
                b.jitter_window_ms
            ),
        ));
    }
    let default_ratio = Backoff::new(b.strategy).jitter_ratio;
    if (b.jitter_ratio - default_ratio).abs() > f64::EPSILON && !b.reads_jitter_ratio() {
        out.push(ProfileIssue::new(
            format!("{path}.jitter_ratio"),
            format!(
                "jitter_ratio {} has no effect: only exponential_proportional (seed 000's ±p) reads it, the strategy is `{id}`; remove it",
                b.jitter_ratio
            ),
        ));
    }
    if b.strategy == Strategy::ResponseHeader {
        if let Some(fb) = &b.fallback {
            dead_backoff_fields(fb, &format!("{path}.fallback"), out);
        }
        return;
    }
    let no_header =
        format!("strategy `{id}` reads no delay header (that is response_header); remove it");
    if b.headers != crate::model::DelayHeader::default_list() {
        out.push(ProfileIssue::new(
            format!("{path}.headers"),
            format!("headers has no effect: {no_header}"),
        ));
    }
    if b.combine != Combine::default() {
        out.push(ProfileIssue::new(
            format!("{path}.combine"),
            format!(
                "combine \"{}\" has no effect: {no_header}",
                <&str>::from(b.combine)
            ),
        ));
    }
    if b.fallback.is_some() {
        out.push(ProfileIssue::new(
            format!("{path}.fallback"),
            format!("fallback has no effect: {no_header}"),
        ));
    }
}

/// A deadline shorter than the least the first wait can be: every run stops after attempt 1.
fn deadline_before_first_wait(profile: &RetryProfile, out: &mut Vec<ProfileIssue>) {
    let Some(deadline) = profile.deadline_ms else {
        return;
    };
    let Some((low, _)) = crate::policy::wait_range(&profile.backoff, 1) else {
        return;
    };
    if profile.max_retries == Some(0) {
        return;
    }
    if low > deadline as f64 {
        out.push(ProfileIssue::new(
            "deadline_ms",
            format!(
                "deadline_ms {deadline} is shorter than the shortest wait before retry 1 ({} ms), so no retry can happen; raise the deadline or lower backoff.base_delay_ms",
                low.ceil()
            ),
        ));
    }
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
                <&str>::from(b.combine)
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
    fn jitter_and_header_settings_a_strategy_never_reads_are_named() {
        let p = profile(&serde_json::json!({
            "backoff": {
                "strategy": "full_jitter", "base_delay_ms": 10, "jitter_window_ms": 500,
                "jitter_ratio": 0.5, "combine": "max",
                "fallback": { "strategy": "fixed", "base_delay_ms": 10 }
            }
        }));
        assert_eq!(
            paths(&p),
            [
                "backoff.jitter_window_ms",
                "backoff.jitter_ratio",
                "backoff.combine",
                "backoff.fallback"
            ]
        );
        assert!(
            warnings(&p)[0]
                .message
                .contains("strategy `full_jitter` draws its own jitter"),
            "{:?}",
            warnings(&p)
        );
        // The same settings where they are read: alive.
        let alive = profile(&serde_json::json!({
            "backoff": {
                "strategy": "response_header", "base_delay_ms": 10, "jitter_window_ms": 500,
                "combine": "max",
                "fallback": { "strategy": "exponential_proportional", "base_delay_ms": 10, "jitter_ratio": 0.5 }
            }
        }));
        assert!(paths(&alive).is_empty(), "{:?}", warnings(&alive));
        // In a fallback the fallback's own strategy decides.
        let fb = profile(&serde_json::json!({
            "backoff": {
                "strategy": "response_header", "base_delay_ms": 10,
                "fallback": { "strategy": "equal_jitter", "base_delay_ms": 10, "jitter_window_ms": 5 }
            }
        }));
        assert_eq!(paths(&fb), ["backoff.fallback.jitter_window_ms"]);
    }

    #[test]
    fn a_deadline_before_the_first_wait_is_named() {
        let p = profile(&serde_json::json!({
            "deadline_ms": 500,
            "backoff": { "strategy": "fixed", "base_delay_ms": 2000 }
        }));
        let w = warnings(&p);
        assert_eq!(paths(&p), ["deadline_ms"]);
        assert!(
            w[0].message
                .contains("shortest wait before retry 1 (2000 ms)"),
            "{}",
            w[0].message
        );
        // Full jitter can wait 0: a retry is possible.
        let jitter = profile(&serde_json::json!({
            "deadline_ms": 500,
            "backoff": { "strategy": "full_jitter", "base_delay_ms": 2000 }
        }));
        assert!(paths(&jitter).is_empty());
        let none = profile(&serde_json::json!({
            "deadline_ms": 500, "max_retries": 0,
            "backoff": { "strategy": "fixed", "base_delay_ms": 2000 }
        }));
        assert!(paths(&none).is_empty());
    }

    #[test]
    fn unlimited_retries_that_never_wait_are_named() {
        let p = profile(&serde_json::json!({
            "format": "retryscope-profile/2",
            "max_retries": null, "deadline_ms": 5000,
            "backoff": { "strategy": "exponential", "base_delay_ms": 0 }
        }));
        let w = warnings(&p);
        assert_eq!(paths(&p), ["max_retries"]);
        assert!(
            w[0].message.starts_with(
                "unlimited retries with a 0 ms wait retry as fast as the server answers until the deadline (5000 ms)"
            ),
            "{}",
            w[0].message
        );
        let capped = profile(&serde_json::json!({
            "max_retries": null, "deadline_ms": 5000,
            "backoff": { "strategy": "fixed", "base_delay_ms": 100, "max_delay_ms": 0, "hard_cap": true }
        }));
        assert_eq!(paths(&capped), ["max_retries"]);
        // A wait, a window, a limit, or a wait the server decides: no warning.
        for extra in [
            serde_json::json!({ "max_retries": null, "deadline_ms": 5000,
                "backoff": { "strategy": "fixed", "base_delay_ms": 1 } }),
            serde_json::json!({ "max_retries": null, "deadline_ms": 5000,
                "backoff": { "strategy": "fixed", "base_delay_ms": 0, "jitter_window_ms": 10 } }),
            serde_json::json!({ "max_retries": 3,
                "backoff": { "strategy": "fixed", "base_delay_ms": 0 } }),
            serde_json::json!({ "max_retries": null, "deadline_ms": 5000,
                "backoff": { "strategy": "response_header", "base_delay_ms": 0 } }),
        ] {
            let p = profile(&extra);
            assert!(paths(&p).is_empty(), "{extra}: {:?}", warnings(&p));
        }
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
