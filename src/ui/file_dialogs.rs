//! File pickers off the UI thread: a request goes out, the chosen path comes back later through
//! a channel. A trait so tests inject paths instead of opening real dialogs.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// What a picker is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialogPurpose {
    /// Open a profile (JSON filter).
    OpenProfile,
    /// Save the profile under a new name (JSON filter), suggesting this file name.
    SaveProfileAs {
        /// Suggested file name, e.g. `my-api.json`.
        suggested_name: String,
    },
    /// Pick the request body file (no filter).
    BodyFile,
}

/// The answer of one picker: `None` when the user cancelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogAnswer {
    /// What it was for.
    pub purpose: DialogPurpose,
    /// The chosen path.
    pub path: Option<PathBuf>,
}

/// Asynchronous file pickers. `request` returns at once; answers arrive via `poll`.
pub trait FileDialogs {
    /// Starts a picker.
    fn request(&mut self, purpose: DialogPurpose);
    /// An answer that has arrived, if any.
    fn poll(&mut self) -> Option<DialogAnswer>;
}

/// Real pickers: `rfd::AsyncFileDialog` spawned on a tokio runtime; `wake` is called when an
/// answer arrives (the app requests a repaint there).
pub struct RfdDialogs {
    runtime: tokio::runtime::Handle,
    tx: SyncSender<DialogAnswer>,
    rx: Receiver<DialogAnswer>,
    wake: Arc<dyn Fn() + Send + Sync>,
    start_dir: Option<PathBuf>,
}

impl RfdDialogs {
    /// Pickers on `runtime`, starting in `start_dir` (the library folder) when set.
    pub fn new(
        runtime: tokio::runtime::Handle,
        wake: Arc<dyn Fn() + Send + Sync>,
        start_dir: Option<PathBuf>,
    ) -> Self {
        let (tx, rx) = sync_channel(8);
        Self {
            runtime,
            tx,
            rx,
            wake,
            start_dir,
        }
    }
}

impl FileDialogs for RfdDialogs {
    fn request(&mut self, purpose: DialogPurpose) {
        let mut dialog = rfd::AsyncFileDialog::new();
        if let (DialogPurpose::SaveProfileAs { .. }, Some(dir)) = (&purpose, &self.start_dir) {
            // Saving into the library folder is the default: create it on first use. When that
            // fails the picker simply starts in its own default folder.
            let _ = std::fs::create_dir_all(dir);
        }
        if let Some(dir) = self.start_dir.as_ref().filter(|d| d.is_dir()) {
            dialog = dialog.set_directory(dir);
        }
        let tx = self.tx.clone();
        let wake = Arc::clone(&self.wake);
        self.runtime.spawn(async move {
            let picked = match &purpose {
                DialogPurpose::OpenProfile => {
                    dialog
                        .set_title("Open profile")
                        .add_filter("Retryscope profile (JSON)", &["json"])
                        .pick_file()
                        .await
                }
                DialogPurpose::SaveProfileAs { suggested_name } => {
                    dialog
                        .set_title("Save profile as")
                        .add_filter("Retryscope profile (JSON)", &["json"])
                        .set_file_name(suggested_name.clone())
                        .save_file()
                        .await
                }
                DialogPurpose::BodyFile => dialog.set_title("Body file").pick_file().await,
            };
            let path = picked.map(|h| h.path().to_path_buf());
            let _ = tx.try_send(DialogAnswer { purpose, path });
            wake();
        });
    }

    fn poll(&mut self) -> Option<DialogAnswer> {
        self.rx.try_recv().ok()
    }
}

/// Test pickers: each request is answered at once with the next scripted path
/// (`None` = cancelled; an empty script answers `None`).
#[derive(Debug, Default)]
pub struct ScriptedDialogs {
    answers: VecDeque<Option<PathBuf>>,
    ready: VecDeque<DialogAnswer>,
    /// Every request seen, in order.
    pub requests: Vec<DialogPurpose>,
}

impl ScriptedDialogs {
    /// Pickers that answer with `answers` in order.
    pub fn new(answers: impl IntoIterator<Item = Option<PathBuf>>) -> Self {
        Self {
            answers: answers.into_iter().collect(),
            ..Self::default()
        }
    }
}

impl FileDialogs for ScriptedDialogs {
    fn request(&mut self, purpose: DialogPurpose) {
        self.requests.push(purpose.clone());
        let path = self.answers.pop_front().flatten();
        self.ready.push_back(DialogAnswer { purpose, path });
    }

    fn poll(&mut self) -> Option<DialogAnswer> {
        self.ready.pop_front()
    }
}
