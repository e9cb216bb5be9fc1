//! The app core both faces use (DESIGN.md §6): what runs things — the background runtime and the
//! embedded demo server ([`AppServices`]), the engine service ([`EngineService`], commands in,
//! events out, every run recorded in the history and logged), the History panel's reader
//! ([`HistoryService`], queries off the UI thread) and the one event path both the
//! window and the CLI send every run event through ([`RunRecording`]: mask, record, log). The
//! window keeps handles to these, never owns a runtime and never imports rusqlite. The batch
//! runner ([`BatchRunner`]) works a queued batch through the engine (issue 9); [`BatchService`]
//! wraps it for the window's Batch tab. [`BudgetRegistry`] holds the retry budget buckets shared by runs
//! (scope `host` / `profile`, DESIGN.md §7).

pub mod app_services;
pub mod batch_assertion_text;
pub mod batch_cancel;
pub mod batch_list_file;
pub mod batch_pacer;
pub mod batch_results;
pub mod batch_runner;
pub mod batch_service;
pub mod body_files;
pub mod budget_registry;
pub mod history_service;
pub mod host_rate_limiter;
pub mod profile_lookup;
pub mod run_recording;
pub mod run_service;

pub use app_services::AppServices;
pub use batch_assertion_text::{
    expect_assertions, parse_expect_body, parse_expect_json, parse_expect_status,
};
pub use batch_cancel::cancel_queued;
pub use batch_list_file::{LISTED_LINES, MAX_LIST_FILE_BYTES, ReadList, read_batch_list};
pub use batch_pacer::{Offer, PARKED_LIMIT, StartPacer};
pub use batch_results::{batch_report, report_row};
pub use batch_runner::{
    BatchControl, BatchRunner, BatchSummary, COMMIT_WINDOW, PENDING_PAGE, ProfileLookup,
    batch_item_id,
};
pub use batch_service::{BATCH_CHANNEL, BatchCommand, BatchImporter, BatchReply, BatchService};
pub use body_files::BodyFileProblem;
pub use budget_registry::BudgetRegistry;
pub use history_service::{HistoryReply, HistoryRequest, HistoryService, MAX_PAGE_ROWS, Retention};
pub use host_rate_limiter::HostRateLimiter;
pub use profile_lookup::{
    default_library_dir, find_profile, library_files, library_lookup, shadowed_library_profiles,
};
pub use run_recording::{HistoryPlace, RunRecording, open_history_writer};
pub use run_service::{
    COMMAND_CAPACITY, Command, ENGINE_WORKERS, EVENT_CAPACITY, EngineService, RUN_EVENT_CAPACITY,
};
