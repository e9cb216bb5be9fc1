//! The JSON Schema of a profile document: generated from [`RetryProfile`] with `schemars`, shipped
//! as `assets/retry-profile.schema.json`, and the single source of truth for a profile's shape
//! (the loader validates every document against the shipped text, see [`super::shape`]).

use crate::model::RetryProfile;
use serde_json::Value;

/// Pretty JSON Schema (draft 2020-12, as schemars 1 emits) of a profile, with a trailing
/// newline. Shipped as `assets/retry-profile.schema.json`; regenerate it with
/// `cargo run -- profile schema > assets/retry-profile.schema.json`.
///
/// On top of what schemars derives, every unsigned integer field gets the `maximum` of its Rust
/// type (so a number the loader cannot hold is a schema violation, not a late serde error);
/// `max_retries` is `0..=u32::MAX` or `null` (format 2 lifted the old limit of 1000).
pub fn schema_json() -> String {
    let mut schema = schemars::schema_for!(RetryProfile);
    // Edited in place: the `Schema` type prints keywords in their conventional order.
    if let Some(root) = schema.as_object_mut() {
        root.values_mut().for_each(add_integer_maximums);
    }
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// `maximum: <type max>` on every schema with `format: uint16 | uint32 | uint64` and no maximum.
fn add_integer_maximums(node: &mut Value) {
    match node {
        Value::Object(map) => {
            let max = match map.get("format").and_then(Value::as_str) {
                Some("uint16") => Some(u64::from(u16::MAX)),
                Some("uint32") => Some(u64::from(u32::MAX)),
                Some("uint64") => Some(u64::MAX),
                _ => None,
            };
            if let Some(max) = max
                && !map.contains_key("maximum")
            {
                map.insert("maximum".into(), Value::from(max));
            }
            map.values_mut().for_each(add_integer_maximums);
        }
        Value::Array(items) => items.iter_mut().for_each(add_integer_maximums),
        _ => {}
    }
}

/// The schema shipped in `assets/`, embedded at build time (compare with [`schema_json`]).
pub const SHIPPED_SCHEMA: &str = include_str!("../../assets/retry-profile.schema.json");
