//! The history as a service for the window's History panel: one worker thread owning a
//! connection to the database, requests in, replies out, so a frame never touches SQLite.
//! Page requests are latest-wins: queued older pages are dropped unanswered when a newer one
//! waits behind them (typing a filter key by key costs one query, not one per key).

use crate::engine::Waker;
use crate::store::{HistoryStore, RunQuery, RunSummary, StoredRun};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
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
    /// Something failed (what and where, ready to show).
    Problem(String),
}

/// Handle of the history worker. Dropping it ends the thread once it is idle.
pub struct HistoryService {
    jobs: Sender<HistoryRequest>,
    replies: Receiver<HistoryReply>,
    in_flight: Arc<AtomicUsize>,
}

impl HistoryService {
    /// Starts the worker thread `history-reader`; it opens `history.sqlite3` in `data_dir`
    /// (a failure comes back as a [`HistoryReply::Problem`]). `waker` is called after each
    /// reply (e.g. `ctx.request_repaint()`).
    ///
    /// # Errors
    /// A message when the OS cannot start a thread.
    pub fn spawn(data_dir: PathBuf, waker: Waker) -> Result<Self, String> {
        let (jobs, job_rx) = channel();
        let (reply_tx, replies) = channel();
        let in_flight = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&in_flight);
        std::thread::Builder::new()
            .name("history-reader".into())
            .spawn(move || {
                let store = HistoryStore::open_in(&data_dir);
                serve(store, &job_rx, &reply_tx, &counter, &waker);
            })
            .map_err(|e| format!("cannot start the history reader thread: {e}"))?;
        Ok(Self {
            jobs,
            replies,
            in_flight,
        })
    }

    /// Queues `request`; false when the worker is gone.
    pub fn send(&self, request: HistoryRequest) -> bool {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        let sent = self.jobs.send(request).is_ok();
        if !sent {
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
        }
        sent
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

fn serve(
    store: Result<HistoryStore, crate::store::HistoryError>,
    jobs: &Receiver<HistoryRequest>,
    replies: &Sender<HistoryReply>,
    in_flight: &AtomicUsize,
    waker: &Waker,
) {
    let mut store = match store {
        Ok(s) => Ok(s),
        Err(e) => Err(format!("the history cannot be shown: {e}")),
    };
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while let Ok(job) = jobs.try_recv() {
            batch.push(job);
        }
        // Latest wins: only the last page request of the batch is answered.
        let last_page = batch
            .iter()
            .rposition(|j| matches!(j, HistoryRequest::Page { .. }));
        for (i, job) in batch.into_iter().enumerate() {
            let stale = matches!(job, HistoryRequest::Page { .. }) && Some(i) != last_page;
            if !stale {
                let reply = match &mut store {
                    Ok(s) => answer(s, job),
                    Err(problem) => HistoryReply::Problem(problem.clone()),
                };
                if replies.send(reply).is_err() {
                    return;
                }
                waker();
            }
            in_flight.fetch_sub(1, Ordering::SeqCst);
        }
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
