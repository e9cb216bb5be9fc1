//! Python tenacity (8.3+/9.x): `retry(stop=…, wait=…, retry=…)`.
//!
//! tenacity's wait before retry n sees `attempt_number = n`. Its built-in waits express
//! `fixed` (`wait_fixed` + `wait_random`), `exponential_proportional` without jitter
//! (`wait_exponential`), `full_jitter` (`wait_random_exponential`) and `equal_jitter` (the sum
//! of the two halves) exactly; the other formulas become a small wait function with the same
//! maths. tenacity is not HTTP-aware: statuses are checked on the returned response's
//! `.status` / `.status_code`, network errors are exception types. Export only: Python code.

use super::facts::{self, codes, py_seconds};
use super::report::ExportedPolicy;
use super::urllib3::py_codes;
use crate::model::{Backoff, OtherStatusAction, RetryProfile, Strategy};
use std::fmt::Write as _;

/// A module defining `profile_retry = retry(...)` (use as `@profile_retry`), after `#`
/// comments naming what tenacity cannot express.
pub fn export(p: &RetryProfile) -> ExportedPolicy {
    let mut gaps = Vec::new();
    facts::format2_gaps(p, "tenacity", false, &mut gaps);
    let b = facts::computed(&p.backoff);
    let (wait, wait_fn) = wait_of(&b, &mut gaps);
    if p.backoff.strategy == Strategy::ResponseHeader {
        gaps.push("server delay headers (Retry-After, …): tenacity's wait does not read responses; the fallback backoff is used".into());
    }
    let mut stop = p.max_retries.map_or_else(
        || "stop_never".to_owned(),
        |n| format!("stop_after_attempt({})", u64::from(n) + 1),
    );
    if let Some(d) = p.deadline_ms {
        let _ = write!(stop, " | stop_before_delay({})", py_seconds(d));
        gaps.push("deadline: stop_before_delay starts no wait that would pass it, but does not abort an attempt in flight".into());
    }
    let mut imports = vec!["retry", "retry_if_exception_type", "retry_if_result"];
    imports.push(if p.max_retries.is_some() {
        "stop_after_attempt"
    } else {
        "stop_never"
    });
    if p.deadline_ms.is_some() {
        imports.push("stop_before_delay");
    }
    for name in [
        "wait_exponential",
        "wait_fixed",
        "wait_random",
        "wait_random_exponential",
    ] {
        if wait.contains(&format!("{name}(")) {
            imports.push(name);
        }
    }
    imports.sort_unstable();
    gaps.extend(gaps_of(p, &b));
    let mut text = facts::commented_head(p, "tenacity", "not expressible in tenacity", &gaps);
    if wait_fn.is_some() {
        text.push_str("import random\n\n");
    }
    let _ = write!(text, "from tenacity import {}\n\n", imports.join(", "));
    let _ = writeln!(
        text,
        "RETRY_STATUSES = frozenset({})",
        py_codes(&codes(&p.retry_on.status))
    );
    let other_retry = p.on_other_status == OtherStatusAction::Retry;
    if other_retry {
        let _ = writeln!(
            text,
            "SUCCESS_STATUSES = frozenset({})",
            py_codes(&codes(&p.success_status))
        );
    }
    text.push_str(
        "# network errors to retry: builtins here; add your HTTP client's (requests.ConnectionError,\n\
         # httpx.TransportError, urllib3.exceptions.HTTPError, …)\n",
    );
    if p.retry_on.errors.is_empty() {
        text.push_str("RETRY_EXCEPTIONS = ()\n\n");
    } else {
        text.push_str("RETRY_EXCEPTIONS = (ConnectionError, TimeoutError)\n\n");
    }
    text.push_str(
        "\ndef _retry_status(response):\n    \
         status = getattr(response, \"status\", None) or getattr(response, \"status_code\", None)\n",
    );
    if other_retry {
        text.push_str(
            "    return status in RETRY_STATUSES or status not in SUCCESS_STATUSES\n\n\n",
        );
    } else {
        text.push_str("    return status in RETRY_STATUSES\n\n\n");
    }
    text.push_str(
        "def _give_up(retry_state):\n    \
         # gave up: the last response is returned, the last error raised\n    \
         return retry_state.outcome.result()\n\n\n",
    );
    if let Some(f) = &wait_fn {
        text.push_str(f);
        text.push_str("\n\n");
    }
    text.push_str("profile_retry = retry(\n");
    let _ = writeln!(text, "    stop={stop},");
    let _ = writeln!(text, "    wait={wait},");
    text.push_str(
        "    retry=retry_if_exception_type(RETRY_EXCEPTIONS) | retry_if_result(_retry_status),\n",
    );
    text.push_str("    retry_error_callback=_give_up,\n)\n");
    text.push_str("# use: @profile_retry on a function that returns the HTTP response\n");
    ExportedPolicy::new(text, gaps, true)
}

/// The `wait=` expression, and the wait function it calls when no built-in fits.
fn wait_of(b: &Backoff, gaps: &mut Vec<String>) -> (String, Option<String>) {
    let bs = py_seconds(b.base_delay_ms);
    let cap_ms = b.max_delay_ms.unwrap_or(crate::profile::DAY_MS);
    let cs = py_seconds(cap_ms);
    let half = |ms: u64| py_seconds(ms / 2);
    let max_arg = b
        .max_delay_ms
        .map_or_else(String::new, |c| format!(", max={}", py_seconds(c)));
    let w = b.jitter_window_ms;
    let over_cap = b.hard_cap && b.max_delay_ms.is_some();
    let builtin = match b.strategy {
        Strategy::Fixed if w == 0 && !(over_cap && b.base_delay_ms > cap_ms) => {
            Some(format!("wait_fixed({bs})"))
        }
        Strategy::Fixed if !(over_cap && b.base_delay_ms + w > cap_ms) => Some(format!(
            "wait_fixed({bs}) + wait_random(0, {})",
            py_seconds(w)
        )),
        Strategy::ExponentialProportional if b.jitter_ratio == 0.0 => {
            Some(format!("wait_exponential(multiplier={bs}{max_arg})"))
        }
        Strategy::FullJitter => Some(format!("wait_random_exponential(multiplier={bs}{max_arg})")),
        Strategy::EqualJitter => {
            let hmax = b
                .max_delay_ms
                .map_or_else(String::new, |c| format!(", max={}", half(c)));
            let hb = half(b.base_delay_ms);
            Some(format!(
                "wait_exponential(multiplier={hb}{hmax}) + wait_random_exponential(multiplier={hb}{hmax})"
            ))
        }
        Strategy::Custom => {
            gaps.push("custom (Rhai script): not translated; exponential b·2^(n−1) capped at the max delay is written instead".into());
            Some(format!("wait_exponential(multiplier={bs}{max_arg})"))
        }
        _ => None,
    };
    if let Some(expr) = builtin {
        return (expr, None);
    }
    let ws = py_seconds(w);
    let p = b.jitter_ratio;
    let body = match b.strategy {
        Strategy::Exponential => format!(
            "    wait = min({bs} * random.uniform(0, 2 ** n - 1), {cs}) + random.uniform(0, {ws})\n"
        ),
        Strategy::ExponentialProportional => format!(
            "    wait = min({bs} * 2 ** (n - 1), {cs}) * random.uniform({}, {})\n",
            super::facts::decimal(1.0 - p),
            super::facts::decimal(1.0 + p)
        ),
        Strategy::DecorrelatedJitter => format!(
            "    prev = getattr(retry_state, \"retryscope_prev\", {bs})\n    \
             wait = min({cs}, random.uniform({bs}, 3 * prev))\n    \
             retry_state.retryscope_prev = wait\n"
        ),
        _ => format!("    wait = {bs} + random.uniform(0, {ws})\n"),
    };
    let cap = if over_cap {
        format!("    wait = min(wait, {cs})  # hard_cap\n")
    } else {
        String::new()
    };
    let f = format!(
        "def _profile_wait(retry_state):\n    \
         # {} (DESIGN.md §2), seconds; retry n follows attempt n\n    \
         n = retry_state.attempt_number\n{body}{cap}    return wait\n",
        b.strategy.formula()
    );
    ("_profile_wait".into(), Some(f))
}

/// What tenacity cannot say about the rest of the profile (budget, class and matcher gaps go
/// here when those fields land).
fn gaps_of(p: &RetryProfile, b: &Backoff) -> Vec<String> {
    let mut gaps = Vec::new();
    if !p.retry_on.non_idempotent {
        gaps.push(
            "methods: tenacity retries whatever the function does; decorate idempotent calls only"
                .into(),
        );
    }
    if !p.retry_on.errors.is_empty() {
        gaps.push(format!(
            "error kinds ({}): tenacity sees exception types; edit RETRY_EXCEPTIONS for your client",
            p.retry_on
                .errors
                .iter()
                .map(|k| k.id())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if facts::any_timeout(p) {
        gaps.push("per-attempt timeouts: set them on your HTTP client".into());
    }
    if facts::has_jitter(b) && p.seed.is_some() {
        gaps.push("seed: tenacity draws from Python's random module".into());
    }
    gaps
}
