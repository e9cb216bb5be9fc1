//! The `custom` strategy's Rhai code editor: a line-number gutter, the editor, and the compile
//! error (from `Policy::new`) shown inline with its line highlighted.

use super::field_id::field_id;
use crate::policy::PolicyError;
use egui::{Color32, RichText, Ui};
use std::fmt::Write as _;

/// Draws the editor; returns true when the script changed.
///
/// `path` is the field path of the script (`profile.backoff.script`): the editor's id, so the
/// caret stays put while the compile message under it changes.
pub fn script_editor(
    ui: &mut Ui,
    path: &str,
    script: &mut String,
    error: Option<&PolicyError>,
) -> bool {
    let error_line = match error {
        Some(PolicyError::Script { line, .. }) => Some(*line),
        _ => None,
    };
    let lines = script.lines().count().max(1) + usize::from(script.ends_with('\n'));
    let mut changed = false;
    ui.label("Script (Rhai): fn get_delay(ctx) returns ms or () to stop");
    egui::ScrollArea::vertical()
        .id_salt((path, "scroll"))
        .max_height(220.0)
        .show(ui, |ui| {
            ui.horizontal_top(|ui| {
                let mut gutter = egui::text::LayoutJob::default();
                let font = egui::TextStyle::Monospace.resolve(ui.style());
                for n in 1..=lines {
                    let color = if Some(n) == error_line {
                        ui.visuals().error_fg_color
                    } else {
                        ui.visuals().weak_text_color()
                    };
                    let mut text = String::new();
                    let _ = write!(text, "{n:>3}");
                    if n < lines {
                        text.push('\n');
                    }
                    gutter.append(
                        &text,
                        0.0,
                        egui::TextFormat {
                            font_id: font.clone(),
                            color,
                            ..Default::default()
                        },
                    );
                }
                ui.add(egui::Label::new(gutter).selectable(false));
                changed = ui
                    .add(
                        egui::TextEdit::multiline(script)
                            .id(field_id(path))
                            .code_editor()
                            .desired_rows(8)
                            .desired_width(f32::INFINITY),
                    )
                    .accessible_name("Script")
                    .changed();
            });
        });
    match error {
        Some(PolicyError::Script {
            line,
            column,
            message,
        }) => {
            ui.label(
                RichText::new(format!("line {line}, column {column}: {message}"))
                    .color(ui.visuals().error_fg_color),
            );
        }
        Some(other) => {
            ui.label(RichText::new(other.to_string()).color(ui.visuals().error_fg_color));
        }
        None => {
            ui.label(RichText::new("script compiles").color(Color32::from_rgb(0x2e, 0x9d, 0x5b)));
        }
    }
    changed
}
