//! The workbench's toolbar (profile picker, file actions, theme) and its policy panel.

use super::WorkbenchState;
use super::profile_files::Switch;

use crate::ui::controls::button;
use crate::ui::profile_library::{file_name, picker_entries};
use crate::ui::profile_problems::problems_ui;
use crate::ui::theme::ThemeChoice;
use egui::Ui;

impl WorkbenchState {
    /// One row at every width from 800 points: the profile's name takes what is left and is
    /// cut with an ellipsis (whole on hover).
    pub(super) fn toolbar(&mut self, ui: &mut Ui) {
        ui.horizontal(|ui| {
            ui.strong("Retryscope");
            ui.separator();
            let open: fn(&mut Self) = Self::open_dialog;
            let files = [
                ("Open…", "open a profile file (Ctrl+O)", open),
                ("Save", "save the profile (Ctrl+S)", Self::save),
                (
                    "Save As…",
                    "save the profile to a new file (Ctrl+Shift+S)",
                    Self::save_as,
                ),
            ];
            for (text, tip, action) in files {
                if button(ui, true, text, tip) {
                    action(self);
                }
            }
            ui.separator();
            ui.label("Theme");
            for choice in ThemeChoice::ALL {
                ui.selectable_value(&mut self.theme, choice, choice.label());
            }
            ui.separator();
            let tip = "version, licence, and the folders Retryscope writes to";
            if button(ui, true, "About", tip) {
                self.about.show();
            }
            ui.separator();
            let where_kept = match &self.store.memory_only {
                None => "in the OS keyring, never in a file".to_owned(),
                Some(reason) => format!("— but {reason}"),
            };
            let toggle = ui
                .checkbox(&mut self.remember_secrets, "Remember secrets")
                .on_hover_text(format!(
                    "keep secret header/query/auth values across restarts {where_kept}"
                ));
            // Without a keyring the box cannot do what it says: say so when it is ticked.
            if toggle.changed()
                && self.remember_secrets
                && let Some(reason) = &self.store.memory_only
            {
                self.fail(format!(
                    "secrets cannot be remembered: {reason}; they are kept only until \
                         Retryscope closes"
                ));
            }
            // Only with room for a name: the Policy tab and the window title show it too.
            if ui.available_width() > 120.0 {
                ui.separator();
                let current = &self.profile.current;
                let dirty = if current.is_dirty() { " •" } else { "" };
                let profile = format!("Profile: {}{dirty}", current.profile.name);
                ui.add(egui::Label::new(profile.as_str()).truncate())
                    .on_hover_text(format!("{profile} (• = unsaved changes)"));
            }
        });
    }

    /// The status line, at the bottom of the window: always one line high, empty or not, so a
    /// message never moves what the user is typing into. Long text is cut with an ellipsis;
    /// the whole text on hover and in the accessibility tree.
    pub(super) fn status_bar(&self, ui: &mut Ui) {
        let height = ui.text_style_height(&egui::TextStyle::Body) + 6.0;
        egui::Panel::bottom("status_bar")
            .resizable(false)
            .exact_size(height)
            .show(ui, |ui| {
                let Some((is_error, text)) = &self.status else {
                    return;
                };
                let mut rich = egui::RichText::new(text.as_str());
                if *is_error {
                    rich = rich.color(ui.visuals().error_fg_color);
                }
                ui.add(egui::Label::new(rich).truncate())
                    .on_hover_text(text.as_str());
            });
    }

    pub(super) fn policy_panel(&mut self, ui: &mut Ui) {
        ui.heading("Retry policy");
        let entries = picker_entries(&self.library.files, &self.library.opened);
        let selected_label = match self.profile_being_read() {
            Some(path) => format!("reading {} …", file_name(path)),
            None => entries
                .iter()
                .find(|e| e.source == self.profile.current.source)
                .map_or_else(
                    || format!("{} (unsaved)", self.profile.current.profile.name),
                    |e| e.label.clone(),
                ),
        };
        let mut chosen = None;
        ui.horizontal(|ui| {
            let label = ui.label("Profile");
            egui::ComboBox::from_id_salt("profile_picker")
                .selected_text(selected_label)
                .width(ui.available_width() - 10.0)
                .height(480.0)
                .truncate()
                .show_ui(ui, |ui| {
                    for e in &entries {
                        if ui
                            .selectable_label(e.source == self.profile.current.source, &e.label)
                            .clicked()
                        {
                            chosen = Some(e.source.clone());
                        }
                    }
                })
                .response
                .labelled_by(label.id);
        });
        if let Some(source) = chosen
            && source != self.profile.current.source
        {
            self.request_switch(Switch::To(source));
        }
        // Wraps at narrow panel widths instead of widening the panel.
        ui.horizontal_wrapped(|ui| {
            if self.profile.current.is_read_only() {
                ui.weak("built-in (read-only)");
                if ui.button("Duplicate to edit").clicked() {
                    self.profile.current = self.profile.current.duplicate();
                }
            } else if let Some(p) = self.profile.current.path() {
                ui.weak(format!("file: {}", file_name(p)))
                    .on_hover_text(p.display().to_string());
            } else {
                ui.weak("not saved yet");
            }
            self.retry_settings_buttons(ui);
            if let Some(dir) = &self.library.dir
                && ui
                    .small_button("Refresh library")
                    .on_hover_text(format!("list *.json in {}", dir.display()))
                    .clicked()
            {
                self.library.rescan();
            }
        });
        ui.separator();
        self.profile.preview_hold.show(ui, "preview_held", |ui| {
            self.profile.preview.ui(ui);
            let preview = &self.profile.preview;
            problems_ui(ui, preview.issues(), preview.warnings());
            self.lab.ignored_delay_ui(ui, &self.profile.current.profile);
        });
        ui.separator();
        let read_only = self.profile.current.is_read_only();
        let error = self.profile.preview.error().cloned();
        if self.profile.editor.ui(
            ui,
            &mut self.profile.current.profile,
            read_only,
            error.as_ref(),
        ) {
            self.clear_refusal();
            // The analysis is asked for at the start of the next frame; make sure there is one.
            ui.ctx().request_repaint();
        }
    }
}
