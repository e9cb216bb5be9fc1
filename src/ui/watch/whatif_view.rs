//! The selected watch's *What-if* (DESIGN.md §12): the profiles to compare (the watch's own
//! always, marked current, its built-in not offered again; built-ins and library profiles
//! ticked by the user), a seed and *Compare*; the ranked table (a long profile name cut with
//! `…`, whole on hover), the resolution lines of the current profile and the model's
//! assumptions, as `retryscope whatif` prints them ([`crate::sim::compare`],
//! [`crate::sim::whatif_cells`]).
//!
//! The replay runs on the `whatif` [`LatestWorker`] thread over the runs the watch's load
//! brought: neither the frame nor the store actor (which also serves the History panel) waits
//! for it, and a newer *Compare* supersedes an older one.

use super::PreparedWatch;
use crate::sim::{
    Comparison, RecordedWith, WHATIF_COLUMNS, compare, resolution_text, whatif_cells,
};
use crate::ui::field_id::keyed;
use crate::ui::latest_worker::{JobRunner, LatestWorker};
use crate::ui::number_field::{NumberSpec, number_field};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The built-ins ticked at first.
pub const DEFAULT_CANDIDATES: [&str; 3] = ["aws-standard", "azure-sdk", "envoy-route"];

/// Widest a profile's name is drawn in the table, points (longer ones are cut with `…`).
const NAME_WIDTH: f32 = 260.0;

type Answer = Result<Comparison, String>;
/// One comparison to run.
type Job = Box<dyn FnOnce() -> Answer + Send>;

/// The What-if section's state.
pub struct WhatIfView {
    /// Built-ins offered, (id, checkbox label).
    builtins: Vec<(String, String)>,
    /// Ticked candidates: built-in ids and library names (file names without `.json`).
    picked: BTreeSet<String>,
    /// (watch id, the built-in its profile is): worked out once per watch shown.
    own: Option<(String, Option<String>)>,
    seed: u64,
    /// Started at the first *Compare*.
    worker: Option<LatestWorker<Job, Answer>>,
    /// A comparison is running.
    waiting: bool,
    /// The newest comparison's answer.
    shown: Option<Answer>,
}

impl Default for WhatIfView {
    fn default() -> Self {
        Self {
            builtins: crate::profile::builtins()
                .into_iter()
                .map(|b| {
                    (
                        b.id.to_owned(),
                        format!("{} — built-in {}", b.profile.name, b.id),
                    )
                })
                .collect(),
            picked: DEFAULT_CANDIDATES.iter().map(|&s| s.to_owned()).collect(),
            own: None,
            seed: 0,
            worker: None,
            waiting: false,
            shown: None,
        }
    }
}

impl WhatIfView {
    /// True when no comparison is running.
    pub fn is_idle(&self) -> bool {
        !self.waiting
    }

    /// Drops the answer and abandons a running comparison (another watch was selected).
    pub fn forget(&mut self) {
        if let Some(worker) = &mut self.worker {
            worker.cancel();
        }
        self.waiting = false;
        self.shown = None;
    }

    /// Draws the section for `w`; `library` lists the library folder `library_dir`'s files.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        w: &PreparedWatch,
        library: &[PathBuf],
        library_dir: Option<&Path>,
    ) {
        if let Some(answer) = self.worker.as_mut().and_then(LatestWorker::poll) {
            self.waiting = false;
            self.shown = Some(answer);
        }
        ui.strong("What-if: other profiles replayed over these runs");
        if self.own.as_ref().is_none_or(|(id, _)| *id != w.watch.id) {
            self.own = Some((w.watch.id.clone(), builtin_of(&w.watch.profile)));
        }
        let own_builtin = self.own.as_ref().and_then(|(_, b)| b.as_deref());
        let builtin = own_builtin.map_or_else(String::new, |id| format!("built-in {id}, "));
        let own = format!(
            "{} — {builtin}this watch's profile (current)",
            w.watch.profile_name
        );
        ui.add_enabled(false, egui::Checkbox::new(&mut true, own))
            .on_disabled_hover_text("always compared");
        let names: Vec<(String, String)> = library
            .iter()
            .filter_map(|p| {
                let stem = p.file_stem()?.to_string_lossy().into_owned();
                // A built-in's id finds the built-in (`find_profile`): such a file is hidden.
                if self.builtins.iter().any(|(id, _)| *id == stem) {
                    return None;
                }
                Some((
                    stem,
                    format!("library: {}", crate::ui::profile_library::file_name(p)),
                ))
            })
            .collect();
        // The watch's own built-in is the current row already: not offered again.
        let offered: Vec<&(String, String)> = self
            .builtins
            .iter()
            .filter(|(id, _)| Some(id.as_str()) != own_builtin)
            .chain(&names)
            .collect();
        let half = offered.len().div_ceil(2);
        ui.columns(2, |cols| {
            for (k, (spec, label)) in offered.into_iter().enumerate() {
                // Each in its column's own width (a child scope in a wrapped row would wrap
                // its label letter by letter).
                let ui = &mut cols[k / half.max(1)];
                let mut on = self.picked.contains(spec);
                let toggled = keyed(ui, &format!("watch.whatif.candidate.{spec}"), |ui| {
                    ui.checkbox(&mut on, label).changed()
                });
                if toggled && !self.picked.remove(spec) {
                    self.picked.insert(spec.clone());
                }
            }
        });
        ui.horizontal(|ui| {
            number_field(
                ui,
                NumberSpec::new("watch.whatif.seed", "Seed")
                    .tooltip("RNG seed of the replays: the same seed gives the same table"),
                &mut self.seed,
            );
            let compare = keyed(ui, "watch.whatif.compare", |ui| {
                ui.button("Compare")
                    .on_hover_text("replay each ticked profile over this watch's runs")
            });
            if compare.clicked() {
                self.submit(ui.ctx(), w, library_dir);
            }
            if self.waiting {
                ui.spinner();
            }
        });
        match &self.shown {
            Some(Ok(c)) => show(ui, c),
            Some(Err(problem)) => {
                ui.colored_label(ui.visuals().error_fg_color, problem);
            }
            None => {}
        }
    }

    fn submit(&mut self, ctx: &egui::Context, w: &PreparedWatch, library_dir: Option<&Path>) {
        let worker = self.worker.get_or_insert_with(|| {
            let ctx = ctx.clone();
            let run: JobRunner<Job, Answer> =
                Arc::new(|job: Job, _: &mut dyn FnMut(u64, u64) -> bool| Some(job()));
            LatestWorker::spawn("whatif", run, Arc::new(move || ctx.request_repaint()))
        });
        let (runs, recorded) = (Arc::clone(&w.observed), Arc::new(w.watch.profile.clone()));
        // A watch's runs are one profile and one request.
        let mut with = RecordedWith::default();
        with.add(&recorded, &w.watch.method, &w.watch.url);
        let specs: Vec<String> = self.picked.iter().cloned().collect();
        let (library, seed) = (library_dir.map(Path::to_path_buf), self.seed);
        worker.submit(Box::new(move || {
            let lookup = |spec: &str| crate::service::find_profile(spec, library.as_deref());
            compare(&runs, Some(&recorded), &with, &specs, lookup, seed)
        }));
        self.waiting = true;
    }
}

/// The ranked table, the current profile's resolution lines and the assumptions.
fn show(ui: &mut egui::Ui, c: &Comparison) {
    let r = &c.result;
    for line in crate::sim::whatif_summary(r) {
        ui.label(line);
    }
    if let Some(warning) = &r.warning {
        ui.colored_label(ui.visuals().warn_fg_color, warning);
    }
    if c.recorded_left_out {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            "this watch's profile cannot be read back; it is left out of the table",
        );
    }
    // Wider than the tab at 1280 px with long profile names: it scrolls, never overflows.
    egui::ScrollArea::horizontal()
        .id_salt("watch.whatif.scroll")
        .show(ui, |ui| {
            egui::Grid::new("watch.whatif.table")
                .striped(true)
                .show(ui, |ui| {
                    for title in WHATIF_COLUMNS {
                        ui.strong(title);
                    }
                    ui.end_row();
                    for e in &r.candidates {
                        let mut cells = whatif_cells(e);
                        if e.current {
                            cells[1].push_str(" — current");
                        }
                        for (k, cell) in cells.into_iter().enumerate() {
                            if k == 1 {
                                // egui's truncation, which shows the whole name on hover.
                                ui.scope(|ui| {
                                    ui.set_max_width(NAME_WIDTH);
                                    ui.add(egui::Label::new(cell).truncate());
                                });
                            } else {
                                ui.label(cell);
                            }
                        }
                        ui.end_row();
                    }
                });
        });
    if let Some(current) = r.candidates.iter().find(|c| c.current) {
        ui.label("The current profile's band as the samples thin out:");
        for row in &current.resolution {
            ui.label(resolution_text(row));
        }
    }
    ui.label("Assumptions:");
    for a in &r.assumptions {
        ui.label(format!("• {a}"));
    }
}

/// The id of the built-in `profile` (a watch's stored JSON) is, if it is one.
fn builtin_of(profile: &serde_json::Value) -> Option<String> {
    let own = crate::profile::load_str(&profile.to_string()).ok()?;
    crate::profile::builtins()
        .into_iter()
        .find(|b| b.profile == own)
        .map(|b| b.id.to_owned())
}
