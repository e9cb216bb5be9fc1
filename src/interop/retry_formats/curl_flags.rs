//! curl's retry flags (curl 7.x/8.x man page): `--retry N`, `--retry-delay S`,
//! `--retry-max-time S`, `--retry-connrefused`, `--connect-timeout S`, `--max-time S`.
//!
//! curl's own rules: without `--retry-delay` it waits 1 s, doubling up to 10 min, no jitter;
//! `--retry-delay S` (whole seconds, `0` = that default) makes every wait S. It retries a
//! timeout and HTTP 408, 429, 500, 502, 503, 504, 522, 524 ("transient"), a refused connection
//! only with `--retry-connrefused`, any method, and honours `Retry-After`. Export only: the
//! flags are a command line, not a settings file.

use super::facts::{self, codes, compact};
use super::report::ExportedPolicy;
use crate::model::{ErrorKind, RetryProfile, Strategy};

/// curl's transient statuses.
pub const CURL_STATUSES: [u16; 8] = [408, 429, 500, 502, 503, 504, 522, 524];

/// The flags as one line, after `#` comments naming the origin and what curl cannot express.
pub fn export(p: &RetryProfile) -> ExportedPolicy {
    let mut gaps: Vec<String> = Vec::new();
    facts::format2_gaps(p, "curl", false, &mut gaps);
    let count = facts::export_count(p, "curl", 2_147_483_647, &mut gaps);
    let mut flags: Vec<String> = vec![format!("--retry {count}")];
    let b = facts::computed(&p.backoff);
    let curl_default = b.strategy == Strategy::ExponentialProportional
        && b.base_delay_ms == 1000
        && b.jitter_ratio == 0.0
        && b.max_delay_ms == Some(600_000);
    if curl_default {
        // curl's own backoff: no flag.
    } else if b.strategy == Strategy::Fixed && b.base_delay_ms >= 1000 {
        let secs = b.base_delay_ms.div_ceil(1000);
        flags.push(format!("--retry-delay {secs}"));
        if !b.base_delay_ms.is_multiple_of(1000) {
            gaps.push(format!(
                "--retry-delay takes whole seconds: {} ms rounded up to {secs} s",
                b.base_delay_ms
            ));
        }
        if b.jitter_window_ms > 0 {
            gaps.push(format!(
                "jitter window {} ms: curl waits exactly --retry-delay",
                b.jitter_window_ms
            ));
        }
    } else {
        gaps.push(format!(
            "backoff {} (base {} ms, max {}): curl waits 1 s, doubling up to 10 min, without \
             jitter, or a fixed --retry-delay of whole seconds (≥ 1)",
            b.strategy.id(),
            b.base_delay_ms,
            b.max_delay_ms
                .map_or_else(|| "none".to_owned(), |c| format!("{c} ms"))
        ));
    }
    if let Some(d) = p.deadline_ms {
        flags.push(format!("--retry-max-time {}", d.div_ceil(1000)));
        gaps.push(
            "deadline: --retry-max-time stops starting retries after it, but does not abort an \
             attempt in flight (add --max-time per attempt)"
                .into(),
        );
    }
    if p.retry_on.errors.contains(&ErrorKind::Connect) {
        flags.push("--retry-connrefused".into());
    }
    if let Some(ms) = p.timeouts.connect_ms {
        flags.push(format!(
            "--connect-timeout {}",
            super::durations::format_seconds(ms)
        ));
    }
    if let Some(ms) = p.timeouts.total_ms {
        flags.push(format!(
            "--max-time {}",
            super::durations::format_seconds(ms)
        ));
    }
    gaps.extend(gaps_of(p));
    let mut text = facts::commented_head(p, "curl", "not expressible with curl's flags", &gaps);
    text.push_str(&flags.join(" "));
    text.push('\n');
    ExportedPolicy::new(text, gaps, true)
}

/// Everything but the backoff and deadline that curl's flags cannot say, one line each.
fn gaps_of(p: &RetryProfile) -> Vec<String> {
    let mut gaps = Vec::new();
    let ours = codes(&p.retry_on.status);
    // With --retry 0 which statuses curl would retry does not matter.
    if ours != CURL_STATUSES && p.max_retries != Some(0) {
        gaps.push(format!(
            "retried statuses {}: curl always retries its transient set {} (no option changes it)",
            super::facts::compact_or_none(&ours),
            compact(&CURL_STATUSES)
        ));
    }
    let errors = &p.retry_on.errors;
    for kind in [
        ErrorKind::Dns,
        ErrorKind::Reset,
        ErrorKind::Body,
        ErrorKind::Tls,
    ] {
        if errors.contains(&kind) {
            gaps.push(format!(
                "retry on {} errors: curl retries only timeouts (and refused connections with \
                 --retry-connrefused) unless --retry-all-errors, which retries every error",
                kind.id()
            ));
        }
    }
    if !errors.contains(&ErrorKind::Timeout) || !errors.contains(&ErrorKind::ConnectTimeout) {
        gaps.push("curl always retries timeouts; the profile does not".into());
    }
    if !p.retry_on.non_idempotent {
        gaps.push("curl retries every method, POST included (the profile retries non-idempotent requests only when provably unprocessed)".into());
    }
    if p.backoff.strategy == Strategy::ResponseHeader {
        let only_retry_after = p.backoff.headers.len() == 1
            && p.backoff.headers[0]
                .name
                .eq_ignore_ascii_case("retry-after");
        if !only_retry_after {
            gaps.push("curl reads only Retry-After, not the profile's other delay headers".into());
        }
        if p.backoff.jitter_window_ms > 0 {
            gaps.push("curl adds no jitter window to Retry-After".into());
        }
    } else {
        gaps.push("curl honours Retry-After; the profile ignores it".into());
    }
    if p.on_other_status == crate::model::OtherStatusAction::Retry {
        gaps.push("on_other_status retry: curl retries only its transient statuses".into());
    }
    if p.timeouts.resolve_ms.is_some() || p.timeouts.read_ms.is_some() {
        gaps.push("resolve and read timeouts: curl has only --connect-timeout and --max-time (--speed-time is a throughput rule)".into());
    }
    gaps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curl_retry_builtin_is_nearly_exact() {
        let p = crate::profile::builtin("curl-retry").expect("builtin");
        let out = export(&p);
        let flags = out.text.lines().last().expect("a line");
        assert_eq!(flags, "--retry 3");
        assert!(
            out.text
                .starts_with("# retry settings of Retryscope profile")
        );
        // What curl adds on its own is still listed.
        assert!(
            out.not_expressed.iter().any(|g| g.contains("Retry-After")),
            "{:?}",
            out.not_expressed
        );
    }
}
