//! The panel listing every problem of a profile that failed to load (field path, line:column,
//! message). The current profile is left untouched.

use crate::profile::ProfileIssue;
use egui::Ui;

/// A profile load that failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadFailure {
    /// What was being loaded, e.g. the file path.
    pub what: String,
    /// Every problem found.
    pub issues: Vec<ProfileIssue>,
}

impl LoadFailure {
    /// One line per issue: `line:column  path: message` (`-` for unknown positions; no path for a
    /// problem with the whole file).
    pub fn lines(&self) -> Vec<String> {
        self.issues
            .iter()
            .map(|i| {
                let pos = match (i.line, i.column) {
                    (Some(l), Some(c)) => format!("{l}:{c}"),
                    (Some(l), None) => format!("{l}"),
                    _ => "-".to_owned(),
                };
                // A problem with the whole file (unreadable, not an object) has no field path.
                format!("{pos}  {}", i.path_and_message())
            })
            .collect()
    }

    /// Most problem lines shown without scrolling.
    pub const VISIBLE_LINES: usize = 6;

    /// Height the panel needs, points: the header row plus up to [`Self::VISIBLE_LINES`] problem
    /// lines (one more for long ones that wrap), plus margins. More problems scroll.
    pub fn panel_height(&self, ui: &Ui) -> f32 {
        let line = ui.text_style_height(&egui::TextStyle::Monospace) + ui.spacing().item_spacing.y;
        let lines = (self.issues.len() + 1).min(Self::VISIBLE_LINES) as f32;
        ui.spacing().interact_size.y + ui.spacing().item_spacing.y + lines * line + 16.0
    }

    /// Draws the panel; returns true when the user dismissed it.
    pub fn ui(&self, ui: &mut Ui) -> bool {
        let mut dismissed = false;
        ui.horizontal(|ui| {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!(
                    "Cannot load profile {} ({}); the current profile is unchanged",
                    self.what,
                    crate::model::counted(self.issues.len() as u64, "problem", "problems")
                ),
            );
            dismissed = ui.button("Dismiss").clicked();
        });
        egui::ScrollArea::vertical()
            .id_salt("load_errors")
            .auto_shrink([false, false])
            // The panel's height decides; the default 64 pt minimum would overflow it.
            .min_scrolled_height(0.0)
            .show(ui, |ui| {
                for line in self.lines() {
                    ui.monospace(line);
                }
            });
        dismissed
    }
}
