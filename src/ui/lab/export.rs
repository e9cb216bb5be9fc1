//! "Export … PNG…" and "Export … CSV…" of the lab's plots: the button records what to export,
//! the workbench opens its save dialog, and the chosen path goes to a named worker thread that
//! renders ([`crate::interop::render_lab_png`], the timeline's renderer) or formats the CSV
//! ([`crate::interop::distribution_csv`] …) and writes it atomically
//! ([`crate::store::write_export`]); the result comes back as a status line. No file I/O or
//! drawing in the frame.

use crate::sim::{ContentionResult, Distribution, SweepPoint};
use crate::ui::background::Background;
use std::path::PathBuf;
use std::sync::Arc;

/// Which plot's data is exported.
#[derive(Debug, Clone)]
pub enum LabExportData {
    /// The distribution view (cumulative or not, the histogram of this retry).
    Distribution {
        /// The sampled distribution.
        data: Arc<Distribution>,
        /// Plot the cumulative elapsed time instead of the waits.
        cumulative: bool,
        /// Retry whose histogram is drawn under the bands.
        histogram_retry: u32,
    },
    /// The sweep's calls and completion plots.
    Sweep(Arc<Vec<SweepPoint>>),
    /// The load-over-time plot.
    Load(Arc<Vec<ContentionResult>>),
}

impl LabExportData {
    /// `distribution`, `sweep` or `load`: the name in file names and status lines.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Distribution { .. } => "distribution",
            Self::Sweep(_) => "sweep",
            Self::Load(_) => "load",
        }
    }
}

/// PNG image or CSV data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabFileFormat {
    /// The plot as a PNG image.
    Png,
    /// The plot's numbers as CSV.
    Csv,
}

impl LabFileFormat {
    /// `png` or `csv`.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Csv => "csv",
        }
    }
}

/// One export: what and as which format.
#[derive(Debug, Clone)]
pub struct LabExportJob {
    /// The plot's data.
    pub data: LabExportData,
    /// PNG or CSV.
    pub format: LabFileFormat,
}

impl LabExportJob {
    /// The save dialog's suggested file name, e.g. `retryscope-lab-sweep.png`.
    pub fn suggested_name(&self) -> String {
        format!(
            "retryscope-lab-{}.{}",
            self.data.name(),
            self.format.extension()
        )
    }

    /// The file's bytes (drawing or formatting happens here, on the worker thread).
    ///
    /// # Errors
    /// The renderer's message when the PNG cannot be drawn.
    pub fn bytes(&self) -> Result<Vec<u8>, String> {
        use crate::interop::{
            LAB_PNG_WIDTH, distribution_charts, distribution_csv, load_charts, load_csv,
            render_lab_png, sweep_charts, sweep_csv,
        };
        let charts = match (&self.data, self.format) {
            (LabExportData::Distribution { data, .. }, LabFileFormat::Csv) => {
                return Ok(distribution_csv(data).into_bytes());
            }
            (LabExportData::Sweep(points), LabFileFormat::Csv) => {
                return Ok(sweep_csv(points).into_bytes());
            }
            (LabExportData::Load(results), LabFileFormat::Csv) => {
                return Ok(load_csv(results).into_bytes());
            }
            (
                LabExportData::Distribution {
                    data,
                    cumulative,
                    histogram_retry,
                },
                LabFileFormat::Png,
            ) => distribution_charts(data, *cumulative, *histogram_retry),
            (LabExportData::Sweep(points), LabFileFormat::Png) => sweep_charts(points),
            (LabExportData::Load(results), LabFileFormat::Png) => load_charts(results),
        };
        render_lab_png(&charts, LAB_PNG_WIDTH).map_err(|e| e.to_string())
    }
}

/// The export waiting for its file name, and the results of finished exports.
#[derive(Default)]
pub struct LabExport {
    /// Asked for by a button, not yet handed to the dialog.
    requested: Option<LabExportJob>,
    /// Handed to the dialog, waiting for its answer.
    pending: Option<LabExportJob>,
    jobs: Background<Result<String, String>>,
    /// Repaints the window when a result arrives.
    ctx: Option<egui::Context>,
    /// The last finished export's status line: `(is_error, text)`.
    pub status: Option<(bool, String)>,
}

impl LabExport {
    /// A button asked for `job` (the workbench opens the dialog next frame).
    pub fn ask(&mut self, job: LabExportJob, ctx: &egui::Context) {
        self.requested = Some(job);
        self.ctx = Some(ctx.clone());
    }

    /// The suggested file name of a requested export, which now waits for the dialog.
    pub fn take_request(&mut self) -> Option<String> {
        let job = self.requested.take()?;
        let name = job.suggested_name();
        self.pending = Some(job);
        Some(name)
    }

    /// The dialog was cancelled: forget the pending export.
    pub fn cancel(&mut self) {
        self.pending = None;
    }

    /// Writes the pending export to `path` (its extension added when it has none) on a
    /// worker thread; the result arrives through [`Self::poll`]. Nothing pending: nothing.
    pub fn start(&mut self, path: PathBuf) {
        let Some(job) = self.pending.take() else {
            return;
        };
        let path = crate::store::with_default_extension(path, job.format.extension());
        let spawned = self.jobs.start("lab-export", self.ctx.clone(), move || {
            let what = format!("{} {}", job.data.name(), job.format.extension());
            job.bytes().and_then(|bytes| {
                crate::store::write_export(&path, &bytes)
                    .map(|()| format!("lab {what} saved: {}", path.display()))
                    .map_err(|e| format!("cannot save the lab {what}: {e}"))
            })
        });
        if let Err(e) = spawned {
            self.status = Some((true, format!("cannot start the lab export: {e}")));
        }
    }

    /// Takes finished exports' results into [`Self::status`].
    pub fn poll(&mut self) {
        while let Some(r) = self.jobs.poll() {
            self.status = Some((r.is_err(), r.unwrap_or_else(|e| e)));
        }
    }
}
