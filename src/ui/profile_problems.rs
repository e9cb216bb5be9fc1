//! The current profile's problems (`profile::validate`, the checks Send, Save and the CLI
//! apply), recomputed only when the profile changes and listed in the policy panel.

use crate::model::RetryProfile;
use crate::profile::{ProfileIssue, validate};
use egui::Ui;

/// Cached `validate` of one profile.
#[derive(Debug, Default)]
pub struct ProfileProblems {
    key: Option<RetryProfile>,
    issues: Vec<ProfileIssue>,
}

impl ProfileProblems {
    /// The problems of `profile`, validating again only when it differs from the last one
    /// (validation dry-runs a custom script, too costly for every frame).
    pub fn refresh(&mut self, profile: &RetryProfile) -> &[ProfileIssue] {
        if self.key.as_ref() != Some(profile) {
            self.issues = validate(profile);
            self.key = Some(profile.clone());
        }
        &self.issues
    }

    /// The problems found at the last refresh.
    pub fn issues(&self) -> &[ProfileIssue] {
        &self.issues
    }

    /// `Problems (N)` and one line per problem (`path: message`), in the error colour; nothing
    /// when the profile is valid.
    pub fn ui(&self, ui: &mut Ui) {
        if self.issues.is_empty() {
            return;
        }
        ui.separator();
        let color = ui.visuals().error_fg_color;
        ui.colored_label(
            color,
            format!(
                "Problems ({}): Send and Save are refused until they are fixed",
                self.issues.len()
            ),
        );
        for issue in &self.issues {
            ui.colored_label(color, format!("• {}", issue.path_and_message()));
        }
    }
}
