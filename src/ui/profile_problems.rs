//! The current profile's problems (`profile::validate`, the checks Send, Save and the CLI
//! apply), listed in the policy panel. They are computed with the preview, off the frame thread
//! ([`super::profile_analysis`]).

use crate::profile::ProfileIssue;
use egui::Ui;

/// `Problems (N)` and one line per problem (`path: message`), in the error colour; nothing
/// when there are none.
pub fn problems_ui(ui: &mut Ui, issues: &[ProfileIssue]) {
    if issues.is_empty() {
        return;
    }
    ui.separator();
    let color = ui.visuals().error_fg_color;
    ui.colored_label(
        color,
        format!(
            "Problems ({}): Send and Save are refused until they are fixed",
            issues.len()
        ),
    );
    for issue in issues {
        ui.colored_label(color, format!("• {}", issue.path_and_message()));
    }
}

/// `Warnings (N)` and one line per setting that never takes effect (`path: message`), in the
/// warning colour; nothing when there are none. Send and Save still work.
pub fn warnings_ui(ui: &mut Ui, warnings: &[ProfileIssue]) {
    if warnings.is_empty() {
        return;
    }
    ui.separator();
    let color = ui.visuals().warn_fg_color;
    ui.colored_label(
        color,
        format!(
            "Warnings ({}): these settings never take effect",
            warnings.len()
        ),
    );
    for w in warnings {
        ui.colored_label(color, format!("• {}", w.path_and_message()));
    }
}
