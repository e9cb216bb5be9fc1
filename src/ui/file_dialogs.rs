//! File pickers off the UI thread: a request goes out, the chosen path comes back later through
//! a channel. A trait so tests inject paths instead of opening real dialogs.
//!
//! The system dialog (rfd: xdg desktop portal, else zenity) may be missing, and rfd then answers
//! "no file" exactly as if the user had cancelled. [`RfdDialogs`] tells the two apart
//! ([`native_dialog_unavailable`] up front, a too-fast "no file" after the fact) and replies
//! [`DialogReply::Unavailable`]; [`FileDialogHost`] then says so once and answers that request
//! and every later one with the in-app [`FilePicker`].
//!
//! A picker that opens a file (a profile, a HAR file, another tool's settings) also reads it off
//! the UI thread ([`DialogAnswer::contents`]): the frame only parses what arrived.

use super::background::Background;
use super::file_picker::FilePicker;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::{Duration, Instant};

/// A "no file" from rfd sooner than this after the request means the dialog never opened (no
/// portal answered and zenity could not start): nobody cancels a dialog that fast.
pub const FAST_FAILURE: Duration = Duration::from_millis(400);

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
    /// Pick a HAR file to import a request from.
    HarFile,
    /// Save one of a run's files (its plot as PNG, CSV, events, HAR), suggesting this name.
    ExportRun {
        /// Which file.
        file: super::run_export::RunFile,
        /// Suggested file name, e.g. `retryscope-run-3.png`.
        suggested_name: String,
    },
    /// Save a Lab plot as PNG or its data as CSV, suggesting this file name (its extension
    /// says which).
    ExportLab {
        /// Suggested file name, e.g. `retryscope-lab-sweep.png`.
        suggested_name: String,
    },
    /// Save the profile as another tool's retry settings ("Export as…"), suggesting this name.
    ExportRetrySettings {
        /// Suggested file name, e.g. `my-api.grpc.json`.
        suggested_name: String,
    },
    /// Pick another tool's retry settings to import ("Import from…") in this format.
    ImportRetrySettings(crate::interop::retry_formats::RetryFormat),
    /// Pick a list of requests to queue as a batch (the Batch tab).
    BatchList,
    /// Save a flakiness report (History's Report…), suggesting this file name (its extension
    /// says the format).
    ExportReport {
        /// Suggested file name, e.g. `retryscope-report.html`.
        suggested_name: String,
    },
}

impl DialogPurpose {
    /// The dialog's title, e.g. `Open profile`.
    pub fn title(&self) -> String {
        match self {
            DialogPurpose::OpenProfile => "Open profile".into(),
            DialogPurpose::SaveProfileAs { .. } => "Save profile as".into(),
            DialogPurpose::BodyFile => "Body file".into(),
            DialogPurpose::HarFile => "Import HAR".into(),
            DialogPurpose::ExportRun { file, .. } => match file {
                super::run_export::RunFile::Png => "Export PNG".into(),
                other => format!("Save the run as a {}", other.label()),
            },
            DialogPurpose::ExportLab { .. } => "Export lab plot".into(),
            DialogPurpose::ExportRetrySettings { .. } => "Export retry settings".into(),
            DialogPurpose::ImportRetrySettings(format) => format!("Import {}", format.label()),
            DialogPurpose::BatchList => "Import batch list".into(),
            DialogPurpose::ExportReport { .. } => "Save report".into(),
        }
    }

    /// The file name a save dialog suggests; `None` for a dialog that opens a file.
    pub fn suggested_name(&self) -> Option<&str> {
        match self {
            DialogPurpose::SaveProfileAs { suggested_name }
            | DialogPurpose::ExportRun { suggested_name, .. }
            | DialogPurpose::ExportLab { suggested_name }
            | DialogPurpose::ExportRetrySettings { suggested_name }
            | DialogPurpose::ExportReport { suggested_name } => Some(suggested_name),
            _ => None,
        }
    }

    /// Whether it picks a profile (the library folder, `*.json`) rather than another file.
    pub fn is_profile(&self) -> bool {
        matches!(
            self,
            DialogPurpose::OpenProfile | DialogPurpose::SaveProfileAs { .. }
        )
    }

    /// The system dialog's file filters: (name, extensions), in order.
    fn filters(&self) -> Vec<(String, Vec<&'static str>)> {
        let one = |name: &str, exts: &[&'static str]| vec![(name.to_owned(), exts.to_vec())];
        let all = ("All files".to_owned(), vec!["*"]);
        match self {
            DialogPurpose::OpenProfile | DialogPurpose::SaveProfileAs { .. } => {
                one("Retryscope profile (JSON)", &["json"])
            }
            DialogPurpose::BodyFile
            | DialogPurpose::ExportRetrySettings { .. }
            | DialogPurpose::ExportReport { .. } => Vec::new(),
            DialogPurpose::HarFile => one("HTTP Archive (HAR)", &["har", "json"]),
            DialogPurpose::ExportRun { file, .. } => one(file.label(), &[file.extension()]),
            DialogPurpose::ExportLab { suggested_name } => {
                if Path::new(suggested_name)
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
                {
                    one("CSV", &["csv"])
                } else {
                    one("PNG image", &["png"])
                }
            }
            DialogPurpose::ImportRetrySettings(format) => {
                let exts = [format.extension(), "json", "yaml", "yml", "ini", "config"];
                vec![(format.label().to_owned(), exts.to_vec()), all]
            }
            DialogPurpose::BatchList => {
                let exts = ["jsonl", "csv", "txt", "har", "json"];
                vec![("Request lists".to_owned(), exts.to_vec()), all]
            }
        }
    }

    /// Whether the chosen file is read for the caller (profiles, HAR, retry settings; not a
    /// body file, which the engine reads when it sends, nor a file to write).
    pub fn reads_file(&self) -> bool {
        matches!(
            self,
            DialogPurpose::OpenProfile
                | DialogPurpose::HarFile
                | DialogPurpose::ImportRetrySettings(_)
        )
    }
}

/// The answer of one picker: `None` when the user cancelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogAnswer {
    /// What it was for.
    pub purpose: DialogPurpose,
    /// The chosen path.
    pub path: Option<PathBuf>,
    /// The chosen file's bytes (or why it could not be read, lowercase), read off the UI thread
    /// when [`DialogPurpose::reads_file`]; `None` otherwise and when cancelled.
    pub contents: Option<Result<Vec<u8>, String>>,
}

impl DialogAnswer {
    /// The answer for `path`, its file read now (call this off the UI thread).
    pub fn read(purpose: DialogPurpose, path: Option<PathBuf>) -> Self {
        let contents = match &path {
            Some(p) if purpose.reads_file() => Some(read_picked_file(p)),
            _ => None,
        };
        Self {
            purpose,
            path,
            contents,
        }
    }
}

/// Largest file a picker reads, bytes (256 MiB: a HAR of a long browser session).
pub const MAX_PICKED_FILE_BYTES: u64 = crate::store::input_file::PICKED_FILE.max_bytes;

/// Reads a picked file by the one input-file rule ([`crate::store::input_file`]): a regular
/// file of at most [`MAX_PICKED_FILE_BYTES`].
///
/// # Errors
/// The reason, lowercase, e.g. `no such file or directory (os error 2)`.
pub fn read_picked_file(path: &Path) -> Result<Vec<u8>, String> {
    crate::store::input_file::read_input_file(path, crate::store::input_file::PICKED_FILE)
        .map_err(|e| e.to_string())
}

/// What a native picker reports back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialogReply {
    /// The dialog opened and the user chose a path or cancelled.
    Answered(DialogAnswer),
    /// No dialog could open (no portal, no zenity); `reason` says why, for the status line.
    Unavailable {
        /// What it was for.
        purpose: DialogPurpose,
        /// Why, lowercase, e.g. `no system file dialog (no D-Bus session bus for a portal, no
        /// zenity)`.
        reason: String,
    },
}

/// Asynchronous native file pickers. `request` returns at once; replies arrive via `poll`.
pub trait FileDialogs {
    /// Starts a picker.
    fn request(&mut self, purpose: DialogPurpose);
    /// A reply that has arrived, if any.
    fn poll(&mut self) -> Option<DialogReply>;
}

/// Why no system file dialog can open on this machine, or `None` when one may: on Linux and
/// the BSDs rfd needs an xdg desktop portal on the D-Bus session bus or `zenity` on `PATH`.
/// Reads three environment variables and stats a few files (call it off the frame thread).
pub fn native_dialog_unavailable() -> Option<String> {
    if !cfg!(all(unix, not(target_os = "macos"))) {
        return None;
    }
    no_dialog_service(
        std::env::var_os("DBUS_SESSION_BUS_ADDRESS").as_deref(),
        std::env::var_os("XDG_RUNTIME_DIR").as_deref(),
        std::env::var_os("PATH").as_deref(),
    )
}

/// [`native_dialog_unavailable`] from the values of `DBUS_SESSION_BUS_ADDRESS`,
/// `XDG_RUNTIME_DIR` and `PATH`: a session bus is there when the address is set or
/// `$XDG_RUNTIME_DIR/bus` exists; zenity when a `zenity` file is in one of `PATH`'s folders.
fn no_dialog_service(
    bus_address: Option<&std::ffi::OsStr>,
    runtime_dir: Option<&std::ffi::OsStr>,
    path_var: Option<&std::ffi::OsStr>,
) -> Option<String> {
    let bus = bus_address.is_some_and(|a| !a.is_empty())
        || runtime_dir.is_some_and(|dir| Path::new(dir).join("bus").exists());
    let zenity = path_var
        .is_some_and(|paths| std::env::split_paths(paths).any(|d| d.join("zenity").is_file()));
    (!bus && !zenity)
        .then(|| "no system file dialog (no D-Bus session bus for a portal, no zenity)".to_owned())
}

/// Real pickers: `rfd::AsyncFileDialog` spawned on a tokio runtime; `wake` is called when a
/// reply arrives (the app requests a repaint there). Replies [`DialogReply::Unavailable`] when
/// [`native_dialog_unavailable`] finds no dialog service, or when rfd says "no file" within
/// [`FAST_FAILURE`] (a portal on the bus that fails at once and no zenity).
pub struct RfdDialogs {
    runtime: tokio::runtime::Handle,
    tx: SyncSender<DialogReply>,
    rx: Receiver<DialogReply>,
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
        let start_dir = self.start_dir.clone();
        let tx = self.tx.clone();
        let wake = Arc::clone(&self.wake);
        // Everything that touches the disk runs on the runtime, never in the frame.
        self.runtime.spawn(async move {
            if let Some(reason) = native_dialog_unavailable() {
                let _ = tx.try_send(DialogReply::Unavailable { purpose, reason });
                wake();
                return;
            }
            if let Some(dir) = start_dir {
                if matches!(purpose, DialogPurpose::SaveProfileAs { .. }) {
                    // Saving into the library folder is the default: create it on first use.
                    // When that fails the picker simply starts in its own default folder.
                    let _ = std::fs::create_dir_all(&dir);
                }
                if dir.is_dir() {
                    dialog = dialog.set_directory(&dir);
                }
            }
            let asked = Instant::now();
            dialog = dialog.set_title(purpose.title());
            for (name, extensions) in purpose.filters() {
                dialog = dialog.add_filter(name, &extensions);
            }
            let picked = match purpose.suggested_name() {
                Some(name) => dialog.set_file_name(name).save_file().await,
                None => dialog.pick_file().await,
            };
            let path = picked.map(|h| h.path().to_path_buf());
            let fast_cancel = path.is_none() && asked.elapsed() < FAST_FAILURE;
            let reply = if fast_cancel {
                DialogReply::Unavailable {
                    purpose,
                    reason: "the system file dialog did not open (no portal answered, zenity \
                             did not start)"
                        .to_owned(),
                }
            } else {
                // The read is blocking file I/O: on the runtime's blocking pool.
                let read = tokio::task::spawn_blocking(move || DialogAnswer::read(purpose, path));
                match read.await {
                    Ok(answer) => DialogReply::Answered(answer),
                    Err(_) => return,
                }
            };
            let _ = tx.try_send(reply);
            wake();
        });
    }

    fn poll(&mut self) -> Option<DialogReply> {
        self.rx.try_recv().ok()
    }
}

/// The test double of [`FileDialogs`] (scripted answers), with the other fixtures.
pub use crate::testkit::ScriptedDialogs;

/// The file pickers the workbench talks to: the native ones, and the in-app [`FilePicker`]
/// once they turn out to be unavailable (then for the rest of the session, announced once).
pub struct FileDialogHost {
    native: Box<dyn FileDialogs>,
    picker: FilePicker,
    /// Set by the first [`DialogReply::Unavailable`]: every later request goes to the picker.
    native_unavailable: bool,
    notice: Option<String>,
    ready: VecDeque<DialogAnswer>,
    /// Paths chosen this session, newest first, each with whether it was a profile (the
    /// picker's recent list, before the caller's).
    recent: Vec<(bool, PathBuf)>,
    start_dir: Option<PathBuf>,
    /// Answers of the in-app picker whose file a `picked-file` thread is reading.
    reads: Background<DialogAnswer>,
}

/// How many chosen paths [`FileDialogHost`] remembers.
const RECENT_LIMIT: usize = 12;

impl FileDialogHost {
    /// A host over `native` pickers; the in-app picker starts in `start_dir` (the library
    /// folder) for profiles when set, else in the home folder.
    pub fn new(native: Box<dyn FileDialogs>, start_dir: Option<PathBuf>) -> Self {
        Self {
            reads: Background::default(),
            native,
            picker: FilePicker::default(),
            native_unavailable: false,
            notice: None,
            ready: VecDeque::new(),
            recent: Vec::new(),
            start_dir,
        }
    }

    /// Starts a picker: the native one, or the in-app one once native dialogs are known to be
    /// unavailable.
    pub fn request(&mut self, purpose: DialogPurpose) {
        if self.native_unavailable {
            self.open_picker(purpose);
        } else {
            self.native.request(purpose);
        }
    }

    /// An answer that has arrived (from either picker), if any.
    pub fn poll(&mut self) -> Option<DialogAnswer> {
        while let Some(answer) = self.reads.poll() {
            self.ready.push_back(answer);
        }
        while let Some(reply) = self.native.poll() {
            match reply {
                DialogReply::Answered(answer) => self.ready.push_back(answer),
                DialogReply::Unavailable { purpose, reason } => {
                    if !self.native_unavailable {
                        self.native_unavailable = true;
                        self.notice = Some(format!("{reason}: using the built-in file picker"));
                    }
                    self.open_picker(purpose);
                }
            }
        }
        let answer = self.ready.pop_front()?;
        if let Some(path) = &answer.path {
            let entry = (answer.purpose.is_profile(), path.clone());
            self.recent.retain(|e| *e != entry);
            self.recent.insert(0, entry);
            self.recent.truncate(RECENT_LIMIT);
        }
        Some(answer)
    }

    /// The one-time notice that native dialogs are unavailable (for the status line), taken.
    pub fn take_notice(&mut self) -> Option<String> {
        self.notice.take()
    }

    /// Whether a file chosen in the in-app picker is still being read.
    pub fn is_reading(&self) -> bool {
        self.reads.is_running()
    }

    /// Draws the in-app picker when open. `recent_profiles` are the caller's recent profile
    /// files (oldest first, e.g. those opened before), listed for profile pickers after the
    /// paths chosen this session.
    pub fn ui(&mut self, ui: &egui::Ui, recent_profiles: &[PathBuf]) {
        let Some(purpose) = self.picker.purpose() else {
            return;
        };
        let profile = purpose.is_profile();
        let mut all: Vec<PathBuf> = self
            .recent
            .iter()
            .filter(|(p, _)| *p == profile)
            .map(|(_, path)| path.clone())
            .collect();
        if profile {
            for p in recent_profiles.iter().rev() {
                if !all.contains(p) {
                    all.push(p.clone());
                }
            }
        }
        let Some(answer) = self.picker.ui(ui, &all) else {
            return;
        };
        if !answer.purpose.reads_file() || answer.path.is_none() {
            self.ready.push_back(answer);
            ui.ctx().request_repaint();
            return;
        }
        let DialogAnswer { purpose, path, .. } = answer;
        let read = move || DialogAnswer::read(purpose, path);
        if let Err(e) = self
            .reads
            .start("picked-file", Some(ui.ctx().clone()), read)
        {
            self.notice = Some(format!("cannot read the chosen file: {e}"));
        }
    }

    fn open_picker(&mut self, purpose: DialogPurpose) {
        let home = home_dir();
        let dir = if purpose.is_profile() {
            self.start_dir.clone().or(home)
        } else {
            home
        };
        let dir = dir.unwrap_or_else(|| PathBuf::from("/"));
        self.picker.open(purpose, dir);
    }
}

/// The user's home folder (`$HOME`), if known.
pub fn home_dir() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn a_picked_file_is_read_for_openers_only_and_folders_are_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("p.json");
        std::fs::write(&file, b"{}").expect("write");
        let opened = DialogAnswer::read(DialogPurpose::OpenProfile, Some(file.clone()));
        assert_eq!(opened.contents, Some(Ok(b"{}".to_vec())));
        let body = DialogAnswer::read(DialogPurpose::BodyFile, Some(file));
        assert_eq!(
            body.contents, None,
            "the engine reads a body file when it sends"
        );
        assert_eq!(
            read_picked_file(dir.path()),
            Err("it is a directory".into())
        );
        let missing = read_picked_file(&dir.path().join("gone.har")).expect_err("missing");
        assert!(missing.starts_with("no such file"), "{missing}");
    }

    #[test]
    fn a_dialog_service_is_a_session_bus_or_zenity_on_path() {
        let empty = tempfile::tempdir().expect("temp dir");
        let with_zenity = tempfile::tempdir().expect("temp dir");
        std::fs::write(with_zenity.path().join("zenity"), "").expect("write");
        let runtime = tempfile::tempdir().expect("temp dir");
        std::fs::write(runtime.path().join("bus"), "").expect("write");
        let none = no_dialog_service(None, None, Some(empty.path().as_os_str()));
        assert_eq!(
            none.as_deref(),
            Some("no system file dialog (no D-Bus session bus for a portal, no zenity)")
        );
        assert_eq!(no_dialog_service(Some(OsStr::new("")), None, None), none);
        let bus = Some(OsStr::new("unix:path=/run/user/1000/bus"));
        assert_eq!(no_dialog_service(bus, None, None), None);
        assert_eq!(
            no_dialog_service(None, Some(runtime.path().as_os_str()), None),
            None
        );
        let path = std::env::join_paths([empty.path(), with_zenity.path()]).expect("joins");
        assert_eq!(no_dialog_service(None, None, Some(&path)), None);
    }
}
