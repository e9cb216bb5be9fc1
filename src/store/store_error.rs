//! Why a store operation failed (request library, environments).

use super::atomic_write::WriteError;
use super::secret_store::SecretStoreError;
use std::path::PathBuf;

/// A failed store operation; what was in memory and on disk before stays as it was.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Writing a file failed.
    #[error("cannot save {what}: {source}")]
    Write {
        /// What was being saved (`request "Login"`, `environment "local"`).
        what: String,
        /// The write failure (step, OS error, path).
        source: WriteError,
    },
    /// Reading or deleting a file failed.
    #[error("cannot {action} {}: {source}", .path.display())]
    Io {
        /// `read`, `delete`, `list`.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A file is not valid JSON of the expected shape or has an unknown format.
    #[error("cannot load {}: {message}", .path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong, with line and column when known.
        message: String,
    },
    /// Nothing by that name or id.
    #[error("no {what} in {}", .dir.display())]
    NotFound {
        /// `environment "staging"`, `request 1234…`.
        what: String,
        /// The folder searched.
        dir: PathBuf,
    },
    /// A name or id that cannot be used.
    #[error("{0}")]
    Invalid(String),
    /// The secret store failed.
    #[error(transparent)]
    Secret(#[from] SecretStoreError),
}
