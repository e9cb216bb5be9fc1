//! Why a history operation failed.

use std::path::PathBuf;

/// A failed history operation; the database keeps what was committed before.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HistoryError {
    /// The database cannot be opened or created.
    #[error("cannot open the history database ({message}): {}", .path.display())]
    Open {
        /// The database file.
        path: PathBuf,
        /// What SQLite or the OS said.
        message: String,
    },
    /// The schema cannot be brought up to date (e.g. a newer app wrote it).
    #[error("cannot update the history database's schema ({message}): {}", .path.display())]
    Migrate {
        /// The database file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// A statement failed.
    #[error("cannot {action} in the history database: {message}")]
    Sql {
        /// What was being done (`insert an attempt`).
        action: &'static str,
        /// What SQLite said.
        message: String,
    },
    /// A stored row cannot be read by this version.
    #[error("cannot read run {id} from the history database: {message}")]
    Decode {
        /// The run.
        id: String,
        /// What is wrong.
        message: String,
    },
    /// A record cannot be encoded as JSON.
    #[error("cannot encode a history record: {0}")]
    Encode(String),
    /// An id prefix names several runs.
    #[error("`{0}` names more than one run; give more of the id")]
    Ambiguous(String),
    /// The store thread is gone (it failed or was closed).
    #[error("the history writer stopped: {0}")]
    WriterGone(String),
    /// Another program held the database locked (or the disk fell that far behind) for this
    /// long: what was to be written then is not.
    #[error(
        "another program held the history database locked for more than {} s (or the disk fell that far behind); what was to be written then is not recorded",
        .0.as_secs()
    )]
    Locked(std::time::Duration),
}

/// Why SQLite could not open (or set up) the database, as the part of [`HistoryError::Open`]'s
/// sentence in parentheses: what is wrong and what to do, not SQLite's bare words.
pub(super) fn sqlite_open_reason(e: &rusqlite::Error) -> String {
    use rusqlite::ErrorCode;
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
            "the file is not a usable SQLite database; move it away to start a new history".into()
        }
        Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => {
            "it cannot be read and written, or its -wal file cannot be created beside it; check \
             the permissions of the file and its folder"
                .into()
        }
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            "another program holds it locked; try again when it is done".into()
        }
        _ => e.to_string(),
    }
}

/// Why the OS could not create the database's folder or file, for [`HistoryError::Open`].
pub(super) fn io_open_reason(step: &str, e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => {
            format!("cannot {step}: permission denied; check the data folder's permissions")
        }
        std::io::ErrorKind::NotADirectory => {
            format!("cannot {step}: a file is in the way of the data folder")
        }
        _ => format!("cannot {step}: {e}"),
    }
}
