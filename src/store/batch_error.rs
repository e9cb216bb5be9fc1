//! Why a batch queue operation failed.

use super::history_error::HistoryError;

/// A failed batch queue operation; the database keeps what was committed before.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BatchError {
    /// The history database (which holds the queue) failed.
    #[error(transparent)]
    History(#[from] HistoryError),
    /// No batch has this id (or prefix).
    #[error("no batch `{0}` in the history database; `retryscope batch list` lists them")]
    NotFound(String),
    /// An id shorter than 8 characters (it could name many batches), or not a batch id at all.
    #[error(
        "give at least 8 characters of the batch id (hex digits and dashes), not `{0}` (see `retryscope batch list`)"
    )]
    ShortId(String),
    /// An id prefix names several batches.
    #[error("`{0}` names more than one batch; give more of the id")]
    Ambiguous(String),
    /// A live process (another one, or another claim in this one) is working the batch: it
    /// holds the batch's lock file in the data folder.
    #[error("batch {batch} is being worked by {}; wait for it or stop it first", holder(*.pid))]
    Busy {
        /// The batch.
        batch: String,
        /// The process working it, when its lock file says (not readable on Windows).
        pid: Option<u32>,
    },
    /// The item is not in the state the change needs (another runner took it).
    #[error("item {position} of batch {batch} is not {expected}")]
    WrongState {
        /// The batch.
        batch: String,
        /// The item.
        position: u64,
        /// The state it should have had.
        expected: &'static str,
    },
    /// A stored row cannot be read by this version.
    #[error("cannot read batch {id} from the history database: {message}")]
    Decode {
        /// The batch.
        id: String,
        /// What is wrong.
        message: String,
    },
    /// Batch options out of range (the words of [`crate::model::BatchOptions::problem`]).
    #[error("{0}")]
    Options(String),
    /// An assertion holds a secret value an item sends: stored with the batch, it would put the
    /// secret in the database (DESIGN.md §9).
    #[error(
        "the assertion {label} holds a secret value that item {item} sends; a batch's assertions are stored with it and secrets never are: assert on text that is not secret (nothing was queued)"
    )]
    SecretInAssertion {
        /// The assertion in the user's words, the secret masked (`--expect-body "***"`).
        label: String,
        /// The item (1-based, as reports number them).
        item: u64,
    },
    /// The secret store refused to keep the requests of items with secrets.
    #[error("cannot keep the batch's secrets in the keyring ({0}); nothing was queued")]
    Secrets(String),
    /// The batch was deleted but the secret store refused to delete its secrets.
    #[error(
        "the batch is deleted, but the keyring refused to delete its secrets ({message}); delete the entry `{key}` of service `dev.retryscope.Retryscope` by hand"
    )]
    SecretsKept {
        /// The secret store's key (`batch/ID/requests`).
        key: String,
        /// What the secret store said.
        message: String,
    },
}

/// "process N", or "another process" when its id is unknown.
fn holder(pid: Option<u32>) -> String {
    pid.map_or_else(
        || "another process".to_owned(),
        |pid| format!("process {pid}"),
    )
}
