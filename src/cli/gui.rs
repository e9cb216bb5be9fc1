//! The desktop app's command-line flags (`retryscope` with no subcommand, or `retryscope gui`).

use super::exit::{self, CliError};
use crate::ui::{self, AppOptions};
use clap::Args;
use std::path::PathBuf;

/// Flags of the window mode.
#[derive(Debug, Clone, Default, Args)]
pub struct GuiArgs {
    /// Save a PNG screenshot of the window to PATH (smoke tests), then exit.
    #[arg(long, value_name = "PATH")]
    pub screenshot: Option<PathBuf>,
    /// Close the window after N ms (smoke tests).
    #[arg(long, value_name = "N")]
    pub exit_after_ms: Option<u64>,
    /// Open this profile file at start.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
}

impl GuiArgs {
    /// The options handed to [`ui::run_app`].
    pub fn to_options(&self) -> AppOptions {
        AppOptions {
            screenshot: self.screenshot.clone(),
            exit_after_ms: self.exit_after_ms,
            profile: self.profile.clone(),
        }
    }
}

/// Opens the window until it is closed.
///
/// # Errors
/// Exit 1 with the UI's message (no display, no OpenGL…).
pub fn execute(args: &GuiArgs) -> Result<u8, CliError> {
    ui::run_app(args.to_options())
        .map(|()| exit::SUCCESS)
        .map_err(|e| CliError::failed(window_error(&e.to_string())))
}

/// The UI's error under one `cannot open the window:` prefix (the UI's own messages may
/// already start with it).
fn window_error(message: &str) -> String {
    const PREFIX: &str = "cannot open the window";
    // The window did open when only the screenshot could not be saved: say just that.
    if message.starts_with(PREFIX) || message.starts_with("cannot write the screenshot") {
        message.to_owned()
    } else {
        format!("{PREFIX}: {message}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_is_said_once() {
        assert_eq!(
            window_error("cannot open the window: no display"),
            "cannot open the window: no display"
        );
        assert_eq!(
            window_error("the window closed early"),
            "cannot open the window: the window closed early"
        );
    }
}
