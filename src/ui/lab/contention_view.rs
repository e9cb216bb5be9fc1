//! The contention view: N clients against one server, the seven strategies side by side —
//! calls vs N, completion time vs N, and the server load over time at one N.

use super::export::LabExportData;
use super::jobs::LabJob;
use super::{LabPanel, Running};
use crate::interop::{load_charts, load_csv, sweep_charts, sweep_csv};
use crate::model::RetryProfile;
use crate::sim::{ContentionResult, ContentionSetup, MAX_CLIENTS, ServerModel};
use crate::ui::controls::button;
use crate::ui::panel_parts::{labelled, text_grid};
use egui::DragValue;
use std::sync::Arc;

impl LabPanel {
    pub(super) fn contention_ui(&mut self, ui: &mut egui::Ui, profile: &RetryProfile) {
        self.contention_settings_ui(ui);
        ui.horizontal(|ui| {
            let idle = self.running.is_none();
            if button(
                ui,
                idle,
                "Run sweep",
                "simulate N = 1 … the largest N for every strategy",
            ) {
                let job = LabJob::Sweep {
                    setup: self.setup(1),
                    profile: profile.clone(),
                    base_cap_ms: (self.settings.base_ms, self.settings.cap_ms),
                    max_clients: self.settings.max_clients,
                };
                self.start(Running::Sweep, job);
            }
            if button(
                ui,
                idle,
                "Simulate load over time",
                "the server's calls per second over time at the chosen N",
            ) {
                let mut setup = self.setup(self.settings.load_clients);
                setup.keep_load = true;
                let job = LabJob::Load {
                    setup,
                    profile: profile.clone(),
                    base_cap_ms: (self.settings.base_ms, self.settings.cap_ms),
                };
                self.start(Running::Load, job);
            }
        });
        if matches!(self.running, Some(Running::Sweep | Running::Load)) {
            self.progress_ui(ui);
        }
        if let Some(points) = super::simulated(ui, self.sweep.as_ref()) {
            ui.horizontal_wrapped(|ui| {
                let copy_hover = "calls, completion time, gave up and load per N and strategy";
                super::export_buttons(
                    ui,
                    &mut self.export,
                    ("sweep", copy_hover),
                    &|| sweep_csv(points),
                    &|| LabExportData::Sweep(Arc::clone(points)),
                );
            });
            if let Some(sentence) = points.last().and_then(|p| plain_words(&p.results)) {
                ui.strong(sentence);
            }
            for (id, chart) in ["lab.calls_plot", "lab.completion_plot"]
                .into_iter()
                .zip(sweep_charts(points))
            {
                super::chart_plot(ui, id, 180.0, chart);
            }
        }
        if let Some(results) = super::simulated(ui, self.load.as_ref()) {
            ui.horizontal_wrapped(|ui| {
                let copy_hover = "calls per second per 10 ms bucket and strategy";
                super::export_buttons(
                    ui,
                    &mut self.export,
                    ("load", copy_hover),
                    &|| load_csv(results),
                    &|| LabExportData::Load(Arc::clone(results)),
                );
            });
            if let Some(sentence) = plain_words(results) {
                ui.strong(sentence);
            }
            for chart in load_charts(results) {
                ui.label(&chart.title);
                super::chart_plot(ui, "lab.load_plot", 180.0, chart);
            }
            load_table(ui, results);
        }
    }

    fn contention_settings_ui(&mut self, ui: &mut egui::Ui) {
        let s = &mut self.settings;
        ui.horizontal(|ui| {
            ui.radio_value(&mut s.capacity_model, false, "Optimistic concurrency (occ)")
                .on_hover_text("one row: of the writes competing in a window, one wins (the AWS blog post's model)");
            ui.radio_value(&mut s.capacity_model, true, "Capacity server")
                .on_hover_text("C requests a second; 429 above that");
        });
        if s.capacity_model {
            ui.horizontal(|ui| {
                let capacity = egui::DragValue::new(&mut s.capacity).range(1.0..=100_000.0);
                labelled(ui, "Capacity (req/s)", capacity);
                ui.checkbox(&mut s.retry_after, "Send Retry-After");
            });
        }
        ui.horizontal(|ui| {
            let clients = 1..=MAX_CLIENTS;
            labelled(
                ui,
                "Largest N",
                DragValue::new(&mut s.max_clients).range(clients.clone()),
            );
            labelled(
                ui,
                "Load at N",
                DragValue::new(&mut s.load_clients).range(clients),
            );
            labelled(
                ui,
                "Runs per point",
                DragValue::new(&mut s.runs).range(1..=1000),
            );
        });
        ui.horizontal(|ui| {
            let ms = 0..=86_400_000;
            let base = DragValue::new(&mut s.base_ms).range(ms.clone());
            labelled(ui, "Strategies' base delay (ms)", base);
            labelled(
                ui,
                "Strategies' max delay (ms)",
                DragValue::new(&mut s.cap_ms).range(ms),
            );
        });
    }

    /// The setup of the current settings at `clients` clients.
    fn setup(&self, clients: u32) -> ContentionSetup {
        let s = &self.settings;
        let mut setup = ContentionSetup::post();
        setup.clients = clients;
        setup.runs = s.runs;
        setup.keep_load = false;
        if s.capacity_model {
            setup.model = ServerModel::Capacity {
                per_second: s.capacity,
                retry_after: s.retry_after,
            };
        }
        setup.failure_status = setup.model.default_status();
        setup
    }
}

/// The result at one N in one sentence for someone who never read about retry storms, e.g.
/// "With 50 clients, Full jitter finishes in 1.9 s with 3.1× fewer calls than No jitter.":
/// the strategy with the fewest calls against the one with the most; `None` below two.
fn plain_words(results: &[ContentionResult]) -> Option<String> {
    let by_calls =
        |a: &&ContentionResult, b: &&ContentionResult| a.total_calls.total_cmp(&b.total_calls);
    let best = results.iter().min_by(by_calls)?;
    let worst = results.iter().max_by(by_calls)?;
    if results.len() < 2 || best.total_calls <= 0.0 {
        return None;
    }
    let ratio = worst.total_calls / best.total_calls;
    let fewer = if ratio >= 1.05 {
        format!("{ratio:.1}× fewer calls than {}", worst.label)
    } else {
        format!("about as many calls as {}", worst.label)
    };
    Some(format!(
        "With {} clients, {} finishes in {} with {fewer}.",
        best.clients,
        best.label,
        super::spoken_ms(best.completion_ms)
    ))
}

/// Per strategy at the load view's N: calls, completion time, clients that gave up and the
/// peak and mean load (the figures the plots do not show).
fn load_table(ui: &mut egui::Ui, results: &[ContentionResult]) {
    #[rustfmt::skip]
    let titles = ["strategy", "calls", "completion ms", "gave up", "peak load/s", "mean load/s"];
    let rows = results.iter().map(|r| {
        [
            r.label.clone(),
            format!("{:.1}", r.total_calls),
            format!("{:.0}", r.completion_ms),
            format!("{:.1}", r.gave_up),
            format!("{:.0}", r.peak_load),
            format!("{:.0}", r.mean_load),
        ]
    });
    text_grid(ui, "lab.load_table", &titles, rows);
}
