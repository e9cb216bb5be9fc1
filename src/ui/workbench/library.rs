//! The part of the workbench that lists profiles: the library folder, its profile files
//! (re-listed off the frame after a save or open, and on Refresh) and the other files opened.

use crate::ui::latest_worker::{JobRunner, LatestWorker};
use crate::ui::profile_library::scan_library;
use std::path::PathBuf;

/// The profile files the picker lists.
pub(super) struct Library {
    /// The user's profile library folder (`None` = no library).
    pub(super) dir: Option<PathBuf>,
    /// Its profile files, as last listed.
    pub(super) files: Vec<PathBuf>,
    /// Re-lists the folder off the frame.
    pub(super) scan: LatestWorker<PathBuf, Vec<PathBuf>>,
    /// Other profile files opened (listed in the picker).
    pub(super) opened: Vec<PathBuf>,
}

impl Library {
    /// `dir` listed now (at start), with `opened` files from the last session.
    pub(super) fn new(dir: Option<PathBuf>, opened: Vec<PathBuf>) -> Self {
        Self {
            files: dir.as_deref().map(scan_library).unwrap_or_default(),
            dir,
            scan: LatestWorker::inline(scanner()),
            opened,
        }
    }

    /// Moves the re-listing to the thread `library-scan`, which calls `waker` when done.
    pub(super) fn scan_in_background(&mut self, waker: std::sync::Arc<dyn Fn() + Send + Sync>) {
        self.scan = LatestWorker::spawn("library-scan", scanner(), waker);
    }

    /// Asks for the folder to be listed again.
    pub(super) fn rescan(&mut self) {
        if let Some(dir) = &self.dir {
            self.scan.submit(dir.clone());
        }
    }

    /// Takes a finished listing.
    pub(super) fn poll(&mut self) {
        if let Some(files) = self.scan.poll() {
            self.files = files;
        }
    }
}

fn scanner() -> JobRunner<PathBuf, Vec<PathBuf>> {
    std::sync::Arc::new(|dir: PathBuf, _: &mut dyn FnMut(u64, u64) -> bool| {
        Some(scan_library(&dir))
    })
}
