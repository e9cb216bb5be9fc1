//! The history queries of the window's History panel ([`super::CoreCommand::History`],
//! answered with [`super::CoreEvent::History`]): each a job of the store actor (the one thread
//! and connection of the data folder), so a frame never touches SQLite. Page requests are
//! latest-wins: a page request that a newer one follows is dropped unanswered when its turn
//! comes.

use super::watch_service::{WatchRuns, read_watch};
use crate::report::{Figures, Proportion, ReportContext, RunCounts, figures};
use crate::store::{BatchQueue, HistoryStore, RunQuery, RunSummary, StoredRun, WatchRecord};
use std::collections::HashMap;
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

/// The watches with the success rate of each one's runs (counted in SQL: no run is read).
fn watches(store: &HistoryStore, limit: u32) -> Result<Vec<(WatchRecord, Proportion)>, String> {
    let listed = store.watches(limit).map_err(|e| e.to_string())?;
    let ids: Vec<&str> = listed.iter().map(|w| w.id.as_str()).collect();
    let mut counts: HashMap<String, RunCounts> = HashMap::new();
    for (id, outcome, n) in store.watch_outcomes(&ids).map_err(|e| e.to_string())? {
        counts.entry(id).or_default().add(outcome, n);
    }
    Ok(listed
        .into_iter()
        .map(|w| {
            let rate = counts.get(&w.id).map(RunCounts::success_rate);
            (
                w,
                rate.unwrap_or_else(|| RunCounts::default().success_rate()),
            )
        })
        .collect())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::OutcomeKind::{Cancelled, Deadline, GaveUp, Interrupted, Stopped, Succeeded};
    use crate::model::{OutcomeKind, RequestSpec};
    use crate::store::{HistoryWrite, NewWatch, RunRecord};

    fn run_writes(id: &str, watch: &str, outcome: Option<OutcomeKind>) -> Vec<HistoryWrite> {
        let at = chrono::Local::now().fixed_offset();
        let mut writes = vec![HistoryWrite::RunStarted(Box::new(RunRecord {
            id: id.to_owned(),
            started_at: at,
            ended_at: None,
            app_version: "test".into(),
            method: "GET".into(),
            url: "http://127.0.0.1:9/".into(),
            request: RequestSpec::get("http://127.0.0.1:9/"),
            profile_name: "p".into(),
            profile: std::sync::Arc::new(serde_json::Value::Null),
            seed: 1,
            outcome: None,
            outcome_message: None,
            last_status: None,
            attempts: 0,
            elapsed_ms: None,
            batch_item_id: None,
            watch_id: Some(watch.to_owned()),
            attempt_started: None,
        }))];
        if let Some(outcome) = outcome {
            writes.push(HistoryWrite::RunFinished(crate::store::FinishedRun {
                run_id: id.to_owned(),
                ended_at: at,
                outcome,
                message: outcome.id().into(),
                last_status: None,
                attempts: 1,
                elapsed_ms: 1.0,
            }));
        }
        writes
    }

    #[test]
    fn the_list_counts_each_watchs_outcomes_in_sql_with_the_reports_success_rate() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = HistoryStore::open_in(dir.path()).unwrap();
        let ids = [
            "0190aaaa-0000-7000-8000-000000000001",
            "0190aaaa-0000-7000-8000-000000000002",
        ];
        for id in ids {
            let _claim = store
                .create_watch(&NewWatch {
                    id: id.to_owned(),
                    request: RequestSpec::get("http://127.0.0.1:9/"),
                    has_secrets: false,
                    profile_name: "p".into(),
                    profile: serde_json::json!({"name": "p"}),
                    schedule: crate::policy::WatchSchedule {
                        start_unix_ms: 0,
                        every_ms: 1000,
                        jitter: 0.0,
                        seed: 1,
                        count: Some(10),
                        until_unix_ms: None,
                    },
                })
                .unwrap();
        }
        let outcomes = [
            Some(Succeeded),
            Some(Succeeded),
            Some(Succeeded),
            Some(GaveUp),
            Some(Stopped),
            Some(Deadline),
            Some(Cancelled),
            Some(Interrupted),
            None,
        ];
        let mut writes = Vec::new();
        for (i, outcome) in outcomes.into_iter().enumerate() {
            writes.extend(run_writes(
                &format!("0190bbbb-0000-7000-8000-{i:012}"),
                ids[0],
                outcome,
            ));
        }
        store.apply_batch(&writes).unwrap();
        let listed = watches(&store, 10).unwrap();
        for (watch, rate) in &listed {
            let runs = read_watch(&store, &watch.id).unwrap().2;
            let report = figures(&runs, &ReportContext::default()).success_rate;
            assert_eq!(*rate, report, "{}", watch.id);
        }
        let first = listed.iter().find(|(w, _)| w.id == ids[0]).unwrap();
        assert_eq!((first.1.successes, first.1.trials), (3, 6));
    }
}
