//! Profiles as files: load, validate, save atomically, JSON Schema, built-ins.
//!
//! - [`load_str`] / [`load_file`]: syntax → `format` tag → then every problem at once: unknown
//!   fields, wrong-typed scalars, shape (enum values, status sets, arrays; serde, with "did you
//!   mean"), and the semantic rules ([`validate()`]) on a copy with the broken fields removed;
//!   each problem carries path and line:column.
//! - [`save_atomic`]: pretty JSON via temp file + fsync + rename.
//! - [`schema_json`]: the JSON Schema shipped as `assets/retry-profile.schema.json`.
//! - [`builtins`]: the profiles in `assets/profiles/`, embedded.

mod builtins;
mod issue;
mod load;
mod repair;
mod save;
mod schema;
mod source_map;
mod suggest;
mod type_check;
mod unknown_fields;
mod validate;

pub use builtins::{BUILTIN_SOURCES, Builtin, DEFAULT_BUILTIN, builtin, builtin_ids, builtins};
pub use issue::{ProfileErrors, ProfileIssue};
pub use load::{MAX_PROFILE_FILE_BYTES, load_file, load_str};
pub use save::{SaveError, save_atomic, to_json_pretty};
pub use schema::{SHIPPED_SCHEMA, schema_json};
pub use source_map::{Position, SourceMap};
pub use validate::{DAY_MS, DRY_RUN_RETRIES, MAX_RETRIES_LIMIT, validate};
