//! The desktop workbench (eframe/egui 0.37). Talks to the engine only through commands and events.
//!
//! STUB: the app shell replaces this; `run_app` and `AppOptions` are the contract with `main.rs`.

pub mod timeline;

use std::path::PathBuf;

/// Options from the command line for the GUI.
#[derive(Debug, Clone, Default)]
pub struct AppOptions {
    /// Save a PNG screenshot of the window to this path (smoke tests), then exit.
    pub screenshot: Option<PathBuf>,
    /// Close the window after this many ms (smoke tests).
    pub exit_after_ms: Option<u64>,
    /// Open this profile file at start.
    pub profile: Option<PathBuf>,
}

/// Opens the window and runs until it is closed.
///
/// # Errors
/// A message when the window cannot be created (no display, no OpenGL).
pub fn run_app(options: AppOptions) -> Result<(), String> {
    let _ = options;
    Ok(())
}
