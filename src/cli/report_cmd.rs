//! `retryscope report`: the flakiness report of recorded runs, as a self-contained HTML page,
//! Markdown with PNG plots beside it, or the figures as JSON.

#![allow(
    clippy::doc_markdown,
    reason = "clap prints these doc comments as --help text, where backticks would show"
)]

use super::exit::{self, CliError};
use super::run_selection::RunSelection;
use crate::report::{ReportContext, SentRequest, Timelines, figures, html, markdown, outcome_text};
use crate::store;
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

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
    /// figures as JSON.
    #[arg(long, value_enum, default_value_t = ReportFormat::Html)]
    pub format: ReportFormat,
    /// Write to FILE (atomically); JSON may go to stdout without it.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Formats of `report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// One HTML file: inline CSS, plots as inline SVG and PNG, no network access needed.
    Html,
    /// Markdown, with FILE-over-time.png and FILE-run-N.png beside it.
    Md,
    /// The figures as JSON (docs/formats.md describes them).
    Json,
}

/// Runs `report`; returns the exit code.
///
/// # Errors
/// Exit 2 for unusable flags, an empty history or no matching run; exit 1 when the history
/// cannot be read or a file cannot be written.
pub fn execute(args: &ReportArgs) -> Result<u8, CliError> {
    if args.output.is_none() && args.format != ReportFormat::Json {
        return Err(CliError::usage(
            "an HTML or Markdown report is a file: give -o FILE (or --format json for stdout)",
        ));
    }
    if let Some(path) = &args.output {
        super::output_path::check_output_path(path, "-o")?;
    }
    let selected = args.selection.load()?;
    let context = ReportContext {
        selection: args.selection.described(),
        request: selected.request.as_ref().map(SentRequest::of),
        generated_at: Some(chrono::Local::now().fixed_offset()),
    };
    let figures = figures(&selected.runs, &context);
    let timelines = if args.format == ReportFormat::Json {
        Timelines::new()
    } else {
        args.selection.timelines(
            figures
                .informative_runs
                .iter()
                .map(|p| (p.run.id.as_str(), outcome_text(&p.run))),
        )?
    };
    let write = |path: &Path, bytes: &[u8]| {
        store::write_export(path, bytes).map_err(|e| CliError::write("cannot write the report", &e))
    };
    match (args.format, &args.output) {
        (ReportFormat::Json, output) => {
            let mut text = serde_json::to_string_pretty(&figures)
                .map_err(|e| CliError::failed(format!("cannot encode the figures: {e}")))?;
            text.push('\n');
            match output {
                Some(path) => write(path, text.as_bytes())?,
                None => crate::cli_out!("{text}"),
            }
        }
        (ReportFormat::Html, Some(path)) => write(path, html(&figures, &timelines).as_bytes())?,
        (ReportFormat::Md, Some(path)) => {
            let stem = path
                .file_stem()
                .map_or_else(|| "report".to_owned(), |s| s.to_string_lossy().into_owned());
            let report = markdown(&figures, &stem, &timelines);
            let folder = path.parent().unwrap_or_else(|| Path::new(""));
            for (name, png) in &report.images {
                match png {
                    Ok(bytes) => write(&folder.join(name), bytes)?,
                    Err(e) => super::out::write_stderr(&format!("warning: {name} left out: {e}\n")),
                }
            }
            write(path, report.text.as_bytes())?;
        }
        (_, None) => unreachable!("checked above"),
    }
    if let Some(path) = &args.output {
        crate::cli_outln!(
            "wrote the report of {} runs to {}",
            figures.runs.total,
            path.display()
        );
    }
    Ok(exit::SUCCESS)
}
