//! A run saved to a file the user picks: its timeline plot as PNG ("Export PNG…"), or its
//! attempts as CSV, its events as JSON Lines, or the run as HAR ("Save as file"). The frame
//! only takes what the file holds from the run's (masked) fold; drawing
//! ([`crate::interop::render_png`]) and the atomic write happen on a named worker thread, whose
//! result comes back as a status line.

use super::background::Background;
use crate::interop::TimelinePlot;
use crate::model::RunId;
use std::path::PathBuf;

/// Label of the PNG button beside the run's Copy actions.
pub const EXPORT_PNG_LABEL: &str = "Export PNG…";

/// Label of the menu of the run's text files beside the run's Copy actions.
pub const SAVE_AS_FILE_LABEL: &str = "Save as file";

/// Which file of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunFile {
    /// The timeline plot, PNG.
    Png,
    /// One row per attempt, CSV (`retryscope history export --format csv`'s columns).
    Csv,
    /// The run's events, JSON Lines (as `retryscope run --json` prints them).
    Events,
    /// The run as an HTTP Archive 1.2 (one entry per attempt).
    Har,
}

impl RunFile {
    /// The text files, in the menu's order.
    pub const TEXT: [RunFile; 3] = [RunFile::Har, RunFile::Csv, RunFile::Events];

    /// The file name extension (added when the chosen name has none).
    pub fn extension(self) -> &'static str {
        match self {
            RunFile::Png => "png",
            RunFile::Csv => "csv",
            RunFile::Events => "jsonl",
            RunFile::Har => "har",
        }
    }

    /// What the file holds, for the dialog's filter and the menu: `HAR file`.
    pub fn label(self) -> &'static str {
        match self {
            RunFile::Png => "PNG image",
            RunFile::Csv => "CSV file",
            RunFile::Events => "Events file (JSON Lines)",
            RunFile::Har => "HAR file",
        }
    }

    /// The status line's words for it: `timeline plot`.
    fn what(self) -> &'static str {
        match self {
            RunFile::Png => "timeline plot",
            RunFile::Csv => "attempts CSV",
            RunFile::Events => "run's events",
            RunFile::Har => "run as HAR",
        }
    }
}

/// What a run's file is made of, taken from the frame.
pub enum RunFileContents {
    /// The plot's bars, drawn on the worker.
    Plot(TimelinePlot),
    /// The text, written as is.
    Text(String),
}

/// The export waiting for its file name, and the exports being written.
#[derive(Default)]
pub struct RunExport {
    /// The run and file exported once the save dialog answers.
    pending: Option<(RunId, RunFile)>,
    jobs: Background<Result<(RunFile, PathBuf), String>>,
    /// Repaints the window when a result arrives (set from the frame that asked).
    ctx: Option<egui::Context>,
}

impl RunExport {
    /// Remembers that `run_id`'s `file` is to be exported (the caller opens the save dialog).
    pub fn ask(&mut self, run_id: RunId, file: RunFile, ctx: &egui::Context) {
        self.pending = Some((run_id, file));
        self.ctx = Some(ctx.clone());
    }

    /// The run and file waiting for a file name, taken (so a second answer does nothing).
    pub fn take_pending(&mut self) -> Option<(RunId, RunFile)> {
        self.pending.take()
    }

    /// Writes `contents` as `file` to `path` (its extension added when it has none) on a
    /// worker thread; the result arrives through [`Self::poll`].
    ///
    /// # Errors
    /// A status line when the worker thread cannot start.
    pub fn start(
        &self,
        file: RunFile,
        contents: RunFileContents,
        path: PathBuf,
    ) -> Result<(), String> {
        let path = crate::store::with_default_extension(path, file.extension());
        self.jobs
            .start("run-export", self.ctx.clone(), move || {
                write(file, contents, &path).map(|()| (file, path))
            })
            .map_err(|e| format!("cannot start saving the {}: {e}", file.what()))
    }

    /// A finished export's status line (`(is_error, text)`), if one has arrived.
    pub fn poll(&self) -> Option<(bool, String)> {
        self.jobs.poll().map(|r| match r {
            Ok((file, path)) => (false, format!("{} saved: {}", file.what(), path.display())),
            Err(e) => (true, e),
        })
    }
}

fn write(file: RunFile, contents: RunFileContents, path: &std::path::Path) -> Result<(), String> {
    let bytes = match contents {
        RunFileContents::Plot(plot) => plot.png().map_err(|e| e.to_string())?,
        RunFileContents::Text(text) => text.into_bytes(),
    };
    crate::store::write_export(path, &bytes)
        .map_err(|e| format!("cannot save the {}: {e}", file.what()))
}
