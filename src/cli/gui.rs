//! The desktop app's command-line flags (`retryscope` with no subcommand, or `retryscope gui`).

use super::exit::{self, CliError};
use crate::ui::theme::ThemeChoice;
use crate::ui::{self, AppOptions, MIN_WINDOW};
use clap::Args;
use std::path::PathBuf;

/// Flags of the window mode.
#[derive(Debug, Clone, Default, Args)]
pub struct GuiArgs {
    /// Save a PNG screenshot of the window to PATH (smoke tests), then exit.
    #[arg(long, value_name = "PATH")]
    pub screenshot: Option<PathBuf>,
    /// Close the window after N ms (smoke tests).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::cli::whole_number::u64_value)]
    pub exit_after_ms: Option<u64>,
    /// Open this profile file at start.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Window size in points, WIDTHxHEIGHT (e.g. 800x600); default: the last size, else 1280x800.
    #[arg(long, value_name = "WxH", value_parser = parse_window_size)]
    pub window_size: Option<(f32, f32)>,
    /// Theme for this start: system, light or dark (default: the saved choice).
    #[arg(long, value_name = "THEME", value_parser = parse_theme)]
    pub theme: Option<ThemeChoice>,
    /// Start with the History panel shown instead of the timeline.
    #[arg(long, conflicts_with = "lab")]
    pub history: bool,
    /// Start with the strategy lab (the Lab tab) shown, for the profile opened.
    #[arg(long)]
    pub lab: bool,
}

/// `800x600` → (800, 600); sizes below [`MIN_WINDOW`] or above 16384 are refused.
fn parse_window_size(raw: &str) -> Result<(f32, f32), String> {
    let (w, h) = raw
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{raw}` is not WIDTHxHEIGHT, e.g. 800x600"))?;
    let dim = |t: &str, what: &str, min: f32| -> Result<f32, String> {
        let v: u32 = t
            .trim()
            .parse()
            .map_err(|_| format!("the {what} `{t}` in `{raw}` is not a whole number"))?;
        let v = v as f32;
        if !(min..=16384.0).contains(&v) {
            return Err(format!("the {what} {v} in `{raw}` is outside {min}–16384"));
        }
        Ok(v)
    };
    Ok((
        dim(w, "width", MIN_WINDOW.0)?,
        dim(h, "height", MIN_WINDOW.1)?,
    ))
}

fn parse_theme(raw: &str) -> Result<ThemeChoice, String> {
    ThemeChoice::ALL
        .into_iter()
        .find(|t| t.label().eq_ignore_ascii_case(raw.trim()))
        .ok_or_else(|| format!("unknown theme `{raw}`; use system, light or dark"))
}

impl GuiArgs {
    /// The options handed to [`ui::run_app`].
    pub fn to_options(&self) -> AppOptions {
        AppOptions {
            screenshot: self.screenshot.clone(),
            exit_after_ms: self.exit_after_ms,
            profile: self.profile.clone(),
            window_size: self.window_size,
            theme: self.theme,
            show_history: self.history,
            show_lab: self.lab,
        }
    }
}

/// Opens the window until it is closed.
///
/// # Errors
/// Exit 1 with the UI's message: no display, or what failed in our words with the window
/// system's own on a `detail:` line ([`ui::start_error`]).
pub fn execute(
    args: &GuiArgs,
    core: &std::sync::Arc<crate::service::Core>,
) -> Result<u8, CliError> {
    if let Some(path) = &args.screenshot {
        screenshot_folder_exists(path).map_err(CliError::failed)?;
    }
    if cfg!(all(unix, not(target_os = "macos"))) {
        no_display(|name| std::env::var_os(name)).map_or(Ok(()), |m| Err(CliError::failed(m)))?;
    }
    ui::run_app(args.to_options(), std::sync::Arc::clone(core))
        .map(|()| exit::SUCCESS)
        .map_err(|e| CliError::failed(window_error(&e)))
}

/// Refuses a screenshot path whose folder is missing before the window opens (it would
/// otherwise fail only after the smoke run, seconds later).
fn screenshot_folder_exists(path: &std::path::Path) -> Result<(), String> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => Err(format!(
            "cannot write the screenshot: the folder {} does not exist",
            dir.display()
        )),
        _ => Ok(()),
    }
}

/// On X11/Wayland systems, the plain sentence for a session without a display (winit's own
/// error names its source file in the registry: `winit EventLoopError: os error at
/// /root/.cargo/registry/…`); `None` when `var` (the environment) names one.
fn no_display(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<String> {
    if ui::start_error::DISPLAY_VARS
        .iter()
        .any(|name| var(name).is_some_and(|v| !v.is_empty()))
    {
        return None;
    }
    Some(
        "cannot open the window: no display (neither DISPLAY nor WAYLAND_DISPLAY is set)"
            .to_owned(),
    )
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
    fn window_sizes_parse_and_small_ones_are_refused() {
        assert_eq!(parse_window_size("800x600"), Ok((800.0, 600.0)));
        assert_eq!(parse_window_size("1920X1080"), Ok((1920.0, 1080.0)));
        assert!(parse_window_size("640x480").is_err_and(|e| e.contains("760")));
        assert!(parse_window_size("800").is_err());
        assert!(parse_window_size("axb").is_err_and(|e| e.contains("`a`")));
        assert_eq!(parse_theme("Light"), Ok(ThemeChoice::Light));
        assert!(parse_theme("blue").is_err());
    }

    #[test]
    fn a_screenshot_in_a_missing_folder_is_refused_before_the_window_opens() {
        let dir = tempfile::tempdir().expect("tempdir");
        let missing = dir.path().join("nope").join("shot.png");
        let err = screenshot_folder_exists(&missing).expect_err("missing folder");
        assert!(
            err.contains("does not exist") && err.contains("nope"),
            "{err}"
        );
        assert!(screenshot_folder_exists(&dir.path().join("shot.png")).is_ok());
        assert!(screenshot_folder_exists(std::path::Path::new("shot.png")).is_ok());
    }

    #[test]
    fn no_display_is_said_in_plain_words() {
        assert_eq!(
            no_display(|_| None).as_deref(),
            Some("cannot open the window: no display (neither DISPLAY nor WAYLAND_DISPLAY is set)")
        );
        assert_eq!(
            no_display(|n| (n == "DISPLAY").then(std::ffi::OsString::new)).as_deref(),
            Some("cannot open the window: no display (neither DISPLAY nor WAYLAND_DISPLAY is set)"),
            "an empty DISPLAY names no display"
        );
        assert_eq!(no_display(|n| (n == "DISPLAY").then(|| ":0".into())), None);
        assert_eq!(
            no_display(|n| (n == "WAYLAND_DISPLAY").then(|| "wayland-0".into())),
            None
        );
    }

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
