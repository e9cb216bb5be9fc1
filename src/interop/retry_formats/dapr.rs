//! Dapr `Resiliency` YAML (dapr.io/v1alpha1): `spec.policies.retries.NAME` (`policy`
//! `constant` / `exponential`, `duration`, `maxInterval`, `maxRetries`,
//! `matching.httpStatusCodes`), `spec.policies.timeouts.NAME`, and `spec.targets` that name
//! them.
//!
//! Dapr's `constant` waits `duration` (default 5 s). Its `exponential` is cenkalti/backoff's
//! `ExponentialBackOff`: initial 500 ms, multiplier 1.5, randomization ±50 %, interval capped at
//! `maxInterval` (default 60 s) before the randomization: nearest here is
//! `exponential_proportional` with base 500 ms, ratio 0.5 (doubling instead of × 1.5).
//! `maxRetries: -1` (the default) retries forever. A timeout policy bounds each attempt.

use super::durations::{format_go, parse_go};
use super::facts::{self, codes, compact};
use super::import_table::{Key, Mapped, walk};
use super::pending;
use super::report::{ExportedPolicy, Findings, FormatError, ImportError, ImportedPolicy};
use super::tree::{Node, join, parse_yaml};
use crate::model::{Backoff, RetryProfile, StatusSet, Strategy};
use std::fmt::Write as _;

const TOOL: &str = "Dapr resiliency";

/// The name the exported policies get.
const POLICY_NAME: &str = "retryscope";

/// The Resiliency document, `#` comments first.
pub fn export(p: &RetryProfile) -> ExportedPolicy {
    let mut gaps = Vec::new();
    facts::format2_gaps(p, "Dapr", false, &mut gaps);
    let b = facts::computed(&p.backoff);
    let mut retry = String::new();
    match b.strategy {
        Strategy::Fixed => {
            retry.push_str("        policy: constant\n");
            let _ = writeln!(retry, "        duration: {}", format_go(b.base_delay_ms));
            if b.jitter_window_ms > 0 {
                gaps.push("jitter window: Dapr's constant policy waits exactly duration".into());
            }
        }
        other => {
            retry.push_str("        policy: exponential\n");
            let _ = writeln!(
                retry,
                "        maxInterval: {}",
                format_go(b.max_delay_ms.unwrap_or(crate::profile::DAY_MS))
            );
            gaps.push(format!(
                "backoff {} (base {} ms): Dapr's exponential starts at 500 ms, × 1.5 per retry, ±50 %, capped at maxInterval",
                other.id(),
                b.base_delay_ms
            ));
        }
    }
    // Dapr's -1 retries forever, as `max_retries: null` does.
    let count = p
        .max_retries
        .map_or_else(|| "-1".to_owned(), |n| n.to_string());
    let _ = writeln!(retry, "        maxRetries: {count}");
    let statuses = codes(&p.retry_on.status);
    if statuses.is_empty() && !facts::retries_nothing(p) {
        // An empty (or absent) `httpStatusCodes` means every HTTP error to Dapr: no list says
        // "none", so say what Dapr will do instead of writing `""`.
        gaps.push(
            "HTTP statuses: the profile retries none, but Dapr without a list retries every HTTP error status (an empty httpStatusCodes means all)"
                .into(),
        );
    } else if !statuses.is_empty() {
        let _ = write!(
            retry,
            "        matching:\n          httpStatusCodes: \"{}\"\n",
            compact(&statuses).replace(' ', "")
        );
    }
    gaps.extend(gaps_of(p));
    let title = "not expressible in Dapr's resiliency policies";
    let mut y = facts::commented_head(p, "dapr", title, &gaps);
    y.push_str("# rename APP_ID to the app this applies to (or use actors / components targets)\n");
    y.push_str("apiVersion: dapr.io/v1alpha1\nkind: Resiliency\nmetadata:\n  name: retryscope\nspec:\n  policies:\n");
    if let Some(t) = p.timeouts.total_ms {
        let _ = write!(y, "    timeouts:\n      {POLICY_NAME}: {}\n", format_go(t));
    }
    let _ = write!(y, "    retries:\n      {POLICY_NAME}:\n{retry}");
    y.push_str("  targets:\n    apps:\n      APP_ID:\n");
    let _ = writeln!(y, "        retry: {POLICY_NAME}");
    if p.timeouts.total_ms.is_some() {
        let _ = writeln!(y, "        timeout: {POLICY_NAME}");
    }
    ExportedPolicy::new(y, gaps, true)
}

/// What of the profile beyond its backoff Dapr's resiliency spec cannot say, one line each.
fn gaps_of(p: &RetryProfile) -> Vec<String> {
    let mut gaps = Vec::new();
    if !p.retry_on.errors.is_empty() {
        gaps.push(
            "error kinds: Dapr retries every failed call (connection errors and timeouts alike)"
                .into(),
        );
    }
    if !p.retry_on.non_idempotent {
        gaps.push("methods: Dapr retries every method".into());
    }
    if p.backoff.strategy == Strategy::ResponseHeader {
        gaps.push("server delay headers: Dapr does not read Retry-After".into());
    }
    if p.deadline_ms.is_some() {
        gaps.push("deadline: Dapr has no total time for all attempts".into());
    }
    let t = &p.timeouts;
    if t.resolve_ms.is_some() || t.connect_ms.is_some() || t.read_ms.is_some() {
        gaps.push("resolve, connect and read timeouts: Dapr has one timeout per attempt".into());
    }
    if p.seed.is_some() {
        gaps.push("seed: Dapr's jitter is not seeded".into());
    }
    gaps
}

/// The import's draft.
struct Draft {
    profile: RetryProfile,
    policy: String,
    duration: u64,
    max_interval: u64,
}

/// One `spec.policies.retries.NAME`.
const RETRY: &[Key<Draft>] = &[
    Key::map("policy", policy),
    Key::map("duration", duration),
    Key::map("maxInterval", max_interval),
    Key::map("maxRetries", max_retries),
    Key::nested("matching", MATCHING),
];

/// `matching`.
#[rustfmt::skip]
const MATCHING: &[Key<Draft>] = &[
    Key::map("httpStatusCodes", http_codes),
    Key::dropped("gRPCStatusCodes", "gRPC status codes: the profile retries HTTP statuses"),
];

fn policy(d: &mut Draft, v: &Node, path: &str, _: &mut Findings) -> Mapped {
    let t = v.text(path)?;
    if t != "constant" && t != "exponential" {
        return Err(FormatError::new(
            path,
            format!("expected constant or exponential, found {t:?}"),
        ));
    }
    d.policy = t;
    Ok(())
}

fn duration(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    d.duration = v.duration(path, parse_go)?;
    f.source("backoff.base_delay_ms", path);
    Ok(())
}

fn max_interval(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    d.max_interval = v.duration(path, parse_go)?;
    f.source("backoff.max_delay_ms", path);
    Ok(())
}

fn max_retries(d: &mut Draft, v: &Node, path: &str, f: &mut Findings) -> Mapped {
    let n = v.int(path)?;
    if n < 0 {
        f.approximated(path, n.to_string(), pending::UNLIMITED);
        d.profile.max_retries = Some(u32::MAX);
    } else {
        d.profile.max_retries = facts::retries_from(n, path, n, f);
    }
    Ok(())
}

fn http_codes(d: &mut Draft, v: &Node, path: &str, _: &mut Findings) -> Mapped {
    let text = v.text(path)?;
    let set = StatusSet::parse_list(&text).map_err(|e| FormatError::new(path, e))?;
    d.profile.retry_on.status = set;
    Ok(())
}

/// Every target of `spec.targets` (apps, actors, components), its `outbound` part where it has
/// one.
fn targets(root: &Node) -> impl Iterator<Item = &Node> {
    let kinds = match root.get("spec").and_then(|s| s.get("targets")) {
        Some(Node::Map(kinds)) => kinds.as_slice(),
        _ => &[],
    };
    kinds
        .iter()
        .filter_map(|(_, group)| match group {
            Node::Map(items) => Some(items),
            _ => None,
        })
        .flatten()
        .map(|(_, target)| target.get("outbound").unwrap_or(target))
}

/// The retry policy to import: the first one a target names, else the first listed.
fn chosen_policy(root: &Node) -> Option<String> {
    let named = targets(root).find_map(|t| match t.get("retry") {
        Some(Node::Str(name)) => Some(name.clone()),
        _ => None,
    });
    if named.is_some() {
        return named;
    }
    match root.get("spec")?.get("policies")?.get("retries")? {
        Node::Map(entries) => entries.first().map(|(k, _)| k.clone()),
        _ => None,
    }
}

/// The timeout a target pairs with `retry`, if any.
fn paired_timeout(root: &Node, retry: &str) -> Option<String> {
    targets(root).find_map(|t| match (t.get("retry"), t.get("timeout")) {
        (Some(Node::Str(r)), Some(Node::Str(timeout))) if r == retry => Some(timeout.clone()),
        _ => None,
    })
}

/// Reads a Resiliency document into a profile (one retry policy, see [`chosen_policy`]).
///
/// # Errors
/// Syntax, or no retry policy; else every unreadable value (with its path).
pub fn import(text: &str, name: &str) -> Result<ImportedPolicy, ImportError> {
    let root = parse_yaml(text)?;
    if let Some(kind) = root.get("kind")
        && kind.text("kind")? != "Resiliency"
    {
        return Err(FormatError::new(
            "kind",
            format!("expected Resiliency, found {}", kind.describe()),
        )
        .into());
    }
    let retry_name = chosen_policy(&root)
        .ok_or_else(|| FormatError::new("spec.policies.retries", "no retry policy found"))?;
    let retries_path = "spec.policies.retries";
    let policy_node = root
        .get("spec")
        .and_then(|s| s.get("policies"))
        .and_then(|p| p.get("retries"))
        .and_then(|r| r.get(&retry_name))
        .ok_or_else(|| {
            FormatError::new(
                join(retries_path, &retry_name),
                "a target names this retry policy, but spec.policies.retries does not define it",
            )
        })?;
    let mut d = Draft {
        profile: facts::fresh(name, "dapr", u32::MAX, Backoff::new(Strategy::Fixed)),
        policy: "constant".into(),
        duration: 5000,
        max_interval: 60_000,
    };
    let mut f = Findings::default();
    if policy_node.get("maxRetries").is_none() {
        f.approximated(
            &join(&join(retries_path, &retry_name), "maxRetries"),
            "-1 (default)",
            pending::UNLIMITED,
        );
    }
    let ppath = join(retries_path, &retry_name);
    walk(
        policy_node.map(&ppath)?,
        &ppath,
        RETRY,
        TOOL,
        &mut d,
        &mut f,
    );
    let mut b = Backoff::new(Strategy::Fixed);
    if d.policy == "constant" {
        b.base_delay_ms = d.duration;
    } else {
        b.strategy = Strategy::ExponentialProportional;
        b.base_delay_ms = 500;
        b.jitter_ratio = 0.5;
        // Dapr's first interval is 500 ms whatever maxInterval says; the profile needs max ≥ base.
        if d.max_interval < b.base_delay_ms {
            f.approximated(
                &join(&ppath, "maxInterval"),
                format_go(d.max_interval),
                "below Dapr's fixed 500 ms first interval: imported as 500ms (a profile's max delay is at least its base)",
            );
        }
        b.max_delay_ms = Some(d.max_interval.max(b.base_delay_ms));
        f.approximated(&join(&ppath, "policy"), "\"exponential\"", "Dapr multiplies by 1.5 per retry; exponential_proportional doubles (base 500 ms, ±50 %, cap before the jitter as Dapr does)");
    }
    d.profile.backoff = b;
    // Everything else in the document: the other policies, timeouts not paired, circuit breakers.
    let timeout = paired_timeout(&root, &retry_name);
    if let Some(Node::Map(entries)) = root.get("spec").and_then(|s| s.get("policies")) {
        for (kind, group) in entries {
            let gpath = join("spec.policies", kind);
            match (kind.as_str(), group) {
                ("retries", Node::Map(items)) => {
                    for (n, v) in items {
                        if *n != retry_name {
                            f.dropped(
                                &join(&gpath, n),
                                v.describe(),
                                "only one retry policy is imported (the first a target names)",
                            );
                        }
                    }
                }
                ("timeouts", Node::Map(items)) => {
                    for (n, v) in items {
                        let tpath = join(&gpath, n);
                        if timeout.as_deref() == Some(n.as_str()) {
                            match v.duration(&tpath, parse_go) {
                                Ok(ms) => d.profile.timeouts.total_ms = (ms > 0).then_some(ms),
                                Err(e) => f.problem(e),
                            }
                        } else {
                            f.dropped(
                                &tpath,
                                v.describe(),
                                "no target pairs this timeout with the imported retry policy",
                            );
                        }
                    }
                }
                ("circuitBreakers", _) => f.dropped(
                    &gpath,
                    group.describe(),
                    "circuit breakers are not in the profile model",
                ),
                _ => f.dropped(
                    &gpath,
                    group.describe(),
                    "unknown policy kind for Dapr resiliency",
                ),
            }
        }
    }
    if let Some(t) = root.get("spec").and_then(|s| s.get("targets")) {
        f.dropped("spec.targets", t.describe(), "the profile applies to the requests it is used for, not to named apps, actors or components");
    }
    d.profile.retry_on.non_idempotent = true;
    f.approximated(
        "(methods)",
        "every method",
        "Dapr retries every call: non_idempotent set to true",
    );
    facts::finish(d.profile, f, TOOL)
}
