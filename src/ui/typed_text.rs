//! Text fields whose value is parsed from what is typed (status sets such as `500-599`): the
//! text stays as typed while it parses to the value, an error shows under it while it does not
//! (the value keeps its last good state), and a value changed elsewhere (another profile
//! loaded) replaces the text.

use super::controls::error_line;
use super::field_id::field_id;
use egui::{Response, Ui};

/// One field's typed text, the value text it was last synced to, and its parse error.
#[derive(Debug, Default)]
pub struct TypedText {
    text: String,
    synced: Option<String>,
    error: Option<String>,
}

/// How a [`TypedText`] row looks: field path (the id), label, hint and tooltip (empty: none).
#[derive(Debug, Clone, Copy)]
pub struct TypedRow<'a> {
    /// Field path, the field's id (`profile.retry_on.status`).
    pub path: &'a str,
    /// Visible label, also the field's accessible name.
    pub label: &'a str,
    /// Hint shown in the empty field.
    pub hint: &'a str,
    /// Tooltip of the label and the field.
    pub tooltip: &'a str,
}

impl TypedText {
    /// Draws `row` over `value`, shown as text by `show` and read back by `parse` on every
    /// keystroke; returns whether the value changed and the field's response.
    pub fn ui<T: PartialEq>(
        &mut self,
        ui: &mut Ui,
        row: TypedRow<'_>,
        value: &mut T,
        show: impl Fn(&T) -> String,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> (bool, Response) {
        let current = show(value);
        if self.synced.as_deref() != Some(current.as_str()) {
            self.text.clone_from(&current);
            self.synced = Some(current);
            self.error = None;
        }
        let mut changed = false;
        let response = ui
            .horizontal(|ui| {
                let mut l = ui.label(row.label);
                let mut field = egui::TextEdit::singleline(&mut self.text)
                    .id(field_id(row.path))
                    .desired_width(f32::INFINITY);
                if !row.hint.is_empty() {
                    field = field.hint_text(row.hint);
                }
                if !row.tooltip.is_empty() {
                    l = l.on_hover_text(row.tooltip);
                }
                let mut r = ui.add(field).labelled_by(l.id);
                if !row.tooltip.is_empty() {
                    r = r.on_hover_text(row.tooltip);
                }
                r
            })
            .inner;
        if response.changed() {
            match parse(&self.text) {
                Ok(parsed) => {
                    self.error = None;
                    self.synced = Some(show(&parsed));
                    if *value != parsed {
                        *value = parsed;
                        changed = true;
                    }
                }
                Err(e) => self.error = Some(e),
            }
        }
        error_line(ui, self.error.as_deref());
        (changed, response)
    }
}
