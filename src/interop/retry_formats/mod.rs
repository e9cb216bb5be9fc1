//! Other tools' retry settings in and out: a profile written as the nearest
//! curl flags, urllib3 `Retry(...)`, tenacity `@retry(...)`, Polly v8 appsettings JSON, gRPC
//! service config, Envoy `retry_policy`, Dapr resiliency or AWS shared-config keys, each with
//! what the target cannot express; and the formats that are data read back into a profile,
//! with every setting that did not map (and its path).
//!
//! Pure text ↔ model: no file system, no network. One file per format; each importer has one
//! mapping table ([`import_table::Key`] rows) and each exporter one `gaps` list, which is where
//! the budget / throttling-class / matcher mappings go once those fields exist
//! ([`pending`] names every mapping that waits for one). docs/DECISIONS.md says what maps to what.

mod aws_config;
mod curl_flags;
mod dapr;
pub mod durations;
mod envoy;
mod facts;
mod grpc_config;
pub mod import_table;
pub mod pending;
mod polly;
mod report;
mod tenacity;
pub mod tree;
mod urllib3;

pub use facts::decimal;
pub use report::{Carried, ExportedPolicy, FormatError, ImportError, ImportedPolicy, Unmapped};

use crate::model::RetryProfile;

/// A tool whose retry settings Retryscope writes (and, for data formats, reads). The default,
/// gRPC service config, is where the window's Export as… and Import from… start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RetryFormat {
    /// curl's `--retry*` flags (and `--connect-timeout`/`--max-time`).
    CurlFlags,
    /// Python urllib3 2.x `Retry(...)` (+ `Timeout(...)`).
    Urllib3,
    /// Python tenacity `@retry(...)`.
    Tenacity,
    /// Polly v8 `HttpRetryStrategyOptions` in appsettings JSON (the shape of
    /// Microsoft.Extensions.Http.Resilience's standard handler options).
    Polly,
    /// gRPC service config JSON: `methodConfig[].retryPolicy` (+ `retryThrottling`).
    #[default]
    GrpcConfig,
    /// Envoy route `retry_policy` YAML.
    Envoy,
    /// Dapr `Resiliency` YAML.
    Dapr,
    /// AWS shared config file keys (`retry_mode`, `max_attempts`).
    AwsConfig,
}

/// Each format in menu order: the format, its CLI id, its menu label, its usual file
/// extension, and whether [`import`] reads it (code formats are export-only).
#[rustfmt::skip]
const FORMATS: [(RetryFormat, &str, &str, &str, bool); 8] = [
    (RetryFormat::CurlFlags, "curl", "curl --retry flags", "txt", false),
    (RetryFormat::Urllib3, "urllib3", "Python urllib3 Retry", "py", false),
    (RetryFormat::Tenacity, "tenacity", "Python tenacity @retry", "py", false),
    (RetryFormat::Polly, "polly", "Polly v8 (appsettings JSON)", "json", true),
    (RetryFormat::GrpcConfig, "grpc", "gRPC service config (JSON)", "json", true),
    (RetryFormat::Envoy, "envoy", "Envoy retry_policy (YAML)", "yaml", true),
    (RetryFormat::Dapr, "dapr", "Dapr resiliency (YAML)", "yaml", true),
    (RetryFormat::AwsConfig, "aws-config", "AWS shared config (INI)", "ini", true),
];

impl RetryFormat {
    /// Every format, in menu order.
    #[rustfmt::skip]
    pub const ALL: [RetryFormat; 8] = [
        RetryFormat::CurlFlags, RetryFormat::Urllib3, RetryFormat::Tenacity, RetryFormat::Polly,
        RetryFormat::GrpcConfig, RetryFormat::Envoy, RetryFormat::Dapr, RetryFormat::AwsConfig,
    ];

    /// The id the CLI takes (`--to grpc`).
    pub fn id(self) -> &'static str {
        FORMATS[self as usize].1
    }

    /// The format named `id` (case-insensitive).
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|f| f.id().eq_ignore_ascii_case(id))
    }

    /// What the menus show, e.g. `gRPC service config (JSON)`.
    pub fn label(self) -> &'static str {
        FORMATS[self as usize].2
    }

    /// Whether the format is data that [`import`] reads (code formats are export-only).
    pub fn can_import(self) -> bool {
        FORMATS[self as usize].4
    }

    /// The usual file extension, without the dot (`json`, `yaml`, `py`, `ini`, `txt`).
    pub fn extension(self) -> &'static str {
        FORMATS[self as usize].3
    }

    /// Every id, comma-separated (for help and error messages).
    pub fn ids(import_only: bool) -> String {
        Self::ALL
            .into_iter()
            .filter(|f| !import_only || f.can_import())
            .map(RetryFormat::id)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Writes `profile` as the nearest equivalent in `format`, with what it cannot express.
///
/// A profile that retries nothing (`facts::retries_nothing`: max retries 0, or nothing
/// retryable) is written as 0 retries with nothing retryable in every format.
pub fn export(profile: &RetryProfile, format: RetryFormat) -> ExportedPolicy {
    let nothing;
    let profile = if facts::retries_nothing(profile) {
        nothing = facts::retrying_nothing(profile);
        &nothing
    } else {
        profile
    };
    match format {
        RetryFormat::CurlFlags => curl_flags::export(profile),
        RetryFormat::Urllib3 => urllib3::export(profile),
        RetryFormat::Tenacity => tenacity::export(profile),
        RetryFormat::Polly => polly::export(profile),
        RetryFormat::GrpcConfig => grpc_config::export(profile),
        RetryFormat::Envoy => envoy::export(profile),
        RetryFormat::Dapr => dapr::export(profile),
        RetryFormat::AwsConfig => aws_config::export(profile),
    }
}

/// Reads `text` (a file of `format`) into a profile named `name`, reporting every setting that
/// did not map.
///
/// # Errors
/// A syntax error (with line:column); else every value that cannot be read (each with its path
/// and line:column), or every problem [`crate::profile::validate`] finds in the result; a
/// format that is code (curl, urllib3, tenacity: export only).
pub fn import(format: RetryFormat, text: &str, name: &str) -> Result<ImportedPolicy, ImportError> {
    let mut imported = import_as_read(format, text, name).map_err(|e| e.located_in(text))?;
    // An importer starts from a strategy's defaults and may change the strategy after setting
    // a jitter field (Polly's Constant → fixed): a field the final strategy never reads would
    // make `profile validate` warn "has no effect … remove it" about a file nobody wrote.
    let p = &mut imported.profile;
    drop_unread_jitter(&mut p.backoff);
    if let Some(b) = &mut p.throttling.backoff {
        drop_unread_jitter(b);
    }
    Ok(imported)
}

/// [`import`] for the bytes of a file: bytes that are not UTF-8 are a problem at the line and
/// column of the first bad byte (a UTF-8 byte-order mark is passed over).
///
/// # Errors
/// As [`import`], and text that is not UTF-8.
pub fn import_bytes(
    format: RetryFormat,
    bytes: &[u8],
    name: &str,
) -> Result<ImportedPolicy, ImportError> {
    let text = crate::model::utf8_text(bytes)
        .map_err(|e| FormatError::syntax(Some(e.line), Some(e.column), e.message("the file")))?;
    import(format, text, name)
}

/// `b` (and its fallback) with `jitter_ratio` at the strategy's default unless the strategy
/// reads it (`exponential_proportional`), and `jitter_window_ms` 0 unless it reads a window:
/// the rule of `profile::warnings`.
fn drop_unread_jitter(b: &mut crate::model::Backoff) {
    if !b.reads_jitter_ratio() {
        b.jitter_ratio = crate::model::Backoff::new(b.strategy).jitter_ratio;
    }
    if !b.reads_jitter_window() {
        b.jitter_window_ms = 0;
    }
    if let Some(fb) = &mut b.fallback {
        drop_unread_jitter(fb);
    }
}

/// The importer of `format`, as it reads the text.
fn import_as_read(
    format: RetryFormat,
    text: &str,
    name: &str,
) -> Result<ImportedPolicy, ImportError> {
    match format {
        RetryFormat::Polly => polly::import(text, name),
        RetryFormat::GrpcConfig => grpc_config::import(text, name),
        RetryFormat::Envoy => envoy::import(text, name),
        RetryFormat::Dapr => dapr::import(text, name),
        RetryFormat::AwsConfig => aws_config::import(text, name),
        RetryFormat::CurlFlags | RetryFormat::Urllib3 | RetryFormat::Tenacity => {
            Err(FormatError::new(
                "",
                format!(
                    "{} can be exported but not imported (it is code, not a settings file); import one of {}",
                    format.label(),
                    RetryFormat::ids(true)
                ),
            )
            .into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_its_own_row_in_the_table() {
        for (i, format) in RetryFormat::ALL.into_iter().enumerate() {
            assert_eq!((format as usize, FORMATS[i].0), (i, format));
        }
        assert_eq!(
            RetryFormat::from_id("AWS-CONFIG"),
            Some(RetryFormat::AwsConfig)
        );
        assert_eq!(
            RetryFormat::ids(true),
            "polly, grpc, envoy, dapr, aws-config"
        );
    }
}
