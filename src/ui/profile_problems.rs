//! The current profile's problems (`profile::validate`, the checks Send, Save and the CLI
//! apply), listed in the policy panel. They are computed with the preview, off the frame thread
//! ([`super::profile_analysis`]).

use crate::profile::ProfileIssue;
use egui::Ui;

/// `Problems (N)` and one line per problem (`path: message`) in the error colour, then
/// `Warnings (N)` and one line per setting that never takes effect in the warning colour (Send
/// and Save still work); nothing for an empty list.
pub fn problems_ui(ui: &mut Ui, issues: &[ProfileIssue], warnings: &[ProfileIssue]) {
    let error = ui.visuals().error_fg_color;
    let warn = ui.visuals().warn_fg_color;
    #[rustfmt::skip]
    let lists = [
        (issues, error, "Problems", "Send and Save are refused until they are fixed"),
        (warnings, warn, "Warnings", "these settings never take effect"),
    ];
    for (list, color, title, meaning) in lists {
        if list.is_empty() {
            continue;
        }
        ui.separator();
        ui.colored_label(color, format!("{title} ({}): {meaning}", list.len()));
        for issue in list {
            ui.colored_label(color, format!("• {}", issue.path_and_message()));
        }
    }
}
