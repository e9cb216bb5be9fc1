//! The selected run's header: banner or live status, Cancel / Retry now / Copy as text /
//! Export PNG… / Save as file (HAR, CSV, events).

use super::TimelineAction;
use super::colors::banner_color;
use super::live_status::live_status;
use super::run_timeline::{Phase, Timeline};
use crate::ui::controls::button;
use crate::ui::copied_toast::{Secrets, copy_button};
use crate::ui::run_export::{self, RunFile};
use egui::{Color32, RichText};
use std::time::Instant;

/// Draws the banner (coloured by outcome kind) or live status, the buttons, and the run facts.
/// Button presses are pushed onto `actions`. A `read_only` run (from history; the text says
/// so) has no Cancel or Retry now.
pub fn show(
    ui: &mut egui::Ui,
    timeline: &Timeline,
    request: Option<&std::sync::Arc<super::SentRequest>>,
    read_only: Option<&str>,
    now: Instant,
    actions: &mut Vec<TimelineAction>,
) {
    let run_id = timeline.run_id();
    // The banner or live status on a line of its own (wrapping), so a long message such as a
    // script error never pushes the buttons out of the panel.
    match timeline.finished() {
        Some(f) => {
            egui::Frame::new()
                .fill(banner_color(f.banner.kind))
                .inner_margin(egui::Margin::symmetric(10, 4))
                .corner_radius(4.0)
                .show(ui, |ui| {
                    ui.add(
                        egui::Label::new(
                            RichText::new(&f.banner.text).strong().color(Color32::WHITE),
                        )
                        .wrap(),
                    );
                });
        }
        None if read_only.is_some() => {
            ui.label(RichText::new("not finished when it was recorded").strong());
        }
        None => {
            let status = live_status(timeline, Some(now)).unwrap_or_default();
            ui.label(RichText::new(status).strong());
        }
    }
    ui.horizontal_wrapped(|ui| {
        if let Some(label) = read_only {
            ui.label(RichText::new(label).italics())
                .on_hover_text("a recorded run, shown read-only; re-run it from the History panel");
        }
        let waiting = matches!(timeline.phase(), Phase::Waiting(_));
        #[rustfmt::skip]
        let live = [
            (timeline.is_active(), "Cancel", "End this run now (Esc)", TimelineAction::Cancel(run_id)),
            (waiting, "Retry now", "Skip the rest of this wait and start the next attempt",
             TimelineAction::SkipWait(run_id)),
        ];
        for (enabled, label, tip, action) in live {
            if read_only.is_none() && button(ui, enabled, label, tip) {
                actions.push(action);
            }
        }
        let tip = "Copy the whole timeline as plain text";
        copy_button(
            ui,
            true,
            ("Copy as text", tip),
            ("the run as text", Secrets::Masked),
            || timeline.to_text(),
        );
        super::har_copy::copy_as_har_ui(ui, timeline, request);
        let any = !timeline.attempts().is_empty();
        let tip = "save the timeline plot as a PNG image (secrets masked)";
        if button(ui, any, run_export::EXPORT_PNG_LABEL, tip) {
            actions.push(TimelineAction::Export(run_id, RunFile::Png));
        }
        let tip = "save the run as a HAR, CSV or events file (secrets masked)";
        if any {
            // In this row's own Ui (not a child scope), so a full row wraps it whole.
            ui.menu_button(run_export::SAVE_AS_FILE_LABEL, |ui| {
                for file in RunFile::TEXT {
                    if ui.button(format!("{}…", file.label())).clicked() {
                        actions.push(TimelineAction::Export(run_id, file));
                        ui.close();
                    }
                }
            })
            .response
            .on_hover_text(tip);
        } else {
            ui.add_enabled(false, egui::Button::new(run_export::SAVE_AS_FILE_LABEL))
                .on_disabled_hover_text(tip);
        }
    });
    let Some(line) = timeline.header_line() else {
        return;
    };
    // One line; the full text shows on hover when it is cut.
    ui.add(egui::Label::new(line).truncate());
    if timeline.tls_unverified() {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            crate::model::TLS_UNVERIFIED_NOTE,
        );
    }
}
