//! Formats in and out (DESIGN.md §6): curl commands and HAR 1.2 files, other tools' retry
//! settings ([`retry_formats`]), batch lists in ([`batch_list`]) and batch results out
//! ([`batch_report`]), pure text ↔ model, the timeline plot as PNG bytes, and the strategy
//! lab's plot data as CSV.
//!
//! Nothing here touches the network or the file system: a `-d @file` becomes a body file
//! path, never its bytes. Every writer masks secrets ([`crate::model::secrets`]) unless the caller asks
//! for them explicitly.

mod attempts_csv;
pub mod batch_list;
pub mod batch_report;
pub mod csv_cell;
mod curl;
mod curl_data;
mod curl_export;
mod curl_options;
mod curl_words;
mod draft_of_spec;
mod events_json;
mod har_export;
mod har_import;
mod har_timings;
mod lab_csv;
mod lab_png;
mod plot_png;
pub mod retry_formats;

pub use attempts_csv::{CSV_COLUMNS, attempts_csv};
pub use curl::{
    CurlError, CurlImport, is_curl_program, parse_curl, parse_curl_words, split_curl_command,
    starts_with_curl_program,
};
pub use curl_export::{curl_not_expressible, draft_to_curl, shell_quote, spec_to_curl};
pub use draft_of_spec::draft_of_spec;
pub use events_json::events_json_lines;
pub use har_export::run_to_har;
pub use har_import::{EachEntry, HarEntrySummary, HarError, HarFile};
pub use lab_csv::{distribution_csv, load_csv, sweep_csv};
pub use lab_png::{
    LAB_PNG_CHART_HEIGHT, LAB_PNG_WIDTH, LabChart, LabSeries, distribution_charts, exact_bound,
    histogram_bars, load_charts, render_lab_png, render_lab_svg, sweep_charts,
};
pub use plot_png::{
    DEFAULT_HEIGHT as PNG_DEFAULT_HEIGHT, DEFAULT_WIDTH as PNG_DEFAULT_WIDTH,
    MAX_SIZE as PNG_MAX_SIZE, MIN_SIZE as PNG_MIN_SIZE, PlotError, TimelinePlot, render_png,
};
