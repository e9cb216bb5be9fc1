//! The History panel: every recorded run, filtered, sorted and virtualised; open one read-only
//! in the timeline, re-run it, compare two, delete, retention, the database size, and the
//! flakiness report of the runs the filters select (Report…).
//!
//! The panel sends [`HistoryRequest`]s through a [`CoreSender`]; the workbench hands it the
//! core's replies ([`HistoryPanel::accept`]); the frame never touches SQLite. Only one window of rows ([`PAGE_ROWS`]) around what is on screen is
//! held, so 100,000 runs scroll without loading whole.

mod compare_view;
mod filters;
mod list_view;
mod page_cache;
mod report_dialog;

pub use filters::{HistoryFilters, parse_day};
pub use page_cache::{PAGE_ROWS, PageCache};
pub use report_dialog::{REPORT_LABEL, SAVE_REPORT_LABEL, report_query};

use crate::service::{CoreCommand, CoreSender, HistoryReply, HistoryRequest, Retention};
use crate::store::StoredRun;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// What the panel asks the workbench to do.
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryAction {
    /// Show this run read-only in the timeline.
    Open(Box<StoredRun>),
    /// Put this run's request and profile into the composer and send it (with its seed when
    /// `same_seed`).
    Rerun {
        /// The run.
        run: Box<StoredRun>,
        /// Re-use the recorded seed.
        same_seed: bool,
    },
    /// Ask for the report's file (the save dialog), suggesting this name.
    ChooseReportFile {
        /// e.g. `retryscope-report.html`.
        suggested_name: String,
    },
    /// Show this in the status line: `(is_error, text)`.
    Status(bool, String),
}

/// Retention settings (persisted); 0 = no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RetentionPrefs {
    /// Keep runs of the last N days (0: all).
    pub keep_days: u32,
    /// Keep the N newest runs (0: all).
    pub keep_runs: u64,
}

impl RetentionPrefs {
    /// The rule to apply, `None` when both are off.
    pub fn rule(self) -> Option<Retention> {
        let rule = Retention {
            keep_days: (self.keep_days > 0).then_some(self.keep_days),
            keep_runs: (self.keep_runs > 0).then_some(self.keep_runs),
        };
        (rule != Retention::default()).then_some(rule)
    }
}

/// Why a run is being opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    View,
    Rerun,
    Compare(usize),
}

/// Which part of the panel shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum View {
    #[default]
    List,
    Compare,
}

/// The History panel's state.
#[derive(Default)]
pub struct HistoryPanel {
    service: Option<CoreSender>,
    /// Why there is no history, or the last failure.
    problem: Option<String>,
    /// The last thing done (deleted, pruned).
    notice: Option<String>,
    /// Filter and sort fields.
    pub filters: HistoryFilters,
    cache: PageCache,
    /// The selected run's id.
    selected: Option<String>,
    /// Runs marked for comparison (at most two, oldest mark first).
    marked: Vec<String>,
    compare: [Option<Box<StoredRun>>; 2],
    view: View,
    confirm_delete: Option<String>,
    /// Retention settings.
    pub retention: RetentionPrefs,
    /// "Same seed" for Re-run.
    pub same_seed: bool,
    next_tag: u64,
    opening: HashMap<u64, Purpose>,
    /// Report…: the format picked and the report waiting for its file.
    report: report_dialog::ReportDialog,
    /// Actions the drawing asked for, handed out by the next [`Self::take_actions`].
    actions: Vec<HistoryAction>,
}

impl HistoryPanel {
    /// A panel with these retention settings and filters (no history attached yet).
    pub fn with_prefs(retention: RetentionPrefs, filters: HistoryFilters) -> Self {
        Self {
            filters,
            retention,
            ..Self::default()
        }
    }

    /// Connects the panel to the core (which answers history queries) and applies the
    /// retention settings once.
    pub fn attach(&mut self, service: CoreSender) {
        if let Some(rule) = self.retention.rule() {
            service.send(CoreCommand::History(HistoryRequest::Retain(rule)));
        }
        self.service = Some(service);
        self.problem = None;
        self.cache.invalidate();
    }

    /// Says why there is no history (shown instead of the list).
    pub fn set_unavailable(&mut self, reason: String) {
        self.service = None;
        self.problem = Some(reason);
    }

    /// True when every request has been answered (tests wait on it); true without a history.
    pub fn is_idle(&self) -> bool {
        self.service.as_ref().is_none_or(CoreSender::queries_idle)
    }

    /// Reloads the list (a run finished, something was deleted).
    pub fn refresh(&mut self) {
        self.cache.invalidate();
    }

    /// Runs the current filters select, once known.
    pub fn total(&self) -> Option<u64> {
        self.cache.total()
    }

    /// The last problem or notice: `(is_error, text)`.
    pub fn message(&self) -> Option<(bool, &str)> {
        self.problem
            .as_deref()
            .map(|p| (true, p))
            .or_else(|| self.notice.as_deref().map(|n| (false, n)))
    }

    /// Takes one of the core's history replies (the workbench passes them on as they
    /// arrive); returns what the workbench must do.
    pub fn accept(&mut self, reply: HistoryReply) -> Option<HistoryAction> {
        match reply {
            HistoryReply::Page {
                query,
                offset,
                total,
                rows,
                db_bytes,
            } => self.cache.accept(query, offset, total, rows, db_bytes),
            HistoryReply::Opened { tag, run } => {
                let purpose = self.opening.remove(&tag);
                match (purpose, run) {
                    (_, None) => {
                        self.notice = Some("that run is no longer in the history".into());
                        self.cache.invalidate();
                    }
                    (Some(Purpose::View), Some(run)) => return Some(HistoryAction::Open(run)),
                    (Some(Purpose::Rerun), Some(run)) => {
                        let same_seed = self.same_seed;
                        return Some(HistoryAction::Rerun { run, same_seed });
                    }
                    (Some(Purpose::Compare(slot)), Some(run)) => {
                        self.compare[slot] = Some(run);
                    }
                    (None, Some(_)) => {}
                }
            }
            HistoryReply::Deleted(ids) => {
                let runs = crate::model::counted(ids.len() as u64, "run", "runs");
                self.notice = Some(format!("deleted {runs}"));
                self.marked.retain(|m| !ids.contains(m));
                if self.selected.as_ref().is_some_and(|s| ids.contains(s)) {
                    self.selected = None;
                }
                self.cache.invalidate();
            }
            HistoryReply::Retained(n) => {
                let runs = crate::model::counted(n as u64, "run", "runs");
                self.notice = Some(format!("retention applied: {runs} deleted"));
                self.cache.invalidate();
            }
            HistoryReply::Reported(result) => {
                let (is_error, text) = report_dialog::report_status(result);
                return Some(HistoryAction::Status(is_error, text));
            }
            HistoryReply::Problem(p) => self.problem = Some(p),
            // The Watches tab's replies (the workbench hands them to it).
            HistoryReply::Watches(_) | HistoryReply::Watch(_) => {}
        }
        None
    }

    /// What the panel's own controls asked of the workbench since the last call (Report…'s
    /// file dialog).
    pub fn take_actions(&mut self) -> Vec<HistoryAction> {
        std::mem::take(&mut self.actions)
    }

    fn send(&mut self, request: HistoryRequest) {
        if let Some(service) = &self.service
            && !service.send(CoreCommand::History(request))
        {
            self.problem = Some("the history reader stopped; restart Retryscope".into());
        }
    }

    /// Reads run `id` and has the workbench show it in the timeline, read-only (as Open does);
    /// the Batch tab opens its items' runs through this.
    pub fn open_run(&mut self, id: String) {
        self.open(id, Purpose::View);
    }

    fn open(&mut self, id: String, purpose: Purpose) {
        self.next_tag += 1;
        self.opening.insert(self.next_tag, purpose);
        let tag = self.next_tag;
        self.send(HistoryRequest::Open { id, tag });
    }

    /// Marks `id` for comparison (a third mark drops the oldest); unmarks it when marked.
    fn toggle_mark(&mut self, id: &str) {
        if let Some(i) = self.marked.iter().position(|m| m == id) {
            self.marked.remove(i);
            return;
        }
        if self.marked.len() == 2 {
            self.marked.remove(0);
        }
        self.marked.push(id.to_owned());
    }

    fn start_compare(&mut self) {
        if let [a, b] = self.marked.as_slice() {
            let (a, b) = (a.clone(), b.clone());
            self.compare = [None, None];
            self.open(a, Purpose::Compare(0));
            self.open(b, Purpose::Compare(1));
            self.view = View::Compare;
        }
    }

    /// Draws the panel into the rest of `ui` (give it a whole panel: the list scrolls itself).
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        match self.view {
            View::List => list_view::show(self, ui),
            View::Compare => {
                if compare_view::show(ui, &self.compare) {
                    self.view = View::List;
                }
            }
        }
    }
}

pub use crate::model::units::format_bytes;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retention_is_off_at_zero_and_sizes_read_well() {
        assert_eq!(RetentionPrefs::default().rule(), None);
        assert_eq!(
            RetentionPrefs {
                keep_days: 30,
                keep_runs: 0
            }
            .rule(),
            Some(Retention {
                keep_days: Some(30),
                keep_runs: None
            })
        );
    }
}
