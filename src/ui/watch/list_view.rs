//! The recorded watches as a table: id, request (masked as stored), schedule, state, runs and
//! missed slots, success rate. A click on a watch's id selects it.

use crate::report::{Proportion, percent_text};
use crate::store::WatchRecord;

/// Draws `watches`; returns the id of the watch clicked.
pub fn show(
    ui: &mut egui::Ui,
    watches: &[(WatchRecord, Proportion)],
    selected: Option<&str>,
) -> Option<String> {
    if watches.is_empty() {
        ui.weak("No watches recorded (start one with `retryscope watch URL --every 30s`).");
        return None;
    }
    let mut clicked = None;
    // Scrolls sideways on its own, a long schedule or URL must not widen the whole tab; with
    // solid bars, which take their own room instead of covering the last row.
    ui.scope(|ui| {
        ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
        egui::ScrollArea::both()
            .id_salt("watches.list")
            .auto_shrink([false, true])
            .max_height(160.0)
            .show(ui, |ui| {
                egui::Grid::new("watches.table")
                    .striped(true)
                    .show(ui, |ui| {
                        for title in ["Watch", "Request", "Schedule", "State", "Runs", "Success"] {
                            ui.strong(title);
                        }
                        ui.end_row();
                        for (w, rate) in watches {
                            let short = &w.id[..w.id.len().min(13)];
                            let picked = ui.push_id(&w.id, |ui| {
                                ui.selectable_label(selected == Some(w.id.as_str()), short)
                                    .on_hover_text(&w.id)
                                    .clicked()
                            });
                            if picked.inner {
                                clicked = Some(w.id.clone());
                            }
                            ui.add(egui::Label::new(format!("{} {}", w.method, w.url)).truncate());
                            ui.label(crate::service::watch_service::schedule_text(&w.schedule));
                            ui.label(w.state.id());
                            ui.label(format!(
                                "{}, {} missed",
                                crate::model::counted(w.runs, "run", "runs"),
                                w.missed
                            ));
                            ui.label(if rate.trials == 0 {
                                "—".to_owned()
                            } else {
                                format!("{} success", percent_text(rate.value))
                            });
                            ui.end_row();
                        }
                    });
            });
    });
    clicked
}
