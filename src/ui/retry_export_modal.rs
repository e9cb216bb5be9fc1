//! "Export as…": the current profile as another tool's retry settings (curl flags, urllib3,
//! tenacity, Polly, gRPC, Envoy, Dapr, AWS config), with what the target cannot express, a
//! Copy button and Save… (the workbench asks for the path and writes the file).

use super::controls::{button, picker};
use super::copied_toast::{Secrets, copy_button};
use crate::interop::retry_formats::{ExportedPolicy, RetryFormat, export};
use crate::model::RetryProfile;
use egui::{Id, Ui};

/// Height of the exported text's box, points.
const TEXT_HEIGHT: f32 = 300.0;
/// Largest height of the list of what the target cannot express, points.
const GAPS_HEIGHT: f32 = 160.0;

/// The modal's state. The export is recomputed only when the format or the profile changes.
#[derive(Debug, Default)]
pub struct RetryExporter {
    /// Whether the modal is open.
    pub open: bool,
    /// The target format (kept between openings).
    pub format: RetryFormat,
    cache: Option<(RetryFormat, RetryProfile, ExportedPolicy)>,
    /// The text Save… is writing (set when it was clicked, taken by the workbench).
    pending: Option<String>,
}

impl RetryExporter {
    /// Opens the modal.
    pub fn open(&mut self) {
        self.open = true;
    }

    /// The text Save… asked to write, taken (the workbench writes it to the chosen path).
    pub fn take_pending(&mut self) -> Option<String> {
        self.pending.take()
    }

    fn exported(&mut self, profile: &RetryProfile) -> ExportedPolicy {
        let stale = self
            .cache
            .as_ref()
            .is_none_or(|(f, p, _)| *f != self.format || p != profile);
        if stale {
            self.cache = Some((self.format, profile.clone(), export(profile, self.format)));
        }
        self.cache
            .as_ref()
            .map_or_else(|| export(profile, self.format), |(_, _, e)| e.clone())
    }

    /// Draws the modal for `profile` when open; returns the file name to suggest when Save…
    /// was clicked (the text is then in [`RetryExporter::take_pending`]).
    pub fn modal_ui(&mut self, ui: &Ui, profile: &RetryProfile) -> Option<String> {
        if !self.open {
            return None;
        }
        let mut close = false;
        let mut save = None;
        // Anchored by its top, at one width, its lists at fixed heights: egui centres a modal
        // from its size in the frame before, so a modal whose lists are measured only once
        // drawn moved between the frames of a click, and the first click on Format missed.
        let id = Id::unique("retry_export_modal");
        let area = egui::Modal::default_area(id).anchor(egui::Align2::CENTER_TOP, [0.0, 40.0]);
        let modal = egui::Modal::new(id).area(area).show(ui.ctx(), |ui| {
            ui.set_width(720.0_f32.min(ui.ctx().content_rect().width() - 60.0));
            ui.heading("Export as…");
            let formats = RetryFormat::ALL.map(|f| (f, f.label(), ""));
            picker(
                ui,
                "retry_export.format",
                "Format",
                &mut self.format,
                &formats,
            );
            let format = self.format;
            let exported = self.exported(profile);
            let mut text = exported.text.clone();
            egui::ScrollArea::vertical()
                .id_salt("retry_export.scroll")
                .min_scrolled_height(TEXT_HEIGHT)
                .max_height(TEXT_HEIGHT)
                .auto_shrink(false)
                .show(ui, |ui| {
                    let label = ui.label("Exported settings");
                    ui.add(
                        egui::TextEdit::multiline(&mut text)
                            .id_salt("retry_export.text")
                            .code_editor()
                            .interactive(false)
                            .desired_width(f32::INFINITY),
                    )
                    .labelled_by(label.id);
                });
            if exported.not_expressed.is_empty() {
                ui.weak("nothing is lost: the target expresses the whole profile");
            } else {
                let where_ = if exported.commented {
                    "also in the text's comments"
                } else {
                    "not in the text: this format has no comments"
                };
                ui.label(format!("Not expressible in {} ({where_}):", format.label()));
                egui::ScrollArea::vertical()
                    .id_salt("retry_export.gaps")
                    .max_height(GAPS_HEIGHT)
                    .show(ui, |ui| {
                        for gap in &exported.not_expressed {
                            ui.label(format!("• {gap}"));
                        }
                    });
            }
            ui.horizontal(|ui| {
                let tip = "copy the exported settings to the clipboard";
                let what = ("the exported settings", Secrets::None);
                copy_button(ui, true, ("Copy", tip), what, || exported.text.clone());
                if button(ui, true, "Save…", "save the exported settings to a file") {
                    self.pending = Some(exported.text.clone());
                    save = Some(suggested_name(&profile.name, format));
                    close = true;
                }
                close |= button(ui, true, "Close", "close (Esc)");
            });
        });
        if close || modal.should_close() {
            self.open = false;
        }
        save
    }
}

/// `My API` + gRPC → `my-api.grpc.json`.
fn suggested_name(profile_name: &str, format: RetryFormat) -> String {
    let stem = super::profile_library::file_stem(profile_name);
    format!("{stem}.{}.{}", format.id(), format.extension())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggested_names_carry_format_and_extension() {
        assert_eq!(
            suggested_name("My API", RetryFormat::GrpcConfig),
            "my-api.grpc.json"
        );
        assert_eq!(
            suggested_name("??", RetryFormat::Envoy),
            "profile.envoy.yaml"
        );
    }
}
