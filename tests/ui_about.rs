//! The About window: version, commit and licence shown; each existing folder's button hands
//! that folder to the opener (once per click); a missing folder's button is disabled.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod ui_support;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable};
use retryscope::build_info;
use retryscope::ui::about_window::{AboutFolder, AboutWindow, FolderOpener};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Records the folders it is asked to open; fails the first one when `fail` is set.
#[derive(Clone, Default)]
struct RecordingOpener {
    opened: Arc<Mutex<Vec<PathBuf>>>,
    fail: bool,
}

impl FolderOpener for RecordingOpener {
    fn open(&self, path: PathBuf, report: Box<dyn FnOnce(String) + Send>) {
        if self.fail {
            report(format!(
                "cannot open the folder (no file manager): {}",
                path.display()
            ));
        }
        self.opened.lock().unwrap().push(path);
    }
}

fn folders(root: &std::path::Path) -> Vec<AboutFolder> {
    vec![
        AboutFolder {
            label: "Data folder",
            holds: "history",
            path: Some(root.join("data")),
        },
        AboutFolder {
            label: "Log folder",
            holds: "logs",
            path: Some(root.join("data/logs")),
        },
        AboutFolder {
            label: "Profile folder",
            holds: "profiles",
            path: None,
        },
    ]
}

fn about_harness(window: AboutWindow) -> Harness<'static, AboutWindow> {
    Harness::builder()
        .with_size([700.0, 700.0])
        .build_ui_state(|ui, w: &mut AboutWindow| w.ui(ui.ctx()), window)
}

#[test]
fn shows_version_commit_licence_and_opens_an_existing_folder_on_click() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("data")).unwrap();
    let opener = RecordingOpener::default();
    let mut window = AboutWindow::new(folders(root.path()), Box::new(opener.clone()));
    window.show();
    let mut h = about_harness(window);
    h.run();
    h.get_by_label(&format!("Retryscope {}", build_info::VERSION));
    h.get_by_label(&format!("Built from commit {}", build_info::COMMIT));
    h.get_by_label("Licence: MIT OR Apache-2.0");
    h.get_by_label(&root.path().join("data").display().to_string());
    assert!(
        opener.opened.lock().unwrap().is_empty(),
        "nothing opens by itself"
    );
    // Drawing frames opens nothing: only the click does, once.
    h.run();
    h.get_by_label("Open data folder").click();
    h.run();
    assert_eq!(
        *opener.opened.lock().unwrap(),
        vec![root.path().join("data")]
    );
    h.run();
    assert_eq!(opener.opened.lock().unwrap().len(), 1);
}

#[test]
fn a_missing_folder_cannot_be_opened_and_none_says_so() {
    let root = tempfile::tempdir().unwrap();
    let opener = RecordingOpener::default();
    let mut window = AboutWindow::new(folders(root.path()), Box::new(opener.clone()));
    window.show();
    let mut h = about_harness(window);
    h.run();
    let logs = h.get_by_label("Open log folder");
    assert!(
        logs.accesskit_node().is_disabled(),
        "data/logs does not exist yet"
    );
    logs.click();
    h.run();
    assert!(opener.opened.lock().unwrap().is_empty());
    h.get_by_label("(none on this system)");
    assert!(
        h.get_by_label("Open profile folder")
            .accesskit_node()
            .is_disabled()
    );
}

#[test]
fn an_opener_failure_is_shown_and_close_hides_the_window() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("data/logs")).unwrap();
    let opener = RecordingOpener {
        fail: true,
        ..Default::default()
    };
    let mut window = AboutWindow::new(folders(root.path()), Box::new(opener));
    window.show();
    let mut h = about_harness(window);
    h.run();
    h.get_by_label("Open log folder").click();
    h.run();
    let shown = format!(
        "cannot open the folder (no file manager): {}",
        root.path().join("data/logs").display()
    );
    h.get_by_label(&shown);
    h.get_by_label("Close").click();
    h.run();
    assert!(!h.state().open);
    assert!(h.query_by_label(&shown).is_none());
}

#[test]
fn the_toolbar_about_button_opens_the_window() {
    let (state, _probe) = ui_support::workbench();
    let mut h = ui_support::harness_sized(state, [1280.0, 800.0]);
    h.run();
    assert!(h.query_by_label("About Retryscope").is_none());
    h.get_by_label("About").click();
    h.run();
    assert!(h.state().about.open);
    h.get_by_label(&format!("Retryscope {}", build_info::VERSION));
    assert_eq!(h.state().about.folders().len(), 3);
}

#[test]
fn the_about_window_lists_every_shortcut() {
    let root = tempfile::tempdir().unwrap();
    let mut window = AboutWindow::new(folders(root.path()), Box::new(RecordingOpener::default()));
    window.show();
    let mut h = about_harness(window);
    h.run();
    assert!(h.query_by_label("Ctrl+Q").is_none(), "folded away at first");
    h.get_by_label("Keyboard shortcuts").click();
    h.run();
    for keys in [
        "Ctrl+Enter",
        "Esc",
        "Ctrl+O",
        "Ctrl+S",
        "Ctrl+Shift+S",
        "Ctrl+Q",
    ] {
        h.get_by_label(keys);
    }
    h.get_by_label_contains("asks first while a run is waiting");
}
