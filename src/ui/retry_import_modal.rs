//! "Import from…": pick a format, then a file (the workbench's file dialog); the modal shows
//! the imported profile's name and every setting that did not map, and "Use this profile"
//! replaces the current profile (asking first when it has unsaved edits).

use super::controls::{button, modal, picker};
use crate::interop::retry_formats::{Carried, ImportedPolicy, RetryFormat, import_bytes};
use crate::model::RetryProfile;
use crate::model::counted;
use egui::Ui;
use std::path::Path;

/// What the user asked for in the modal.
#[derive(Debug, Clone, PartialEq)]
pub enum ImportAction {
    /// Pick a file of this format.
    ChooseFile(RetryFormat),
    /// Use the imported profile.
    Use(Box<RetryProfile>),
}

/// The modal's state: the format and the last file read (its result).
#[derive(Debug, Default)]
pub struct RetryImporter {
    /// Whether the modal is open.
    pub open: bool,
    /// The source format (kept between openings).
    pub format: RetryFormat,
    result: Option<(String, Result<ImportedPolicy, String>)>,
}

impl RetryImporter {
    /// Opens the modal, forgetting the previous file.
    pub fn open(&mut self) {
        self.open = true;
        self.result = None;
    }

    /// Imports the file picked at `path` as `format` from the `contents` the picker read off the
    /// UI thread, and shows the result.
    pub fn open_read(
        &mut self,
        format: RetryFormat,
        path: &Path,
        contents: Result<Vec<u8>, String>,
    ) {
        self.format = format;
        let name = path.file_stem().map_or_else(
            || "imported".to_owned(),
            |s| s.to_string_lossy().into_owned(),
        );
        let result = contents
            .map_err(|e| crate::store::input_file::cannot_read(path.display(), "the file", e))
            .and_then(|bytes| {
                import_bytes(format, &bytes, &name).map_err(|e| e.shown(format, path))
            });
        self.result = Some((path.display().to_string(), result));
        self.open = true;
    }

    /// Draws the modal when open.
    pub fn modal_ui(&mut self, ui: &Ui) -> Option<ImportAction> {
        if !self.open {
            return None;
        }
        let mut action = None;
        let (cancel, dismissed) = modal(
            ui.ctx(),
            "retry_import_modal",
            720.0,
            "Import from…",
            |ui| {
                ui.horizontal(|ui| {
                    let formats: Vec<_> = RetryFormat::ALL
                        .into_iter()
                        .filter(|f| f.can_import())
                        .map(|f| (f, f.label(), ""))
                        .collect();
                    picker(
                        ui,
                        "retry_import.format",
                        "Format",
                        &mut self.format,
                        &formats,
                    );
                    if button(ui, true, "Choose file…", "pick the file to import") {
                        action = Some(ImportAction::ChooseFile(self.format));
                    }
                });
                match &self.result {
                    None => {
                        ui.weak("pick a file: settings that do not map are listed here before you use the profile");
                    }
                    Some((file, Err(problem))) => {
                        ui.colored_label(ui.visuals().error_fg_color, problem.as_str())
                            .on_hover_text(file.as_str());
                    }
                    Some((file, Ok(imported))) => {
                        ui.label(format!("Profile \"{}\" from {file}", imported.profile.name));
                        if imported.unmapped.is_empty() {
                            ui.weak("every setting mapped exactly");
                        } else {
                            ui.label(format!(
                                "{} did not map exactly:",
                                counted(imported.unmapped.len() as u64, "setting", "settings")
                            ));
                            egui::ScrollArea::vertical()
                                .id_salt("retry_import.unmapped")
                                .max_height(240.0)
                                .show(ui, |ui| {
                                    for u in &imported.unmapped {
                                        let what = match u.carried {
                                            Carried::Dropped => "not mapped",
                                            Carried::Approximated => "approximated",
                                        };
                                        ui.label(format!("• {what}: {} = {}", u.path, u.value))
                                            .on_hover_text(u.reason.as_str());
                                        ui.weak(format!("   {}", u.reason));
                                    }
                                });
                        }
                        let tip = "replace the current profile with the imported one (unsaved)";
                        if button(ui, true, "Use this profile", tip) {
                            action = Some(ImportAction::Use(Box::new(imported.profile.clone())));
                        }
                    }
                }
                button(ui, true, "Cancel", "close (Esc)")
            },
        );
        if cancel || dismissed || matches!(action, Some(ImportAction::Use(_))) {
            self.open = false;
        }
        action
    }
}
