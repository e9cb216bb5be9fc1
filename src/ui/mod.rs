//! The desktop workbench (eframe/egui 0.37, glow renderer). Talks to the process's core only
//! through one command enum and one event stream ([`crate::service::CoreLink`]); never touches
//! the network itself.
//!
//! [`workbench::WorkbenchState`] holds all state and draws the frame (testable with
//! `egui_kittest`); [`app`] is the thin eframe wrapper; `run_app` and [`AppOptions`] are the
//! contract with `main.rs`.

pub mod about_window;
pub mod app;
pub mod auth_editor;
pub mod background;
pub mod backoff_editor;
pub mod batch;
pub mod body_editor;
pub mod budget_editor;
pub mod click_row;
pub mod composer;
pub mod composer_undo;
pub mod conditions_editor;
pub mod confirm_modal;
pub mod controls;
pub mod copied_toast;
pub mod curl_export_modal;
pub mod curl_import_modal;
pub mod environment_editor;
pub mod error_panel;
pub mod field_id;
pub mod file_dialogs;
pub mod file_picker;
pub mod fonts;
pub mod frame_stats;
pub mod har_import_modal;
pub mod header_delay_editor;
pub mod history;
pub mod kv_table;
pub mod lab;
pub mod latest_worker;
pub mod ms_field;
pub mod number_field;
pub mod panel_parts;
pub mod persistence;
pub mod policy_editor;
pub mod preview_strip;
pub mod profile_analysis;
pub mod profile_library;
pub mod profile_problems;
pub mod quit_guard;
pub mod request_draft;
pub mod request_library_panel;
pub mod retry_export_modal;
pub mod retry_import_modal;
pub mod run_export;
pub mod script_editor;
pub mod shortcuts;
pub mod smoke_run;
pub mod start_error;
pub mod store_worker;
pub mod text_sizes;
pub mod theme;
pub mod timeline;
pub mod typed_text;
pub mod url_check;
pub mod watch;
pub mod watch_toggle;
pub mod window_icon;
pub mod workbench;
pub mod workspace_file;

use std::path::PathBuf;

/// Smallest window the layout is made for, points (width, height).
pub const MIN_WINDOW: (f32, f32) = (760.0, 520.0);

/// Options from the command line for the GUI.
#[derive(Debug, Clone, Default)]
pub struct AppOptions {
    /// Save a PNG screenshot of the window to this path (smoke tests), then exit.
    pub screenshot: Option<PathBuf>,
    /// Close the window after this many ms (smoke tests).
    pub exit_after_ms: Option<u64>,
    /// Open this profile file at start.
    pub profile: Option<PathBuf>,
    /// Window size in points (width, height); `None` = the last size, else 1280×800.
    pub window_size: Option<(f32, f32)>,
    /// Theme for this start; `None` = the saved choice.
    pub theme: Option<theme::ThemeChoice>,
    /// Start with the History panel shown instead of the timeline.
    pub show_history: bool,
    /// Start with the Lab tab shown.
    pub show_lab: bool,
}

/// Opens the window and runs until it is closed. With `screenshot` or `exit_after_ms` set, it
/// presses Send once at start, saves the screenshot after `exit_after_ms` (default 1500 ms) and
/// closes; nothing is persisted in that mode.
///
/// # Errors
/// A message when the window cannot be created (no display, no OpenGL), the engine cannot
/// start, or the screenshot cannot be written.
pub fn run_app(
    options: AppOptions,
    core: std::sync::Arc<crate::service::Core>,
) -> Result<(), String> {
    app::run(options, core)
}
