//! The app core both faces use (DESIGN.md §11). [`Core`], built once per process by `main`, owns
//! the runtime, the retry budget registry ([`BudgetRegistry`], §7), the store actor of each data
//! folder (the one thread that runs SQLite), the keyring worker ([`Keyring`]) and the embedded
//! demo server. The window drives it through one handle, [`CoreLink`]: [`CoreCommand`]s in (runs,
//! batch commands, history queries), one stream of [`CoreEvent`]s out, drained each frame.
//! Every run event of both faces goes through one path ([`RunRecording`]: mask, record, log).
//! The faces never build a runtime and never import rusqlite.

pub mod batch_assertion_text;
pub mod batch_cancel;
pub mod batch_commands;
mod batch_control;
pub mod batch_list_file;
pub mod batch_pacer;
pub mod batch_results;
pub mod batch_runner;
pub mod body_files;
pub mod budget_registry;
pub mod core;
pub mod history_queries;
pub mod host_rate_limiter;
pub mod keyring;
pub mod link;
mod panic_guard;
pub mod profile_lookup;
pub mod report_file;
pub mod run_recording;
pub mod watch_durations;
pub mod watch_link;
pub mod watch_service;

pub use batch_assertion_text::{
    expect_assertions, parse_expect_body, parse_expect_json, parse_expect_status,
};
pub use batch_cancel::cancel_queued;
pub use batch_commands::{
    BATCH_CHANNEL, BatchCommand, BatchImporter, BatchReply, BatchSetup, Interrupted,
};
pub use batch_list_file::{
    LISTED_LINES, MAX_LIST_FILE_BYTES, ReadList, read_batch_list, stream_batch_list,
};
pub use batch_pacer::{Offer, PARKED_LIMIT, StartPacer};
pub use batch_results::{batch_report, report_row};
pub use batch_runner::{
    BatchControl, BatchRunner, BatchSummary, COMMIT_WINDOW, PENDING_PAGE, ProfileLookup,
    batch_item_id,
};
pub use body_files::BodyFileProblem;
pub use budget_registry::BudgetRegistry;
pub use core::{CORE_THREAD_NAME, Census, Core, CoreOptions, Threads};
pub use history_queries::{HistoryReply, HistoryRequest, MAX_PAGE_ROWS, Retention};
pub use host_rate_limiter::HostRateLimiter;
pub use keyring::{KEYRING_THREAD_NAME, Keyring};
pub use link::{
    COMMAND_CAPACITY, CoreCommand, CoreEvent, CoreLink, CoreProbe, CoreSender, EVENT_CAPACITY,
    LinkOffer, LinkSetup, RUN_EVENT_CAPACITY,
};
pub use profile_lookup::{
    default_library_dir, find_profile, library_files, library_lookup, shadowed_among,
};
pub use run_recording::{HistoryPlace, RunRecording, open_history_writer};
pub use watch_link::{WatchCommand, WatchUpdate};
pub use watch_service::{
    LiveRuns, SystemClock, Waited, WallClock, WatchEvent, WatchHandle, WatchParts, WatchPlan,
    WatchStop, watch_runs,
};
