//! Polly v8 `HttpRetryStrategyOptions` as appsettings JSON, in the shape of
//! Microsoft.Extensions.Http.Resilience's `HttpStandardResilienceOptions`
//! (`Retry`, `AttemptTimeout`, `TotalRequestTimeout`), under a section named `Resilience`.
//! .NET's JSON configuration reads `//` comments, so the gaps are comments.
//!
//! Polly's waits (RetryHelper): `Constant` = Delay, `Linear` = Delay·n, `Exponential` =
//! Delay·2^(n−1); `UseJitter` makes Constant/Linear Delay·U[0.75, 1.25] and Exponential
//! Polly's decorrelated-jitter V2 curve; `MaxDelay` caps the computed wait. With
//! `ShouldRetryAfterHeader` (default true for HTTP) a Retry-After replaces it, uncapped. The
//! HTTP predicate retries 408, 429, 5xx, `HttpRequestException` and attempt timeouts (code, not
//! JSON). Defaults assumed on import: those of `HttpRetryStrategyOptions` (3 retries,
//! Exponential, jitter, 2 s, Retry-After honoured).

use super::durations::{format_timespan, parse_timespan};
use super::facts::{self, codes, compact_or_none};
use super::import_table::{Key, Mapped, walk};
use super::report::{ExportedPolicy, Findings, FormatError, ImportError, ImportedPolicy};
use super::tree::{Node, parse_jsonc};
use crate::model::{Backoff, DelayHeader, RetryProfile, StatusSet, Strategy};
use std::fmt::Write as _;

const TOOL: &str = "Polly";

/// .NET's `int.MaxValue`: as `MaxRetryAttempts`, Polly's "retry forever".
const INT_MAX: u64 = 2_147_483_647;

/// Keys that make an object a retry options object.
#[rustfmt::skip]
const RETRY_KEYS: [&str; 6] = [
    "MaxRetryAttempts", "BackoffType", "Delay", "MaxDelay", "UseJitter", "ShouldRetryAfterHeader",
];

/// The appsettings JSON (with `//` comments).
pub fn export(p: &RetryProfile) -> ExportedPolicy {
    let mut gaps = Vec::new();
    facts::format2_gaps(p, "Polly", false, &mut gaps);
    let b = facts::computed(&p.backoff);
    let (kind, jitter, delay) = match b.strategy {
        Strategy::Fixed if b.jitter_window_ms == 0 => ("Constant", false, b.base_delay_ms),
        Strategy::Fixed => {
            // Constant + jitter = Delay·U[0.75, 1.25] = 0.75D + U[0, 0.5D]: exact when w = 2b/3.
            let d = b.base_delay_ms + b.jitter_window_ms / 2;
            if b.jitter_window_ms * 3 != b.base_delay_ms * 2 {
                gaps.push(format!(
                    "fixed {} ms + U[0, {}]: Polly's constant jitter is Delay·U[0.75, 1.25]; Delay = {d} ms",
                    b.base_delay_ms, b.jitter_window_ms
                ));
            }
            ("Constant", true, d)
        }
        Strategy::ExponentialProportional if b.jitter_ratio == 0.0 => {
            ("Exponential", false, b.base_delay_ms)
        }
        other => {
            gaps.push(format!(
                "backoff {}: written as Polly's Exponential with UseJitter (decorrelated jitter V2, median ≈ Delay·2^(n−1))",
                other.id()
            ));
            ("Exponential", true, b.base_delay_ms)
        }
    };
    let header = p.backoff.strategy == Strategy::ResponseHeader;
    gaps.extend(gaps_of(p, header));
    let count = match p.max_retries {
        // Polly's documented "retry forever" is int.MaxValue; the deadline
        // (TotalRequestTimeout, which unlimited retries require) still ends the run.
        None => INT_MAX,
        Some(n) if u64::from(n) >= INT_MAX => {
            gaps.push(format!(
                "{n} retries: Polly's MaxRetryAttempts is an int whose largest value means \"retry forever\"; written as {}",
                INT_MAX - 1
            ));
            INT_MAX - 1
        }
        Some(n) => u64::from(n),
    };
    let mut retry = vec![
        format!("\"MaxRetryAttempts\": {count}"),
        format!("\"BackoffType\": \"{kind}\""),
        format!("\"UseJitter\": {jitter}"),
        format!("\"Delay\": \"{}\"", format_timespan(delay)),
    ];
    if let Some(c) = b.max_delay_ms {
        retry.push(format!("\"MaxDelay\": \"{}\"", format_timespan(c)));
        if !b.hard_cap && facts::has_jitter(&b) {
            gaps.push("Polly caps the wait after the jitter (as hard_cap would)".into());
        }
    }
    retry.push(format!("\"ShouldRetryAfterHeader\": {header}"));
    let mut sections = vec![format!(
        "    \"Retry\": {{\n      {}\n    }}",
        retry.join(",\n      ")
    )];
    if let Some(t) = p.timeouts.total_ms {
        sections.push(format!(
            "    \"AttemptTimeout\": {{ \"Timeout\": \"{}\" }}",
            format_timespan(t)
        ));
    }
    if let Some(d) = p.deadline_ms {
        sections.push(format!(
            "    \"TotalRequestTimeout\": {{ \"Timeout\": \"{}\" }}",
            format_timespan(d)
        ));
    }
    let mut text = format!("// {}\n", facts::origin(p, "polly"));
    text.push_str("// bind with services.AddHttpClient(…).AddStandardResilienceHandler(configuration.GetSection(\"Resilience\"))\n");
    facts::push_comment_list(&mut text, "//", "not expressible in Polly's options", &gaps);
    let _ = write!(
        text,
        "{{\n  \"Resilience\": {{\n{}\n  }}\n}}\n",
        sections.join(",\n")
    );
    ExportedPolicy::new(text, gaps, true)
}

/// What of the profile beyond its backoff Polly's settings cannot say, one line each.
fn gaps_of(p: &RetryProfile, header: bool) -> Vec<String> {
    let mut gaps = Vec::new();
    let ours = codes(&p.retry_on.status);
    let polly = codes(&StatusSet::default_retry());
    // With no retries (MaxRetryAttempts 0) which statuses would be retried does not matter.
    if ours != polly && p.max_retries != Some(0) {
        gaps.push(format!(
            "retried statuses {}: Polly's HTTP predicate (408, 429, 500-599) is code (ShouldHandle)",
            compact_or_none(&ours)
        ));
    }
    if !p.retry_on.non_idempotent {
        gaps.push("methods: the standard handler retries every method; call DisableForUnsafeHttpMethods() in code".into());
    }
    if header {
        let b = &p.backoff;
        let only = b.headers.len() == 1 && b.headers[0].name.eq_ignore_ascii_case("retry-after");
        if !only {
            gaps.push("Polly reads only Retry-After, not the profile's other delay headers".into());
        }
        if b.combine == crate::model::Combine::Max {
            gaps.push("combine max: Polly uses Retry-After as is".into());
        }
        if b.max_delay_ms.is_some() {
            gaps.push("a Retry-After above the max delay: Polly waits as asked (MaxDelay caps only computed waits)".into());
        }
        if b.jitter_window_ms > 0 {
            gaps.push("jitter window after Retry-After: Polly adds none".into());
        }
    }
    let t = &p.timeouts;
    if t.resolve_ms.is_some() || t.connect_ms.is_some() || t.read_ms.is_some() {
        gaps.push("resolve, connect and read timeouts: SocketsHttpHandler settings in code".into());
    }
    if p.on_other_status == crate::model::OtherStatusAction::Retry {
        gaps.push("on_other_status retry: ShouldHandle is code".into());
    }
    if p.seed.is_some() {
        gaps.push("seed: set RetryStrategyOptions.Randomizer in code".into());
    }
    gaps
}

/// The import's draft.
struct Draft {
    profile: RetryProfile,
    kind: String,
    jitter: bool,
    delay: u64,
    max_delay: Option<u64>,
    retry_after: bool,
    /// Where `MaxRetryAttempts` said int.MaxValue ("retry forever"), if it did.
    forever: Option<String>,
}

/// `Retry` (`HttpRetryStrategyOptions` / `RetryStrategyOptions`).
const RETRY: &[Key<Draft>] = &[
    Key::map("MaxRetryAttempts", max_retry_attempts),
    Key::map("BackoffType", backoff_type),
    Key::map("UseJitter", use_jitter),
    Key::map("Delay", delay),
    Key::map("MaxDelay", max_delay),
    Key::map("ShouldRetryAfterHeader", retry_after),
    Key::dropped("Name", "strategy names are for telemetry"),
];

/// `HttpStandardResilienceOptions`.
#[rustfmt::skip]
const STANDARD: &[Key<Draft>] = &[
    Key::nested("Retry", RETRY),
    Key::map("AttemptTimeout", attempt_timeout),
    Key::map("TotalRequestTimeout", total_timeout),
    Key::dropped("CircuitBreaker", "circuit breakers are not in the profile model"),
    Key::dropped("RateLimiter", "client-side rate limiting is not in the profile model"),
];

/// `AttemptTimeout` / `TotalRequestTimeout` (a timeout, ms, when one is read).
const TIMEOUT: &[Key<Option<u64>>] = &[Key::map("Timeout", |out, v, path, _| {
    *out = Some(v.duration(path, parse_timespan)?);
    Ok(())
})];

fn timeout_of(v: &Node, path: &str, f: &mut Findings) -> Result<Option<u64>, FormatError> {
    let mut out = None;
    walk(
        v.map(path)?,
        path,
        TIMEOUT,
        "Polly's timeout options",
        &mut out,
        f,
    );
    Ok(out.filter(|ms| *ms > 0))
}

fn attempt_timeout(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    d.profile.timeouts.total_ms = timeout_of(v, path, f)?;
    Ok(())
}

fn total_timeout(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    d.profile.deadline_ms = timeout_of(v, path, f)?;
    Ok(())
}

fn max_retry_attempts(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let n = v.int(path)?;
    // Polly v8 accepts 0 (one attempt, no retry): how a profile that retries nothing is written.
    if n < 0 {
        return Err(FormatError::new(
            path,
            format!("MaxRetryAttempts must be 0 or more, found {n}"),
        ));
    }
    if n > i128::from(INT_MAX) {
        f.approximated(
            path,
            n.to_string(),
            "more than int.MaxValue, which Polly does not accept: imported as int.MaxValue (retry forever)",
        );
    }
    if n >= i128::from(INT_MAX) {
        // Unlimited once the walk knows whether a deadline (TotalRequestTimeout) ends it.
        d.forever = Some(path.to_owned());
    }
    f.source("max_retries", path);
    d.profile.max_retries = facts::clamp_retries(n.min(i128::from(INT_MAX)));
    Ok(())
}

fn backoff_type(d: &mut Draft, v: &Node, path: &str, _: &mut Findings) -> Mapped {
    let t = v.text(path)?;
    match t.as_str() {
        "Constant" | "Linear" | "Exponential" => {
            d.kind = t;
            Ok(())
        }
        other => Err(FormatError::new(
            path,
            format!("expected Constant, Linear or Exponential, found {other:?}"),
        )),
    }
}

fn use_jitter(d: &mut Draft, v: &Node, path: &str, _: &mut Findings) -> Mapped {
    d.jitter = v.flag(path)?;
    Ok(())
}

fn delay(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    d.delay = v.duration(path, parse_timespan)?;
    f.source("backoff.base_delay_ms", path);
    Ok(())
}

fn max_delay(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    f.source("backoff.max_delay_ms", path);
    d.max_delay = match v {
        Node::Null => None,
        other => Some(other.duration(path, parse_timespan)?),
    };
    Ok(())
}

fn retry_after(d: &mut Draft, v: &Node, path: &str, _: &mut Findings) -> Mapped {
    d.retry_after = v.flag(path)?;
    Ok(())
}

/// Finds the retry options: the root, a `Retry` member, or one section level down (twice).
fn locate(node: &Node, path: String, depth: u8) -> Option<(&Node, String, bool)> {
    let Node::Map(entries) = node else {
        return None;
    };
    if entries
        .iter()
        .any(|(k, _)| RETRY_KEYS.contains(&k.as_str()))
    {
        return Some((node, path, false));
    }
    if node.get("Retry").is_some() {
        return Some((node, path, true));
    }
    if depth == 0 {
        return None;
    }
    entries
        .iter()
        .find_map(|(k, v)| locate(v, super::tree::join(&path, k), depth - 1))
}

/// Reads appsettings JSON (comments allowed) holding retry options.
///
/// # Errors
/// Syntax, or no retry options found; else every unreadable value (with its path).
pub fn import(text: &str, name: &str) -> Result<ImportedPolicy, ImportError> {
    let root = parse_jsonc(text)?;
    let (node, path, standard) = locate(&root, String::new(), 3).ok_or_else(|| {
        FormatError::new("", "no Polly retry options found (an object with MaxRetryAttempts, BackoffType or Delay, or a section with Retry)")
    })?;
    let mut d = Draft {
        profile: facts::fresh(
            name,
            "polly",
            3,
            Backoff::new(Strategy::ExponentialProportional),
        ),
        kind: "Exponential".into(),
        jitter: true,
        delay: 2000,
        max_delay: None,
        retry_after: true,
        forever: None,
    };
    let mut f = Findings::default();
    let entries = node.map(&path)?;
    let table = if standard { STANDARD } else { RETRY };
    walk(entries, &path, table, TOOL, &mut d, &mut f);
    let at = |k: &str| {
        super::tree::join(
            &if standard {
                super::tree::join(&path, "Retry")
            } else {
                path.clone()
            },
            k,
        )
    };
    if let Some(at) = &d.forever {
        if d.profile.deadline_ms.is_some() {
            d.profile.max_retries = None;
        } else {
            f.approximated(
                at,
                INT_MAX.to_string(),
                "int.MaxValue is Polly's \"retry forever\", but Retryscope's unlimited retries (max_retries null) need a deadline and the file sets no TotalRequestTimeout: imported as 2147483647 retries (set deadline_ms, then max_retries null)",
            );
        }
    }
    let mut b = Backoff::new(Strategy::ExponentialProportional);
    b.base_delay_ms = d.delay;
    b.jitter_ratio = 0.0;
    b.max_delay_ms = d.max_delay;
    b.hard_cap = d.max_delay.is_some();
    match (d.kind.as_str(), d.jitter) {
        ("Constant", false) => b.strategy = Strategy::Fixed,
        ("Constant", true) => {
            b.strategy = Strategy::Fixed;
            b.base_delay_ms = d.delay * 3 / 4;
            b.jitter_window_ms = d.delay / 2;
        }
        ("Linear", _) => {
            b.strategy = Strategy::Fixed;
            f.approximated(
                &at("BackoffType"),
                "\"Linear\"",
                "no linear strategy (Delay·n): imported as fixed Delay",
            );
        }
        (_, false) => {}
        (_, true) => {
            b.strategy = Strategy::DecorrelatedJitter;
            f.approximated(&at("UseJitter"), "true", "Polly's exponential jitter is its decorrelated-jitter V2 curve: imported as decorrelated_jitter with the same Delay and MaxDelay");
        }
    }
    if d.retry_after {
        let mut top = Backoff::new(Strategy::ResponseHeader);
        top.base_delay_ms = b.base_delay_ms;
        top.max_delay_ms = None;
        top.headers = DelayHeader::default_list();
        top.fallback = Some(Box::new(b));
        d.profile.backoff = top;
    } else {
        d.profile.backoff = b;
    }
    d.profile.retry_on.non_idempotent = true;
    f.approximated("(ShouldHandle)", "408, 429, 5xx, HttpRequestException, timeouts", "the HTTP predicate is code: the profile's default statuses and errors (the same set) are used");
    f.approximated("(methods)", "every method", "the standard handler retries every method unless DisableForUnsafeHttpMethods(): non_idempotent set to true");
    facts::finish(d.profile, f, TOOL)
}
