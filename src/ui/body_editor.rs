//! The body editor: none, JSON (with Pretty / Validate), text, form fields, or a file path.

use super::controls::{error_line, picker};
use super::field_id::field_id;
use super::kv_table::{RevealedSecrets, kv_table};
use super::request_draft::{BodyDraft, BodyKind};
use crate::ui::controls::button;
use egui::Ui;

/// What the body editor asks the workbench to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyAction {
    /// Open a file picker for the body file.
    BrowseFile,
}

/// Result of the last Pretty/Validate press, shown under the JSON editor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JsonCheck {
    /// `Ok(())` = valid; `Err` = `line L, column C: message`.
    pub result: Option<Result<(), String>>,
}

/// Validates JSON text; the error names line:column (1-based).
///
/// # Errors
/// `line L, column C: message` for the first syntax error.
pub fn validate_json(text: &str) -> Result<serde_json::Value, String> {
    serde_json::from_str(text).map_err(|e| {
        let message = crate::model::plain_json_error(&e);
        format!("line {}, column {}: {message}", e.line(), e.column())
    })
}

/// Draws the editor; returns the action requested, if any, and sets `*changed` on edits.
pub fn body_editor(
    ui: &mut Ui,
    body: &mut BodyDraft,
    check: &mut JsonCheck,
    revealed: &mut RevealedSecrets,
    changed: &mut bool,
) -> Option<BodyAction> {
    let mut action = None;
    let kinds = BodyKind::ALL.map(|k| (k, k.label(), ""));
    *changed |= picker(ui, "body_kind", "Body type", &mut body.kind, &kinds).changed();
    match body.kind {
        BodyKind::None => {
            ui.weak("no body is sent");
        }
        BodyKind::Json => {
            ui.horizontal(|ui| {
                if button(ui, true, "Pretty", "re-indent the JSON") {
                    match validate_json(&body.json) {
                        Ok(v) => {
                            body.json = serde_json::to_string_pretty(&v)
                                .unwrap_or_else(|_| body.json.clone());
                            check.result = Some(Ok(()));
                            *changed = true;
                        }
                        Err(e) => check.result = Some(Err(e)),
                    }
                }
                if button(ui, true, "Validate", "check the JSON syntax") {
                    check.result = Some(validate_json(&body.json).map(|_| ()));
                }
            });
            let r = ui
                .add(
                    egui::TextEdit::multiline(&mut body.json)
                        .id(field_id("request.body.json"))
                        .code_editor()
                        .desired_rows(5)
                        .desired_width(f32::INFINITY),
                )
                .accessible_name("JSON body");
            if r.changed() {
                check.result = None;
                *changed = true;
            }
            match &check.result {
                Some(Ok(())) => _ = ui.colored_label(ui.visuals().hyperlink_color, "valid JSON"),
                Some(Err(e)) => error_line(ui, Some(e)),
                None => {}
            }
        }
        BodyKind::Text => {
            content_type_row(
                ui,
                &mut body.content_type,
                "text/plain; charset=utf-8",
                changed,
            );
            *changed |= ui
                .add(
                    egui::TextEdit::multiline(&mut body.text)
                        .id(field_id("request.body.text"))
                        .desired_rows(5)
                        .desired_width(f32::INFINITY),
                )
                .accessible_name("text body")
                .changed();
        }
        BodyKind::Form => {
            *changed |= kv_table(ui, "form field", &mut body.form, revealed);
        }
        BodyKind::Multipart => {
            ui.weak(
                "one part per row, as curl's -F: a value, or @path (;type=MIME) to send a file",
            );
            *changed |= kv_table(ui, "multipart part", &mut body.multipart, revealed);
        }
        BodyKind::File => {
            content_type_row(
                ui,
                &mut body.content_type,
                "application/octet-stream",
                changed,
            );
            ui.horizontal(|ui| {
                let label = ui.label("File");
                // Right to left: the button first, then the path takes exactly what is left.
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if button(ui, true, "Browse…", "pick the body file") {
                        action = Some(BodyAction::BrowseFile);
                    }
                    *changed |= ui
                        .add(
                            egui::TextEdit::singleline(&mut body.file_path)
                                .id(field_id("request.body.file_path"))
                                .hint_text("/path/to/body.bin")
                                .desired_width(f32::INFINITY),
                        )
                        .labelled_by(label.id)
                        .changed();
                });
            });
            ui.weak("read once before attempt 1; the same bytes are sent on every attempt");
        }
    }
    action
}

fn content_type_row(ui: &mut Ui, content_type: &mut String, default: &str, changed: &mut bool) {
    ui.horizontal(|ui| {
        let label = ui.label("Content-Type");
        *changed |= ui
            .add(
                egui::TextEdit::singleline(content_type)
                    .id(field_id("request.body.content_type"))
                    .hint_text(default)
                    .desired_width(f32::INFINITY),
            )
            .labelled_by(label.id)
            .changed();
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_errors_name_line_and_column() {
        let e = validate_json("{\n  \"a\": 1,\n  oops\n}")
            .err()
            .unwrap_or_default();
        assert!(e.starts_with("line 3, column 3"), "{e}");
        assert!(validate_json("[1, 2]").is_ok());
    }
}
