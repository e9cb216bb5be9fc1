//! The live timeline: a pure fold of run events plus its table, plot and detail views.
//!
//! STUB: signatures are the contract between the app shell and the timeline views.

use crate::model::{RunEvent, RunId};
use std::time::{Duration, Instant};

/// What the user asked for from a timeline view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimelineAction {
    /// Cancel this run (Esc or the Cancel button).
    Cancel(RunId),
    /// Skip this run's current wait ("Retry now").
    SkipWait(RunId),
}

/// Every run of this session, each with its own timeline; one is selected (tabs / run list).
#[derive(Default)]
pub struct RunsState {
    runs: Vec<RunId>,
}

impl RunsState {
    /// Registers a run the app just started (before its first event), and selects it.
    pub fn add_run(&mut self, run_id: RunId, title: String) {
        let _ = title;
        self.runs.push(run_id);
    }

    /// Folds one engine event into its run's timeline; `now` is when the UI received it.
    pub fn apply(&mut self, event: &RunEvent, now: Instant) {
        let _ = (event, now);
    }

    /// Runs that have not finished yet.
    pub fn active_runs(&self) -> Vec<RunId> {
        Vec::new()
    }

    /// The selected run, if any.
    pub fn selected(&self) -> Option<RunId> {
        self.runs.last().copied()
    }

    /// When the next repaint is needed for a moving "now" line or countdown; `None` when idle.
    pub fn repaint_after(&self, now: Instant) -> Option<Duration> {
        let _ = now;
        None
    }

    /// Draws the run list/tabs, outcome banner, controls, table, plot and detail pane.
    pub fn ui(&mut self, ui: &mut egui::Ui, now: Instant) -> Vec<TimelineAction> {
        let _ = (ui, now);
        Vec::new()
    }
}
