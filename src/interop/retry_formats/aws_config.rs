//! AWS shared config file (`~/.aws/config`) keys of the SDKs' retry behaviour: `retry_mode`
//! (`legacy`, `standard`, `adaptive`) and `max_attempts` (attempts, the first included), in a
//! `[default]` or `[profile NAME]` section (AWS SDKs and Tools Reference Guide, "Retry
//! behavior").
//!
//! The backoff is fixed by the SDK, not the file: standard mode is the `aws-standard` built-in
//! (full jitter, base 1 s, cap 20 s, 429/500/502/503/504 and network errors); legacy mode is
//! modelled as botocore's legacy handler (`rand · 2^(n−1)` s: full jitter, base 1 s, no cap,
//! 5 attempts by default); adaptive mode is standard plus a client-side rate limiter.
//!
//! The retry quota is the SDK's too, not the file's: standard and adaptive mode always have it
//! (the built-ins' `retry_budget`: 500 tokens, 5 per retry, 10 per timeout retry, a refund on a
//! retried success, +1 on a first-attempt success; the 2026 revision 14 and 5 per throttling
//! retry), legacy mode has none. Importing gives the built-in's budget; exporting says when the
//! profile's budget is not the quota the SDK will use.

use super::facts;
use super::report::{ExportedPolicy, Findings, FormatError, ImportError, ImportedPolicy};
use crate::model::{Backoff, ErrorKind, RetryProfile, Strategy};
use std::fmt::Write as _;

const TOOL: &str = "AWS shared config";

/// `[default]` with `retry_mode` and `max_attempts`, `#` comments first.
pub fn export(p: &RetryProfile) -> ExportedPolicy {
    let mut gaps = Vec::new();
    facts::format2_gaps(p, "the AWS config", true, &mut gaps);
    let std = crate::profile::builtin("aws-standard");
    let b = facts::computed(&p.backoff);
    let is_2026 = p.backoff.strategy == crate::model::Strategy::ResponseHeader
        && p.backoff
            .headers
            .iter()
            .any(|h| h.name.eq_ignore_ascii_case("x-amz-retry-after"));
    if let Some(s) = &std {
        let sb = &s.backoff;
        let same = b.strategy == sb.strategy
            && b.base_delay_ms == sb.base_delay_ms
            && b.max_delay_ms == sb.max_delay_ms;
        let same_2026 = is_2026 && b.strategy == Strategy::FullJitter && b.base_delay_ms == 50;
        if !same && !same_2026 {
            gaps.push(format!(
                "backoff {} (base {} ms, max {}): the SDK's standard mode always waits U[0, min(20 s, 1 s·2^(n−1))]",
                b.strategy.id(),
                b.base_delay_ms,
                b.max_delay_ms.map_or_else(|| "none".to_owned(), |c| format!("{c} ms"))
            ));
        }
        if facts::codes(&p.retry_on.status) != facts::codes(&s.retry_on.status) {
            gaps.push("retried statuses: the SDK decides them (429, 500, 502, 503, 504 and throttling error codes)".into());
        }
    }
    if is_2026 {
        gaps.push("the 2026 retry behaviour (50 ms base, x-amz-retry-after) is switched on with AWS_NEW_RETRIES_2026=true in the environment, not in this file".into());
    } else if p.backoff.strategy == Strategy::ResponseHeader {
        gaps.push("server delay headers: the SDK decides which it reads".into());
    }
    if p.deadline_ms.is_some() {
        gaps.push("deadline: not a shared-config setting (set it per client in code)".into());
    }
    if facts::any_timeout(p) {
        gaps.push("timeouts: per SDK client in code (e.g. botocore Config connect_timeout / read_timeout)".into());
    }
    quota_gap(p, is_2026, &mut gaps);
    // max_attempts counts the first try too.
    let attempts = facts::export_count(p, "the AWS config", 2_147_483_646, &mut gaps) + 1;
    let title = "not expressible in the shared config file";
    let mut text = facts::commented_head(p, "aws-config", title, &gaps);
    let _ = write!(
        text,
        "[default]\nretry_mode = standard\nmax_attempts = {attempts}\n"
    );
    ExportedPolicy::new(text, gaps, true)
}

/// Every `[` line is a whole section header: the INI parser reads an unclosed `[default` on to
/// the next `]` or the end of the file, so it reports the wrong line, or none at all.
///
/// # Errors
/// The first header without its `]`, at its line and the `[`'s column.
fn check_section_headers(text: &str) -> Result<(), FormatError> {
    for (i, line) in text.lines().enumerate() {
        let header = line.trim_start();
        if header.starts_with('[') && !header.contains(']') {
            let column = line.chars().count() - header.chars().count() + 1;
            return Err(FormatError::syntax(
                Some(i + 1),
                Some(column),
                format!("section header `{}` has no closing `]`", header.trim_end()),
            ));
        }
    }
    Ok(())
}

/// The INI parser's message in words (it quotes Rust's debug form of what it expected).
fn ini_message(msg: &str) -> String {
    if msg.contains("but found EOF") {
        "the file ends inside a quoted value (a `\"` or `'` is not closed)".to_owned()
    } else if msg == "missing key" {
        "a line starts with `=` or `:`; write the setting's name before it".to_owned()
    } else if msg.contains("inline comment") {
        "a comment must be on a line of its own (starting with # or ;)".to_owned()
    } else {
        msg.to_lowercase()
    }
}

/// What differs between the profile's retry budget and the quota the SDK applies in standard
/// mode (the `aws-standard` built-in's, or `aws-standard-2026`'s for a 2026 profile); nothing
/// when they match (the bucket's scope aside: the SDK keeps one per client).
fn quota_gap(p: &RetryProfile, is_2026: bool, gaps: &mut Vec<String>) {
    let id = if is_2026 {
        "aws-standard-2026"
    } else {
        "aws-standard"
    };
    let Some(quota) = crate::profile::builtin(id).and_then(|b| b.retry_budget) else {
        return;
    };
    let t = crate::policy::tokens_text;
    let sdk = format!(
        "the SDK's quota in standard mode is {} tokens, {} per retry, {} per timeout retry, {} per throttling retry",
        t(quota.capacity),
        t(quota.cost.transient),
        t(quota.cost.timeout),
        t(quota.cost.throttling)
    );
    match &p.retry_budget {
        None => gaps.push(format!(
            "no retry budget: {sdk}, always on (legacy mode has none)"
        )),
        Some(b) => {
            let mut same = b.clone();
            same.scope = quota.scope;
            if same != quota {
                gaps.push(format!(
                    "retry budget (capacity {}, costs {} / {} / {}): {sdk}; the file cannot change it",
                    t(b.capacity),
                    t(b.cost.transient),
                    t(b.cost.timeout),
                    t(b.cost.throttling)
                ));
            }
        }
    }
}

/// `max_attempts = value` (at `path`) as a count of attempts, at least 1.
fn max_attempts(value: &str, path: &str) -> Result<i128, FormatError> {
    let n: i128 = value.trim().parse().map_err(|_| {
        FormatError::new(
            path,
            format!("expected a whole number of attempts, found {value:?}"),
        )
    })?;
    if n < 1 {
        return Err(FormatError::new(
            path,
            format!("max_attempts must be at least 1, found {n}"),
        ));
    }
    Ok(n)
}

/// Reads a shared config file: the `[default]` section, else the first `[profile …]`.
///
/// # Errors
/// INI syntax (with line:column), or a file without sections; else a bad `retry_mode` and a
/// bad `max_attempts` (with their paths), both when both are.
pub fn import(text: &str, name: &str) -> Result<ImportedPolicy, ImportError> {
    check_section_headers(text)?;
    let ini = ini::Ini::load_from_str(text)
        .map_err(|e| FormatError::syntax(Some(e.line), Some(e.col), ini_message(&e.msg)))?;
    let sections: Vec<&str> = ini.sections().flatten().collect();
    let chosen = sections
        .iter()
        .find(|s| **s == "default" || **s == "profile default")
        .or_else(|| sections.iter().find(|s| s.starts_with("profile ")))
        .copied()
        .ok_or_else(|| FormatError::new("", "no [default] or [profile NAME] section"))?;
    let mut f = Findings::default();
    for s in &sections {
        if *s != chosen {
            f.dropped(
                &format!("[{s}]"),
                "(section)",
                "only one profile section is imported ([default] first)",
            );
        }
    }
    let mut mode = "standard".to_owned();
    let mut attempts: Option<(i128, String)> = None;
    let props = ini
        .section(Some(chosen))
        .map(|p| {
            p.iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    for (k, v) in &props {
        let path = format!("[{chosen}].{k}");
        match k.as_str() {
            "retry_mode" => mode = v.trim().to_ascii_lowercase(),
            "max_attempts" => match max_attempts(v, &path) {
                Ok(n) => attempts = Some((n, path.clone())),
                Err(e) => f.problem(e),
            },
            // A credentials file's keys and tokens are named, never shown.
            _ if crate::model::secrets::is_secret_param(k)
                || crate::model::secrets::is_secret_header(k) =>
            {
                f.dropped(&path, crate::model::secrets::MASK, "not a retry setting");
            }
            _ => f.dropped(&path, format!("{v:?}"), "not a retry setting"),
        }
    }
    let mode_path = format!("[{chosen}].retry_mode");
    let mut profile = match mode.as_str() {
        "standard" | "adaptive" => {
            let mut p = crate::profile::builtin("aws-standard").unwrap_or_else(|| {
                let mut b = Backoff::new(Strategy::FullJitter);
                b.max_delay_ms = Some(20_000);
                facts::fresh(name, "aws", 2, b)
            });
            name.clone_into(&mut p.name);
            p.max_retries = Some(2);
            if mode == "adaptive" {
                f.approximated(&mode_path, "\"adaptive\"", "adaptive mode's client-side rate limiter is not in the profile model: imported as standard");
            }
            f.approximated(
                &mode_path,
                format!("{mode:?}"),
                "the SDK's retry quota (500 tokens, 5 per retry, 10 per timeout retry) is the retry budget, kept per client by the SDK: shared per host here (scope host)",
            );
            f.dropped(
                &mode_path,
                format!("{mode:?}"),
                "throttling error codes sent in HTTP 400 bodies (ThrottlingException, RequestLimitExceeded, …): only 429 is imported as throttling; add throttling.response matchers for the codes your services send",
            );
            p
        }
        "legacy" => {
            let mut b = Backoff::new(Strategy::FullJitter);
            b.max_delay_ms = None;
            let mut p = facts::fresh(name, "aws", 4, b);
            p.retry_on.status = crate::model::StatusSet(
                [429, 500, 502, 503, 504, 509]
                    .into_iter()
                    .map(crate::model::StatusRange::single)
                    .collect(),
            );
            p.retry_on.errors = vec![
                ErrorKind::Connect,
                ErrorKind::ConnectTimeout,
                ErrorKind::Timeout,
                ErrorKind::Reset,
                ErrorKind::Body,
            ];
            f.approximated(&mode_path, "\"legacy\"", "legacy mode differs per SDK: modelled as botocore's (rand · 2^(n−1) s, 5 attempts by default)");
            p
        }
        other => {
            return Err(f.refuse(FormatError::new(
                &mode_path,
                format!("expected legacy, standard or adaptive, found {other:?}"),
            )));
        }
    };
    if let Some((n, path)) = attempts {
        profile.max_retries = facts::retries_from(n - 1, &path, n, &mut f);
    }
    profile.provider = "aws".into();
    facts::finish(profile, f, TOOL)
}
