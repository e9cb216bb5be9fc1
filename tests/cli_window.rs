//! The window's start errors from the command line: what failed in our words, the window
//! system's own on a `detail:` line.

use assert_cmd::Command;

/// A display that names no running server (X11 display 4242): winit cannot connect.
#[cfg(all(unix, not(target_os = "macos")))]
#[test]
fn a_display_that_cannot_be_opened_is_said_in_our_words_with_the_window_systems_as_detail() {
    let data = tempfile::tempdir().expect("tempdir");
    let out = Command::cargo_bin("retryscope")
        .expect("binary built")
        .env("RETRYSCOPE_DATA_DIR", data.path())
        .env("RETRYSCOPE_KEYRING", "memory")
        .env("DISPLAY", ":4242")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        // Should a display 4242 exist after all, the window closes itself.
        .args(["--exit-after-ms", "500"])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert_eq!(
        lines[0],
        "error: cannot open the window: the window system refused it (DISPLAY=:4242); check that \
         this display is running and that you may use it, or use the commands, which need no \
         window (retryscope --help)"
    );
    assert!(lines[1].starts_with("detail: winit "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
