//! The history queries of the window's History panel ([`super::CoreCommand::History`],
//! answered with [`super::CoreEvent::History`]): each a job of the store actor (the one thread
//! and connection of the data folder), so a frame never touches SQLite. Page requests are
//! latest-wins: a page request that a newer one follows is dropped unanswered when its turn
//! comes.

use super::watch_service::{WatchRuns, read_watch};
use crate::report::{Figures, Proportion, ReportContext, figures};
use crate::store::{BatchQueue, HistoryStore, RunQuery, RunSummary, StoredRun, WatchRecord};
use std::sync::atomic::{AtomicU64, Ordering};

/// Most rows one page request may ask for.
pub const MAX_PAGE_ROWS: u32 = 2000;

/// How many runs, or how old, the history keeps. `None` fields keep everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Retention {
    /// Delete runs that started more than this many days ago.
    pub keep_days: Option<u32>,
    /// Keep only this many newest runs.
    pub keep_runs: Option<u64>,
}

/// What the panel wants from the history.
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryRequest {
    /// The count of `query`'s runs and rows `offset..offset + limit` of them.
    Page {
        /// Filter and order.
        query: RunQuery,
        /// First row, 0-based.
        offset: u64,
        /// Rows wanted (at most [`MAX_PAGE_ROWS`]).
        limit: u32,
    },
    /// A whole run with its attempts; `tag` comes back with it (what the panel opens it for).
    Open {
        /// Full run id.
        id: String,
        /// Echoed in [`HistoryReply::Opened`].
        tag: u64,
    },
    /// Delete these runs.
    Delete(Vec<String>),
    /// Apply a retention rule now.
    Retain(Retention),
    /// Write the flakiness report of `query`'s runs to `path`
    /// ([`super::report_file::write_report`]).
    Report {
        /// The runs (oldest first whatever its sort).
        query: RunQuery,
        /// The format.
        format: super::report_file::ReportFormat,
        /// The file.
        path: std::path::PathBuf,
    },
    /// The recorded watches, newest first, at most `limit`.
    Watches {
        /// Most watches listed.
        limit: u32,
    },
    /// Watch `id` (full id) with its slots, runs and figures.
    Watch(String),
}

/// What the core answers a history query.
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryReply {
    /// A page of a list.
    Page {
        /// The query it answers.
        query: RunQuery,
        /// Its first row.
        offset: u64,
        /// How many runs the query selects in all.
        total: u64,
        /// The rows.
        rows: Vec<RunSummary>,
        /// The database's size on disk, bytes.
        db_bytes: u64,
    },
    /// A run opened (`None`: no such run any more).
    Opened {
        /// The request's tag.
        tag: u64,
        /// The run.
        run: Option<Box<StoredRun>>,
    },
    /// Runs deleted (their ids).
    Deleted(Vec<String>),
    /// A retention rule applied: how many runs it deleted.
    Retained(usize),
    /// A report written, or why not (ready to show).
    Reported(Result<super::report_file::WrittenReport, String>),
    /// The recorded watches, each with its success rate ([`crate::report::figures`]), or why
    /// not.
    Watches(Result<Vec<(WatchRecord, Proportion)>, String>),
    /// A watch read whole, with the report's figures of its runs, or why not.
    Watch(Result<Box<(WatchRuns, Figures)>, String>),
    /// Something failed (what and where, ready to show).
    Problem(String),
}

/// Answers `request` on the store actor's thread, unless it is a page request (numbered `page`,
/// counted from 1; 0 for every other request) that a newer one follows: that one is dropped
/// unanswered (`None`), so typing a filter key by key costs one query, not one per key.
pub(super) fn answer_unless_superseded(
    queue: &mut BatchQueue,
    request: HistoryRequest,
    page: u64,
    latest_page: &AtomicU64,
) -> Option<HistoryReply> {
    (page == 0 || latest_page.load(Ordering::SeqCst) == page)
        .then(|| answer(queue.history(), request))
}

fn answer(store: &mut HistoryStore, job: HistoryRequest) -> HistoryReply {
    let result = match job {
        HistoryRequest::Page {
            query,
            offset,
            limit,
        } => store.count_runs(&query).and_then(|total| {
            let rows = store.page_runs(&query, offset, limit.min(MAX_PAGE_ROWS))?;
            Ok(HistoryReply::Page {
                db_bytes: store.file_size(),
                query,
                offset,
                total,
                rows,
            })
        }),
        HistoryRequest::Open { id, tag } => store.run(&id).map(|run| HistoryReply::Opened {
            tag,
            run: run.map(Box::new),
        }),
        HistoryRequest::Delete(ids) => store.delete(&ids).map(HistoryReply::Deleted),
        HistoryRequest::Retain(rule) => retain(store, rule).map(HistoryReply::Retained),
        HistoryRequest::Report {
            query,
            format,
            path,
        } => Ok(HistoryReply::Reported(
            super::report_file::write_report(store, &query, format, &path)
                .map_err(|e| e.to_string()),
        )),
        HistoryRequest::Watches { limit } => Ok(HistoryReply::Watches(watches(store, limit))),
        HistoryRequest::Watch(id) => Ok(HistoryReply::Watch(
            read_watch(store, &id)
                .map(|read| {
                    let figures = figures(&read.2, &ReportContext::default());
                    Box::new((read, figures))
                })
                .map_err(|e| format!("watch {id}: {e}")),
        )),
    };
    result.unwrap_or_else(|e| HistoryReply::Problem(e.to_string()))
}

/// The watches with the success rate of each one's runs.
fn watches(store: &HistoryStore, limit: u32) -> Result<Vec<(WatchRecord, Proportion)>, String> {
    let listed = store.watches(limit).map_err(|e| e.to_string())?;
    listed
        .into_iter()
        .map(|w| {
            let (_, _, runs) = read_watch(store, &w.id).map_err(|e| e.to_string())?;
            Ok((w, figures(&runs, &ReportContext::default()).success_rate))
        })
        .collect()
}

fn retain(store: &mut HistoryStore, rule: Retention) -> Result<usize, crate::store::HistoryError> {
    let mut removed = 0;
    if let Some(days) = rule.keep_days {
        let cutoff = chrono::Local::now().fixed_offset() - chrono::Duration::days(i64::from(days));
        removed += store.prune_before(cutoff)?;
    }
    if let Some(n) = rule.keep_runs {
        removed += store.keep_newest(n)?;
    }
    Ok(removed)
}
