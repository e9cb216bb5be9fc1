//! "Import HAR…": after a HAR file is picked, a modal lists its entries (method, URL with
//! secrets masked, status); the chosen entry fills the composer.

use super::controls::{button, labelled, modal};
use crate::interop::{HarEntrySummary, HarFile};
use crate::model::RequestDraft;
use egui::Ui;
use std::path::Path;

/// The picker's state: the file read, its entries, and the filter text.
#[derive(Debug, Default)]
pub struct HarPicker {
    file: Option<(String, HarFile, Vec<HarEntrySummary>)>,
    /// Only entries whose method or URL contain this text are listed.
    pub filter: String,
}

impl HarPicker {
    /// Parses the HAR file picked at `path`, whose `contents` the picker read off the UI thread,
    /// and opens the list.
    ///
    /// # Errors
    /// `cannot import HAR (…): PATH` when it could not be read, is not UTF-8 or is not HAR; the
    /// picker stays closed.
    pub fn open_read(
        &mut self,
        path: &Path,
        contents: Result<Vec<u8>, String>,
    ) -> Result<(), String> {
        let fail = |why: String| format!("cannot import HAR ({why}): {}", path.display());
        let bytes = contents.map_err(fail)?;
        let text = crate::model::utf8_text(&bytes).map_err(|e| fail(e.message("the file")))?;
        self.open_text(&path.display().to_string(), text)
            .map_err(fail)
    }

    /// Parses HAR `text` named `name` and opens the list.
    ///
    /// # Errors
    /// The parse error, lowercase.
    pub fn open_text(&mut self, name: &str, text: &str) -> Result<(), String> {
        let file = HarFile::parse(text).map_err(|e| e.to_string())?;
        let summaries = file.summaries();
        self.file = Some((name.to_owned(), file, summaries));
        self.filter.clear();
        Ok(())
    }

    /// Whether the entry list is open.
    pub fn is_open(&self) -> bool {
        self.file.is_some()
    }

    /// Draws the entry list when open; returns the chosen entry's draft.
    pub fn modal_ui(&mut self, ui: &Ui) -> Option<RequestDraft> {
        let (name, file, summaries) = self.file.as_ref()?;
        let mut chosen = None;
        let (cancel, dismissed) = modal(ui.ctx(), "har_import_modal", 760.0, "Import HAR", |ui| {
            ui.label(format!(
                "{} in {name}; pick one to fill the composer.",
                crate::model::counted(summaries.len() as u64, "entry", "entries")
            ));
            let filter = egui::TextEdit::singleline(&mut self.filter).id_salt("har_import.filter");
            labelled(ui, "Filter entries", filter);
            let needle = self.filter.to_lowercase();
            egui::ScrollArea::vertical()
                .max_height(360.0)
                .show(ui, |ui| {
                    for entry in summaries.iter().filter(|e| {
                        needle.is_empty()
                            || e.url.to_lowercase().contains(&needle)
                            || e.method.to_lowercase().contains(&needle)
                    }) {
                        let status = entry
                            .status
                            .map_or_else(|| "no response".to_owned(), |s| s.to_string());
                        let text = format!("{} {} → {status}", entry.method, entry.url);
                        if ui
                            .add(egui::Button::new(text).truncate())
                            .on_hover_text("fill the composer with this request")
                            .clicked()
                        {
                            chosen = Some(file.draft(entry.index).ok());
                        }
                    }
                });
            button(ui, true, "Cancel", "close (Esc)")
        });
        if cancel || dismissed || chosen.is_some() {
            self.file = None;
        }
        chosen.flatten()
    }
}
