//! Python urllib3 2.x: `Retry(...)` and `Timeout(...)` (urllib3.util.retry / .timeout).
//!
//! urllib3's wait before retry n: 0 for n = 1, else `min(backoff_max, backoff_factor ·
//! 2^(n−1) + random() · backoff_jitter)` seconds (`Retry.get_backoff_time`). With
//! `respect_retry_after_header` a Retry-After on 413, 429 or 503 replaces it. Connection errors
//! are retried for every method; read errors and statuses only for `allowed_methods`.
//! Export only: the output is Python code.

use super::facts::{self, codes, py_seconds};
use super::report::ExportedPolicy;
use crate::model::{ErrorKind, RetryProfile, Strategy};
use std::fmt::Write as _;

/// `Retry.DEFAULT_ALLOWED_METHODS`.
const IDEMPOTENT: &str = r#"frozenset({"DELETE", "GET", "HEAD", "OPTIONS", "PUT", "TRACE"})"#;

/// `retry = Retry(...)` and `timeout = Timeout(...)`, after `#` comments naming what urllib3
/// cannot express. The module imports `Retry` and `Timeout` from `urllib3.util`.
pub fn export(p: &RetryProfile) -> ExportedPolicy {
    let mut gaps = Vec::new();
    facts::format2_gaps(p, "urllib3", false, &mut gaps);
    let b = facts::computed(&p.backoff);
    let count = facts::export_count(p, "urllib3", 2_147_483_647, &mut gaps);
    let mut args: Vec<String> = vec![format!("total={count}")];
    let errors = &p.retry_on.errors;
    let connect = [
        ErrorKind::Dns,
        ErrorKind::Connect,
        ErrorKind::ConnectTimeout,
    ];
    let read = [ErrorKind::Timeout, ErrorKind::Reset, ErrorKind::Body];
    match connect.iter().filter(|k| errors.contains(k)).count() {
        0 => args.push("connect=0".into()),
        3 => {}
        _ => gaps.push("urllib3 counts dns, connect and connect_timeout errors as one kind (connect): all are retried".into()),
    }
    match read.iter().filter(|k| errors.contains(k)).count() {
        0 => args.push("read=0".into()),
        3 => {}
        _ => gaps.push(
            "urllib3 counts timeout, reset and body errors as one kind (read): all are retried"
                .into(),
        ),
    }
    if errors.contains(&ErrorKind::Tls) {
        gaps.push("tls errors: urllib3 does not retry certificate failures".into());
    }
    args.push("redirect=None".into());
    let statuses = codes(&p.retry_on.status);
    args.push(format!("status_forcelist={}", py_codes(&statuses)));
    if p.retry_on.non_idempotent {
        args.push("allowed_methods=None".into());
    } else {
        args.push(format!("allowed_methods={IDEMPOTENT}"));
        if statuses.contains(&429) {
            gaps.push(
                "status 429 on POST/PATCH: urllib3 retries statuses only for allowed_methods"
                    .into(),
            );
        }
    }
    // Backoff: urllib3's formula is b·2^(n−1) from retry 2 on, 0 before retry 1.
    args.push(format!("backoff_factor={}", py_seconds(b.base_delay_ms)));
    args.push(format!(
        "backoff_max={}",
        py_seconds(b.max_delay_ms.unwrap_or(crate::profile::DAY_MS))
    ));
    match b.strategy {
        Strategy::ExponentialProportional if b.jitter_ratio == 0.0 => {}
        Strategy::Exponential if b.jitter_window_ms > 0 => {
            args.push(format!("backoff_jitter={}", py_seconds(b.jitter_window_ms)));
            gaps.push("exponential (m = U[0, 2^n − 1]): urllib3 waits b·2^(n−1) + U[0, jitter] instead".into());
        }
        other => gaps.push(format!(
            "backoff {}: urllib3 waits backoff_factor·2^(n−1) (+ U[0, backoff_jitter]), capped at backoff_max",
            other.id()
        )),
    }
    // urllib3 never waits before retry 1, whatever its settings.
    if b.base_delay_ms > 0 || b.jitter_window_ms > 0 {
        gaps.push(format!(
            "wait before retry 1: urllib3 retries at once (0 s), the profile waits about {} ms",
            b.base_delay_ms
        ));
    }
    if b.strategy != Strategy::Exponential && b.jitter_window_ms > 0 {
        args.push(format!("backoff_jitter={}", py_seconds(b.jitter_window_ms)));
    }
    if !b.hard_cap && (b.jitter_window_ms > 0 || b.jitter_ratio > 0.0) && b.max_delay_ms.is_some() {
        gaps.push("urllib3 caps the wait after the jitter (as hard_cap would)".into());
    }
    let header = p.backoff.strategy == Strategy::ResponseHeader;
    args.push(format!(
        "respect_retry_after_header={}",
        if header { "True" } else { "False" }
    ));
    if header {
        let only = p.backoff.headers.len() == 1
            && p.backoff.headers[0]
                .name
                .eq_ignore_ascii_case("retry-after");
        if !only {
            gaps.push(
                "urllib3 reads only Retry-After, not the profile's other delay headers".into(),
            );
        }
        gaps.push("urllib3 honours Retry-After only on 413, 429 and 503, up to retry_after_max (6 h), and adds no jitter window".into());
    }
    args.push("raise_on_status=True".into());
    if p.deadline_ms.is_some() {
        gaps.push(
            "deadline: urllib3 has no total time for all attempts (Timeout.total is per attempt)"
                .into(),
        );
    }
    if p.on_other_status == crate::model::OtherStatusAction::Retry {
        gaps.push("on_other_status retry: urllib3 retries only status_forcelist".into());
    }
    if facts::has_jitter(&b) && p.seed.is_some() {
        gaps.push("seed: urllib3 draws from Python's random module".into());
    }
    if p.timeouts.resolve_ms.is_some() {
        gaps.push("resolve timeout: urllib3 has none (name lookup counts toward connect)".into());
    }
    let mut timeout_args = Vec::new();
    for (name, v) in [
        ("connect", p.timeouts.connect_ms),
        ("read", p.timeouts.read_ms),
        ("total", p.timeouts.total_ms),
    ] {
        if let Some(ms) = v {
            timeout_args.push(format!("{name}={}", py_seconds(ms)));
        }
    }
    let title = "not expressible in urllib3's Retry";
    let mut text = facts::commented_head(p, "urllib3", title, &gaps);
    text.push_str("from urllib3.util import Retry, Timeout\n\nretry = Retry(\n");
    for a in &args {
        let _ = writeln!(text, "    {a},");
    }
    text.push_str(")\n");
    let _ = writeln!(text, "timeout = Timeout({})", timeout_args.join(", "));
    text.push_str("# use: urllib3.PoolManager(retries=retry, timeout=timeout)\n");
    ExportedPolicy::new(text, gaps, true)
}

/// `[408, 429, *range(500, 600)]`: runs of ten or more as ranges.
pub fn py_codes(codes: &[u16]) -> String {
    let listed = facts::join_runs(codes, 10, |first, last| {
        format!("*range({first}, {})", u32::from(last) + 1)
    });
    format!("[{listed}]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_become_python_ranges() {
        let all: Vec<u16> = [408, 429].into_iter().chain(500..=599).collect();
        assert_eq!(py_codes(&all), "[408, 429, *range(500, 600)]");
        assert_eq!(py_codes(&[429, 503]), "[429, 503]");
    }
}
