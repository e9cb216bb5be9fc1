//! The modal asking before unsaved profile edits are lost: Save, Discard or Cancel.

use super::controls::{answer_buttons, error_line, modal};
use egui::Ui;

/// The user's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmAnswer {
    /// Save the edits (to the profile's file, or Save As… when it has none), then go on.
    Save,
    /// Throw the edits away and go on.
    Discard,
    /// Keep the edits; abandon the action (also Esc or a click outside).
    Cancel,
}

/// Shows the modal explaining that `what` will replace the edited profile; `None` while
/// unanswered. `problem` (why the last Save was refused, e.g. the profile has problems) is
/// shown in the modal, which then stays open.
pub fn confirm_discard(
    ui: &Ui,
    profile_name: &str,
    what: &str,
    problem: Option<&str>,
) -> Option<ConfirmAnswer> {
    let (answer, dismissed) = modal(
        ui.ctx(),
        "confirm_discard",
        520.0,
        "Unsaved changes",
        |ui| {
            ui.label(format!(
                "\"{profile_name}\" has unsaved changes. {what} will replace it: save the changes \
             first, or discard them?"
            ));
            error_line(ui, problem);
            let save_tip = "save the profile (to its file, or choose one), then go on; a profile \
                        with problems cannot be saved";
            answer_buttons(
                ui,
                &[
                    ("Save changes", save_tip, ConfirmAnswer::Save),
                    (
                        "Discard changes",
                        "throw the changes away and go on",
                        ConfirmAnswer::Discard,
                    ),
                    ("Cancel", "keep editing (Esc)", ConfirmAnswer::Cancel),
                ],
            )
        },
    );
    answer.or(dismissed.then_some(ConfirmAnswer::Cancel))
}
