//! The Watches tab: the recorded watches (DESIGN.md §12), read-only. The list gives each
//! watch's schedule, state, runs, missed slots and success rate; the selected watch shows its
//! runs over time, success rate and time to success per bucket, failures by status and error
//! kind, and the delay headers seen. A click on a run opens it in the timeline. Its *What-if*
//! replays the runs under other profiles (`whatif_view`). A paused or interrupted watch offers
//! *Resume*: the workbench carries it on as the Watch toggle's watch, live in the timeline.
//!
//! The panel sends history queries through a [`CoreSender`]: the store actor reads the watch and the
//! report's [`crate::report::figures`] are computed there; a load is turned into plot points
//! once (`prepared`), so a frame only draws.
//!
//! Files: `prepared` (a loaded watch as what is drawn), `list_view` (the watches), `charts`
//! (the plots), `breakdown` (the tables and the list of runs), `whatif_view` (the what-if).

mod breakdown;
mod charts;
mod list_view;
mod prepared;
mod whatif_view;

pub use prepared::PreparedWatch;

use crate::report::Proportion;
use crate::service::report_file::ReportFormat;
use crate::service::{CoreCommand, CoreSender, HistoryReply, HistoryRequest};
use crate::store::{RunQuery, WatchRecord};
use crate::ui::controls::{button, error_line, picker};
use std::path::{Path, PathBuf};

/// Label of the button that writes the selected watch's flakiness report.
pub const REPORT_WATCH_LABEL: &str = "Report of this watch…";

/// Most watches the list shows (newest first).
pub const LISTED_WATCHES: u32 = 50;

/// How often the list is read again while a watch in it is running (here or in another
/// process): its rows' runs, missed slots and rates move on without a click.
pub const LIST_REFRESH: std::time::Duration = std::time::Duration::from_secs(5);

/// The Watches tab's state.
#[derive(Default)]
pub struct WatchPanel {
    service: Option<CoreSender>,
    /// The watches with their success rates; `None` until (re)loaded.
    listed: Option<Vec<(WatchRecord, Proportion)>>,
    /// The list was asked for and has not come back yet.
    listing: bool,
    /// When the list last came back.
    listed_at: Option<std::time::Instant>,
    /// The last list read has more of the selected watch than its detail shows.
    newer: bool,
    /// The selected watch's id.
    selected: Option<String>,
    /// The selected watch, loaded.
    shown: Option<Box<PreparedWatch>>,
    /// The last failure.
    problem: Option<String>,
    /// Runs to open in the timeline (ids), taken by the workbench.
    to_open: Vec<String>,
    /// The watch whose Resume was pressed, taken by the workbench.
    to_resume: Option<WatchRecord>,
    /// The selected watch's what-if.
    whatif: whatif_view::WhatIfView,
    /// The format of *Report of this watch…*.
    report_format: ReportFormat,
    /// The report asked for, taken by the workbench (the History panel writes it).
    to_report: Option<(RunQuery, ReportFormat)>,
}

impl WatchPanel {
    /// Connects the panel to the history; the list loads when first drawn.
    pub fn attach(&mut self, service: CoreSender) {
        self.service = Some(service);
        self.listed = None;
        self.problem = None;
    }

    /// True when every request has been answered and no what-if is running (tests wait on
    /// it); true without a history.
    pub fn is_idle(&self) -> bool {
        self.service.as_ref().is_none_or(CoreSender::queries_idle) && self.whatif.is_idle()
    }

    /// Reloads the list and the selected watch.
    pub fn refresh(&mut self) {
        self.listed = None;
        if let Some(id) = self.selected.clone() {
            self.send(HistoryRequest::Watch(id));
        }
    }

    /// Takes one of the core's watch replies (the workbench passes them on as they arrive).
    pub fn accept(&mut self, reply: HistoryReply) {
        match reply {
            HistoryReply::Watches(list) => {
                self.listing = false;
                self.listed_at = Some(std::time::Instant::now());
                match list {
                    Ok(mut list) => {
                        // The selected row stays what its detail says; a newer read of it is
                        // offered, not swapped in under the figures beside it.
                        if let Some(shown) = &self.shown
                            && let Some(row) = list.iter_mut().find(|(w, _)| w.id == shown.watch.id)
                        {
                            self.newer = row.0.next_slot != shown.watch.next_slot
                                || row.0.state != shown.watch.state;
                            *row = (shown.watch.clone(), shown.figures.success_rate);
                        }
                        self.listed = Some(list);
                    }
                    Err(p) => self.problem = Some(p),
                }
            }
            HistoryReply::Watch(Ok(loaded)) => {
                let ((watch, slots, runs), figures) = *loaded;
                if self.selected.as_deref() == Some(watch.id.as_str()) {
                    // The list's row says what the detail beside it says.
                    if let Some(row) = self
                        .listed
                        .iter_mut()
                        .flatten()
                        .find(|(w, _)| w.id == watch.id)
                    {
                        *row = (watch.clone(), figures.success_rate);
                    }
                    // A reload brings new evidence: a table replayed over the old runs would
                    // no longer match the figures shown beside it.
                    self.whatif.forget();
                    self.newer = false;
                    self.shown = Some(Box::new(PreparedWatch::new(watch, &slots, runs, figures)));
                }
            }
            HistoryReply::Watch(Err(p)) => self.problem = Some(p),
            _ => {}
        }
    }

    /// The ids of the runs clicked since the last call, to open in the timeline.
    pub fn take_open(&mut self) -> Vec<String> {
        std::mem::take(&mut self.to_open)
    }

    /// The watch whose Resume was pressed since the last call, to carry on.
    pub fn take_resume(&mut self) -> Option<WatchRecord> {
        self.to_resume.take()
    }

    /// The report of a watch asked for since the last call: its runs' query and format.
    pub fn take_report(&mut self) -> Option<(RunQuery, ReportFormat)> {
        self.to_report.take()
    }

    fn send(&mut self, request: HistoryRequest) {
        if let Some(service) = &self.service
            && !service.send(CoreCommand::History(request))
        {
            self.problem = Some("the history reader stopped; restart Retryscope".into());
        }
    }

    /// Whether a watch in the list is running.
    fn any_running(&self) -> bool {
        self.listed
            .iter()
            .flatten()
            .any(|(w, _)| w.state == crate::store::WatchState::Running)
    }

    /// Whether the list is due to be read again at `now`: a watch in it runs and the last read
    /// is [`LIST_REFRESH`] old.
    fn list_refresh_due(&self, now: std::time::Instant) -> bool {
        self.any_running()
            && self
                .listed_at
                .is_none_or(|at| now.saturating_duration_since(at) >= LIST_REFRESH)
    }

    /// Selects watch `id` and reads it.
    fn select(&mut self, id: &str) {
        if self.selected.as_deref() != Some(id) {
            self.selected = Some(id.to_owned());
            self.shown = None;
            self.whatif.forget();
            self.send(HistoryRequest::Watch(id.to_owned()));
        }
    }

    /// Draws the tab into the rest of `ui`; `library` lists the profile files of the library
    /// folder `library_dir` (the what-if offers them); `watching`: a watch runs from this
    /// window (one at a time: Resume waits for its end).
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        library: &[PathBuf],
        library_dir: Option<&Path>,
        watching: bool,
    ) {
        if self.service.is_none() {
            ui.label("No history: watches are not recorded.");
            return;
        }
        let now = std::time::Instant::now();
        if !self.listing && (self.listed.is_none() || self.list_refresh_due(now)) {
            self.listing = true;
            self.send(HistoryRequest::Watches {
                limit: LISTED_WATCHES,
            });
        }
        if self.any_running() {
            ui.ctx().request_repaint_after(LIST_REFRESH);
        }
        ui.horizontal(|ui| {
            if button(
                ui,
                true,
                "Reload watches",
                "read the watches again (a watch may be running)",
            ) {
                self.refresh();
            }
            error_line(ui, self.problem.as_deref());
        });
        let clicked = if let Some(listed) = &self.listed {
            list_view::show(ui, listed, self.selected.as_deref())
        } else {
            ui.weak("Reading the watches…");
            None
        };
        if let Some(id) = clicked {
            self.select(&id);
        }
        ui.separator();
        match (&self.shown, &self.selected) {
            (Some(shown), _) => {
                if self.newer {
                    ui.weak(
                        "This watch has moved on since it was read: Reload watches reads it again.",
                    );
                }
                if resume_line(ui, &shown.watch, watching) {
                    self.to_resume = Some(shown.watch.clone());
                }
                if report_line(ui, &mut self.report_format) {
                    let query = RunQuery {
                        watch_id: Some(shown.watch.id.clone()),
                        ..RunQuery::default()
                    };
                    self.to_report = Some((query, self.report_format));
                }
                egui::ScrollArea::vertical()
                    .id_salt("watch.details")
                    .auto_shrink([false, false])
                    .show(ui, |ui| {
                        if let Some(run) = charts::show(ui, shown) {
                            self.to_open.push(run);
                        }
                        if let Some(run) = breakdown::show(ui, shown) {
                            self.to_open.push(run);
                        }
                        ui.separator();
                        self.whatif.ui(ui, shown, library, library_dir);
                    });
            }
            (None, Some(_)) => {
                ui.spinner();
            }
            (None, None) => {
                ui.weak("Select a watch to see its runs over time.");
            }
        }
    }
}

/// `This watch is paused. [Resume]` for a paused or interrupted watch; true when Resume was
/// pressed (disabled while a watch runs from this window).
fn resume_line(ui: &mut egui::Ui, w: &WatchRecord, watching: bool) -> bool {
    if !w.state.resumable() {
        return false;
    }
    ui.horizontal(|ui| {
        ui.label(format!("This watch is {}.", w.state.id()));
        ui.add_enabled(!watching, egui::Button::new("Resume"))
            .on_hover_text(
                "carry the watch on from its next slot (the slots passed meanwhile are recorded as missed); its runs show live in the timeline",
            )
            .on_disabled_hover_text("a watch runs from this window: stop it first")
            .clicked()
    })
    .inner
}

/// The format picker and *Report of this watch…*; true when the button was pressed.
fn report_line(ui: &mut egui::Ui, format: &mut ReportFormat) -> bool {
    ui.horizontal(|ui| {
        let tip = "the flakiness report of this watch's runs, as `retryscope report --watch ID` \
                   writes it; secrets are masked";
        let pressed = button(ui, true, REPORT_WATCH_LABEL, tip);
        let formats = ReportFormat::ALL.map(|f| (f, f.label(), ""));
        picker(ui, "watch.report.format", "Report format", format, &formats);
        pressed
    })
    .inner
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{ReportContext, figures};
    use crate::store::{HistoryStore, NewWatch, WatchSlot};

    #[test]
    fn the_selected_watch_row_follows_its_detail_when_it_reloads() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = HistoryStore::open_in(dir.path()).expect("history");
        let id = "0190aaaa-0000-7000-8000-000000000001";
        let _claim = store
            .create_watch(&NewWatch {
                id: id.to_owned(),
                request: crate::model::RequestSpec::get("http://127.0.0.1:9/x"),
                has_secrets: false,
                profile_name: "p".into(),
                profile: serde_json::json!({"name": "p"}),
                schedule: crate::policy::WatchSchedule {
                    start_unix_ms: 1000,
                    every_ms: 200,
                    jitter: 0.0,
                    seed: 1,
                    count: None,
                    until_unix_ms: None,
                },
            })
            .expect("created");
        let mut panel = WatchPanel::default();
        let before = store.watch(id).expect("read");
        let rate = figures(&[], &ReportContext::default()).success_rate;
        panel.accept(HistoryReply::Watches(Ok(vec![(before, rate)])));
        panel.select(id);
        let missed = |slot| WatchSlot {
            slot,
            due_unix_ms: 1000,
            run_id: None,
            missed: Some(crate::store::Missed::Busy),
            run_deleted: false,
        };
        store
            .record_slots(id, &[missed(0), missed(1)])
            .expect("recorded");
        let (watch, slots, runs) =
            crate::service::watch_service::read_watch(&store, id).expect("read");
        let f = figures(&runs, &ReportContext::default());
        panel.accept(HistoryReply::Watch(Ok(Box::new(((watch, slots, runs), f)))));
        let listed = panel.listed.as_ref().expect("listed");
        assert_eq!(listed[0].0.missed, 2, "the row as the detail");

        // A running watch's list is read again every LIST_REFRESH; a read with more slots of
        // the selected watch keeps its row as the detail and offers the newer read.
        assert!(
            !panel.list_refresh_due(std::time::Instant::now()),
            "just read"
        );
        let later = std::time::Instant::now() + LIST_REFRESH;
        assert!(panel.list_refresh_due(later), "running: read again");
        store.record_slots(id, &[missed(2)]).expect("recorded");
        let newer = store.watch(id).expect("read");
        panel.accept(HistoryReply::Watches(Ok(vec![(newer, rate)])));
        let listed = panel.listed.as_ref().expect("listed");
        assert_eq!(listed[0].0.missed, 2, "still the row as the detail");
        assert!(panel.newer, "the newer read is offered");
        assert!(!panel.list_refresh_due(std::time::Instant::now()));
    }
}
