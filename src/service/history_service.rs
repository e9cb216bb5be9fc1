//! The history as a service for the window's History panel: requests in, replies out, each
//! request a job of the store actor (the one thread and connection of the data folder), so a
//! frame never touches SQLite. Page requests are latest-wins: a page request that a newer one
//! follows is dropped unanswered when its turn comes (typing a filter key by key costs one
//! query, not one per key).

use crate::engine::Waker;
use crate::store::{BatchQueue, HistoryStore, HistoryWriter, RunQuery, RunSummary, StoredRun};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};

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
}

/// What the worker answers.
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
    /// Something failed (what and where, ready to show).
    Problem(String),
}

/// Handle of the panel's history service: a channel of replies fed by the store actor's jobs.
pub struct HistoryService {
    store: Result<Arc<HistoryWriter>, String>,
    reply_tx: Sender<HistoryReply>,
    replies: Receiver<HistoryReply>,
    in_flight: Arc<AtomicUsize>,
    /// The number of the newest page request (older ones are not answered).
    latest_page: Arc<AtomicU64>,
    waker: Waker,
}

impl HistoryService {
    /// The service over the core's store actor of `data_dir` (a store that cannot be opened
    /// answers every request with a [`HistoryReply::Problem`]). `waker` is called after each
    /// reply (e.g. `ctx.request_repaint()`).
    pub fn start(core: &super::Core, data_dir: &std::path::Path, waker: Waker) -> Self {
        Self::over(core.history_writer(data_dir), waker)
    }

    /// The service over a store actor of its own for `data_dir` (tests and tools without a
    /// core).
    ///
    /// # Errors
    /// Never: a store that cannot be opened answers every request with a problem.
    pub fn spawn(data_dir: impl AsRef<std::path::Path>, waker: Waker) -> Result<Self, String> {
        Ok(Self::over(
            super::open_history_writer(data_dir.as_ref()),
            waker,
        ))
    }

    fn over(store: Result<Arc<HistoryWriter>, crate::store::HistoryError>, waker: Waker) -> Self {
        let (reply_tx, replies) = channel();
        Self {
            store: store.map_err(|e| format!("the history cannot be shown: {e}")),
            reply_tx,
            replies,
            in_flight: Arc::new(AtomicUsize::new(0)),
            latest_page: Arc::new(AtomicU64::new(0)),
            waker,
        }
    }

    /// Queues `request`; false when the store actor is gone.
    pub fn send(&self, request: HistoryRequest) -> bool {
        let store = match &self.store {
            Ok(store) => store,
            Err(problem) => {
                let _ = self.reply_tx.send(HistoryReply::Problem(problem.clone()));
                (self.waker)();
                return true;
            }
        };
        let page = if matches!(request, HistoryRequest::Page { .. }) {
            self.latest_page.fetch_add(1, Ordering::SeqCst) + 1
        } else {
            0
        };
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        let (latest, in_flight, replies, waker) = (
            Arc::clone(&self.latest_page),
            Arc::clone(&self.in_flight),
            self.reply_tx.clone(),
            Arc::clone(&self.waker),
        );
        let sent = store.queue_job(Box::new(move |queue: &mut BatchQueue| {
            if page == 0 || latest.load(Ordering::SeqCst) == page {
                let _ = replies.send(answer(queue.history(), request));
                waker();
            }
            in_flight.fetch_sub(1, Ordering::SeqCst);
        }));
        if sent.is_err() {
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
        }
        sent.is_ok()
    }

    /// Takes one reply, if any, without blocking.
    pub fn try_recv(&self) -> Option<HistoryReply> {
        self.replies.try_recv().ok()
    }

    /// True when every request sent so far has been answered or dropped (tests wait on it).
    pub fn is_idle(&self) -> bool {
        self.in_flight.load(Ordering::SeqCst) == 0
    }
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
    };
    result.unwrap_or_else(|e| HistoryReply::Problem(e.to_string()))
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
