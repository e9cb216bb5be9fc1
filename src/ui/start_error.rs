//! Why the window could not start, in our words: a first line saying what failed and what to
//! try, then eframe's own error as a `detail:` line (winit and glutin say it in their terms,
//! with a source path of theirs, which alone tells a user little).

use std::ffi::OsString;

/// The environment variables that name a display to the window system (X11, Wayland).
pub const DISPLAY_VARS: [&str; 3] = ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"];

/// What part of the start failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartFailure {
    /// The window system (winit: the display connection, the event loop, the window itself).
    WindowSystem,
    /// OpenGL (glutin: no matching configuration, no context; the glow painter).
    OpenGl,
}

/// The message for `error`: `cannot open the window: WHAT; TRY` and a `detail:` line with
/// eframe's words. The app's own start error (the engine, the runtime) is already in our words
/// and is said as it is. `var` reads the environment (to name the display that was tried).
pub fn window_start_error(error: &eframe::Error, var: impl Fn(&str) -> Option<OsString>) -> String {
    let failure = match error {
        eframe::Error::AppCreation(inner) => return inner.to_string(),
        eframe::Error::Winit(_) | eframe::Error::WinitEventLoop(_) => StartFailure::WindowSystem,
        eframe::Error::Glutin(_)
        | eframe::Error::NoGlutinConfigs(..)
        | eframe::Error::OpenGL(_) => StartFailure::OpenGl,
    };
    start_failure_message(failure, &error.to_string(), var)
}

/// The two lines for `failure`, `detail` being the library's own words.
///
/// ```
/// use retryscope::ui::start_error::{StartFailure, start_failure_message};
/// let text = start_failure_message(StartFailure::WindowSystem, "winit EventLoopError: …", |n| {
///     (n == "DISPLAY").then(|| ":7".into())
/// });
/// assert!(text.starts_with("cannot open the window: the window system refused it (DISPLAY=:7); "));
/// assert!(text.ends_with("\ndetail: winit EventLoopError: …"));
/// ```
pub fn start_failure_message(
    failure: StartFailure,
    detail: &str,
    var: impl Fn(&str) -> Option<OsString>,
) -> String {
    let first = match failure {
        StartFailure::WindowSystem => {
            let named: Vec<String> = DISPLAY_VARS
                .iter()
                .filter_map(|name| {
                    var(name)
                        .filter(|v| !v.is_empty())
                        .map(|v| format!("{name}={}", v.to_string_lossy()))
                })
                .collect();
            let tried = if named.is_empty() {
                String::new()
            } else {
                format!(" ({})", named.join(", "))
            };
            format!(
                "the window system refused it{tried}; check that this display is running and \
                 that you may use it, or use the commands, which need no window (retryscope --help)"
            )
        }
        StartFailure::OpenGl => "no usable OpenGL for the window; install the OpenGL drivers \
             (Mesa: libgl1-mesa-dri and libegl1 on Debian), or try LIBGL_ALWAYS_SOFTWARE=1"
            .to_owned(),
    };
    format!("cannot open the window: {first}\ndetail: {}", detail.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opengl_failures_say_what_to_install_and_keep_the_library_words() {
        let error = eframe::Error::OpenGL(eframe::egui_glow::PainterError::from(
            "failed to compile shader".to_owned(),
        ));
        let text = window_start_error(&error, |_| None);
        let (first, detail) = text.split_once('\n').expect("two lines");
        assert!(
            first.starts_with("cannot open the window: no usable OpenGL"),
            "{first}"
        );
        assert!(first.contains("LIBGL_ALWAYS_SOFTWARE=1"), "{first}");
        assert_eq!(detail, format!("detail: {error}"));
    }

    #[test]
    fn the_apps_own_start_error_is_said_as_it_is() {
        let error = eframe::Error::AppCreation("cannot start the engine: no runtime".into());
        assert_eq!(
            window_start_error(&error, |_| None),
            "cannot start the engine: no runtime"
        );
    }

    #[test]
    fn the_window_system_line_names_every_display_tried_and_none_when_unset() {
        let both = start_failure_message(StartFailure::WindowSystem, "x", |n| match n {
            "DISPLAY" => Some(":1".into()),
            "WAYLAND_DISPLAY" => Some("wayland-0".into()),
            _ => None,
        });
        assert!(
            both.contains("(DISPLAY=:1, WAYLAND_DISPLAY=wayland-0);"),
            "{both}"
        );
        let none = start_failure_message(StartFailure::WindowSystem, " x ", |_| None);
        assert!(none.contains("refused it; check"), "{none}");
        assert!(none.ends_with("\ndetail: x"), "{none}");
    }
}
