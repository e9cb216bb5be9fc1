//! Profiles as files: load, validate, save atomically, JSON Schema, built-ins.
//!
//! - [`load_str`] / [`load_bytes`] / [`load_file`] (and `_noted`, which also say when a `retryscope-profile/1`
//!   file was upgraded to `/2`, see `migrate`): syntax → `format` tag → then every problem at once: the
//!   shape through the shipped JSON Schema (unknown fields with "did you mean", missing fields,
//!   types, ranges, names), repeated keys, and the semantic rules ([`validate()`]) on a copy
//!   with the broken values left out; each problem carries path and line:column.
//! - [`validate`]: the same schema and rules for a profile built in code.
//! - [`warnings`]: settings that are valid but never take effect (a `throttling.status` code
//!   that is never retried, `clamp_above_ms` where nothing clamps); the loader puts them in
//!   [`Loaded::warnings`] with positions.
//! - [`save_atomic`]: pretty JSON via temp file + fsync + rename.
//! - [`schema_json`]: the JSON Schema shipped as `assets/retry-profile.schema.json`.
//! - [`builtins`]: the profiles in `assets/profiles/`, embedded.

mod builtins;
mod dead_settings;
mod field_path;
mod issue;
mod load;
mod migrate;
mod positions;
mod problem;
mod repair;
mod save;
mod schema;
mod shape;
mod suggest;
mod validate;
mod validate_classes;

pub use builtins::{BUILTIN_SOURCES, Builtin, DEFAULT_BUILTIN, builtin, builtin_ids, builtins};
pub use dead_settings::warnings;
pub(crate) use field_path::{Step, parse as parse_field_path};
pub use issue::{ProfileErrors, ProfileIssue};
pub use load::{
    Loaded, MAX_LISTED_PROBLEMS, MAX_PROFILE_FILE_BYTES, load_bytes, load_bytes_noted, load_file,
    load_file_noted, load_read_noted, load_str, load_str_noted,
};
pub use migrate::{Upgrade, upgrade_note};
pub use positions::Position;
pub(crate) use positions::Positions;
pub use save::{SaveError, save_atomic, to_json_pretty};
pub use schema::{SHIPPED_SCHEMA, schema_json};
pub use validate::{DAY_MS, DRY_RUN_RETRIES, validate};
