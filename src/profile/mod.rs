//! Profiles as files: load, validate, save atomically, JSON Schema, built-ins.
//!
//! - [`load_str`] / [`load_bytes`] / [`load_file`]: syntax → `format` tag → then every problem at
//!   once: the shape through the shipped JSON Schema (unknown fields with "did you mean",
//!   missing fields, types, ranges, names), repeated keys, and the semantic rules
//!   ([`validate()`]) on a copy with the broken values left out; each problem carries path and
//!   line:column.
//! - [`validate`]: the same schema and rules for a profile built in code.
//! - [`save_atomic`]: pretty JSON via temp file + fsync + rename.
//! - [`schema_json`]: the JSON Schema shipped as `assets/retry-profile.schema.json`.
//! - [`builtins`]: the profiles in `assets/profiles/`, embedded.

mod builtins;
mod field_path;
mod issue;
mod load;
mod positions;
mod problem;
mod repair;
mod save;
mod schema;
mod shape;
mod suggest;
mod validate;

pub use builtins::{BUILTIN_SOURCES, Builtin, DEFAULT_BUILTIN, builtin, builtin_ids, builtins};
pub use issue::{ProfileErrors, ProfileIssue};
pub use load::{MAX_LISTED_PROBLEMS, MAX_PROFILE_FILE_BYTES, load_bytes, load_file, load_str};
pub use positions::Position;
pub use save::{SaveError, save_atomic, to_json_pretty};
pub use schema::{MAX_RETRIES_LIMIT, SHIPPED_SCHEMA, schema_json};
pub use validate::{DAY_MS, DRY_RUN_RETRIES, validate};
