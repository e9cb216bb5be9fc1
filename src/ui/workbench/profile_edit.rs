//! The part of the workbench that edits the retry profile: the profile being edited, its
//! editor and preview, the number fields typed but not yet numbers, the unsaved-changes prompt,
//! a failed load, and Export as… / Import from….

use super::profile_files::Switch;
use crate::ui::error_panel::LoadFailure;
use crate::ui::number_field::InvalidFields;
use crate::ui::policy_editor::PolicyEditor;
use crate::ui::preview_strip::{HeldHeight, PreviewCache};
use crate::ui::profile_library::CurrentProfile;
use crate::ui::retry_export_modal::RetryExporter;
use crate::ui::retry_import_modal::RetryImporter;

/// The profile being edited and the state of its editing.
#[derive(Default)]
pub struct ProfileEdit {
    /// The profile being edited.
    pub current: CurrentProfile,
    pub(super) editor: PolicyEditor,
    /// Compile check, problems and preview of the current profile (computed off the frame).
    pub(super) preview: PreviewCache,
    /// Keeps the preview's height while the user types (see [`HeldHeight`]).
    pub(super) preview_hold: HeldHeight,
    /// Number fields whose text is not a number (Send and Save refuse meanwhile).
    pub(super) invalid_fields: InvalidFields,
    /// Set when another profile replaced the current one: what was typed into its number
    /// fields is dropped at the next frame.
    pub(super) forget_typed_fields: bool,
    pub(super) load_failure: Option<LoadFailure>,
    /// The switch the unsaved-changes prompt asks about.
    pub(super) pending_switch: Option<Switch>,
    /// Why the prompt's Save did not save (shown in the prompt, which stays open).
    pub(super) confirm_problem: Option<String>,
    /// The switch to perform once the prompt's Save (or Save As…) has saved.
    pub(super) switch_after_save: Option<Switch>,
    /// Profile files being read or written off the frame.
    pub(super) io: super::profile_files::ProfileIo,
    /// "Export as…": the profile as another tool's retry settings.
    pub(super) retry_export: RetryExporter,
    /// "Import from…": another tool's retry settings into a profile.
    pub(super) retry_import: RetryImporter,
}

impl ProfileEdit {
    /// Editing `current`, nothing typed, nothing asked.
    pub(super) fn new(current: CurrentProfile) -> Self {
        Self {
            current,
            ..Self::default()
        }
    }
}
