//! Every run of the session, each with its own timeline; one is selected.

use super::TimelineAction;
use super::controls_view;
use super::detail_view;
use super::live_status::short_status;
use super::plot_view;
use super::run_timeline::{Phase, Timeline};
use super::run_view::RunView;
use super::table_view;
use crate::model::secrets::Masked;
use crate::model::{RunEvent, RunFold, RunId};
use std::time::{Duration, Instant};

/// Longest pause between repaints while a run is in flight or waiting (now-line, countdown).
pub const LIVE_REPAINT: Duration = Duration::from_millis(100);

/// From this available width (points) the detail pane sits right of the table; below it
/// otherwise.
const WIDE_LAYOUT: f32 = 1000.0;
/// Height the attempts table keeps below the plot when the detail pane is under it, points
/// (its header and about four rows).
const TABLE_MIN_HEIGHT: f32 = 130.0;

/// Most runs kept; past it the oldest finished, unselected run is dropped (its tab and timeline),
/// so the tab row and memory stay bounded over a long session. Running runs are never dropped.
pub const MAX_KEPT_RUNS: usize = 30;

/// Every run of this session, each with its own timeline; one is selected (tabs / run list).
#[derive(Default)]
pub struct RunsState {
    runs: Vec<RunView>,
    selected: Option<RunId>,
    /// The run whose tab was last scrolled into view.
    tab_in_view: Option<RunId>,
    /// The detail pane's size (the workbench keeps it in its layout prefs across restarts).
    pub detail: crate::ui::persistence::DetailPaneSize,
}

impl RunsState {
    /// No runs yet; the detail pane opens at `detail` (restored layout prefs).
    pub fn with_detail(detail: crate::ui::persistence::DetailPaneSize) -> Self {
        Self {
            detail,
            ..Self::default()
        }
    }

    /// Registers a run the app just started (before its first event), and selects it.
    /// Registering a known id (e.g. after its first events) keeps its events, sets the title and
    /// selects it.
    pub fn add_run(&mut self, run_id: RunId, title: String) {
        match self.index(run_id) {
            // Events may have come first: keep them, take the title.
            Some(i) => self.runs[i].timeline.set_title(title),
            None => self.runs.push(RunView::new(Timeline::new(run_id, title))),
        }
        self.selected = Some(run_id);
        self.prune();
    }

    /// Keeps what run `run_id` sent, for "Copy as curl" of its attempts.
    pub fn set_request(&mut self, run_id: RunId, request: super::SentRequest) {
        if let Some(i) = self.index(run_id) {
            self.runs[i].request = Some(std::sync::Arc::new(request));
        }
    }

    /// Shows a past run (its fold read back from the history) as a read-only tab marked
    /// `label` (`from history, <date>`), and selects it. Opening the same run id again just
    /// selects it.
    pub fn add_past_run(&mut self, fold: RunFold, title: String, label: String) {
        let run_id = fold.run_id();
        if self.index(run_id).is_none() {
            let mut view = RunView::new(Timeline::of_fold(fold, title));
            view.read_only = Some(label);
            self.runs.push(view);
        }
        self.selected = Some(run_id);
        self.prune();
    }

    /// Whether run `run_id` is a read-only past run.
    pub fn is_read_only(&self, run_id: RunId) -> bool {
        self.index(run_id)
            .is_some_and(|i| self.runs[i].read_only.is_some())
    }

    /// Drops the oldest finished, unselected runs beyond [`MAX_KEPT_RUNS`].
    fn prune(&mut self) {
        while self.runs.len() > MAX_KEPT_RUNS {
            let selected = self.selected;
            let Some(oldest) = self
                .runs
                .iter()
                .position(|v| !v.timeline.is_active() && Some(v.timeline.run_id()) != selected)
            else {
                return;
            };
            self.runs.remove(oldest);
        }
    }

    /// How many runs are kept (at most `MAX_KEPT_RUNS`, 30, unless more are still running).
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// True when no run has been started.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Folds one engine event into its run's timeline; `now` is when the UI received it.
    /// An event of an unregistered run registers it (titled from `RunStarted`) without
    /// changing the selection, unless nothing is selected yet.
    pub fn apply(&mut self, event: Masked<RunEvent>, now: Instant) {
        let run_id = event.run_id();
        if self.index(run_id).is_none() {
            self.runs
                .push(RunView::new(Timeline::new(run_id, String::new())));
            self.selected.get_or_insert(run_id);
        }
        if let Some(view) = self.view_mut(run_id) {
            view.timeline.apply(event, now);
        }
    }

    /// Runs that have not finished yet, in the order they were added.
    pub fn active_runs(&self) -> Vec<RunId> {
        self.runs
            .iter()
            .filter(|v| v.timeline.is_active() && v.read_only.is_none())
            .map(|v| v.timeline.run_id())
            .collect()
    }

    /// The selected run, if any.
    pub fn selected(&self) -> Option<RunId> {
        self.selected
    }

    /// Selects run `run_id` (ignored when unknown).
    pub fn select(&mut self, run_id: RunId) {
        if self.index(run_id).is_some() {
            self.selected = Some(run_id);
        }
    }

    /// The attempt (1-based) the detail pane shows for the selected run, if any.
    pub fn selected_attempt(&self) -> Option<u32> {
        let view = &self.runs[self.index(self.selected?)?];
        let row = view.timeline.attempts().get(view.selected_row?)?;
        Some(row.number)
    }

    /// Selects attempt `attempt` (1-based) of the selected run for the detail pane.
    pub fn select_attempt(&mut self, attempt: u32) {
        if let Some(view) = self.selected.and_then(|id| self.view_mut(id)) {
            view.selected_row = view
                .timeline
                .attempts()
                .iter()
                .position(|r| r.number == attempt);
            view.scroll_to_row = view.selected_row;
        }
    }

    /// The timeline of run `run_id`.
    pub fn timeline(&self, run_id: RunId) -> Option<&Timeline> {
        self.index(run_id).map(|i| &self.runs[i].timeline)
    }

    /// What run `run_id`'s `file` holds, built from its (masked) fold as the Copy buttons
    /// build it; `None` when the run is gone.
    pub fn file_contents(
        &self,
        run_id: RunId,
        file: crate::ui::run_export::RunFile,
    ) -> Option<crate::ui::run_export::RunFileContents> {
        use crate::ui::run_export::{RunFile, RunFileContents};
        let view = &self.runs[self.index(run_id)?];
        let fold = view.timeline.fold();
        Some(match file {
            RunFile::Png => RunFileContents::Plot(crate::interop::TimelinePlot::of_fold(fold)),
            RunFile::Csv => {
                RunFileContents::Text(crate::interop::attempts_csv(fold, &run_id.to_string()))
            }
            RunFile::Events => RunFileContents::Text(crate::interop::events_json_lines(fold)),
            RunFile::Har => RunFileContents::Text(super::har_copy::timeline_har(
                &view.timeline,
                view.request.as_deref(),
            )),
        })
    }

    /// When the next repaint is needed for a moving "now" line or countdown; `None` when idle.
    ///
    /// While any run is unfinished (every run shows its state in the run list): at most
    /// [`LIVE_REPAINT`] (100 ms), sooner when a countdown ends earlier; `None` once all runs
    /// finished, so an idle window does not repaint.
    pub fn repaint_after(&self, now: Instant) -> Option<Duration> {
        let mut next: Option<Duration> = None;
        for view in self
            .runs
            .iter()
            .filter(|v| v.timeline.is_active() && v.read_only.is_none())
        {
            let mut due = LIVE_REPAINT;
            if let Phase::Waiting(_) = view.timeline.phase()
                && let Some(left) = view
                    .timeline
                    .current_wait()
                    .and_then(|w| view.timeline.remaining_ms(w, now))
            {
                due = due.min(Duration::from_secs_f64((left / 1000.0).max(0.001)));
            }
            next = Some(next.map_or(due, |n| n.min(due)));
        }
        next
    }

    /// Draws the run list/tabs, outcome banner, controls, table, plot and detail pane.
    ///
    /// Give it the rest of a panel, not the inside of a `ScrollArea`: the detail pane is a
    /// resizable panel (right of the table from 1000 points wide, below it when narrower) and the
    /// table fills what remains (it scrolls itself). Returns
    /// what the user pressed (Cancel, Retry now); "Copy as text" is handled here. Repaints are
    /// the caller's: schedule them with [`Self::repaint_after`].
    pub fn ui(&mut self, ui: &mut egui::Ui, now: Instant) -> Vec<TimelineAction> {
        let mut actions = Vec::new();
        if self.runs.is_empty() {
            ui.label("No runs yet: press Send to start one.");
            return actions;
        }
        self.tabs_ui(ui, now);
        let selected = self.selected;
        let Some(view) =
            selected.and_then(|id| self.runs.iter_mut().find(|v| v.timeline.run_id() == id))
        else {
            return actions;
        };
        controls_view::show(
            ui,
            &view.timeline,
            view.request.as_ref(),
            view.read_only.as_deref(),
            now,
            &mut actions,
        );
        ui.separator();
        if let Some(row) = plot_view::show(ui, &view.timeline, view.selected_row, now) {
            view.selected_row = Some(row);
            view.scroll_to_row = Some(row);
        }
        ui.separator();
        let run_id = view.timeline.run_id();
        // The table's header and rows, points: the response below gets the rest.
        let table_rows = 48.0 + 22.0 * view.timeline.attempts().len() as f32;
        let detail = |ui: &mut egui::Ui| {
            // Clear of the table's scroll bar and the panel's resize edge.
            ui.add_space(6.0);
            egui::ScrollArea::vertical()
                .id_salt(("timeline_detail", run_id))
                .auto_shrink(false)
                .show(ui, |ui| detail_view::show(ui, view, now));
        };
        let width = ui.available_width();
        // One pane for every run (ids not per run), its size kept in the layout prefs.
        let size = &mut self.detail;
        if width >= WIDE_LAYOUT {
            // Wide: detail pane on the right of the table.
            let shown = egui::Panel::right("timeline_detail_right")
                .resizable(true)
                .default_size(
                    size.width
                        .unwrap_or((width * 0.38).clamp(300.0, 560.0))
                        .min(width * 0.7),
                )
                .size_range(240.0..=width * 0.7)
                .show(ui, detail);
            size.width = Some(shown.response.rect.width());
        } else {
            // Narrow (side panels open): detail pane below the table.
            let height = ui.available_height();
            // The table keeps room for its header and a few rows whatever the height.
            let most = (height - TABLE_MIN_HEIGHT).max(100.0);
            let shown = egui::Panel::bottom("timeline_detail_bottom")
                .resizable(true)
                .default_size(
                    size.height
                        .unwrap_or((height - table_rows).max(height * 0.55))
                        .clamp(100.0, most),
                )
                .size_range(100.0..=most)
                .show(ui, detail);
            size.height = Some(shown.response.rect.height());
        }
        crate::ui::theme::sideways_scroll(ui, ("timeline_table_h", run_id), |ui| {
            // Narrower than its columns, the table scrolls sideways instead of cutting them.
            ui.set_min_width(table_view::MIN_WIDTH);
            let scroll_to = view.scroll_to_row.take();
            if let Some(row) =
                table_view::show(ui, &view.timeline, view.selected_row, scroll_to, now)
            {
                view.selected_row = Some(row);
            }
        });
        actions
    }

    /// The run list: one selectable tab per run, `Run 3 · GET /status/503 · waiting 1.2 s`.
    /// One row of tabs that scrolls sideways (a wrapping row grew with every Send and pushed the
    /// timeline off screen); a newly selected tab is scrolled into view.
    fn tabs_ui(&mut self, ui: &mut egui::Ui, now: Instant) {
        let mut clicked = None;
        let scroll_to = self.selected.filter(|s| self.tab_in_view != Some(*s));
        egui::ScrollArea::horizontal()
            .id_salt("run_tabs")
            .auto_shrink([false, true])
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    for view in &self.runs {
                        let tl = &view.timeline;
                        let label = if view.read_only.is_some() {
                            format!("History · {}", tl.title())
                        } else {
                            format!(
                                "Run {} · {} · {}",
                                tl.run_id(),
                                tl.title(),
                                short_status(tl, now)
                            )
                        };
                        let selected = self.selected == Some(tl.run_id());
                        let tab = ui.selectable_label(selected, label);
                        if scroll_to == Some(tl.run_id()) {
                            tab.scroll_to_me(None);
                        }
                        if tab.clicked() {
                            clicked = Some(tl.run_id());
                        }
                    }
                });
            });
        if scroll_to.is_some() {
            self.tab_in_view = scroll_to;
        }
        if let Some(id) = clicked {
            self.selected = Some(id);
        }
    }

    fn index(&self, run_id: RunId) -> Option<usize> {
        self.runs.iter().position(|v| v.timeline.run_id() == run_id)
    }

    fn view_mut(&mut self, run_id: RunId) -> Option<&mut RunView> {
        self.runs.iter_mut().find(|v| v.timeline.run_id() == run_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::OutcomeKind;
    use crate::testkit::EventScript;
    use chrono::DateTime;

    /// Registers run `id` and, when `finish`, feeds it a one-attempt success.
    fn add(runs: &mut RunsState, id: RunId, finish: bool) {
        runs.add_run(id, format!("GET /{id}"));
        if finish {
            let start = DateTime::parse_from_rfc3339("2026-11-30T14:00:00+00:00").expect("rfc3339");
            let script = EventScript::new(id, "GET", "http://127.0.0.1:1/", start).finish(
                OutcomeKind::Succeeded,
                "ok",
                Some(200),
            );
            for event in script.masked_events() {
                runs.apply(event, Instant::now());
            }
        }
    }

    #[test]
    fn old_finished_runs_are_dropped_and_running_ones_kept() {
        let mut runs = RunsState::default();
        add(&mut runs, 1, false); // still running: never dropped
        for id in 2..=40 {
            add(&mut runs, id, true);
        }
        assert_eq!(runs.len(), MAX_KEPT_RUNS);
        let kept: Vec<RunId> = runs.runs.iter().map(|v| v.timeline.run_id()).collect();
        assert_eq!(kept[0], 1, "the running run stays");
        assert_eq!(
            kept[1],
            40 - (MAX_KEPT_RUNS as u64 - 2),
            "the oldest finished went first"
        );
        assert_eq!(kept.last(), Some(&40));
        assert_eq!(runs.selected(), Some(40));
    }
}
