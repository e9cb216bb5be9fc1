//! "Import HAR…": after a HAR file is picked, a modal lists its entries (method, URL with
//! secrets masked, status); the chosen entry fills the composer.

use super::controls::{button, labelled, modal};
use crate::interop::{HarEntrySummary, HarError, HarFile};
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
    /// `PATH:LINE:COL: cannot import HAR: …` when it is not UTF-8 or not HAR, `PATH: cannot read
    /// the file: …` when it could not be read; the picker stays closed.
    pub fn open_read(
        &mut self,
        path: &Path,
        contents: Result<Vec<u8>, String>,
    ) -> Result<(), String> {
        let fail = |line, column, why: &dyn std::fmt::Display| {
            let why = format_args!("cannot import HAR: {why}");
            crate::model::file_message(path.display(), line, column, why)
        };
        let bytes = contents
            .map_err(|e| crate::store::input_file::cannot_read(path.display(), "the file", e))?;
        let text = crate::model::utf8_text(&bytes)
            .map_err(|e| fail(Some(e.line), Some(e.column), &e.message("the file")))?;
        let file = HarFile::parse(text).map_err(|e| match e {
            HarError::Json {
                message,
                line,
                column,
            } => fail(
                Some(line),
                Some(column),
                &format_args!("not a HAR file: {message}"),
            ),
            other @ HarError::NoEntry { .. } => fail(None, None, &other),
        })?;
        let summaries = file.summaries();
        self.file = Some((path.display().to_string(), file, summaries));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_har_is_refused_with_its_place_first() {
        let mut picker = HarPicker::default();
        let path = Path::new("calls.har");
        let said = picker.open_read(path, Ok(b"{\"log\": 5}".to_vec()));
        assert_eq!(
            said,
            Err("calls.har:1:9: cannot import HAR: not a HAR file: expected the HAR `log` object (with an `entries` list), found the number 5".into())
        );
        let said = picker.open_read(path, Ok(b"{}\n\xff".to_vec()));
        assert_eq!(said, Err("calls.har:2:1: cannot import HAR: the file is not UTF-8: byte 0xFF is not valid here; save it as UTF-8".into()));
        let said = picker.open_read(path, Err("it is a directory".into()));
        assert_eq!(
            said,
            Err("calls.har: cannot read the file: it is a directory".into())
        );
        assert!(!picker.is_open());
    }
}
