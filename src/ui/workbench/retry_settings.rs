//! The workbench's side of "Export as…" / "Import from…": the two modals, the file dialogs
//! they ask for, writing the export and switching to an imported profile.

use super::WorkbenchState;
use super::profile_files::Switch;
use crate::ui::file_dialogs::DialogPurpose;
use crate::ui::retry_import_modal::ImportAction;
use egui::Ui;
use std::path::Path;

impl WorkbenchState {
    /// The two buttons, in the profile area of the policy panel.
    pub(super) fn retry_settings_buttons(&mut self, ui: &mut Ui) {
        if ui
            .small_button("Export as…")
            .on_hover_text("write this profile as curl flags, urllib3, tenacity, Polly, gRPC, Envoy, Dapr or AWS config settings")
            .clicked()
        {
            self.profile.retry_export.open();
        }
        if ui
            .small_button("Import from…")
            .on_hover_text(
                "read Polly, gRPC, Envoy, Dapr or AWS config retry settings into a new profile",
            )
            .clicked()
        {
            self.profile.retry_import.open();
        }
    }

    /// Draws the modals and acts on what they ask.
    pub(super) fn retry_settings_modals(&mut self, ui: &Ui) {
        if let Some(suggested_name) = self
            .profile
            .retry_export
            .modal_ui(ui, &self.profile.current.profile)
        {
            self.dialogs
                .request(DialogPurpose::ExportRetrySettings { suggested_name });
        }
        match self.profile.retry_import.modal_ui(ui) {
            Some(ImportAction::ChooseFile(format)) => {
                self.dialogs
                    .request(DialogPurpose::ImportRetrySettings(format));
            }
            Some(ImportAction::Use(profile)) => {
                self.request_switch(Switch::Imported(profile));
            }
            None => {}
        }
    }

    /// A path chosen for "Export as…" (write the text) or "Import from…" (its `contents`, read
    /// off the UI thread by the picker).
    pub(super) fn on_retry_settings_path(
        &mut self,
        purpose: &DialogPurpose,
        path: &Path,
        contents: Option<Result<Vec<u8>, String>>,
    ) {
        match purpose {
            DialogPurpose::ExportRetrySettings { .. } => {
                let Some(text) = self.profile.retry_export.take_pending() else {
                    return;
                };
                self.status = Some(match crate::store::write_export(path, text.as_bytes()) {
                    Ok(()) => (false, format!("exported {}", path.display())),
                    Err(e) => (true, format!("cannot export the retry settings: {e}")),
                });
            }
            DialogPurpose::ImportRetrySettings(format) => {
                let contents = contents.unwrap_or_else(|| Err("the file was not read".into()));
                self.profile.retry_import.open_read(*format, path, contents);
            }
            _ => {}
        }
    }
}
