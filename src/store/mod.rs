//! Files and secrets the app keeps for the user: the request library, environments, the run
//! history (SQLite, `history*` modules and the batch queue in `batch_*`: the only places that use it), the run log, and the secret store (OS
//! keyring, or memory only where there is none). Never imports egui; every
//! file carries a `format` field and is written atomically ([`write_atomic`]).

mod advisory_lock;
mod atomic_write;
mod batch_claim;
mod batch_commit;
mod batch_error;
mod batch_item_changes;
mod batch_queue;
mod batch_records;
mod data_dir;
mod environments;
mod history;
mod history_connection;
mod history_error;
mod history_group;
mod history_page;
mod history_recorder;
mod history_records;
mod history_rows;
mod history_schema;
mod history_writer;
pub mod input_file;
mod outcome_filter;
mod private_files;
pub use private_files::prepare_private_file;
mod request_library;
mod run_log;
mod secret_store;
mod store_error;
mod url_filter;
#[cfg(test)]
mod wal_restart_tests;
mod watch_records;
#[cfg(test)]
mod writer_backpressure_tests;

pub use atomic_write::{
    Access, AtomicFile, WriteError, same_file, with_default_extension, write_atomic,
    write_atomic_with_hook, write_export,
};
pub use batch_commit::{BatchChange, RunEnd};
pub use batch_error::BatchError;
pub use batch_queue::{BatchQueue, SECRETS_LOST, batch_secret_key};
pub use batch_records::{BatchItemRecord, BatchRecord, ItemChange, ItemEnd, QueuedItem};
pub use data_dir::{DATA_DIR_ENV, data_dir, data_dir_from};
pub use environments::{EnvironmentStore, LoadedEnvironments, secret_key};
pub use history::{DEFAULT_BODY_CAP, HISTORY_FILE, HistoryStore};
pub use history_error::HistoryError;
pub use history_page::{RunQuery, RunSort, RunSummary};
pub use history_recorder::{HistoryRecorder, RecorderSeed};
pub use history_records::{
    AttemptRecord, FinishedRun, HistoryWrite, PhaseTimings, RunFilter, RunRecord, StoredRun,
};
pub use history_writer::{
    CHECKPOINT_EVERY, CommitLatency, GATHER_WINDOW, HistoryWriter, RunKey, STORE_THREAD_NAME,
    WRITER_QUEUE,
};
pub use outcome_filter::{OutcomeFilter, RUNNING};
pub use request_library::{LoadedRequests, RequestLibrary};
pub use run_log::{
    LOG_DIR, LOG_LEVEL_ENV, LOG_PREFIX, LOG_QUEUE_LINES, LogTarget, RunLog, TIME_FORMAT,
    event_line, event_line_as, install as install_run_log, level_from_env, log_event, log_event_as,
    parse_level,
};
pub use secret_store::{
    KEYRING_ENV, KEYRING_SERVICE, KeyringSecretStore, MemorySecretStore, OpenedSecretStore,
    SecretStore, SecretStoreError, memory_secret_store, open_secret_store,
};
pub use store_error::StoreError;
pub use url_filter::{URL_FILTER_MAX_BYTES, url_filter_forms};
pub use watch_records::{
    Missed, NewWatch, WatchClaim, WatchError, WatchRecord, WatchSlot, WatchState,
};
