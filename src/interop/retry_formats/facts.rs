//! What exporters and importers ask of a profile: status codes as a plain list, the computed
//! backoff behind a `response_header` one, an export's commented heading, a fresh profile to
//! import into, and the final check.

use super::report::{Findings, FormatError, ImportError, ImportedPolicy};
use crate::model::{Backoff, OtherStatusAction, RetryOn, RetryProfile, StatusSet, Strategy};
use std::fmt::Write as _;

/// Every code of `set` in 100–599, sorted, without repeats.
pub fn codes(set: &StatusSet) -> Vec<u16> {
    let mut out: Vec<u16> = (100..=599).filter(|c| set.contains(*c)).collect();
    out.dedup();
    out
}

/// `[408, 429, 500, 501, …, 599]` → `"408, 429, 500-599"` (runs of three or more as ranges).
pub fn compact(codes: &[u16]) -> String {
    join_runs(codes, 3, |first, last| format!("{first}-{last}"))
}

/// [`compact`] for a sentence: `none` for no codes (so "retried statuses none: …", never
/// "retried statuses : …").
pub fn compact_or_none(codes: &[u16]) -> String {
    if codes.is_empty() {
        "none".into()
    } else {
        compact(codes)
    }
}

/// `codes` (sorted) joined with `, `: each run of consecutive codes at least `min_run` long is
/// written by `range(first, last)`, the other codes one by one.
pub fn join_runs(codes: &[u16], min_run: usize, range: impl Fn(u16, u16) -> String) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < codes.len() {
        let mut j = i;
        while j + 1 < codes.len() && codes[j + 1] == codes[j] + 1 {
            j += 1;
        }
        if j - i + 1 >= min_run {
            parts.push(range(codes[i], codes[j]));
        } else {
            parts.extend(codes[i..=j].iter().map(u16::to_string));
        }
        i = j + 1;
    }
    parts.join(", ")
}

/// The backoff that computes waits: the `fallback` of a `response_header` backoff (or its own
/// numbers as exponential when it has none), else the backoff itself.
pub fn computed(backoff: &Backoff) -> Backoff {
    if backoff.strategy == Strategy::ResponseHeader {
        backoff
            .fallback
            .as_deref()
            .cloned()
            .unwrap_or_else(|| Backoff {
                strategy: Strategy::Exponential,
                ..backoff.clone()
            })
    } else {
        backoff.clone()
    }
}

/// Whether the computed waits are random (so a seed matters).
pub fn has_jitter(b: &Backoff) -> bool {
    match b.strategy {
        // Seed 001's exponential draws its multiplier; a script may call rand().
        Strategy::FullJitter
        | Strategy::EqualJitter
        | Strategy::DecorrelatedJitter
        | Strategy::Exponential
        | Strategy::Custom => true,
        Strategy::ExponentialProportional => b.jitter_ratio > 0.0,
        Strategy::Fixed | Strategy::ResponseHeader => b.jitter_window_ms > 0,
    }
}

/// Whether `p` sets any per-attempt timeout (resolve, connect, read or total).
pub fn any_timeout(p: &RetryProfile) -> bool {
    let t = &p.timeouts;
    [t.resolve_ms, t.connect_ms, t.read_ms, t.total_ms]
        .iter()
        .any(Option::is_some)
}

/// The first line of every exported file: where it came from.
pub fn origin(profile: &RetryProfile, format_id: &str) -> String {
    format!(
        "retry settings of Retryscope profile \"{}\" (retryscope profile export --to {format_id})",
        profile.name.replace(['\n', '\r'], " ")
    )
}

/// The first lines of a `#`-commented export: its [`origin`], then the gaps
/// ([`push_comment_list`]) under `title`.
pub fn commented_head(
    profile: &RetryProfile,
    format_id: &str,
    title: &str,
    gaps: &[String],
) -> String {
    let mut text = format!("# {}\n", origin(profile, format_id));
    push_comment_list(&mut text, "#", title, gaps);
    text
}

/// Writes `title:` and one `prefix - item` line per gap (`title: nothing (exact)` without one).
pub fn push_comment_list(text: &mut String, prefix: &str, title: &str, gaps: &[String]) {
    if gaps.is_empty() {
        let _ = writeln!(text, "{prefix} {title}: nothing (exact)");
        return;
    }
    let _ = writeln!(text, "{prefix} {title}:");
    for g in gaps {
        let _ = writeln!(text, "{prefix} - {g}");
    }
}

/// A profile to import into: `max_retries` and `backoff` as given, the model's defaults for the
/// rest, named `name`; the provider is the tool's id.
pub fn fresh(name: &str, provider: &str, max_retries: u32, backoff: Backoff) -> RetryProfile {
    RetryProfile {
        provider: provider.to_owned(),
        max_retries: Some(max_retries),
        ..RetryProfile::new(name, backoff)
    }
}

/// Checks the imported profile ([`crate::profile::validate`]) and writes the description:
/// where it came from and which settings did not map.
///
/// # Errors
/// Every value the walk could not read; else every problem `validate` finds, each named by the
/// file's setting it came from (else by its profile field path).
pub fn finish(
    mut profile: RetryProfile,
    mut findings: Findings,
    label: &str,
) -> Result<ImportedPolicy, ImportError> {
    findings.checked()?;
    let mut description = format!("Imported from {label} by Retryscope.");
    if !findings.unmapped.is_empty() {
        let paths: Vec<&str> = findings.unmapped.iter().map(|u| u.path.as_str()).collect();
        let _ = write!(
            description,
            " Not mapped exactly ({}): {}.",
            paths.len(),
            paths.join(", ")
        );
    }
    profile.description = description;
    let mut problems: Vec<FormatError> = Vec::new();
    let mut said: Vec<&str> = Vec::new();
    for issue in crate::profile::validate(&profile) {
        // Named as the file names it when the field came from one of its settings.
        let problem = match findings.source_of(&issue.path) {
            // One setting read into two fields (a delay-header backoff's base and its
            // fallback's; Envoy's default max, 10 × the base) is one problem of the file.
            Some(source) if said.contains(&source) => continue,
            Some(source) => {
                said.push(source);
                FormatError::new(
                    source,
                    format!("{}; read into the profile's {}", issue.message, issue.path),
                )
            }
            None => FormatError::new(
                "",
                format!(
                    "the imported settings make an invalid profile: {}: {}",
                    issue.path, issue.message
                ),
            ),
        };
        problems.push(problem);
    }
    if !problems.is_empty() {
        return Err(ImportError { issues: problems });
    }
    Ok(ImportedPolicy {
        profile,
        unmapped: findings.unmapped,
    })
}

/// A Python/JSON float literal of `ms` in seconds (`1500` → `1.5`, `2000` → `2.0`).
pub fn py_seconds(ms: u64) -> String {
    let s = super::durations::format_seconds(ms);
    if s.contains('.') { s } else { format!("{s}.0") }
}

/// `x` as the shortest decimal that reads back as `x` rounded to nine places (`1.0 - 0.7` →
/// `0.3`, not `0.30000000000000004`): a ratio or factor the user typed with a few decimals
/// prints as typed after sums like 1 ± p. Nine places is below what any target's numbers
/// resolve (ms of a second, thousandths of a token).
///
/// ```
/// use retryscope::interop::retry_formats::decimal;
/// assert_eq!(decimal(1.0 - 0.7), "0.3");
/// assert_eq!(decimal(1200.0 * 0.001), "1.2");
/// assert_eq!(decimal(1.7), "1.7");
/// assert_eq!(decimal(2.0), "2");
/// ```
pub fn decimal(x: f64) -> String {
    let rounded = (x * 1e9).round() / 1e9;
    // -0 would print as "-0".
    if rounded == 0.0 {
        "0".into()
    } else {
        rounded.to_string()
    }
}

/// Whether `p` never retries: max retries 0, or no outcome is retryable (no retried status,
/// error kind or response matcher, other statuses stop, no `success_when` polling).
pub fn retries_nothing(p: &RetryProfile) -> bool {
    p.max_retries == Some(0)
        || (codes(&p.retry_on.status).is_empty()
            && p.retry_on.errors.is_empty()
            && p.retry_on.response.is_empty()
            && p.on_other_status == OtherStatusAction::Stop
            && p.success_when.is_empty())
}

/// `p` as the exporters write a profile that [`retries_nothing`]: max retries 0 and nothing
/// retryable, so every target says "no retries" (0 retries, no statuses) instead of its own
/// defaults for what is left empty (Dapr's matching, curl's transient set, gRPC's codes).
pub fn retrying_nothing(p: &RetryProfile) -> RetryProfile {
    RetryProfile {
        max_retries: Some(0),
        retry_on: RetryOn {
            status: StatusSet(Vec::new()),
            errors: Vec::new(),
            response: Vec::new(),
            ..p.retry_on.clone()
        },
        on_other_status: OtherStatusAction::Stop,
        ..p.clone()
    }
}

/// A count of retries clamped to what the profile holds (0..=`u32::MAX`).
#[allow(
    clippy::unnecessary_wraps,
    reason = "assigned to max_retries, an Option (None = unlimited)"
)]
pub fn clamp_retries(n: i128) -> Option<u32> {
    Some(u32::try_from(n.clamp(0, i128::from(u32::MAX))).unwrap_or(u32::MAX))
}

/// [`clamp_retries`] for the file's setting at `path` (written as `written`), noting in `f`
/// when the count was cut to `u32::MAX`, and recording `max_retries` as set from `path`.
pub fn retries_from(n: i128, path: &str, written: i128, f: &mut Findings) -> Option<u32> {
    if n > i128::from(u32::MAX) {
        f.approximated(
            path,
            written.to_string(),
            "more retries than a profile counts (4294967295): imported as 4294967295",
        );
    }
    f.source("max_retries", path);
    clamp_retries(n)
}

/// What format 2 adds that no exporter writes yet (DESIGN.md §7–§8), one gap each: the retry
/// budget (unless `budget_noted`: the exporter says it itself), the throttling class and the
/// response conditions.
pub fn format2_gaps(p: &RetryProfile, tool: &str, budget_noted: bool, gaps: &mut Vec<String>) {
    if let Some(b) = &p.retry_budget
        && !budget_noted
    {
        gaps.push(format!(
            "retry budget (a token bucket of {}): not written for {tool}; {}",
            b.capacity,
            super::pending::BUDGET
        ));
    }
    let t = &p.throttling;
    if t.backoff.is_some() || !t.response.is_empty() {
        gaps.push(format!(
            "throttling class (statuses {}{}): not written for {tool}; {}",
            t.status,
            if t.backoff.is_some() {
                ", with its own backoff"
            } else {
                ""
            },
            super::pending::THROTTLING_CLASS
        ));
    }
    if !p.retry_on.response.is_empty() || !p.success_when.is_empty() {
        gaps.push(format!(
            "response conditions (retry_on.response, success_when): not written for {tool}; {}",
            super::pending::MATCHERS
        ));
    }
}

/// The retry count to write for a tool whose largest retry count is `tool_max` (tools that
/// count attempts pass their largest attempt count − 1) (unlimited has no
/// count in most tools): `max_retries` as is, or `tool_max` with a gap naming `tool` when the
/// profile says unlimited (its deadline still ends the run) or asks for more.
pub fn export_count(p: &RetryProfile, tool: &str, tool_max: u64, gaps: &mut Vec<String>) -> u64 {
    match p.max_retries {
        None => {
            gaps.push(format!(
                "unlimited retries: {tool} has no unlimited count; written as {tool_max} retries (the deadline still ends the run)"
            ));
            tool_max
        }
        Some(n) if u64::from(n) > tool_max => {
            gaps.push(format!(
                "{n} retries: {tool} counts at most {tool_max}; written as {tool_max}"
            ));
            tool_max
        }
        Some(n) => u64::from(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_writes_runs_as_ranges() {
        let set = StatusSet::default_retry();
        assert_eq!(compact(&codes(&set)), "408, 429, 500-599");
        assert_eq!(compact(&[429, 500, 502, 503, 504]), "429, 500, 502-504");
        assert_eq!(compact(&[500, 501]), "500, 501");
    }
}
