//! Built-in profiles: JSON files in `assets/profiles/`, embedded in the binary.
//! Each file's `description` cites where its numbers come from.

use crate::model::RetryProfile;

/// A built-in profile.
#[derive(Debug, Clone)]
pub struct Builtin {
    /// Name `--builtin` takes, e.g. `servicenow-exponential`. Stable across versions.
    pub id: &'static str,
    /// The parsed profile.
    pub profile: RetryProfile,
}

/// `(id, JSON source)` of every built-in, in listing order.
pub const BUILTIN_SOURCES: [(&str, &str); 13] = [
    (
        "servicenow-exponential",
        include_str!("../../assets/profiles/servicenow-exponential.json"),
    ),
    (
        "servicenow-response-header",
        include_str!("../../assets/profiles/servicenow-response-header.json"),
    ),
    (
        "vbscript-module",
        include_str!("../../assets/profiles/vbscript-module.json"),
    ),
    (
        "aws-standard",
        include_str!("../../assets/profiles/aws-standard.json"),
    ),
    (
        "aws-standard-2026",
        include_str!("../../assets/profiles/aws-standard-2026.json"),
    ),
    (
        "azure-sdk",
        include_str!("../../assets/profiles/azure-sdk.json"),
    ),
    (
        "google-api-core",
        include_str!("../../assets/profiles/google-api-core.json"),
    ),
    (
        "grpc-a6",
        include_str!("../../assets/profiles/grpc-a6.json"),
    ),
    (
        "polly-v8-standard",
        include_str!("../../assets/profiles/polly-v8-standard.json"),
    ),
    (
        "envoy-route",
        include_str!("../../assets/profiles/envoy-route.json"),
    ),
    (
        "dapr-default",
        include_str!("../../assets/profiles/dapr-default.json"),
    ),
    (
        "curl-retry",
        include_str!("../../assets/profiles/curl-retry.json"),
    ),
    (
        "custom-example",
        include_str!("../../assets/profiles/custom-example.json"),
    ),
];

/// The built-in used when none is named: the seed 001 exponential example.
pub const DEFAULT_BUILTIN: &str = "servicenow-exponential";

/// Parses the built-in `text`. Its JSON is compiled in and checked by a test (it loads through
/// [`super::load_str`], schema, rules and dry run, to the same profile), so a process that runs one
/// built-in parses only that one, without compiling the schema or simulating it.
fn parse(id: &'static str, text: &str) -> Option<Builtin> {
    serde_json::from_str(text)
        .ok()
        .map(|profile| Builtin { id, profile })
}

/// All built-in profiles, in listing order.
///
/// A built-in that fails to parse is left out (a test guarantees none does).
pub fn builtins() -> Vec<Builtin> {
    BUILTIN_SOURCES
        .iter()
        .filter_map(|(id, text)| parse(id, text))
        .collect()
}

/// The built-in named `id`.
pub fn builtin(id: &str) -> Option<RetryProfile> {
    let (id, text) = BUILTIN_SOURCES.iter().find(|(known, _)| *known == id)?;
    parse(id, text).map(|b| b.profile)
}

/// The ids of every built-in, in listing order.
pub fn builtin_ids() -> Vec<&'static str> {
    BUILTIN_SOURCES.iter().map(|(id, _)| *id).collect()
}
