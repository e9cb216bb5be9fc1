//! The app core both faces use (DESIGN.md §11). [`Core`], built once per process by `main`, owns
//! the runtime, the retry budget registry ([`BudgetRegistry`], §7), the store actor of each data
//! folder (the one thread that runs SQLite), the keyring worker ([`Keyring`]) and the embedded
//! demo server. Started on it: the engine service ([`EngineService`], commands in, events out,
//! every run recorded in the history and logged), the batch service ([`BatchService`], the
//! window's Batch tab over the [`BatchRunner`]) and the History panel's queries
//! ([`HistoryService`], jobs of the store actor). Every run event of both faces goes through one
//! path ([`RunRecording`]: mask, record, log). The faces keep handles to these, never build a
//! runtime and never import rusqlite.

pub mod batch_assertion_text;
pub mod batch_cancel;
mod batch_control;
pub mod batch_list_file;
pub mod batch_pacer;
pub mod batch_results;
pub mod batch_runner;
pub mod batch_service;
pub mod body_files;
pub mod budget_registry;
pub mod core;
pub mod history_service;
pub mod host_rate_limiter;
pub mod keyring;
mod panic_guard;
pub mod profile_lookup;
pub mod report_file;
pub mod run_recording;
pub mod run_service;
pub mod watch_service;

pub use batch_assertion_text::{
    expect_assertions, parse_expect_body, parse_expect_json, parse_expect_status,
};
pub use batch_cancel::cancel_queued;
pub use batch_list_file::{
    LISTED_LINES, MAX_LIST_FILE_BYTES, ReadList, read_batch_list, stream_batch_list,
};
pub use batch_pacer::{Offer, PARKED_LIMIT, StartPacer};
pub use batch_results::{batch_report, report_row};
pub use batch_runner::{
    BatchControl, BatchRunner, BatchSummary, COMMIT_WINDOW, PENDING_PAGE, ProfileLookup,
    batch_item_id,
};
pub use batch_service::{
    BATCH_CHANNEL, BatchCommand, BatchImporter, BatchReply, BatchService, Interrupted,
};
pub use body_files::BodyFileProblem;
pub use budget_registry::BudgetRegistry;
pub use core::{CORE_THREAD_NAME, Census, Core, CoreOptions, Threads};
pub use history_service::{HistoryReply, HistoryRequest, HistoryService, MAX_PAGE_ROWS, Retention};
pub use host_rate_limiter::HostRateLimiter;
pub use keyring::{KEYRING_THREAD_NAME, Keyring};
pub use profile_lookup::{
    default_library_dir, find_profile, library_files, library_lookup, shadowed_library_profiles,
};
pub use run_recording::{HistoryPlace, RunRecording, open_history_writer};
pub use run_service::{
    COMMAND_CAPACITY, Command, EVENT_CAPACITY, EngineService, RUN_EVENT_CAPACITY,
};
pub use watch_service::{
    SystemClock, Waited, WallClock, WatchEvent, WatchHandle, WatchPlan, watch_runs,
};
