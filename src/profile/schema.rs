//! The JSON Schema of a profile document, generated from [`RetryProfile`] with `schemars`.

use crate::model::RetryProfile;

/// Pretty JSON Schema (draft 2020-12, as schemars 1 emits) of a profile, with a trailing
/// newline. Shipped as `assets/retry-profile.schema.json`; regenerate it with
/// `cargo run -- profile schema > assets/retry-profile.schema.json`.
pub fn schema_json() -> String {
    let schema = schemars::schema_for!(RetryProfile);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// The schema shipped in `assets/`, embedded at build time (compare with [`schema_json`]).
pub const SHIPPED_SCHEMA: &str = include_str!("../../assets/retry-profile.schema.json");
