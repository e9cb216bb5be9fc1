//! Semantic checks of a parsed profile: what the schema cannot say (cross-field rules,
//! required-by-strategy fields, that a custom script compiles and runs). Every problem is
//! collected, not just the first.

use super::field_path::related;
use super::issue::ProfileIssue;
use super::shape::{self, MAX_VIOLATIONS};
use crate::model::{
    AttemptOutcome, Backoff, BodyPreview, ErrorKind, NetError, PROFILE_FORMAT, ResponseSummary,
    RetryProfile, StatusSet, Strategy,
};
use crate::policy::{
    CompiledMatcher, Policy, PolicyError, WaitContext, WaitDecision, rng_from_seed, simulate,
};

/// 24 h in ms: the clamp every wait obeys (DESIGN.md §2), so larger delays are mistakes.
pub const DAY_MS: u64 = 24 * 60 * 60 * 1000;

/// Checks a profile built in code (the editor's, one with CLI overrides applied): its shape
/// through the shipped JSON Schema (as the loader does, e.g. `max_retries` at most
/// `u32::MAX` or `null`, status codes 100–599), then every semantic rule.
///
/// Returns every problem found (empty = valid), each with its field path; positions are left
/// unset (the loader fills them from the source text).
pub fn validate(profile: &RetryProfile) -> Vec<ProfileIssue> {
    let doc = serde_json::to_value(profile).unwrap_or_default();
    let mut issues: Vec<ProfileIssue> = shape::problems(&doc, MAX_VIOLATIONS)
        .iter()
        .map(super::problem::Problem::issue)
        .collect();
    let shape_paths: Vec<String> = issues.iter().map(|i| i.path.clone()).collect();
    for finding in rules(profile, !issues.is_empty()) {
        let quoted = std::iter::once(&finding.issue.path).chain(&finding.reads);
        if !quoted
            .into_iter()
            .any(|q| shape_paths.iter().any(|p| related(p, q)))
        {
            issues.push(finding.issue);
        }
    }
    issues
}

/// One semantic problem, and the other fields whose values it quotes or depends on (a rule
/// about `max_delay_ms` that quotes `base_delay_ms`): when one of those is not the file's own
/// value (it was broken and left out), the finding is not about the file and is dropped.
#[derive(Debug, Clone)]
pub(super) struct Finding {
    /// The problem, at the field it is about.
    pub issue: ProfileIssue,
    /// Paths of the other fields it reads.
    pub reads: Vec<String>,
}

/// The findings collected so far.
#[derive(Default)]
pub(super) struct Findings(Vec<Finding>);

impl Findings {
    pub(super) fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.read(path, &[], message);
    }

    pub(super) fn read(
        &mut self,
        path: impl Into<String>,
        reads: &[String],
        message: impl Into<String>,
    ) {
        self.0.push(Finding {
            issue: ProfileIssue::new(path, message),
            reads: reads.to_vec(),
        });
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// `retry_on.response` and `success_when` (DESIGN.md §8): every matcher compiles (regexes within
/// the size limit, pointers well formed, keys that go together), each problem at its key's path.
fn check_conditions(profile: &RetryProfile, issues: &mut Findings) {
    for (list, path) in [
        (&profile.retry_on.response, "retry_on.response"),
        (&profile.success_when, "success_when"),
        (&profile.throttling.response, "throttling.response"),
    ] {
        for (i, matcher) in list.iter().enumerate() {
            if let Err(e) = CompiledMatcher::compile(matcher, &format!("{path}[{i}]")) {
                issues.push(e.path, e.message);
            }
        }
    }
}

/// Every semantic rule (not the shape: see [`validate`]). `others_found`: problems were already
/// found elsewhere (the script dry run is then skipped unless there is a script to check).
pub(super) fn rules(profile: &RetryProfile, others_found: bool) -> Vec<Finding> {
    let mut issues = Findings::default();
    if profile.format != PROFILE_FORMAT {
        issues.push(
            "format",
            format!(
                "unsupported format `{}`; expected `{PROFILE_FORMAT}`",
                profile.format
            ),
        );
    }
    if profile.name.trim().is_empty() {
        issues.push(
            "name",
            "name is empty; give the profile a name to show in pickers",
        );
    }
    // Names are printed in tables, titles and terminals: a control character there could
    // break a line or drive the terminal of whoever uses a shared profile.
    for (path, text) in [("name", &profile.name), ("provider", &profile.provider)] {
        if let Some(problem) = crate::model::quote::control_problem(text, false) {
            issues.push(
                path,
                format!("{path} {problem}; a {path} is one line of plain text"),
            );
        }
    }
    check_status_set(&profile.success_status, "success_status", &mut issues);
    check_status_set(&profile.retry_on.status, "retry_on.status", &mut issues);
    check_success_and_retry(profile, &mut issues);
    check_backoff(&profile.backoff, "backoff", false, &mut issues);
    super::validate_classes::check(profile, &mut issues);
    if profile.deadline_ms == Some(0) {
        issues.push(
            "deadline_ms",
            "deadline_ms must be greater than 0; use null for no deadline",
        );
    }
    let t = &profile.timeouts;
    for (name, value) in [
        ("resolve_ms", t.resolve_ms),
        ("connect_ms", t.connect_ms),
        ("read_ms", t.read_ms),
        ("total_ms", t.total_ms),
    ] {
        if value == Some(0) {
            issues.push(
                format!("timeouts.{name}"),
                format!("{name} must be greater than 0; use null for no limit"),
            );
        }
    }
    // Before the script check: a matcher that does not compile also fails `Policy::new`, and is
    // reported here at its own path.
    check_conditions(profile, &mut issues);
    check_script(profile, others_found, &mut issues);
    issues.0
}

/// `success_status` must not be empty (no run could succeed) and must not share codes with
/// `retry_on.status` (success is decided first, so such a code would never be retried).
fn check_success_and_retry(profile: &RetryProfile, issues: &mut Findings) {
    if profile.success_status.0.is_empty() {
        issues.push(
            "success_status",
            "success_status is empty, so no answer would count as a success; the usual is [\"200-299\"]",
        );
    }
    for (i, range) in profile.retry_on.status.0.iter().enumerate() {
        if range.low > range.high || range.high > 599 {
            continue; // reported by check_status_set
        }
        if let Some(code) = (range.low..=range.high).find(|&c| profile.success_status.contains(c)) {
            issues.read(
                format!("retry_on.status[{i}]"),
                &["success_status".to_owned()],
                format!(
                    "status {code} is also in success_status; success is decided first, so it would never be retried (remove it from one of them)"
                ),
            );
        }
    }
}

/// Reversed ranges (`"599-500"`); codes outside 100–599 are the schema's to report.
pub(super) fn check_status_set(set: &StatusSet, path: &str, issues: &mut Findings) {
    for (i, range) in set.0.iter().enumerate() {
        let at = format!("{path}[{i}]");
        if range.low > range.high {
            issues.push(
                at,
                format!(
                    "range {}-{} is reversed; write the lower code first ({}-{})",
                    range.low, range.high, range.high, range.low
                ),
            );
        }
    }
}

pub(super) fn check_backoff(b: &Backoff, path: &str, is_fallback: bool, issues: &mut Findings) {
    let field = |name: &str| format!("{path}.{name}");
    // Every delay field is at most 24 h, the clamp every wait obeys.
    for (name, value) in [
        ("base_delay_ms", Some(b.base_delay_ms)),
        ("max_delay_ms", b.max_delay_ms),
        ("jitter_window_ms", Some(b.jitter_window_ms)),
    ] {
        if let Some(v) = value
            && v > DAY_MS
        {
            issues.push(
                field(name),
                format!("{name} {v} is more than 24 h ({DAY_MS} ms)"),
            );
        }
    }
    if let Some(max) = b.max_delay_ms {
        if max < b.base_delay_ms {
            issues.read(
                field("max_delay_ms"),
                &[field("base_delay_ms")],
                format!(
                    "max_delay_ms {max} is smaller than base_delay_ms {}; raise the max or lower the base",
                    b.base_delay_ms
                ),
            );
        }
    } else if b.hard_cap {
        issues.read(
            field("hard_cap"),
            &[field("max_delay_ms")],
            "hard_cap needs max_delay_ms; set a max delay or turn hard_cap off",
        );
    }
    if !(0.0..=1.0).contains(&b.jitter_ratio) {
        issues.push(
            field("jitter_ratio"),
            format!(
                "jitter_ratio {} is outside [0, 1]; 0.2 means a factor in [0.8, 1.2]",
                b.jitter_ratio
            ),
        );
    }
    match b.strategy {
        // A fallback cannot be response_header (reported where the fallback is checked):
        // asking it for headers and a fallback of its own would mislead.
        Strategy::ResponseHeader if is_fallback => {}
        Strategy::ResponseHeader => check_response_header(b, path, issues),
        Strategy::Custom => {
            if is_fallback {
                // Reported by the parent as an unsupported fallback strategy.
            } else if b.script.as_deref().is_none_or(|s| s.trim().is_empty()) {
                issues.read(
                    field("script"),
                    &[field("strategy")],
                    "custom strategy needs a script defining `fn get_delay(ctx)`",
                );
            }
        }
        _ => {}
    }
}

fn check_response_header(b: &Backoff, path: &str, issues: &mut Findings) {
    if b.headers.is_empty() {
        issues.read(
            format!("{path}.headers"),
            &[format!("{path}.strategy")],
            "response_header needs at least one header, e.g. {\"name\": \"Retry-After\", \"unit\": \"seconds\"}",
        );
    }
    for (i, h) in b.headers.iter().enumerate() {
        if !crate::model::is_http_token(&h.name) {
            issues.push(
                format!("{path}.headers[{i}].name"),
                if h.name.is_empty() {
                    "the header name is empty".to_owned()
                } else {
                    format!("{:?} is not a valid header name", h.name)
                },
            );
        }
    }
    match &b.fallback {
        None => issues.read(
            format!("{path}.fallback"),
            &[format!("{path}.strategy")],
            "response_header needs a fallback backoff used when no delay header is usable, e.g. {\"strategy\": \"exponential\"}",
        ),
        Some(fallback) => {
            let at = format!("{path}.fallback");
            if matches!(fallback.strategy, Strategy::ResponseHeader | Strategy::Custom) {
                issues.push(
                    format!("{at}.strategy"),
                    format!(
                        "a fallback cannot be `{}`; use a computed strategy such as exponential or full_jitter",
                        fallback.strategy.id()
                    ),
                );
            }
            check_backoff(fallback, &at, true, issues);
        }
    }
}

/// Compiles a custom script through the policy layer; its error carries the line:column
/// inside the script.
fn check_script(profile: &RetryProfile, others_found: bool, issues: &mut Findings) {
    let has_script = profile.backoff.strategy == Strategy::Custom
        && profile
            .backoff
            .script
            .as_deref()
            .is_some_and(|s| !s.trim().is_empty());
    if !has_script && (others_found || !issues.is_empty()) {
        // The policy would only repeat what is already reported.
        return;
    }
    match Policy::new(profile.clone()) {
        Ok(policy) if has_script => dry_run(profile, &policy, issues),
        Ok(_) => {}
        Err(PolicyError::Script {
            line,
            column,
            message,
        }) => issues.push(
            "backoff.script",
            format!("script does not compile (script line {line}, column {column}): {message}"),
        ),
        Err(PolicyError::Invalid(message)) => {
            if issues.is_empty() {
                issues.push("backoff", message);
            }
        }
        // `Policy::new` only compiles; run-time failures come from the dry run.
        Err(e @ PolicyError::ScriptRuntime { .. }) => {
            issues.push("backoff.script", e.to_string());
        }
    }
}

/// Retries the dry run of a custom script calls `get_delay` for (`1..=min(max_retries, this)`).
pub const DRY_RUN_RETRIES: u32 = 3;

/// Runs a compiled custom script for retries 1 to min(`max_retries`, [`DRY_RUN_RETRIES`]) on three
/// paths: a 503 outcome without headers (one [`simulate`] sample, seed = the profile's or 0), a
/// 429 carrying `Retry-After: 1` (the throttling branch scripts most often have), and a
/// connection error (`ctx.status` is `()`, `ctx.error` is `"connect"`: the branch most often
/// forgotten). A script that throws, loops, recurses or returns NaN / a negative / a string on
/// any path is reported at `backoff.script` with the path it failed on (and the script's
/// line:column when Rhai knows it). Returning `()` is fine.
fn dry_run(profile: &RetryProfile, policy: &Policy, issues: &mut Findings) {
    let mut short = profile.clone();
    short.max_retries = Some(
        short
            .max_retries
            .unwrap_or(DRY_RUN_RETRIES)
            .min(DRY_RUN_RETRIES),
    );
    if let Err(e) = simulate(&short, 1, profile.seed.unwrap_or(0)) {
        issues.push(
            "backoff.script",
            format!("{e}; the dry run calls get_delay with a 503 response and no headers"),
        );
        return;
    }
    let throttled = AttemptOutcome::Response(ResponseSummary {
        status: 429,
        reason: "Too Many Requests".into(),
        version: "HTTP/1.1".into(),
        headers: vec![("retry-after".into(), "1".into())],
        body: BodyPreview::default(),
    });
    let refused = AttemptOutcome::Error(NetError {
        kind: ErrorKind::Connect,
        message: "connection refused (dry run)".into(),
        dns: None,
    });
    let paths = [
        (&throttled, "a 429 response and Retry-After: 1"),
        (
            &refused,
            "a connection error (ctx.status is (), ctx.error is \"connect\")",
        ),
    ];
    for (outcome, what) in paths {
        if let Some(message) = dry_run_path(
            policy,
            outcome,
            short.max_retries.unwrap_or(0),
            profile.seed,
        ) {
            issues.push(
                "backoff.script",
                format!("{message}; the dry run calls get_delay with {what}"),
            );
            return;
        }
    }
}

/// Calls the policy for retries 1..=`retries` after `outcome`; the script's failure message, if any.
fn dry_run_path(
    policy: &Policy,
    outcome: &AttemptOutcome,
    retries: u32,
    seed: Option<u64>,
) -> Option<String> {
    let mut rng = rng_from_seed(seed.unwrap_or(0));
    let mut prev_wait_ms = None;
    for retry in 1..=retries {
        let context = WaitContext {
            retry,
            outcome,
            elapsed_ms: prev_wait_ms.unwrap_or(0),
            prev_wait_ms,
            time_left_ms: None,
            now_unix_ms: 0,
        };
        match policy.next_wait(&context, &mut rng) {
            WaitDecision::Wait(explanation) => prev_wait_ms = Some(explanation.wait_ms),
            WaitDecision::Stop { .. } => return None,
            WaitDecision::ScriptError { message } => {
                return Some(format!("custom script failed for retry {retry}: {message}"));
            }
        }
    }
    None
}
