//! The `response_header` strategy (DESIGN.md §2–3): the server's delay header (+ U[0, w]),
//! combined with or replaced by the `fallback` strategy's computed wait.

use super::draws::{Draws, Recording};
use super::explain;
use super::limits::{MAX_WAIT_MS, cap_ms, ceil_ms, num, secs};
use super::ratelimit_header::{parse_ratelimit, policy_summary};
use super::retry_after::DelayForm;
use super::retry_after::{HeaderDelay, parse_delay, reference_unix_ms};
use super::strategies::{compute, final_clamp};
use super::{PolicyRng, WaitContext, WaitDecision};
use crate::model::{
    AttemptOutcome, Backoff, Combine, HeaderUnit, OnExceedMax, ResponseSummary, Strategy,
    WaitExplanation,
};
use std::fmt::Write;

/// A usable header: which one, its raw value, and the parsed delay.
struct Found<'a> {
    name: &'a str,
    raw: &'a str,
    delay: HeaderDelay,
    /// Said after the form: the `RateLimit` quota that decided (`, policy "default" q=100 per 60 s`).
    detail: String,
}

/// Computes wait n for a `response_header` backoff.
///
/// Headers are tried in the configured order; a present but unusable value (negative, empty,
/// garbage) is noted as `unusable Retry-After: "garbage"` and the next header is tried. With a
/// usable header: a delay above `c` (or above the time left before the deadline) stops the run
/// (`on_exceed_max = stop`, "server asked for 3600 s, max delay is 10 s"; beyond 24 h "server asked
/// for more than 24 h (Retry-After \"99999999\"), …") or is cut to that limit
/// (`cap`); `combine = max` takes the larger of it and the fallback's wait; `combine = clamp`
/// first bounds the header delay to [computed, computed + `clamp_above_ms`] (the fallback's wait
/// being `computed`), then the max-delay rule applies to the result; then `+ U[0, w]`.
/// Without a usable header the fallback's wait is used as computed. `hard_cap` and the 24 h
/// ceiling apply last.
///
/// Two units differ: a `grpc_pushback_ms` header that is present but negative or unparseable
/// stops the run (gRPC A6: the server asks not to retry); for a `ratelimit_t` header, a usable
/// `Retry-After` in the same response wins (the RateLimit draft requires it), read in seconds,
/// whether or not it is in the list.
pub(crate) fn wait(backoff: &Backoff, ctx: &WaitContext<'_>, rng: &mut PolicyRng) -> WaitDecision {
    let mut notes: Vec<String> = Vec::new();
    let mut found = None;
    if let AttemptOutcome::Response(resp) = ctx.outcome {
        let (reference, _) = reference_unix_ms(resp, ctx.now_unix_ms);
        for header in &backoff.headers {
            let Some(raw) = resp.header(&header.name) else {
                continue;
            };
            // (A header configured under the name Retry-After is read in its own unit.)
            if header.unit == HeaderUnit::RatelimitT
                && !header.name.eq_ignore_ascii_case("retry-after")
                && let Some(won) = retry_after_wins(resp, reference)
            {
                found = Some(won);
                break;
            }
            match parse_delay(raw, header.unit, reference) {
                Some(delay) => {
                    let detail = match delay.form {
                        DelayForm::RatelimitT => ratelimit_detail(resp, raw),
                        _ => String::new(),
                    };
                    found = Some(Found {
                        name: &header.name,
                        raw,
                        delay,
                        detail,
                    });
                    break;
                }
                None if header.unit == HeaderUnit::GrpcPushbackMs => {
                    return WaitDecision::Stop {
                        reason: format!(
                            "not retried: the server asked not to retry ({} {raw:?} is negative or unparseable; gRPC A6)",
                            header.name
                        ),
                    };
                }
                None => notes.push(format!("unusable {}: {raw:?}", header.name)),
            }
        }
    }
    let mut draws = Recording::new(rng);
    let fallback = backoff.fallback.as_deref();
    if let Some(found) = found {
        with_header(backoff, ctx, fallback, &found, &notes, draws)
    } else {
        let Some(fb) = fallback else {
            let why = if notes.is_empty() {
                missing(backoff)
            } else {
                notes.join("; ")
            };
            return WaitDecision::Stop {
                reason: format!("{why} and no fallback strategy is configured"),
            };
        };
        let Some(computed) = compute(fb, ctx.retry, ctx.prev_wait_ms, &mut draws) else {
            return not_computed(fb);
        };
        if notes.is_empty() {
            notes.push(missing(backoff));
        }
        let (value, clamp) = final_clamp(backoff, computed.wait_ms as f64);
        let mut text = format!(
            "retry {}: {} → fallback: {}",
            ctx.retry,
            notes.join("; "),
            explain::body(&computed)
        );
        if let Some(step) = &clamp {
            text.extend(explain::step_text(step));
        }
        WaitDecision::Wait(WaitExplanation {
            retry: ctx.retry,
            strategy: Strategy::ResponseHeader,
            unjittered_ms: computed.unjittered,
            draws: draws.draws,
            capped: computed.capped || clamp.is_some_and(|s| s.cut()),
            wait_ms: super::limits::ceil_ms(value),
            text,
        })
    }
}

/// A usable `Retry-After` (seconds or HTTP-date) of `resp`, which wins over `RateLimit`.
fn retry_after_wins(resp: &ResponseSummary, reference: i64) -> Option<Found<'_>> {
    let raw = resp.header("retry-after")?;
    let delay = parse_delay(raw, HeaderUnit::Seconds, reference)?;
    Some(Found {
        name: "Retry-After",
        raw,
        delay,
        detail: ", wins over RateLimit".to_owned(),
    })
}

/// `, policy "default" q=100 per 60 s` from the `RateLimit` value and `RateLimit-Policy`.
fn ratelimit_detail(resp: &ResponseSummary, raw: &str) -> String {
    let Some(policy) = parse_ratelimit(raw).and_then(|d| d.policy) else {
        return String::new();
    };
    match resp
        .header("ratelimit-policy")
        .and_then(|field| policy_summary(field, &policy))
    {
        Some(quota) => format!(", policy {policy:?} {quota}"),
        None => format!(", policy {policy:?}"),
    }
}

/// `no Retry-After header` / `no delay header (Retry-After, retry-after-ms)`.
fn missing(backoff: &Backoff) -> String {
    match backoff.headers.as_slice() {
        [one] => format!("no {} header", one.name),
        many => {
            let names: Vec<&str> = many.iter().map(|h| h.name.as_str()).collect();
            format!("no delay header ({})", names.join(", "))
        }
    }
}

fn not_computed(fb: &Backoff) -> WaitDecision {
    WaitDecision::Stop {
        reason: format!(
            "the fallback strategy `{}` is not a computed strategy; pick exponential, full_jitter, …",
            fb.strategy.id()
        ),
    }
}

fn with_header(
    backoff: &Backoff,
    ctx: &WaitContext<'_>,
    fallback: Option<&Backoff>,
    found: &Found<'_>,
    notes: &[String],
    mut draws: Recording<'_>,
) -> WaitDecision {
    let asked = found.delay.ms;
    let c = ceil_ms(cap_ms(backoff.max_delay_ms));
    let left = ctx.time_left_ms.unwrap_or(u64::MAX);
    let limit = c.min(left);
    let mut text = format!("retry {}: ", ctx.retry);
    for note in notes {
        let _ = write!(text, "{note}; ");
    }
    let _ = write!(
        text,
        "{} {:?} ({}{}) = {} ms",
        found.name,
        found.raw,
        found.delay.form.label(),
        found.detail,
        asked
    );
    let mut capped = false;
    let mut asked = asked;
    let mut clamped_by_fallback = false;
    if backoff.combine == Combine::Clamp
        && let Some(fb) = fallback
    {
        // AWS 2026 (`x-amz-retry-after`): wait = min(max(header, computed), computed + X).
        let Some(computed) = compute(fb, ctx.retry, ctx.prev_wait_ms, &mut draws) else {
            return not_computed(fb);
        };
        let x = backoff.clamp_above_ms.unwrap_or(0);
        let low = computed.wait_ms;
        let high = low.saturating_add(x);
        let bounded = asked.max(low).min(high);
        let _ = write!(
            text,
            "; fallback: {}; clamp to [{low}, {low} + {x}] → {bounded} ms",
            explain::body(&computed)
        );
        asked = bounded;
        clamped_by_fallback = true;
    }
    let mut delay = asked;
    let server_ms = found.delay.ms;
    if asked > limit {
        let why = if left < c {
            format!("only {} left before the deadline", secs(left))
        } else if backoff.max_delay_ms.is_some() {
            format!("max delay is {}", secs(c))
        } else {
            format!("max delay is 24 h ({MAX_WAIT_MS} ms)")
        };
        match backoff.on_exceed_max {
            OnExceedMax::Stop => {
                // Beyond 24 h the number is meaningless (it may be saturated): quote the header.
                let mut asked_text = if server_ms > MAX_WAIT_MS {
                    format!("more than 24 h ({} {:?})", found.name, found.raw)
                } else {
                    secs(server_ms)
                };
                // What was too long is the clamped wait, not what the server asked for.
                if clamped_by_fallback && asked != server_ms {
                    let _ = write!(asked_text, " (clamped to {})", secs(asked));
                }
                return WaitDecision::Stop {
                    reason: format!("server asked for {asked_text}, {why}"),
                };
            }
            OnExceedMax::Cap => {
                capped = true;
                delay = limit;
                let _ = write!(text, " → capped to {limit} ms ({why}; on_exceed_max = cap)");
            }
        }
    }
    let mut unjittered = delay as f64;
    if backoff.combine == Combine::Max
        && !clamped_by_fallback
        && let Some(fb) = fallback
    {
        let Some(computed) = compute(fb, ctx.retry, ctx.prev_wait_ms, &mut draws) else {
            return not_computed(fb);
        };
        let _ = write!(
            text,
            "; fallback: {}; max → {} ms",
            explain::body(&computed),
            delay.max(computed.wait_ms)
        );
        delay = delay.max(computed.wait_ms);
        unjittered = delay as f64;
    }
    let w = backoff.jitter_window_ms as f64;
    let mut total = delay as f64;
    if w > 0.0 {
        let jitter = draws.uniform("jitter", 0.0, w).ceil();
        total += jitter;
        let _ = write!(
            text,
            " + jitter {} (U[0,{}]) = {} ms",
            num(jitter),
            num(w),
            num(total)
        );
    }
    let (value, clamp) = final_clamp(backoff, total);
    if let Some(step) = &clamp {
        text.extend(explain::step_text(step));
    }
    WaitDecision::Wait(WaitExplanation {
        retry: ctx.retry,
        strategy: Strategy::ResponseHeader,
        unjittered_ms: unjittered,
        draws: draws.draws,
        capped: capped || clamp.is_some_and(|s| s.cut()),
        wait_ms: super::limits::ceil_ms(value),
        text,
    })
}
