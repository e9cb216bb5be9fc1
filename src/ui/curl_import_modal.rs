//! "Import curl…": a modal with a multi-line box for a pasted curl command, and the notes of
//! the last import (what it could not carry over), shown under the composer's buttons. A
//! command pasted into the URL field goes through [`CurlImporter::import`] too.

use super::controls::{button, error_line, modal};
use crate::interop::parse_curl;
use crate::model::RequestDraft;
use egui::Ui;

/// The modal's state and the notes of the last import.
#[derive(Debug, Default)]
pub struct CurlImporter {
    /// Whether the modal is open.
    pub open: bool,
    /// The command being pasted.
    pub text: String,
    /// Why the last attempt to import failed (shown in the modal, or under the URL field).
    pub error: Option<String>,
    /// What the last successful import did not carry over (`--proxy (ignored: not supported)`).
    pub notes: Vec<String>,
}

impl CurlImporter {
    /// Opens the modal with an empty box.
    pub fn open(&mut self) {
        self.open = true;
        self.text.clear();
        self.error = None;
    }

    /// Reads `command`; on success returns the draft and keeps the import's notes, else keeps
    /// the error and returns `None`.
    pub fn import(&mut self, command: &str) -> Option<RequestDraft> {
        match parse_curl(command) {
            Ok(import) => {
                self.error = None;
                self.notes.clone_from(&import.unsupported);
                self.notes.extend(import.output_notes());
                Some(import.draft)
            }
            Err(e) => {
                self.error = Some(format!("cannot import the curl command: {e}"));
                None
            }
        }
    }

    /// Draws the modal when open; returns the imported draft when Import succeeded.
    pub fn modal_ui(&mut self, ui: &Ui) -> Option<RequestDraft> {
        if !self.open {
            return None;
        }
        let ((imported, close), dismissed) =
            modal(ui.ctx(), "curl_import_modal", 640.0, "Import curl", |ui| {
                ui.label(
                    "Paste a curl command (bash, or Windows cmd as browsers copy it); it replaces \
                 the request in the composer.",
                );
                let label = ui.label("curl command");
                egui::ScrollArea::vertical()
                    .max_height(300.0)
                    .show(ui, |ui| {
                        ui.add(
                            egui::TextEdit::multiline(&mut self.text)
                                .id_salt("curl_import.text")
                                .code_editor()
                                .desired_rows(10)
                                .desired_width(f32::INFINITY),
                        )
                        .labelled_by(label.id);
                    });
                error_line(ui, self.error.as_deref());
                ui.horizontal(|ui| {
                    let ready = !self.text.trim().is_empty();
                    let mut imported = None;
                    if button(ui, ready, "Import", "fill the composer from this command") {
                        let text = self.text.clone();
                        imported = self.import(&text);
                    }
                    let cancel = button(ui, true, "Cancel", "close (Esc)");
                    let close = cancel || imported.is_some();
                    (imported, close)
                })
                .inner
            });
        if close || dismissed {
            self.open = false;
        }
        imported
    }

    /// The last import's notes (or the URL-field paste error), with a Dismiss button.
    pub fn notes_ui(&mut self, ui: &mut Ui) {
        if self.notes.is_empty() && (self.open || self.error.is_none()) {
            return;
        }
        let mut dismiss = false;
        ui.group(|ui| {
            if let Some(error) = self.error.as_deref().filter(|_| !self.open) {
                error_line(ui, Some(error));
            } else {
                ui.label("Imported from curl; not carried over:");
                for note in &self.notes {
                    ui.weak(format!("• {note}"));
                }
            }
            dismiss = ui
                .small_button("Dismiss")
                .on_hover_text("hide these notes")
                .clicked();
        });
        if dismiss {
            self.notes.clear();
            self.error = None;
        }
    }
}
