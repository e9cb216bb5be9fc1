//! What survives a restart (eframe storage, key [`STORAGE_KEY`]): the request, the Watch
//! toggle's schedule, the selected profile, layout, theme and environment. Secret values are always blanked here; "Remember
//! secrets" keeps them in the secret store (OS keyring) instead.

use super::profile_library::ProfileSource;
use super::request_draft::RequestDraft;
use super::theme::ThemeChoice;
use serde::{Deserialize, Serialize};

/// The eframe storage key.
pub const STORAGE_KEY: &str = "workbench";

/// Panel sizes, points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LayoutPrefs {
    /// Width of the composer panel (left).
    pub composer_width: f32,
    /// Width of the policy panel (right).
    pub policy_width: f32,
    /// Width of the one side panel of narrow windows (request and policy as tabs).
    pub stacked_width: f32,
    /// Which of request / policy the narrow layout shows.
    pub side_tab: SideTab,
    /// Which view fills the centre.
    pub centre: CentreTab,
    /// The attempt detail pane's size.
    pub detail: DetailPaneSize,
}

/// The attempt detail pane's size, points: its width right of the attempts table (wide
/// windows) and its height below it (narrow ones); `None` until first drawn, when a default
/// gives the response most of the room.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct DetailPaneSize {
    /// Width right of the table, points.
    pub width: Option<f32>,
    /// Height below the table, points.
    pub height: Option<f32>,
}

impl Default for LayoutPrefs {
    fn default() -> Self {
        Self {
            composer_width: 300.0,
            policy_width: 330.0,
            stacked_width: 330.0,
            side_tab: SideTab::Request,
            centre: CentreTab::Timeline,
            detail: DetailPaneSize::default(),
        }
    }
}

/// Which view fills the centre.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum CentreTab {
    /// The runs of this session.
    #[default]
    Timeline,
    /// Every recorded run.
    History,
    /// Batches.
    Batch,
    /// The strategy lab.
    Lab,
    /// Recorded watches.
    Watches,
}

/// The tab of the narrow layout's side panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum SideTab {
    /// The request composer.
    #[default]
    Request,
    /// The retry policy editor and preview.
    Policy,
}

/// The selected profile: where it came from, plus its JSON when it has unsaved edits or no file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PersistedProfile {
    /// Source to reload from.
    pub source: ProfileSource,
    /// Embedded profile JSON (unsaved edits); wins over `source` when present and valid.
    #[serde(default)]
    pub embedded_json: Option<String>,
    /// Whether the embedded JSON differs from the source's saved value.
    #[serde(default)]
    pub dirty: bool,
}

/// The persisted workspace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct PersistedWorkbench {
    /// The composer's request, secret values blanked.
    pub request: Option<RequestDraft>,
    /// Keep secret values across restarts, in the secret store (never in this state).
    pub remember_secrets: bool,
    /// The selected profile.
    pub profile: Option<PersistedProfile>,
    /// Other opened profile files (listed in the picker).
    pub opened_files: Vec<std::path::PathBuf>,
    /// Panel sizes.
    pub layout: LayoutPrefs,
    /// Theme switch.
    pub theme: ThemeChoice,
    /// The selected environment's name.
    pub environment: Option<String>,
    /// History retention (keep N days / N runs).
    pub history_retention: super::history::RetentionPrefs,
    /// History filters and sort, as last left.
    pub history_filters: super::history::HistoryFilters,
    /// The Watch toggle's every / for, as typed.
    pub watch_schedule: super::watch_toggle::ScheduleText,
}
