//! Semantic rules of the format-2 fields (DESIGN.md §7): unlimited retries, the throttling class,
//! the retry budget and the header clamp. Called from `validate::rules`.

use super::validate::{DAY_MS, Findings, check_backoff, check_status_set};
use crate::model::{Backoff, Combine, RetryBudget, RetryProfile, Strategy};

/// Every format-2 rule.
pub(super) fn check(profile: &RetryProfile, issues: &mut Findings) {
    if profile.max_retries.is_none() && profile.deadline_ms.is_none() {
        issues.read(
            "max_retries",
            &["deadline_ms".to_owned()],
            "unlimited retries need a deadline; set deadline_ms or give max_retries a number",
        );
    }
    check_clamp(&profile.backoff, "backoff", issues);
    let throttling = &profile.throttling;
    check_status_set(&throttling.status, "throttling.status", issues);
    if let Some(b) = &throttling.backoff {
        if b.strategy == Strategy::Custom {
            issues.push(
                "throttling.backoff.strategy",
                "throttling.backoff cannot be `custom`; use a computed strategy or response_header (a custom script can tell throttling apart itself)",
            );
        } else {
            check_backoff(b, "throttling.backoff", false, issues);
            check_clamp(b, "throttling.backoff", issues);
        }
    }
    if let Some(budget) = &profile.retry_budget {
        check_budget(budget, issues);
    }
}

/// `combine: "clamp"` needs `clamp_above_ms` (at most 24 h) and a fallback (checked elsewhere).
fn check_clamp(b: &Backoff, path: &str, issues: &mut Findings) {
    if b.strategy != Strategy::ResponseHeader || b.combine != Combine::Clamp {
        return;
    }
    match b.clamp_above_ms {
        None => issues.read(
            format!("{path}.clamp_above_ms"),
            &[format!("{path}.combine")],
            "combine \"clamp\" needs clamp_above_ms, the most a server delay may add to the computed wait (AWS: 5000)",
        ),
        Some(x) if x > DAY_MS => issues.push(
            format!("{path}.clamp_above_ms"),
            format!("clamp_above_ms {x} is more than 24 h ({DAY_MS} ms)"),
        ),
        Some(_) => {}
    }
}

fn check_budget(b: &RetryBudget, issues: &mut Findings) {
    let at = |name: &str| format!("retry_budget.{name}");
    if !(b.capacity.is_finite() && b.capacity > 0.0) {
        issues.push(
            at("capacity"),
            format!(
                "capacity {} must be a number greater than 0 (AWS: 500)",
                b.capacity
            ),
        );
        return;
    }
    let tokens = [
        ("cost.transient", b.cost.transient),
        ("cost.timeout", b.cost.timeout),
        ("cost.throttling", b.cost.throttling),
        ("success_increment", b.success_increment),
    ];
    for (name, value) in tokens {
        if !(value.is_finite() && value >= 0.0) {
            issues.push(
                at(name),
                format!("{name} {value} must be a number of tokens, 0 or more"),
            );
        }
    }
    for (name, value) in [("initial", b.initial), ("min_balance", Some(b.min_balance))] {
        if let Some(v) = value
            && !(v.is_finite() && (0.0..=b.capacity).contains(&v))
        {
            issues.read(
                at(name),
                &[at("capacity")],
                format!(
                    "{name} {v} must be between 0 and the capacity {}",
                    b.capacity
                ),
            );
        }
    }
}
