//! Envoy route `retry_policy` (config.route.v3.RetryPolicy) as YAML, optionally beside the
//! route's `timeout`.
//!
//! Envoy's wait before retry n is `U[0, min(base_interval · 2^(n−1), max_interval))`
//! (`JitteredExponentialBackOffStrategy`: `full_jitter`); base 25 ms, max 10 × base by default;
//! `num_retries` defaults to 1. `retry_on` conditions: `5xx` (any 5xx, resets, connect
//! failures, timeouts), `gateway-error` (502, 503, 504), `reset` (no response: disconnect,
//! reset, read timeout), `connect-failure`, `retriable-4xx` (409), `retriable-status-codes`
//! (with `retriable_status_codes`), `refused-stream`; header-based ones wait for matchers.
//! `rate_limited_retry_back_off.reset_headers` reads server delays (SECONDS, `UNIX_TIMESTAMP`).

use super::durations::{format_proto, parse_proto};
use super::facts::{self, codes};
use super::import_table::{Key, Mapped, each_item, walk};
use super::pending;
use super::report::{ExportedPolicy, Findings, FormatError, ImportError, ImportedPolicy};
use super::tree::{Node, join, parse_yaml};
use crate::model::{
    Backoff, Combine, DelayHeader, ErrorKind, HeaderUnit, OnExceedMax, RetryProfile, StatusSet,
    Strategy,
};
use std::fmt::Write as _;

const TOOL: &str = "Envoy retry_policy";

/// The YAML: `# gaps`, then `timeout` (the deadline, when set) and `retry_policy`.
pub fn export(p: &RetryProfile) -> ExportedPolicy {
    let mut gaps = Vec::new();
    facts::format2_gaps(p, "Envoy", false, &mut gaps);
    let b = facts::computed(&p.backoff);
    let all = codes(&p.retry_on.status);
    let mut on: Vec<&str> = Vec::new();
    let mut listed: Vec<u16> = Vec::new();
    let full_5xx = (500..=599).all(|c| p.retry_on.status.contains(c));
    if full_5xx {
        on.push("5xx");
        gaps.push("5xx also retries resets, connect failures and per-try timeouts".into());
    }
    for c in &all {
        if full_5xx && (500..=599).contains(c) {
            continue;
        }
        listed.push(*c);
    }
    if !listed.is_empty() {
        on.push("retriable-status-codes");
    }
    let e = &p.retry_on.errors;
    if e.contains(&ErrorKind::Connect) || e.contains(&ErrorKind::ConnectTimeout) {
        on.push("connect-failure");
    }
    if e.contains(&ErrorKind::Reset)
        || e.contains(&ErrorKind::Timeout)
        || e.contains(&ErrorKind::Body)
    {
        on.push("reset");
    }
    if e.contains(&ErrorKind::Dns) {
        gaps.push("dns errors: Envoy resolves upstream hosts itself, not per request".into());
    }
    if b.strategy != Strategy::FullJitter {
        gaps.push(format!(
            "backoff {}: Envoy waits U[0, min(base_interval·2^(n−1), max_interval)) (full_jitter)",
            b.strategy.id()
        ));
    }
    if b.jitter_window_ms > 0 {
        gaps.push("jitter window: Envoy adds none".into());
    }
    gaps.extend(gaps_of(p));
    if p.deadline_ms.is_some() {
        gaps.push(
            "deadline: written as the route's timeout (all attempts), outside retry_policy".into(),
        );
    }
    let mut y = facts::commented_head(p, "envoy", "not expressible in Envoy's retry_policy", &gaps);
    if let Some(d) = p.deadline_ms {
        let _ = writeln!(y, "timeout: {}", format_proto(d));
    }
    y.push_str("retry_policy:\n");
    let _ = writeln!(y, "  retry_on: \"{}\"", on.join(","));
    let count = facts::export_count(p, "Envoy", u64::from(u32::MAX), &mut gaps);
    let _ = writeln!(y, "  num_retries: {count}");
    if let Some(ms) = p.timeouts.total_ms {
        let _ = writeln!(y, "  per_try_timeout: {}", format_proto(ms));
    }
    if let Some(ms) = p.timeouts.read_ms {
        let _ = writeln!(y, "  per_try_idle_timeout: {}", format_proto(ms));
    }
    if !listed.is_empty() {
        let list: Vec<String> = listed.iter().map(u16::to_string).collect();
        let _ = writeln!(y, "  retriable_status_codes: [{}]", list.join(", "));
    }
    y.push_str("  retry_back_off:\n");
    let _ = writeln!(
        y,
        "    base_interval: {}",
        format_proto(b.base_delay_ms.max(1))
    );
    match b.max_delay_ms {
        Some(c) => {
            let _ = writeln!(
                y,
                "    max_interval: {}",
                format_proto(c.max(b.base_delay_ms).max(1))
            );
        }
        None => gaps_note(
            &mut y,
            "no max delay: Envoy's default max_interval is 10 × base_interval",
        ),
    }
    let readable: Vec<(&str, &str)> = p
        .backoff
        .headers
        .iter()
        .filter_map(|h| match h.unit {
            HeaderUnit::Seconds => Some((h.name.as_str(), "SECONDS")),
            HeaderUnit::UnixTimestamp => Some((h.name.as_str(), "UNIX_TIMESTAMP")),
            _ => None,
        })
        .collect();
    if p.backoff.strategy == Strategy::ResponseHeader && !readable.is_empty() {
        y.push_str("  rate_limited_retry_back_off:\n    reset_headers:\n");
        for (name, format) in readable {
            let _ = write!(y, "      - name: {name}\n        format: {format}\n");
        }
        if let Some(c) = p.backoff.max_delay_ms {
            let _ = writeln!(y, "    max_interval: {}", format_proto(c.max(1)));
        }
    }
    ExportedPolicy::new(y, gaps, true)
}

fn gaps_note(y: &mut String, note: &str) {
    let _ = writeln!(y, "    # {note}");
}

/// Everything but backoff and conditions that Envoy's retry policy cannot say, one line each.
fn gaps_of(p: &RetryProfile) -> Vec<String> {
    let mut gaps = Vec::new();
    if !p.retry_on.non_idempotent {
        gaps.push("methods: Envoy retries every method (POST included)".into());
    }
    if p.backoff.strategy == Strategy::ResponseHeader {
        let b = &p.backoff;
        if b.headers
            .iter()
            .any(|h| !matches!(h.unit, HeaderUnit::Seconds | HeaderUnit::UnixTimestamp))
        {
            gaps.push("delay headers in ms, HTTP-date or RateLimit t=: Envoy's reset_headers read SECONDS or UNIX_TIMESTAMP only".into());
        }
        if b.combine == Combine::Max {
            gaps.push("combine max: Envoy uses the header's delay as is".into());
        }
        if b.on_exceed_max == OnExceedMax::Stop {
            gaps.push("a header above the max delay: Envoy discards it and uses the next header or the computed backoff (the profile stops)".into());
        }
        if b.jitter_window_ms > 0 {
            gaps.push("jitter window after a header delay: Envoy adds none".into());
        }
    }
    if p.timeouts.resolve_ms.is_some() || p.timeouts.connect_ms.is_some() {
        gaps.push(
            "resolve and connect timeouts: cluster settings (connect_timeout), not retry_policy"
                .into(),
        );
    }
    if p.on_other_status == crate::model::OtherStatusAction::Retry {
        gaps.push("on_other_status retry: list the statuses in retriable_status_codes".into());
    }
    if p.seed.is_some() {
        gaps.push("seed: Envoy's jitter is not seeded".into());
    }
    gaps
}

/// The import's draft.
struct Draft {
    profile: RetryProfile,
    retry_on: Option<(String, String)>,
    codes: Vec<u16>,
    headers: Option<(Vec<DelayHeader>, Option<u64>)>,
    explicit_max: bool,
}

/// Outside `retry_policy` (a route fragment).
const ROUTE: &[Key<Draft>] = &[
    Key::nested("retry_policy", POLICY),
    Key::map("timeout", route_timeout),
];

/// `retry_policy`.
#[rustfmt::skip]
const POLICY: &[Key<Draft>] = &[
    Key::map("retry_on", retry_on),
    Key::map("num_retries", num_retries),
    Key::map("per_try_timeout", per_try_timeout),
    Key::map("per_try_idle_timeout", per_try_idle_timeout),
    Key::map("retriable_status_codes", retriable_codes),
    Key::nested("retry_back_off", BACK_OFF),
    Key::map("rate_limited_retry_back_off", rate_limited),
    Key::dropped("retriable_headers", pending::MATCHERS),
    Key::dropped("retriable_request_headers", "request matchers (which requests to retry) are not in the profile model"),
    Key::dropped("retry_host_predicate", "host selection is not in the profile model"),
    Key::dropped("host_selection_retry_max_attempts", "host selection is not in the profile model"),
    Key::dropped("retry_priority", "host selection is not in the profile model"),
    Key::dropped("retry_options_predicates", "retry option predicates are Envoy extensions"),
];

/// `retry_back_off`.
const BACK_OFF: &[Key<Draft>] = &[
    Key::map("base_interval", base_interval),
    Key::map("max_interval", max_interval),
];

/// `rate_limited_retry_back_off`.
const RATE_LIMITED: &[Key<Draft>] = &[
    Key::map("reset_headers", reset_headers),
    Key::map("max_interval", rate_max),
];

fn route_timeout(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let ms = v.duration(path, parse_proto)?;
    f.source("deadline_ms", path);
    d.profile.deadline_ms = (ms > 0).then_some(ms);
    Ok(())
}

fn retry_on(d: &mut Draft, v: &Node, path: &str, _: &mut Findings) -> Mapped {
    d.retry_on = Some((path.to_owned(), v.text(path)?));
    Ok(())
}

fn num_retries(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let n = v.int(path)?;
    if n < 0 {
        return Err(FormatError::new(
            path,
            format!("num_retries must be 0 or more, found {n}"),
        ));
    }
    d.profile.max_retries = facts::retries_from(n, path, n, f);
    Ok(())
}

fn per_try_timeout(d: &mut Draft, v: &Node, path: &str, _: &mut Findings) -> Mapped {
    let ms = v.duration(path, parse_proto)?;
    d.profile.timeouts.total_ms = (ms > 0).then_some(ms);
    Ok(())
}

fn per_try_idle_timeout(d: &mut Draft, v: &Node, path: &str, _: &mut Findings) -> Mapped {
    let ms = v.duration(path, parse_proto)?;
    d.profile.timeouts.read_ms = (ms > 0).then_some(ms);
    Ok(())
}

fn retriable_codes(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let codes = each_item(v, path, f, |item, ipath, _| {
        let n = item.int(ipath)?;
        u16::try_from(n)
            .ok()
            .filter(|c| (100..=599).contains(c))
            .ok_or_else(|| {
                FormatError::new(
                    ipath,
                    format!("expected a status code in 100-599, found {n}"),
                )
            })
    })?;
    d.codes.extend(codes);
    Ok(())
}

fn base_interval(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let ms = v.duration(path, parse_proto)?;
    f.source("backoff.base_delay_ms", path);
    if ms == 0 {
        return Err(FormatError::new(
            path,
            "base_interval must be greater than 0",
        ));
    }
    d.profile.backoff.base_delay_ms = ms;
    Ok(())
}

fn max_interval(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    d.profile.backoff.max_delay_ms = Some(v.duration(path, parse_proto)?);
    f.source("backoff.max_delay_ms", path);
    d.explicit_max = true;
    Ok(())
}

fn rate_limited(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    d.headers.get_or_insert((Vec::new(), Some(300_000)));
    walk(v.map(path)?, path, RATE_LIMITED, TOOL, d, f);
    Ok(())
}

fn reset_headers(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let list = each_item(v, path, f, |item, ipath, f| {
        let name = item
            .get("name")
            .ok_or_else(|| FormatError::new(ipath, "a reset header needs a name"))?
            .text(&join(ipath, "name"))?;
        let format = match item.get("format") {
            None => "SECONDS".to_owned(),
            Some(n) => n.text(&join(ipath, "format"))?,
        };
        let unit = match format.as_str() {
            "SECONDS" => HeaderUnit::Seconds,
            "UNIX_TIMESTAMP" => HeaderUnit::UnixTimestamp,
            other => {
                return Err(FormatError::new(
                    join(ipath, "format"),
                    format!("expected SECONDS or UNIX_TIMESTAMP, found {other:?}"),
                ));
            }
        };
        for (k, val) in item.map(ipath)? {
            if k != "name" && k != "format" {
                f.dropped(
                    &join(ipath, k),
                    val.describe(),
                    "unknown setting for Envoy reset_headers",
                );
            }
        }
        Ok(DelayHeader { name, unit })
    })?;
    if let Some((h, _)) = d.headers.as_mut() {
        *h = list;
    }
    Ok(())
}

fn rate_max(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let ms = v.duration(path, parse_proto)?;
    if let Some((_, max)) = d.headers.as_mut() {
        *max = Some(ms);
    }
    f.approximated(path, v.describe(), "Envoy discards a longer header delay and tries the next header or the computed backoff; the profile waits the max delay (on_exceed_max = cap)");
    Ok(())
}

/// Applies the `retry_on` conditions.
fn conditions(d: &mut Draft, f: &mut Findings) {
    let mut statuses: Vec<u16> = Vec::new();
    let mut errors: Vec<ErrorKind> = Vec::new();
    let (path, text) = d.retry_on.clone().unwrap_or_default();
    let mut uses_codes = false;
    for cond in text.split(',').map(str::trim).filter(|c| !c.is_empty()) {
        match cond {
            "5xx" => {
                statuses.extend(500..=599);
                errors.extend([
                    ErrorKind::Connect,
                    ErrorKind::ConnectTimeout,
                    ErrorKind::Reset,
                    ErrorKind::Timeout,
                    ErrorKind::Body,
                ]);
            }
            "gateway-error" => statuses.extend([502, 503, 504]),
            "reset" | "reset-before-request" => {
                errors.extend([ErrorKind::Reset, ErrorKind::Timeout, ErrorKind::Body]);
            }
            "connect-failure" => errors.extend([ErrorKind::Connect, ErrorKind::ConnectTimeout]),
            "retriable-4xx" => statuses.push(409),
            "retriable-status-codes" => uses_codes = true,
            "refused-stream" | "http3-post-connect-failure" => {
                errors.push(ErrorKind::Reset);
                f.approximated(
                    &path,
                    format!("{cond:?}"),
                    "a refused stream is counted as a reset",
                );
            }
            "retriable-headers" | "envoy-ratelimited" => {
                f.dropped(&path, format!("{cond:?}"), pending::MATCHERS);
            }
            "cancelled" | "deadline-exceeded" | "internal" | "resource-exhausted"
            | "unavailable" => {
                f.dropped(&path, format!("{cond:?}"), "gRPC conditions (x-envoy-retry-grpc-on) need grpc-status matchers, not in the profile model");
            }
            other => f.dropped(&path, format!("{other:?}"), "unknown retry_on condition"),
        }
    }
    if uses_codes {
        statuses.extend(d.codes.iter().copied());
    } else if !d.codes.is_empty() {
        f.dropped(
            "retry_policy.retriable_status_codes",
            format!("{:?}", d.codes),
            "listed without the retriable-status-codes condition, so Envoy ignores it",
        );
    }
    statuses.sort_unstable();
    statuses.dedup();
    errors.sort_by_key(|k| k.id());
    errors.dedup();
    d.profile.retry_on.status = StatusSet::from_codes(&statuses);
    d.profile.retry_on.errors = errors;
}

/// Reads a `retry_policy` (bare, under `retry_policy:`, or in a route with `timeout`).
///
/// # Errors
/// Syntax; else every unreadable value, with its path, and a missing `retry_on`.
pub fn import(text: &str, name: &str) -> Result<ImportedPolicy, ImportError> {
    let root = parse_yaml(text)?;
    let mut backoff = Backoff::new(Strategy::FullJitter);
    backoff.base_delay_ms = 25;
    let mut d = Draft {
        profile: facts::fresh(name, "envoy", 1, backoff),
        retry_on: None,
        codes: Vec::new(),
        headers: None,
        explicit_max: false,
    };
    let mut f = Findings::default();
    let entries = root.map("")?;
    if root.get("retry_policy").is_some() {
        let (known, route): (Vec<_>, Vec<_>) = entries
            .iter()
            .cloned()
            .partition(|(k, _)| ROUTE.iter().any(|r| r.name == k));
        for (k, v) in &route {
            f.dropped(k, v.describe(), "a route setting, not part of retry_policy");
        }
        walk(&known, "", ROUTE, TOOL, &mut d, &mut f);
    } else {
        walk(entries, "retry_policy", POLICY, TOOL, &mut d, &mut f);
    }
    let policy = root.get("retry_policy").unwrap_or(&root);
    if policy.get("retry_on").is_none() {
        return Err(f.refuse(FormatError::new(
            "retry_policy.retry_on",
            "missing: Envoy retries nothing without retry_on",
        )));
    }
    conditions(&mut d, &mut f);
    if !d.explicit_max {
        // Envoy's default max_interval is 10 × base_interval: the max comes from that setting.
        if let Some(base) = f.source_of("backoff.base_delay_ms").map(str::to_owned) {
            f.source("backoff.max_delay_ms", &base);
        }
        d.profile.backoff.max_delay_ms = Some(d.profile.backoff.base_delay_ms.saturating_mul(10));
    }
    if let Some((headers, max)) = d.headers.take() {
        let fallback = d.profile.backoff.clone();
        let mut b = Backoff::new(Strategy::ResponseHeader);
        b.base_delay_ms = fallback.base_delay_ms;
        b.max_delay_ms = max;
        b.headers = headers;
        b.combine = Combine::Replace;
        b.on_exceed_max = OnExceedMax::Cap;
        b.fallback = Some(Box::new(fallback));
        d.profile.backoff = b;
    }
    d.profile.retry_on.non_idempotent = true;
    f.approximated(
        "(methods)",
        "every method",
        "Envoy retries every method: non_idempotent set to true",
    );
    facts::finish(d.profile, f, TOOL)
}
