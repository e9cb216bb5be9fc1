//! The stack calculator: layers outer → inner (the current profile or built-ins), the worst
//! case and expected attempts reaching a failing server, and a simulation.

use super::jobs::{LabJob, STACK_FAILURE_STATUS};
use super::{LabPanel, Running};
use crate::model::RetryProfile;
use crate::profile::{builtin, builtin_ids};
use crate::sim::STACK_ATTEMPT_BOUND;
use crate::ui::controls::button;

impl LabPanel {
    pub(super) fn stack_ui(&mut self, ui: &mut egui::Ui, profile: &RetryProfile) {
        ui.label("Layers, outer first: an app retrying around an SDK that retries multiplies the attempts on a failing server.");
        let ids = builtin_ids();
        for (i, layer) in self.stack_layers.iter_mut().enumerate() {
            let shown = layer
                .clone()
                .unwrap_or_else(|| "current profile".to_owned());
            egui::ComboBox::from_label(format!("Layer {}", i + 1))
                .selected_text(shown)
                .show_ui(ui, |ui| {
                    ui.selectable_value(layer, None, "current profile");
                    for id in &ids {
                        ui.selectable_value(layer, Some((*id).to_owned()), *id);
                    }
                });
        }
        ui.horizontal(|ui| {
            if ui.button("Add layer").clicked() {
                self.stack_layers.push(Some("aws-standard".to_owned()));
            }
            let more = self.stack_layers.len() > 1;
            if button(ui, more, "Remove last layer", "drop the innermost layer") {
                self.stack_layers.pop();
            }
            let rate = egui::DragValue::new(&mut self.failure_rate)
                .range(0.0..=1.0)
                .speed(0.01);
            crate::ui::panel_parts::labelled(ui, "Failure rate", rate)
                .on_hover_text("chance that one server attempt fails");
            let tip = "simulate calls through these layers against a failing server";
            if button(ui, self.running.is_none(), "Simulate stack", tip) {
                let layers: Vec<RetryProfile> = self
                    .stack_layers
                    .iter()
                    .filter_map(|l| match l {
                        None => Some(profile.clone()),
                        Some(id) => builtin(id),
                    })
                    .collect();
                let job = LabJob::Stack {
                    layers,
                    failure_rate: self.failure_rate,
                };
                self.start(Running::Stack, job);
            }
        });
        if self.running == Some(Running::Stack) {
            self.progress_ui(ui);
        }
        if let Some((a, s)) = super::simulated(ui, self.stack.as_ref()) {
            for &i in &a.not_retrying {
                ui.label(format!(
                    "layer {}: its triage does not retry {STACK_FAILURE_STATUS}, so it makes one attempt per call",
                    i + 1
                ));
            }
            ui.strong(format!(
                "In plain words: one call that meets a failing server becomes {:.1} attempts on it on average, and waits {} on average.",
                s.mean_attempts,
                super::spoken_ms(s.mean_time_ms)
            ));
            // The same wording as `simulate --stack`, saying what the figures ignore.
            for line in a.summary_lines() {
                ui.label(line);
            }
            if s.capped_runs {
                ui.label(format!(
                    "simulated {} of {} calls: the worst case would pass {STACK_ATTEMPT_BOUND} simulated server attempts",
                    s.runs, s.requested_runs
                ));
            }
            if s.cut_calls > 0 {
                ui.label(format!(
                    "{} calls were cut at {STACK_ATTEMPT_BOUND} server attempts and count as failed",
                    s.cut_calls
                ));
            }
            ui.label(format!(
                "simulated {} calls, every failed attempt answering {STACK_FAILURE_STATUS}: mean {:.2} attempts (max {}), mean {:.0} ms waiting (max {:.0} ms), {:.1} % succeeded",
                s.runs,
                s.mean_attempts,
                s.max_attempts,
                s.mean_time_ms,
                s.max_time_ms,
                s.success_share * 100.0
            ));
        }
    }
}
