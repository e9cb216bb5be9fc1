//! gRPC service config JSON (gRFC A6 "Client retries"): `methodConfig[].retryPolicy`
//! (`maxAttempts`, `initialBackoff`, `maxBackoff`, `backoffMultiplier`,
//! `retryableStatusCodes`), `methodConfig[].timeout` and top-level `retryThrottling`
//! (`maxTokens`, `tokenRatio`) ↔ the profile's `retry_budget`.
//!
//! A6's wait before retry n is `U[0, min(initialBackoff · multiplier^(n−1), maxBackoff)]`:
//! with multiplier 2 that is `full_jitter` exactly. gRPC status codes map to HTTP statuses by
//! gRPC's own HTTP → gRPC table (doc/http-grpc-status-mapping.md): 400 → INTERNAL,
//! 401 → UNAUTHENTICATED, 403 → `PERMISSION_DENIED`, 404 → UNIMPLEMENTED,
//! 429/502/503/504 → UNAVAILABLE (and connection failures, a connect timeout included), other →
//! UNKNOWN; `DEADLINE_EXCEEDED` is the `timeout` error
//! kind, `RESOURCE_EXHAUSTED` is 429 (the usual gateway mapping). `retryThrottling` is the
//! budget of DESIGN.md §7 (the `grpc-a6` built-in): capacity = maxTokens (full at the start),
//! every retryable failure costs 1 (`charge: failure`), every success adds tokenRatio (no
//! refund), retries only while tokens > maxTokens / 2. Service config JSON has no
//! comments: the export's gaps are only in [`ExportedPolicy::not_expressed`] (the CLI prints
//! them on stderr, the window below the text).

use super::durations::{format_proto, parse_proto};
use super::facts::{self, codes, compact};
use super::import_table::{Key, Mapped, each_item, walk};
use super::report::{ExportedPolicy, Findings, FormatError, ImportError, ImportedPolicy};
use super::tree::{Node, index, join, parse_json};
use crate::model::{
    Backoff, BudgetCharge, BudgetCost, BudgetScope, Combine, DelayHeader, ErrorKind, HeaderUnit,
    RetryBudget, RetryProfile, StatusRange, StatusSet, Strategy,
};

const TOOL: &str = "gRPC service config";

/// HTTP status → gRPC code name, gRPC's table for answers without `grpc-status`.
fn grpc_code_of(status: u16) -> &'static str {
    match status {
        400 => "INTERNAL",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "UNIMPLEMENTED",
        429 | 502 | 503 | 504 => "UNAVAILABLE",
        _ => "UNKNOWN",
    }
}

/// gRPC code name → the HTTP statuses it stands for here (inverse of [`grpc_code_of`], plus
/// `RESOURCE_EXHAUSTED` → 429; UNKNOWN, gRPC's code for every other status, → 500); `None` for
/// codes no HTTP answer maps to.
fn statuses_of(code: &str) -> Option<&'static [u16]> {
    match code {
        "INTERNAL" => Some(&[400]),
        "UNAUTHENTICATED" => Some(&[401]),
        "PERMISSION_DENIED" => Some(&[403]),
        "UNIMPLEMENTED" => Some(&[404]),
        "UNAVAILABLE" => Some(&[429, 502, 503, 504]),
        "RESOURCE_EXHAUSTED" => Some(&[429]),
        "UNKNOWN" => Some(&[500]),
        _ => None,
    }
}

/// gRPC code numbers (service config allows numbers as well as names).
#[rustfmt::skip]
const CODE_NAMES: [&str; 17] = [
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
    "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
];

/// The error kinds that are connection failures, which reach a gRPC client as UNAVAILABLE.
#[rustfmt::skip]
const CONNECTION_ERRORS: [ErrorKind; 5] = [
    ErrorKind::Dns, ErrorKind::Connect, ErrorKind::ConnectTimeout, ErrorKind::Reset,
    ErrorKind::Body,
];

/// A6: `maxAttempts` above 5 is treated as 5 unless the channel allows more.
const GRPC_MAX_ATTEMPTS: u64 = 5;

/// The service config JSON (pretty, no comments).
pub fn export(p: &RetryProfile) -> ExportedPolicy {
    let mut gaps = Vec::new();
    facts::format2_gaps(p, "gRPC", true, &mut gaps);
    let b = facts::computed(&p.backoff);
    if b.strategy != Strategy::FullJitter {
        gaps.push(format!(
            "backoff {}: gRPC waits U[0, min(initialBackoff·2^(n−1), maxBackoff)] (full_jitter)",
            b.strategy.id()
        ));
    }
    if b.jitter_window_ms > 0 {
        gaps.push("jitter window: gRPC adds none".into());
    }
    let attempts = facts::export_count(p, "gRPC", u64::from(u32::MAX) - 1, &mut gaps) + 1;
    if attempts < 2 {
        return no_retry_policy(p, gaps);
    } else if attempts > GRPC_MAX_ATTEMPTS {
        gaps.push(format!(
            "maxAttempts {attempts}: gRPC clients use at most 5 unless the channel's max retry attempts is raised"
        ));
    }
    let max_backoff = b.max_delay_ms.unwrap_or_else(|| {
        gaps.push("no max delay: gRPC requires maxBackoff; written as 24 h".into());
        crate::profile::DAY_MS
    });
    let mut names: Vec<&str> = codes(&p.retry_on.status)
        .into_iter()
        .map(grpc_code_of)
        .collect();
    let lossy: Vec<u16> = codes(&p.retry_on.status)
        .into_iter()
        .filter(|c| statuses_of(grpc_code_of(*c)).is_none_or(|s| !s.contains(c)))
        .collect();
    if !lossy.is_empty() {
        gaps.push(format!(
            "statuses {}: gRPC sees them as UNKNOWN (gRPC's HTTP mapping)",
            compact(&lossy)
        ));
    }
    let unavailable = [429, 502, 503, 504];
    if names.contains(&"UNAVAILABLE") && !unavailable.iter().all(|c| p.retry_on.status.contains(*c))
    {
        gaps.push(
            "UNAVAILABLE stands for HTTP 429, 502, 503 and 504 together: all of them are retried"
                .into(),
        );
    }
    let errors = &p.retry_on.errors;
    // DEADLINE_EXCEEDED is the call's deadline passing (a read timeout here); a connect timeout
    // is a connection failure, which gRPC reports as UNAVAILABLE.
    if errors.contains(&ErrorKind::Timeout) {
        names.push("DEADLINE_EXCEEDED");
    }
    if errors.iter().any(|k| CONNECTION_ERRORS.contains(k)) {
        gaps.push("connection errors: gRPC retries them transparently (before the RPC is committed) or reports UNAVAILABLE".into());
        names.push("UNAVAILABLE");
    }
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        gaps.push(
            "nothing retried: gRPC requires retryableStatusCodes; UNAVAILABLE written".into(),
        );
        names.push("UNAVAILABLE");
    }
    gaps.extend(gaps_of(p));
    let mut method = serde_json::json!({
        "name": [{}],
        "retryPolicy": {
            "maxAttempts": attempts.max(2),
            "initialBackoff": format_proto(b.base_delay_ms.max(1)),
            "maxBackoff": format_proto(max_backoff.max(1)),
            "backoffMultiplier": 2,
            "retryableStatusCodes": names,
        }
    });
    if let Some(d) = p.deadline_ms {
        method["timeout"] = serde_json::Value::from(format_proto(d));
    }
    let mut doc = serde_json::json!({ "methodConfig": [method] });
    if let Some(budget) = &p.retry_budget {
        doc["retryThrottling"] = throttling_of(budget, &mut gaps);
    }
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
    ExportedPolicy::new(text, gaps, false)
}

/// A profile that retries nothing: a `methodConfig` without `retryPolicy` (gRPC's maxAttempts
/// must be at least 2, so no policy is how gRPC says "no retries"), with its deadline.
fn no_retry_policy(p: &RetryProfile, mut gaps: Vec<String>) -> ExportedPolicy {
    gaps.retain(|g| !g.starts_with("backoff ") && !g.starts_with("jitter "));
    gaps.push(
        "retries nothing: no retryPolicy written (gRPC's maxAttempts must be at least 2)".into(),
    );
    let mut method = serde_json::json!({ "name": [{}] });
    if let Some(d) = p.deadline_ms {
        method["timeout"] = serde_json::Value::from(format_proto(d));
    }
    let doc = serde_json::json!({ "methodConfig": [method] });
    ExportedPolicy::new(
        serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n",
        gaps,
        false,
    )
}

/// gRPC's token ratio keeps 3 decimal places (A6: more are ignored).
fn three_places(ratio: f64) -> f64 {
    // The nudge keeps 0.29 (289.999… thousandths in binary) at 0.29.
    ((ratio * 1000.0) + 1e-6).floor() / 1000.0
}

/// `retryThrottling` for `b`: maxTokens = capacity, tokenRatio = `success_increment`; every
/// part of the budget gRPC's fixed rules do not share is a gap (starting `retry budget`).
fn throttling_of(b: &RetryBudget, gaps: &mut Vec<String>) -> serde_json::Value {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "clamped to 1..=1000 before the cast"
    )]
    let max_tokens = b.capacity.round().clamp(1.0, 1000.0) as u32;
    if (f64::from(max_tokens) - b.capacity).abs() > f64::EPSILON {
        gaps.push(format!(
            "retry budget capacity {}: gRPC's maxTokens is a whole number from 1 to 1000; written as {max_tokens}",
            crate::policy::tokens_text(b.capacity)
        ));
    }
    let mut ratio = three_places(b.success_increment);
    if ratio <= 0.0 {
        ratio = 0.001;
        gaps.push(format!(
            "retry budget success_increment {}: gRPC's tokenRatio must be greater than 0; written as 0.001",
            crate::policy::tokens_text(b.success_increment)
        ));
    } else if (ratio - b.success_increment).abs() > 1e-9 {
        gaps.push(format!(
            "retry budget success_increment {}: gRPC keeps 3 decimal places of tokenRatio; written as {ratio}",
            b.success_increment
        ));
    }
    let c = &b.cost;
    if [c.transient, c.timeout, c.throttling]
        .iter()
        .any(|cost| (cost - 1.0).abs() > 1e-9)
    {
        gaps.push(format!(
            "retry budget costs (transient {}, timeout {}, throttling {}): gRPC takes 1 token per retryable failure",
            crate::policy::tokens_text(c.transient),
            crate::policy::tokens_text(c.timeout),
            crate::policy::tokens_text(c.throttling)
        ));
    }
    if b.charge != BudgetCharge::Failure {
        gaps.push("retry budget charge \"retry\": gRPC takes its token on every retryable failure, also the last one (charge \"failure\")".into());
    }
    if b.refund_on_retry_success {
        gaps.push("retry budget refund_on_retry_success: gRPC never refunds; every success adds tokenRatio".into());
    }
    let half = f64::from(max_tokens) / 2.0;
    if (b.min_balance - half).abs() > 1e-9 || !b.min_balance_exclusive {
        gaps.push(format!(
            "retry budget min_balance {}{}: gRPC retries only while tokens > maxTokens / 2 ({})",
            crate::policy::tokens_text(b.min_balance),
            if b.min_balance_exclusive {
                " (exclusive)"
            } else {
                ""
            },
            crate::policy::tokens_text(half)
        ));
    }
    if (b.initial_tokens() - b.capacity).abs() > 1e-9 {
        gaps.push(format!(
            "retry budget initial {}: a gRPC channel starts with maxTokens",
            crate::policy::tokens_text(b.initial_tokens())
        ));
    }
    if b.scope != BudgetScope::Host {
        gaps.push("retry budget scope: gRPC keeps one bucket per channel and server name".into());
    }
    serde_json::json!({ "maxTokens": max_tokens, "tokenRatio": ratio })
}

/// The budget gRPC's `retryThrottling` of `max_tokens` and `ratio` is (see the module docs).
fn budget_of(max_tokens: f64, ratio: f64) -> RetryBudget {
    RetryBudget {
        capacity: max_tokens,
        initial: Some(max_tokens),
        cost: BudgetCost {
            transient: 1.0,
            timeout: 1.0,
            throttling: 1.0,
        },
        refund_on_retry_success: false,
        success_increment: ratio,
        min_balance: max_tokens / 2.0,
        min_balance_exclusive: true,
        charge: BudgetCharge::Failure,
        scope: BudgetScope::Host,
    }
}

/// What `retryThrottling` says, as read.
#[derive(Default)]
struct Throttling {
    max_tokens: Option<f64>,
    ratio: Option<f64>,
}

/// `retryThrottling`.
const THROTTLING: &[Key<Throttling>] = &[
    Key::map("maxTokens", max_tokens),
    Key::map("tokenRatio", token_ratio),
];

fn max_tokens(t: &mut Throttling, v: &Node, path: &str, _: &mut Findings) -> Mapped {
    let n = v.int(path)?;
    if !(1..=1000).contains(&n) {
        return Err(FormatError::new(
            path,
            format!("maxTokens must be from 1 to 1000 (gRPC A6), found {n}"),
        ));
    }
    #[allow(clippy::cast_precision_loss, reason = "at most 1000")]
    let n = n as f64;
    t.max_tokens = Some(n);
    Ok(())
}

fn token_ratio(t: &mut Throttling, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let r = v.number(path)?;
    if r <= 0.0 {
        return Err(FormatError::new(
            path,
            format!("tokenRatio must be greater than 0 (gRPC A6), found {r}"),
        ));
    }
    let kept = three_places(r);
    if (kept - r).abs() > 1e-9 {
        f.approximated(
            path,
            v.describe(),
            "gRPC keeps 3 decimal places of tokenRatio: imported as that",
        );
    }
    t.ratio = Some(kept);
    Ok(())
}

fn retry_throttling(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let entries = v.map(path)?;
    required(v, path, &["maxTokens", "tokenRatio"], f);
    let mut t = Throttling::default();
    walk(entries, path, THROTTLING, "gRPC retryThrottling", &mut t, f);
    if let (Some(max_tokens), Some(ratio)) = (t.max_tokens, t.ratio) {
        d.profile.retry_budget = Some(budget_of(max_tokens, ratio));
        f.source("retry_budget", path);
        f.approximated(
            path,
            "per channel",
            "gRPC keeps one bucket per channel and server name: the budget is shared per host (scope host)",
        );
    }
    Ok(())
}

/// A problem in `f` for each of `keys` that the map `v` at `path` lacks (gRPC requires them).
fn required(v: &Node, path: &str, keys: &[&str], f: &mut Findings) {
    for key in keys {
        if v.get(key).is_none() {
            f.problem(FormatError::new(
                join(path, key),
                "missing (gRPC requires it)",
            ));
        }
    }
}

/// What gRPC cannot say beyond backoff, codes and the budget.
fn gaps_of(p: &RetryProfile) -> Vec<String> {
    let mut gaps = Vec::new();
    gaps.push("\"name\": [{}] applies the policy to every method of the channel; list services to narrow it".into());
    let pushback = pushback_header();
    if p.backoff.strategy == Strategy::ResponseHeader {
        let others: Vec<&str> = p
            .backoff
            .headers
            .iter()
            .filter(|h| **h != pushback)
            .map(|h| h.name.as_str())
            .collect();
        if !others.is_empty() {
            gaps.push(format!(
                "server delay headers {}: gRPC reads only grpc-retry-pushback-ms",
                others.join(", ")
            ));
        }
        if p.backoff.combine != Combine::Replace {
            gaps.push("combine max/clamp: a gRPC pushback replaces the computed wait".into());
        }
    }
    // Said where the profile reads server delays at all (a profile that reads none has its
    // own line for that: gRPC's waits are computed ones).
    if p.backoff.strategy == Strategy::ResponseHeader && !p.backoff.headers.contains(&pushback) {
        gaps.push(
            "grpc-retry-pushback-ms: gRPC always honours the server's pushback (this profile does not read it)"
                .into(),
        );
    }
    if p.deadline_ms.is_some() {
        gaps.push(
            "deadline: written as methodConfig.timeout (the whole call, retries included)".into(),
        );
    }
    if facts::any_timeout(p) {
        gaps.push("per-attempt timeouts: gRPC has only the call's timeout".into());
    }
    if !p.retry_on.non_idempotent {
        gaps.push("methods: gRPC retries every RPC the policy names".into());
    }
    gaps
}

/// The import's draft: the profile and what a sibling key decides later.
struct Draft {
    profile: RetryProfile,
    multiplier: Option<f64>,
    seen_policy: bool,
    /// The `methodConfig` entry imported when none has a `retryPolicy` (gRPC then makes one
    /// attempt per call: 0 retries), if there was one.
    without_policy: Option<String>,
}

/// Top level of the service config.
#[rustfmt::skip]
const ROOT: &[Key<Draft>] = &[
    Key::map("methodConfig", method_configs),
    Key::map("retryThrottling", retry_throttling),
    Key::dropped("loadBalancingConfig", "load balancing is not a retry setting"),
    Key::dropped("loadBalancingPolicy", "load balancing is not a retry setting"),
    Key::dropped("healthCheckConfig", "health checks are not a retry setting"),
];

/// One `methodConfig` entry.
#[rustfmt::skip]
const METHOD: &[Key<Draft>] = &[
    Key::dropped("name", "the profile applies to the requests it is used for, not to named methods"),
    Key::map("retryPolicy", retry_policy),
    Key::map("timeout", timeout),
    Key::dropped("hedgingPolicy", "hedging (parallel attempts) is not in the profile model"),
    Key::dropped("waitForReady", "wait-for-ready is a channel setting"),
    Key::dropped("maxRequestMessageBytes", "message size limits are not retry settings"),
    Key::dropped("maxResponseMessageBytes", "message size limits are not retry settings"),
];

/// `retryPolicy`.
const POLICY: &[Key<Draft>] = &[
    Key::map("maxAttempts", max_attempts),
    Key::map("initialBackoff", initial_backoff),
    Key::map("maxBackoff", max_backoff),
    Key::map("backoffMultiplier", multiplier),
    Key::map("retryableStatusCodes", status_codes),
    Key::map("perAttemptRecvTimeout", per_attempt),
];

fn method_configs(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let list = v.list(path)?;
    // Without any retryPolicy (how a retry-nothing profile is exported) the first entry is
    // the one imported: gRPC makes one attempt per call, 0 retries.
    let any_policy = list.iter().any(|m| m.get("retryPolicy").is_some());
    for (i, m) in list.iter().enumerate() {
        let mpath = index(path, i);
        if d.seen_policy || d.without_policy.is_some() {
            f.dropped(
                &mpath,
                m.describe(),
                if any_policy {
                    "only the first methodConfig with a retryPolicy is imported"
                } else {
                    "only the first methodConfig is imported"
                },
            );
            continue;
        }
        let entries = m.map(&mpath)?;
        if any_policy && m.get("retryPolicy").is_none() && m.get("timeout").is_none() {
            f.dropped(&mpath, m.describe(), "no retryPolicy or timeout");
            continue;
        }
        if !any_policy {
            d.without_policy = Some(mpath.clone());
        }
        walk(entries, &mpath, METHOD, TOOL, d, f);
    }
    Ok(())
}

fn retry_policy(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let entries = v.map(path)?;
    required(
        v,
        path,
        &[
            "maxAttempts",
            "initialBackoff",
            "maxBackoff",
            "backoffMultiplier",
            "retryableStatusCodes",
        ],
        f,
    );
    d.seen_policy = true;
    walk(entries, path, POLICY, TOOL, d, f);
    Ok(())
}

fn timeout(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let ms = v.duration(path, parse_proto)?;
    f.source("deadline_ms", path);
    d.profile.deadline_ms = (ms > 0).then_some(ms);
    Ok(())
}

fn per_attempt(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let ms = v.duration(path, parse_proto)?;
    f.source("timeouts.total_ms", path);
    d.profile.timeouts.total_ms = (ms > 0).then_some(ms);
    Ok(())
}

fn max_attempts(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let n = v.int(path)?;
    if n < 2 {
        return Err(FormatError::new(
            path,
            format!("maxAttempts must be at least 2, found {n}"),
        ));
    }
    if n > i128::from(GRPC_MAX_ATTEMPTS) && n - 1 <= i128::from(u32::MAX) {
        f.approximated(path, n.to_string(), "gRPC clients use at most 5 attempts unless the channel allows more; imported as written");
    }
    d.profile.max_retries = facts::retries_from(n - 1, path, n, f);
    Ok(())
}

fn initial_backoff(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    d.profile.backoff.base_delay_ms = positive_duration(v, path, "initialBackoff")?;
    f.source("backoff.base_delay_ms", path);
    Ok(())
}

fn max_backoff(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    d.profile.backoff.max_delay_ms = Some(positive_duration(v, path, "maxBackoff")?);
    f.source("backoff.max_delay_ms", path);
    Ok(())
}

/// A duration A6 requires to be greater than 0 (`initialBackoff`, `maxBackoff`), in ms
/// (rounded up, so only a zero duration is 0).
fn positive_duration(v: &Node, path: &str, name: &str) -> Result<u64, FormatError> {
    let text = v.text(path)?;
    let ms = parse_proto(&text).map_err(|e| FormatError::new(path, e))?;
    if ms == 0 {
        return Err(FormatError::new(
            path,
            format!("{name} must be greater than 0 (gRPC A6), found {text:?}"),
        ));
    }
    Ok(ms)
}

fn multiplier(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let m = v.number(path)?;
    if m <= 0.0 {
        return Err(FormatError::new(
            path,
            format!("backoffMultiplier must be greater than 0, found {m}"),
        ));
    }
    if (m - 2.0).abs() > f64::EPSILON {
        f.approximated(
            path,
            v.describe(),
            "full_jitter doubles per retry; gRPC multiplies by this factor",
        );
    }
    d.multiplier = Some(m);
    Ok(())
}

fn status_codes(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let mut statuses: Vec<u16> = Vec::new();
    let mut errors: Vec<ErrorKind> = Vec::new();
    if v.list(path)?.is_empty() {
        return Err(FormatError::new(
            path,
            "retryableStatusCodes must name at least one status code (gRPC A6)",
        ));
    }
    each_item(v, path, f, |item, ipath, f| {
        let name = code_name(item, ipath)?;
        if name == "DEADLINE_EXCEEDED" {
            errors.push(ErrorKind::Timeout);
        } else if let Some(s) = statuses_of(name) {
            statuses.extend_from_slice(s);
            if name == "RESOURCE_EXHAUSTED" {
                f.approximated(
                    ipath,
                    item.describe(),
                    "imported as HTTP 429 (the usual gateway mapping)",
                );
            }
            if name == "UNKNOWN" {
                f.approximated(
                    ipath,
                    item.describe(),
                    "gRPC's code for every HTTP status without one of its own: imported as 500",
                );
            }
        } else {
            f.dropped(
                ipath,
                item.describe(),
                "no HTTP answer maps to this gRPC code",
            );
        }
        Ok(())
    })?;
    statuses.sort_unstable();
    statuses.dedup();
    d.profile.retry_on.status = StatusSet(statuses.into_iter().map(StatusRange::single).collect());
    // A connection failure reaches a gRPC client as UNAVAILABLE (503 among its statuses).
    if d.profile.retry_on.status.contains(503) {
        errors.extend(CONNECTION_ERRORS);
    }
    errors.sort_by_key(|k| k.id());
    errors.dedup();
    d.profile.retry_on.errors = errors;
    Ok(())
}

/// The gRPC status code name `item` (at `path`) gives: a name in any case, or its number.
fn code_name(item: &Node, path: &str) -> Result<&'static str, FormatError> {
    let name = match item {
        Node::Int(n) => {
            return usize::try_from(*n)
                .ok()
                .and_then(|n| CODE_NAMES.get(n).copied())
                .ok_or_else(|| FormatError::new(path, format!("no gRPC status code {n}")));
        }
        other => other.text(path)?.to_ascii_uppercase(),
    };
    CODE_NAMES
        .iter()
        .find(|c| **c == name)
        .copied()
        .ok_or_else(|| FormatError::new(path, format!("`{name}` is not a gRPC status code")))
}

/// Reads a service config into a profile. A `methodConfig` whose entries have no
/// `retryPolicy` (what the export writes for a profile that retries nothing) is 0 retries.
///
/// # Errors
/// Syntax; every unreadable value and every missing required key (with its path); or no
/// `methodConfig` entry at all.
pub fn import(text: &str, name: &str) -> Result<ImportedPolicy, ImportError> {
    let root = parse_json(text)?;
    let entries = root.map("")?;
    let mut backoff = Backoff::new(Strategy::FullJitter);
    backoff.base_delay_ms = 1000;
    let mut d = Draft {
        profile: facts::fresh(name, "grpc", 3, backoff),
        multiplier: None,
        seen_policy: false,
        without_policy: None,
    };
    let mut f = Findings::default();
    walk(entries, "", ROOT, TOOL, &mut d, &mut f);
    if let Some(path) = d.without_policy {
        f.source("max_retries", &path);
        f.approximated(
            &path,
            "no retryPolicy",
            "gRPC makes one attempt per call without a retryPolicy: imported as max_retries 0",
        );
        d.profile.max_retries = Some(0);
        return facts::finish(d.profile, f, TOOL);
    }
    // A methodConfig that does not read says so itself.
    f.checked()?;
    if !d.seen_policy {
        return Err(FormatError::new(
            "methodConfig",
            "no methodConfig entry: the service config configures no calls to import",
        )
        .into());
    }
    d.profile.retry_on.non_idempotent = true;
    f.approximated(
        "(methods)",
        "every RPC",
        "gRPC retries every RPC it is configured for: non_idempotent set to true",
    );
    if d.multiplier.is_none() {
        d.multiplier = Some(2.0);
    }
    let computed = std::mem::replace(&mut d.profile.backoff, Backoff::new(Strategy::Fixed));
    d.profile.backoff = with_pushback(computed);
    f.approximated(
        "(grpc-retry-pushback-ms)",
        "honoured by gRPC",
        "read as a response_header delay over the full_jitter fallback; after a pushback gRPC \
         restarts its backoff at initialBackoff, Retryscope's fallback keeps counting retries",
    );
    facts::finish(d.profile, f, TOOL)
}

/// The header gRPC A6 always honours: the server's pushback in ms (negative = do not retry).
pub(crate) fn pushback_header() -> DelayHeader {
    DelayHeader {
        name: "grpc-retry-pushback-ms".into(),
        unit: HeaderUnit::GrpcPushbackMs,
    }
}

/// gRPC's waits as a profile backoff: `response_header` on `grpc-retry-pushback-ms` (the
/// pushback replaces the computed wait and is not capped by maxBackoff, as in A6) over
/// `computed` (A6's `U[0, min(initialBackoff · 2^(n−1), maxBackoff)]`, `full_jitter`).
fn with_pushback(computed: Backoff) -> Backoff {
    Backoff {
        headers: vec![pushback_header()],
        combine: Combine::Replace,
        base_delay_ms: computed.base_delay_ms,
        fallback: Some(Box::new(computed)),
        max_delay_ms: None,
        jitter_window_ms: 0,
        ..Backoff::new(Strategy::ResponseHeader)
    }
}
