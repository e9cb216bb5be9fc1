//! The Lab tab: the current profile's wait distribution, the many-clients contention
//! comparison and the layered-retries calculator. Every number comes from [`crate::sim`] on a
//! [`LabWorker`] thread (latest wins, with progress and cancel); the frame only draws.

mod contention_view;
mod distribution_view;
pub mod export;
pub mod jobs;
mod stack_view;
pub mod worker;

use crate::interop::LabChart;
use crate::model::RetryProfile;
use crate::sim::{
    ContentionResult, Distribution, POST_BASE_MS, POST_CAP_MS, StackAnalysis, StackSimulation,
    SweepPoint,
};
use crate::ui::controls::button;
use crate::ui::panel_parts::section;
use jobs::{LabJob, LabOutput};
use std::sync::Arc;
pub use worker::{LabWorker, inline_lab_worker, spawn_lab_worker};

/// Grid steps of 1, 2 or 5 × 10^k chosen so a plot axis gets about five labelled lines (egui's
/// default steps by powers of ten, so a 0–9000 ms axis showed only its `0`): `[minor, labelled,
/// major]` step sizes for `egui_plot::uniform_grid_spacer`.
///
/// ```
/// use retryscope::ui::lab::nice_grid_steps;
/// assert_eq!(nice_grid_steps((0.0, 9000.0)), [400.0, 2000.0, 10000.0]);
/// assert_eq!(nice_grid_steps((0.0, 300.0)), [10.0, 50.0, 250.0]);
/// ```
pub fn nice_grid_steps(bounds: (f64, f64)) -> [f64; 3] {
    let span = (bounds.1 - bounds.0).abs();
    if !span.is_finite() || span <= 0.0 {
        return [0.1, 1.0, 10.0];
    }
    let raw = span / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = match raw / magnitude {
        n if n < 1.5 => 1.0,
        n if n < 3.5 => 2.0,
        n if n < 7.5 => 5.0,
        _ => 10.0,
    } * magnitude;
    [step / 5.0, step, step * 5.0]
}

/// A Lab plot `height` points high: the mouse wheel scrolls the page unless Ctrl (Cmd on
/// macOS) is held, which zooms it; a drag pans it. Its y axis gets [`nice_grid_steps`]. No
/// legend inside: [`legend_row`] names the series above it, where it covers no data.
pub(super) fn lab_plot(ui: &egui::Ui, id: &str, height: f32) -> egui_plot::Plot<'static> {
    let zoom = ui.input(|i| i.modifiers.command);
    egui_plot::Plot::new(id)
        .height(height)
        .allow_scroll(zoom)
        .allow_zoom(zoom)
        .y_axis_min_width(48.0)
        .y_grid_spacer(egui_plot::uniform_grid_spacer(|g| {
            nice_grid_steps(g.bounds)
        }))
}

/// A duration for a sentence: `1.9 s` below a minute, else with human units (`2.7 years`).
pub(super) fn spoken_ms(ms: f64) -> String {
    if ms < 60_000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else {
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "at least a minute here; saturates far above any wait"
        )]
        crate::model::units::format_ms_human(ms as u64)
    }
}

/// The colour of a Lab plot's series `i` (the legend row uses the same).
pub(super) fn series_color(i: usize) -> egui::Color32 {
    const PALETTE: [egui::Color32; 8] = [
        egui::Color32::from_rgb(31, 119, 180),
        egui::Color32::from_rgb(255, 127, 14),
        egui::Color32::from_rgb(44, 160, 44),
        egui::Color32::from_rgb(214, 39, 40),
        egui::Color32::from_rgb(148, 103, 189),
        egui::Color32::from_rgb(140, 86, 75),
        egui::Color32::from_rgb(227, 119, 194),
        egui::Color32::from_rgb(127, 127, 127),
    ];
    PALETTE[i % PALETTE.len()]
}

/// The legend of a plot, above it: `━ name` in each series' colour, wrapped to the width.
pub(super) fn legend_row<'a>(ui: &mut egui::Ui, names: impl IntoIterator<Item = &'a str>) {
    ui.horizontal_wrapped(|ui| {
        for (i, name) in names.into_iter().enumerate() {
            ui.label(egui::RichText::new(format!("━ {name}")).color(series_color(i)));
        }
    });
}

/// `chart` (the series its PNG export draws) as Lab plot `id`, `height` points high: the
/// legend above it, one line per series in [`series_color`] order. Not its title.
pub(super) fn chart_plot(ui: &mut egui::Ui, id: &str, height: f32, chart: LabChart) {
    legend_row(ui, chart.series.iter().map(|s| s.name.as_str()));
    lab_plot(ui, id, height)
        .x_axis_label(chart.x_label)
        .y_axis_label(chart.y_label)
        .show(ui, |plot_ui| {
            for (i, s) in chart.series.into_iter().enumerate() {
                plot_ui.line(egui_plot::Line::new(s.name, s.points).color(series_color(i)));
            }
        });
}

/// A simulation's result once it has arrived: its value, or `None` after saying
/// `cannot simulate: …` for an error.
fn simulated<'a, T>(ui: &mut egui::Ui, result: Option<&'a Result<T, String>>) -> Option<&'a T> {
    match result? {
        Ok(value) => Some(value),
        Err(e) => {
            ui.colored_label(ui.visuals().error_fg_color, format!("cannot simulate: {e}"));
            None
        }
    }
}

/// What the contention view simulates.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentionSettings {
    /// Capacity server (else optimistic concurrency).
    pub capacity_model: bool,
    /// Requests a second of the capacity server.
    pub capacity: f64,
    /// The capacity server sends Retry-After.
    pub retry_after: bool,
    /// The sweep's largest N.
    pub max_clients: u32,
    /// N of the load-over-time view.
    pub load_clients: u32,
    /// Runs averaged per point.
    pub runs: u32,
    /// Base delay of the six standard strategies, ms.
    pub base_ms: u64,
    /// Max delay of the six standard strategies, ms.
    pub cap_ms: u64,
}

impl Default for ContentionSettings {
    /// The AWS Architecture Blog post's setup, N up to 50, 10 runs a point.
    fn default() -> Self {
        Self {
            capacity_model: false,
            capacity: 100.0,
            retry_after: false,
            max_clients: 50,
            load_clients: 100,
            runs: 10,
            base_ms: POST_BASE_MS,
            cap_ms: POST_CAP_MS,
        }
    }
}

/// Which long job the run worker is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Running {
    Sweep,
    Load,
    Stack,
}

/// State of the Lab tab.
pub struct LabPanel {
    dist_worker: LabWorker,
    run_worker: LabWorker,
    /// The profile value whose distribution was last asked for.
    dist_key: Option<RetryProfile>,
    distribution: Option<Result<Arc<Distribution>, String>>,
    /// Show cumulative elapsed time instead of the waits.
    cumulative: bool,
    /// Retry whose histogram is shown (the one last hovered).
    histogram_retry: u32,
    /// What the contention view simulates.
    pub settings: ContentionSettings,
    running: Option<Running>,
    sweep: Option<Result<Arc<Vec<SweepPoint>>, String>>,
    load: Option<Result<Arc<Vec<ContentionResult>>, String>>,
    /// Layers of the stack calculator, outer → inner: built-in ids, `None` = the current profile.
    pub stack_layers: Vec<Option<String>>,
    /// Chance that one server attempt fails, for the stack calculator.
    pub failure_rate: f64,
    stack: Option<Result<(StackAnalysis, StackSimulation), String>>,
    /// "Export … PNG…" / "Export … CSV…": waiting for the dialog, writing, results.
    pub export: export::LabExport,
    /// The first delay header the last finished run's server sent (`Retry-After: 2`) and its
    /// attempt, set by the workbench; the Lab and the preview warn when the profile ignores it.
    pub last_delay_hint: Option<(String, u32)>,
}

impl Default for LabPanel {
    fn default() -> Self {
        Self::new(inline_lab_worker(), inline_lab_worker())
    }
}

impl LabPanel {
    fn new(dist_worker: LabWorker, run_worker: LabWorker) -> Self {
        Self {
            dist_worker,
            run_worker,
            dist_key: None,
            distribution: None,
            cumulative: false,
            histogram_retry: 1,
            settings: ContentionSettings::default(),
            running: None,
            sweep: None,
            load: None,
            stack_layers: vec![None, Some("aws-standard".to_owned())],
            failure_rate: 1.0,
            stack: None,
            export: export::LabExport::default(),
            last_delay_hint: None,
        }
    }

    /// A panel whose simulations run on two `lab` threads that call `waker` when something
    /// arrived (the app; tests keep the default inline workers).
    pub fn spawn(waker: &Arc<dyn Fn() + Send + Sync>) -> Self {
        Self::new(
            spawn_lab_worker(Arc::clone(waker)),
            spawn_lab_worker(Arc::clone(waker)),
        )
    }

    /// Whether a sweep, load or stack simulation is running.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// The last sweep's points, if one finished.
    pub fn sweep_points(&self) -> Option<&[SweepPoint]> {
        Some(self.sweep.as_ref()?.as_ref().ok()?.as_slice())
    }

    /// The distribution shown, if one finished.
    pub fn distribution(&self) -> Option<&Distribution> {
        Some(self.distribution.as_ref()?.as_ref().ok()?)
    }

    /// Takes finished work and asks for the distribution of `profile` when it changed.
    fn refresh(&mut self, profile: &RetryProfile) {
        if self.dist_key.as_ref() != Some(profile) {
            self.dist_key = Some(profile.clone());
            self.dist_worker
                .submit(LabJob::Distribution(profile.clone()));
        }
        if let Some(LabOutput::Distribution(d)) = self.dist_worker.poll() {
            self.distribution = Some(d.map(Arc::new));
        }
        self.take_run_output();
    }

    fn start(&mut self, running: Running, job: LabJob) {
        self.running = Some(running);
        self.run_worker.submit(job);
        // An inline worker has finished already.
        self.take_run_output();
    }

    /// Shows what the run worker finished, if anything.
    fn take_run_output(&mut self) {
        if let Some(output) = self.run_worker.poll() {
            self.running = None;
            match output {
                LabOutput::Sweep(s) => self.sweep = Some(s.map(Arc::new)),
                LabOutput::Load(l) => self.load = Some(l.map(Arc::new)),
                LabOutput::Stack(s) => self.stack = Some(s),
                LabOutput::Distribution(_) => {}
            }
        }
    }

    /// The warning that `profile` ignores the delay the last run's server asked for, if it does.
    pub fn ignored_delay_ui(&self, ui: &mut egui::Ui, profile: &RetryProfile) {
        if let Some((hint, attempt)) = &self.last_delay_hint
            && let Some(warning) =
                crate::policy::ignored_delay_warning(hint, *attempt, profile.backoff.strategy)
        {
            ui.colored_label(ui.visuals().warn_fg_color, warning);
        }
    }

    /// Draws the tab for the profile being edited.
    pub fn ui(&mut self, ui: &mut egui::Ui, profile: &RetryProfile) {
        self.refresh(profile);
        self.export.poll();
        self.ignored_delay_ui(ui, profile);
        egui::ScrollArea::vertical()
            .id_salt("lab.scroll")
            .show(ui, |ui| {
                section(ui, "Wait distribution", "lab.distribution", |ui| {
                    let status = crate::ui::request_draft::demo_failure_status(profile);
                    self.distribution_ui(ui, status);
                });
                section(ui, "Many clients (contention)", "lab.contention", |ui| {
                    self.contention_ui(ui, profile);
                });
                section(ui, "Layered retries (stack)", "lab.stack", |ui| {
                    self.stack_ui(ui, profile);
                });
            });
        if let Some((error, text)) = &self.export.status {
            if *error {
                ui.colored_label(ui.visuals().error_fg_color, text);
            } else {
                ui.label(text);
            }
        }
        if self.running.is_some() {
            // Progress comes from the worker's atomics; the worker's waker repaints too.
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        }
    }

    /// The progress bar and Cancel button of a running job.
    fn progress_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let fraction = self
                .run_worker
                .progress()
                .map_or(0.0, |(done, total)| done as f32 / total.max(1) as f32);
            ui.add(
                egui::ProgressBar::new(fraction)
                    .show_percentage()
                    .desired_width(200.0),
            );
            if button(
                ui,
                true,
                "Cancel simulation",
                "stop the running simulation; nothing is shown for it",
            ) {
                self.run_worker.cancel();
                self.running = None;
            }
        });
    }
}

/// "Copy {what} CSV" (`copy_hover` says what the CSV holds; `csv` makes it only when clicked),
/// then "Export {what} PNG…" and "Export {what} CSV…" beside a plot: an export click asks for a
/// file name (the workbench opens the save dialog); `data` makes the job's data only then.
fn export_buttons(
    ui: &mut egui::Ui,
    export: &mut export::LabExport,
    (what, copy_hover): (&str, &str),
    csv: &dyn Fn() -> String,
    data: &dyn Fn() -> export::LabExportData,
) {
    let (copy, copied) = (format!("Copy {what} CSV"), format!("the {what} CSV"));
    let secrets = crate::ui::copied_toast::Secrets::None;
    crate::ui::copied_toast::copy_button(ui, true, (&copy, copy_hover), (&copied, secrets), csv);
    #[rustfmt::skip]
    let files = [
        (export::LabFileFormat::Png, format!("Export {what} PNG…"), "save the plot as a PNG image"),
        (export::LabFileFormat::Csv, format!("Export {what} CSV…"), "save the plotted numbers as a CSV file"),
    ];
    for (format, label, hover) in files {
        if button(ui, true, label, hover) {
            let job = export::LabExportJob {
                data: data(),
                format,
            };
            export.ask(job, ui.ctx());
        }
    }
}
