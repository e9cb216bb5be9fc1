//! "Export curl…": the composer's request as a curl command, shown in a modal with an
//! "Include secrets" checkbox (off by default) and a Copy button for the system clipboard.

use super::controls::{button, modal};
use super::copied_toast::{Secrets, copy_button};
use crate::interop::{curl_not_expressible, draft_to_curl};
use crate::model::RequestDraft;
use egui::Ui;

/// The modal's state.
#[derive(Debug, Default)]
pub struct CurlExporter {
    /// Whether the modal is open.
    pub open: bool,
    /// Write secret values instead of `***` (off every time the modal opens).
    pub include_secrets: bool,
}

impl CurlExporter {
    /// Opens the modal, secrets masked.
    pub fn open(&mut self) {
        self.open = true;
        self.include_secrets = false;
    }

    /// Draws the modal for `draft` when open.
    pub fn modal_ui(&mut self, ui: &Ui, draft: &RequestDraft) {
        if !self.open {
            return;
        }
        let (close, dismissed) = modal(ui.ctx(), "curl_export_modal", 640.0, "Export curl", |ui| {
            ui.checkbox(&mut self.include_secrets, "Include secrets")
                .on_hover_text(
                    "write tokens, passwords, cookies and secret query values as they are \
                     instead of ***",
                );
            let mut command = draft_to_curl(draft, self.include_secrets);
            egui::ScrollArea::vertical()
                .max_height(300.0)
                .show(ui, |ui| {
                    ui.add(
                        egui::TextEdit::multiline(&mut command)
                            .id_salt("curl_export.text")
                            .code_editor()
                            .interactive(false)
                            .desired_width(f32::INFINITY),
                    );
                });
            let left_out = curl_not_expressible(draft);
            if !left_out.is_empty() {
                ui.weak(format!(
                    "not in the command (curl has no such option): {}",
                    left_out.join(", ")
                ));
            }
            ui.weak("{{variables}} are written as typed");
            ui.horizontal(|ui| {
                let tip = "copy the command to the clipboard";
                let secrets = Secrets::included_if(self.include_secrets);
                let what = ("the request as curl", secrets);
                let copied = copy_button(ui, true, ("Copy", tip), what, || command);
                button(ui, true, "Close", "close (Esc)") || copied
            })
            .inner
        });
        if close || dismissed {
            self.open = false;
        }
    }
}
