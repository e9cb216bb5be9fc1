//! "Export PNG…": the selected run's timeline plot written to a file the user picks. The frame
//! only takes the plot's bars from the run's (masked) fold; drawing ([`crate::interop::render_png`]) and
//! the atomic write happen on a named worker thread, whose result comes back as a status line.

use super::background::Background;
use crate::interop::TimelinePlot;
use crate::model::RunId;
use std::path::PathBuf;

/// Label of the button beside the run's Copy actions.
pub const EXPORT_PNG_LABEL: &str = "Export PNG…";

/// The export waiting for its file name, and the exports being written.
#[derive(Default)]
pub struct PngExport {
    /// The run whose plot is exported once the save dialog answers.
    pending: Option<RunId>,
    jobs: Background<Result<PathBuf, String>>,
    /// Repaints the window when a result arrives (set from the frame that asked).
    ctx: Option<egui::Context>,
}

impl PngExport {
    /// Remembers that `run_id`'s plot is to be exported (the caller opens the save dialog).
    pub fn ask(&mut self, run_id: RunId, ctx: &egui::Context) {
        self.pending = Some(run_id);
        self.ctx = Some(ctx.clone());
    }

    /// The run waiting for a file name, taken (so a second answer does nothing).
    pub fn take_pending(&mut self) -> Option<RunId> {
        self.pending.take()
    }

    /// Draws `plot` and writes it to `path` (`.png` added when it has no extension) on a
    /// worker thread; the result arrives through [`Self::poll`].
    ///
    /// # Errors
    /// A status line when the worker thread cannot start.
    pub fn start(&self, plot: TimelinePlot, path: PathBuf) -> Result<(), String> {
        let path = if path.extension().is_some() {
            path
        } else {
            path.with_extension("png")
        };
        self.jobs
            .start("png-export", self.ctx.clone(), move || {
                write_png(&plot, &path).map(|()| path)
            })
            .map_err(|e| format!("cannot start the PNG export: {e}"))
    }

    /// A finished export's status line (`(is_error, text)`), if one has arrived.
    pub fn poll(&self) -> Option<(bool, String)> {
        self.jobs.poll().map(|r| match r {
            Ok(path) => (false, format!("timeline plot saved: {}", path.display())),
            Err(e) => (true, e),
        })
    }
}

fn write_png(plot: &TimelinePlot, path: &std::path::Path) -> Result<(), String> {
    let bytes = crate::interop::render_png(
        plot,
        crate::interop::PNG_DEFAULT_WIDTH,
        crate::interop::PNG_DEFAULT_HEIGHT,
    )
    .map_err(|e| e.to_string())?;
    crate::store::write_export(path, &bytes)
        .map_err(|e| format!("cannot save the timeline plot: {e}"))
}
