//! The contention view: N clients against one server, the seven strategies side by side —
//! calls vs N, completion time vs N, and the server load over time at one N.

use super::export::LabExportData;
use super::jobs::LabJob;
use super::{LabPanel, Running};
use crate::interop::{load_csv, sweep_csv};
use crate::model::RetryProfile;
use crate::sim::{ContentionResult, ContentionSetup, MAX_CLIENTS, ServerModel, SweepPoint};
use egui_plot::{Legend, Line, Plot};
use std::sync::Arc;

impl LabPanel {
    pub(super) fn contention_ui(&mut self, ui: &mut egui::Ui, profile: &RetryProfile) {
        self.contention_settings_ui(ui);
        ui.horizontal(|ui| {
            let idle = self.running.is_none();
            if ui
                .add_enabled(idle, egui::Button::new("Run sweep"))
                .on_hover_text("simulate N = 1 … the largest N for every strategy")
                .clicked()
            {
                let job = LabJob::Sweep {
                    setup: self.setup(1),
                    profile: profile.clone(),
                    base_cap_ms: (self.settings.base_ms, self.settings.cap_ms),
                    max_clients: self.settings.max_clients,
                };
                self.start(Running::Sweep, job);
            }
            if ui
                .add_enabled(idle, egui::Button::new("Simulate load over time"))
                .on_hover_text("the server's calls per second over time at the chosen N")
                .clicked()
            {
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
        match &self.sweep {
            Some(Ok(points)) => {
                let points = Arc::clone(points);
                if ui
                    .button("Copy sweep CSV")
                    .on_hover_text("calls, completion time, gave up and load per N and strategy")
                    .clicked()
                {
                    crate::ui::copied_toast::copy(
                        ui.ctx(),
                        sweep_csv(&points),
                        "the sweep CSV",
                        crate::ui::copied_toast::Secrets::None,
                    );
                }
                ui.horizontal_wrapped(|ui| {
                    super::export_buttons(ui, &mut self.export, "sweep", &|| {
                        LabExportData::Sweep(Arc::clone(&points))
                    });
                });
                sweep_plot(ui, "lab.calls_plot", "calls", &points, |r| r.total_calls);
                sweep_plot(ui, "lab.completion_plot", "completion ms", &points, |r| {
                    r.completion_ms
                });
            }
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, format!("cannot simulate: {e}"));
            }
            None => {}
        }
        match &self.load {
            Some(Ok(results)) => {
                let results = Arc::clone(results);
                if ui
                    .button("Copy load CSV")
                    .on_hover_text("calls per second per 10 ms bucket and strategy")
                    .clicked()
                {
                    crate::ui::copied_toast::copy(
                        ui.ctx(),
                        load_csv(&results),
                        "the load CSV",
                        crate::ui::copied_toast::Secrets::None,
                    );
                }
                ui.horizontal_wrapped(|ui| {
                    super::export_buttons(ui, &mut self.export, "load", &|| {
                        LabExportData::Load(Arc::clone(&results))
                    });
                });
                load_plot(ui, &results);
                load_table(ui, &results);
            }
            Some(Err(e)) => {
                ui.colored_label(ui.visuals().error_fg_color, format!("cannot simulate: {e}"));
            }
            None => {}
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
                let label = ui.label("Capacity (req/s)");
                ui.add(egui::DragValue::new(&mut s.capacity).range(1.0..=100_000.0))
                    .labelled_by(label.id);
                ui.checkbox(&mut s.retry_after, "Send Retry-After");
            });
        }
        ui.horizontal(|ui| {
            let label = ui.label("Largest N");
            ui.add(egui::DragValue::new(&mut s.max_clients).range(1..=MAX_CLIENTS))
                .labelled_by(label.id);
            let label = ui.label("Load at N");
            ui.add(egui::DragValue::new(&mut s.load_clients).range(1..=MAX_CLIENTS))
                .labelled_by(label.id);
            let label = ui.label("Runs per point");
            ui.add(egui::DragValue::new(&mut s.runs).range(1..=1000))
                .labelled_by(label.id);
        });
        ui.horizontal(|ui| {
            let label = ui.label("Strategies' base delay (ms)");
            ui.add(egui::DragValue::new(&mut s.base_ms).range(0..=86_400_000))
                .labelled_by(label.id);
            let label = ui.label("Strategies' max delay (ms)");
            ui.add(egui::DragValue::new(&mut s.cap_ms).range(0..=86_400_000))
                .labelled_by(label.id);
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

/// One line per strategy of `value` against N.
fn sweep_plot(
    ui: &mut egui::Ui,
    id: &str,
    y: &str,
    points: &[SweepPoint],
    value: fn(&ContentionResult) -> f64,
) {
    let strategies = points.first().map_or(0, |p| p.results.len());
    Plot::new(id)
        .height(180.0)
        .legend(Legend::default().position(egui_plot::Corner::LeftTop))
        .y_axis_min_width(48.0)
        .y_grid_spacer(egui_plot::uniform_grid_spacer(|g| {
            super::nice_grid_steps(g.bounds)
        }))
        .x_axis_label("clients N")
        .y_axis_label(y)
        .show(ui, |plot_ui| {
            for i in 0..strategies {
                let name = points[0].results[i].label.clone();
                let line: Vec<[f64; 2]> = points
                    .iter()
                    .filter_map(|p| p.results.get(i).map(|r| [f64::from(p.clients), value(r)]))
                    .collect();
                plot_ui.line(Line::new(name, line));
            }
        });
}

/// The server load over time, one line per strategy.
fn load_plot(ui: &mut egui::Ui, results: &[ContentionResult]) {
    let clients = results.first().map_or(0, |r| r.clients);
    ui.label(format!(
        "server load at N = {clients} (calls a second, mean of the runs)"
    ));
    Plot::new("lab.load_plot")
        .height(180.0)
        .legend(Legend::default().position(egui_plot::Corner::LeftTop))
        .y_axis_min_width(48.0)
        .y_grid_spacer(egui_plot::uniform_grid_spacer(|g| {
            super::nice_grid_steps(g.bounds)
        }))
        .x_axis_label("time ms")
        .y_axis_label("calls/s")
        .show(ui, |plot_ui| {
            for r in results {
                let line: Vec<[f64; 2]> = r
                    .load
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| [i as f64 * r.bucket_ms, v])
                    .collect();
                plot_ui.line(Line::new(r.label.clone(), line));
            }
        });
}

/// Per strategy at the load view's N: calls, completion time, clients that gave up and the
/// peak and mean load (the figures the plots do not show).
fn load_table(ui: &mut egui::Ui, results: &[ContentionResult]) {
    egui::Grid::new("lab.load_table")
        .striped(true)
        .show(ui, |ui| {
            for head in [
                "strategy",
                "calls",
                "completion ms",
                "gave up",
                "peak load/s",
                "mean load/s",
            ] {
                ui.strong(head);
            }
            ui.end_row();
            for r in results {
                ui.label(&r.label);
                ui.label(format!("{:.1}", r.total_calls));
                ui.label(format!("{:.0}", r.completion_ms));
                ui.label(format!("{:.1}", r.gave_up));
                ui.label(format!("{:.0}", r.peak_load));
                ui.label(format!("{:.0}", r.mean_load));
                ui.end_row();
            }
        });
}
