//! The About window: version, commit, licence, and the folders Retryscope writes to, each with a
//! button that opens it in the file manager (on a worker thread, only when clicked).

use crate::build_info;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One folder the About window lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AboutFolder {
    /// What the folder is, e.g. `Data folder`; its button is `Open <label in lowercase>`.
    pub label: &'static str,
    /// What is kept there, shown below the path.
    pub holds: &'static str,
    /// The folder; `None` when the platform has none (no home folder).
    pub path: Option<PathBuf>,
}

impl AboutFolder {
    /// The label of this folder's button: `Open data folder`, `Open log folder`, ….
    pub fn button_label(&self) -> String {
        format!("Open {}", self.label.to_lowercase())
    }
}

/// The folders of this installation: data (history, saved requests, environments, window
/// state), logs (`logs/` in it) and the profile library.
pub fn current_folders() -> Vec<AboutFolder> {
    let data = crate::store::data_dir();
    vec![
        AboutFolder {
            label: "Data folder",
            holds: "run history, saved requests, environments, window state",
            path: data.clone(),
        },
        AboutFolder {
            label: "Log folder",
            holds: "daily run logs (secrets masked)",
            path: data.map(|d| d.join(crate::store::LOG_DIR)),
        },
        AboutFolder {
            label: "Profile folder",
            holds: "your profile library (Open… starts here)",
            path: super::profile_library::default_library_dir(),
        },
    ]
}

/// Opens a folder in the platform's file manager. Called only on a click, never per frame.
pub trait FolderOpener: Send + Sync {
    /// Opens `path` without blocking the caller; `report` receives a message if it fails.
    fn open(&self, path: PathBuf, report: Box<dyn FnOnce(String) + Send>);
}

/// The real opener: `open::that_detached` on a named worker thread (xdg-open, Finder, Explorer).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemOpener;

impl FolderOpener for SystemOpener {
    fn open(&self, path: PathBuf, report: Box<dyn FnOnce(String) + Send>) {
        let spawned = std::thread::Builder::new()
            .name("open-folder".into())
            .spawn(move || {
                if let Err(e) = open::that_detached(&path) {
                    report(open_failed(&e.to_string(), &path));
                }
            });
        if let Err(e) = spawned {
            // The closure (and `report`) went with the failed spawn; nothing else to tell.
            tracing::warn!("cannot start the folder opener: {e}");
        }
    }
}

fn open_failed(error: &str, path: &Path) -> String {
    format!(
        "cannot open the folder in the file manager ({error}): {}",
        path.display()
    )
}

/// The About window's state: shown or not, the folders, and the last opener failure.
pub struct AboutWindow {
    /// Whether the window is shown.
    pub open: bool,
    folders: Vec<AboutFolder>,
    /// Which folders existed when the window was last opened (checked then, not per frame).
    exists: Vec<bool>,
    opener: Box<dyn FolderOpener>,
    problem: Arc<Mutex<Option<String>>>,
}

impl AboutWindow {
    /// A closed About window listing `folders`, opening them with `opener`.
    pub fn new(folders: Vec<AboutFolder>, opener: Box<dyn FolderOpener>) -> Self {
        Self {
            open: false,
            exists: vec![false; folders.len()],
            folders,
            opener,
            problem: Arc::default(),
        }
    }

    /// Shows the window, checking once which folders exist (a missing one cannot be opened yet).
    pub fn show(&mut self) {
        self.exists = self
            .folders
            .iter()
            .map(|f| f.path.as_deref().is_some_and(Path::is_dir))
            .collect();
        if let Ok(mut p) = self.problem.lock() {
            *p = None;
        }
        self.open = true;
    }

    /// The folders listed.
    pub fn folders(&self) -> &[AboutFolder] {
        &self.folders
    }

    /// Draws the window when it is open.
    pub fn ui(&mut self, ctx: &egui::Context) {
        if !self.open {
            return;
        }
        let mut open = self.open;
        let mut close = false;
        egui::Window::new("About Retryscope")
            .id(egui::Id::unique("about.window"))
            .open(&mut open)
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| close = self.contents(ui));
        self.open = open && !close;
    }

    /// The window's contents; `true` when Close was clicked.
    fn contents(&mut self, ui: &mut egui::Ui) -> bool {
        ui.heading(format!("Retryscope {}", build_info::VERSION));
        ui.label(format!("Built from commit {}", build_info::COMMIT));
        ui.label(format!("Licence: {}", build_info::LICENSE));
        ui.label(env!("CARGO_PKG_DESCRIPTION"));
        ui.separator();
        for (i, folder) in self.folders.iter().enumerate() {
            ui.strong(folder.label);
            let shown = folder.path.as_ref().map_or_else(
                || "(none on this system)".to_owned(),
                |p| p.display().to_string(),
            );
            ui.label(shown);
            ui.weak(folder.holds);
            let exists = self.exists.get(i).copied().unwrap_or(false);
            let button = ui
                .add_enabled(exists, egui::Button::new(folder.button_label()))
                .on_hover_text("show this folder in the file manager")
                .on_disabled_hover_text("the folder does not exist yet: Retryscope creates it when it first writes there");
            if button.clicked()
                && let Some(path) = folder.path.clone()
            {
                let slot = Arc::clone(&self.problem);
                let repaint = ui.ctx().clone();
                self.opener.open(
                    path,
                    Box::new(move |message| {
                        if let Ok(mut p) = slot.lock() {
                            *p = Some(message);
                        }
                        repaint.request_repaint();
                    }),
                );
            }
            ui.add_space(6.0);
        }
        ui.weak("Remembered secrets live in the OS keyring (Secret Service, Keychain or Credential Manager), never in these folders.");
        if let Some(problem) = self.problem.lock().ok().and_then(|p| p.clone()) {
            ui.colored_label(ui.visuals().error_fg_color, problem);
        }
        ui.separator();
        egui::CollapsingHeader::new("Keyboard shortcuts")
            .id_salt("about.shortcuts")
            .show(ui, |ui| {
                egui::Grid::new("about.shortcuts.grid")
                    .num_columns(2)
                    .show(ui, |ui| {
                        for (keys, what) in super::shortcuts::KEYS {
                            ui.strong(*keys);
                            ui.label(*what);
                            ui.end_row();
                        }
                    });
                ui.weak("Cmd instead of Ctrl on macOS.");
            });
        ui.separator();
        ui.button("Close").clicked()
    }
}

impl std::fmt::Debug for AboutWindow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AboutWindow")
            .field("open", &self.open)
            .field("folders", &self.folders)
            .finish_non_exhaustive()
    }
}
