//! `retryscope report`: the flakiness report of recorded runs, as a self-contained HTML page,
//! Markdown with PNG plots beside it, or the figures as JSON.

use super::exit::{self, CliError};
use super::run_selection::{RunSelection, no_match};
pub use crate::service::report_file::ReportFormat;
use crate::service::report_file::{ReportError, build_report, write_report};
use clap::Args;
use std::path::PathBuf;

/// Flags of `retryscope report`.
#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Examples:
  retryscope report --url /orders --since 8h -o orders.html
  retryscope report --url api.example.com --since 2026-12-05 --until 2026-12-06 --format md -o ticket.md
  retryscope report --since 30m --format json

The figures: runs, success rate with its 95 % Wilson interval, failures by status and error kind
over time, time-to-success p50/p95/p99, attempts per run, the longest outage, delay headers seen
(Retry-After, RateLimit, …) and three informative runs with their timelines. Secrets are masked.")]
pub struct ReportArgs {
    /// Which runs.
    #[command(flatten)]
    pub selection: RunSelection,
    /// Output format: a self-contained HTML page, Markdown (PNG plots written beside it) or the
    /// figures as JSON [default: from -o's extension (.md, .json), else html].
    #[arg(long, value_enum)]
    pub format: Option<ReportFormat>,
    /// Write to FILE (atomically); JSON may go to stdout without it.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Runs `report`; returns the exit code.
///
/// # Errors
/// Exit 2 for unusable flags, an empty history or no matching run; exit 1 when the history
/// cannot be read or a file cannot be written.
pub fn execute(args: &ReportArgs) -> Result<u8, CliError> {
    // `-o -` is stdout, as in `run`.
    let output = args.output.as_ref().filter(|p| p.as_os_str() != "-");
    let stdout = args.output.is_some() && output.is_none();
    let format = args
        .format
        .or_else(|| output.and_then(|p| ReportFormat::from_extension(p)))
        .unwrap_or_default();
    if output.is_none() && format == ReportFormat::Md {
        return Err(CliError::usage(
            "a Markdown report is a file with PNG files beside it: give -o FILE",
        ));
    }
    if output.is_none() && !stdout && format == ReportFormat::Html {
        return Err(CliError::usage(
            "an HTML report is a file: give -o FILE (or -o - for stdout)",
        ));
    }
    if let Some(path) = output {
        super::output_path::check_output_path(path, "-o")?;
    }
    let (history, query) = args.selection.open()?;
    let failed = |e: ReportError| match e {
        ReportError::NoRuns => no_match(),
        ReportError::Write(e) => CliError::write("cannot write the report", &e),
        e => CliError::failed(e.to_string()),
    };
    let Some(path) = output else {
        let report = build_report(&history, &query, format, "report").map_err(failed)?;
        crate::cli_out!("{}", report.text);
        return Ok(exit::SUCCESS);
    };
    let written = write_report(&history, &query, format, path).map_err(failed)?;
    for why in &written.left_out {
        super::out::write_stderr(&format!("warning: {why} (left out)\n"));
    }
    crate::cli_outln!(
        "wrote the report of {} to {}",
        crate::model::counted(written.runs, "run", "runs"),
        path.display()
    );
    Ok(exit::SUCCESS)
}
