//! Headless command-line front end (clap): `run`, `simulate`, `profile …`, `demo-server`, `batch …`,
//! and the flags of the window mode (no subcommand, or `gui`).
//!
//! The only module that prints to stdout. Errors are one `error: …` line on stderr; exit codes
//! are in [`exit`].
#![allow(clippy::print_stdout, clippy::print_stderr)]
#![allow(
    clippy::doc_markdown,
    reason = "clap prints the doc comments of the commands' flags as --help text, where backticks would show"
)]

pub mod batch_cmd;
mod batch_interrupted;
pub mod batch_view;
pub mod body_spool;
pub mod contention_cmd;
pub mod curl_args;
pub mod curl_cmd;
pub mod demo_server;
pub mod download_progress;
pub mod exit;
pub mod final_response;
pub mod gui;
pub mod history_cmd;
pub mod history_export;
pub mod history_json;
pub mod log_args;
pub mod mask;
pub mod out;
pub mod output_path;
pub mod profile_cmd;
pub mod profile_interop;
pub mod profile_source;
pub mod report_cmd;
pub mod request_args;
pub mod run;
pub mod run_selection;
pub mod signal;
pub mod simulate;
pub mod stack_cmd;
pub mod timeline_text;
pub mod variables_args;
pub mod watch_cmd;
pub mod whatif_cmd;
pub mod whole_number;

use crate::service::{Core, CoreOptions, Threads};
use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::sync::Arc;

/// `retryscope`: retry flaky HTTP APIs by hand and watch every attempt.
#[derive(Debug, Parser)]
#[command(
    name = "retryscope",
    version = crate::build_info::VERSION_LINE,
    about = "Retry flaky HTTP APIs by hand and watch every attempt on a live timeline",
    long_about = "Retry flaky HTTP APIs by hand and watch every attempt on a live timeline.\n\n\
        With no subcommand, opens the desktop workbench. The subcommands run the same engine \
        headless.",
    after_help = "\
Examples:
  retryscope                                   open the desktop app
  retryscope demo-server --port 8080           a flaky test server on 127.0.0.1:8080
  retryscope run --builtin servicenow-exponential 'http://127.0.0.1:8080/status/429?times=2'
  retryscope curl -H 'Accept: text/plain' 'http://127.0.0.1:8080/status/503?times=1' --builtin azure-sdk
  retryscope simulate --builtin azure-sdk      wait statistics of a profile
  retryscope profile builtins                  list built-in profiles
  retryscope profile validate my-profile.json  check a profile file
  retryscope history list                      recorded runs, newest first
  retryscope batch list.jsonl --concurrency 8  a resumable batch of requests
  retryscope report --url /orders --since 8h -o report.html   a flakiness report
  retryscope whatif --url /orders --since 8h --profiles azure-sdk,aws-standard
  retryscope watch --every 30s --for 8h http://127.0.0.1:8080/outage   a flaky endpoint over hours

Exit codes: 0 success, 1 the run did not succeed, 2 usage or profile error, 130 Ctrl-C,
143 SIGTERM, 129 SIGHUP (terminal closed)."
)]
pub struct Cli {
    /// Headless subcommand; none opens the window.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Window-mode flags (used when there is no subcommand).
    #[command(flatten)]
    pub gui: gui::GuiArgs,
}

/// Subcommands.
// `Run` carries many flags; the enum is parsed once per process, so it stays unboxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Send a request and retry it under a profile, printing a live timeline.
    Run(run::RunArgs),
    /// Run a pasted curl command under a profile (the same parser as the window's Import curl…).
    Curl(curl_cmd::CurlArgs),
    /// Sample a profile's waits per retry (min / p50 / p95 / max) without any network.
    Simulate(simulate::SimulateArgs),
    /// Validate profile files, print the JSON Schema, list or show built-in profiles.
    Profile(profile_cmd::ProfileArgs),
    /// Run the embedded flaky demo HTTP server on 127.0.0.1.
    DemoServer(demo_server::DemoServerArgs),
    /// List, show, export, delete and prune recorded runs.
    History(history_cmd::HistoryArgs),
    /// Work a list of requests through a profile as a durable, resumable batch; list and show batches.
    Batch(batch_cmd::BatchArgs),
    /// A flakiness report of recorded runs: HTML, Markdown with PNG plots, or JSON figures.
    Report(report_cmd::ReportArgs),
    /// What other retry profiles would have done against the endpoint the recorded runs saw.
    Whatif(whatif_cmd::WhatIfArgs),
    /// Send a request on a schedule for hours, every run recorded under one watch; list, show
    /// and resume watches.
    Watch(watch_cmd::WatchArgs),
    /// Open the desktop app (same as no subcommand).
    Gui(gui::GuiArgs),
}

/// Parses `std::env::args`. On `--help`/`--version` or a usage error, clap's text is printed
/// here and the exit code (0, or 2 for usage errors) is returned as `Err`.
///
/// # Errors
/// The exit code to end with after `--help`, `--version` or a usage error.
pub fn parse() -> Result<Cli, ExitCode> {
    Cli::try_parse().map_err(|e| {
        if e.use_stderr() {
            out::write_stderr(&usage_error_text(&e));
        } else {
            let _ = e.print();
        }
        // clap uses 2 for usage errors and 0 for --help / --version.
        ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(exit::USAGE))
    })
}

/// clap's usage error as plain text, the value it quotes as every message quotes input
/// ([`crate::model::quote::quote_input`]: controls escaped, long values cut with their length).
/// clap itself would strip escape sequences from the value without a word and print a long
/// one whole.
fn usage_error_text(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue};
    let text = e.render().to_string();
    match e.get(ContextKind::InvalidValue) {
        Some(ContextValue::String(value)) if !value.is_empty() => {
            // As the rendered text shows it: escape sequences stripped.
            let shown = clap::builder::StyledStr::from(value.clone()).to_string();
            text.replacen(
                &format!("'{shown}'"),
                &format!("'{}'", crate::model::quote::quote_input(value)),
                1,
            )
        }
        _ => text,
    }
}

/// The process's core for `command` (`None`: the window): the window gets worker threads and
/// the demo server; `batch` and `demo-server` worker threads; `simulate` one worker (its
/// signal handler); every other command a current-thread runtime, driven from `main`'s thread.
///
/// # Errors
/// Exit 1, after an `error:` line, when the runtime cannot start.
pub fn start_core(command: Option<&Command>) -> Result<Arc<Core>, ExitCode> {
    let options = match command {
        None | Some(Command::Gui(_)) => CoreOptions {
            threads: Threads::Workers(2),
            demo: true,
        },
        Some(Command::Batch(_) | Command::DemoServer(_) | Command::Watch(_)) => {
            CoreOptions::workers(2)
        }
        Some(Command::Simulate(_)) => CoreOptions::workers(1),
        Some(_) => CoreOptions::ONE_SHOT,
    };
    Core::new(options).map(Arc::new).map_err(|e| {
        out::write_stderr(&format!("error: cannot start the async runtime: {e}\n"));
        ExitCode::from(exit::FAILED)
    })
}

/// Ends the core's work (runs record their end, the keyring worker makes its last writes, the
/// history commits what it holds); a history that could not commit everything is a warning on
/// stderr.
pub fn stop_core(core: Arc<Core>) {
    let core = match Arc::try_unwrap(core) {
        Ok(core) => core,
        Err(shared) => {
            // Something still holds the core: at least the last keyring writes are made.
            shared.finish_keyring();
            return;
        }
    };
    if let Err(e) = core.shutdown(CORE_STOP_WAIT) {
        out::write_stderr(&format!(
            "warning: the history did not record everything: {e}\n"
        ));
    }
}

/// Longest wait at exit for the core's tasks to end.
const CORE_STOP_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Runs a headless subcommand (or the window for `gui`) on `core` and returns the process exit
/// code.
pub fn execute(command: &Command, core: &Arc<Core>) -> ExitCode {
    exit::finish(match command {
        Command::Run(a) => run::execute(a, core),
        Command::Curl(a) => curl_cmd::execute(a, core),
        Command::Simulate(a) => simulate::execute(a, core),
        Command::Profile(a) => profile_cmd::execute(a),
        Command::DemoServer(a) => demo_server::execute(a, core),
        Command::History(a) => history_cmd::execute(a),
        Command::Batch(a) => batch_cmd::execute(a, core),
        Command::Report(a) => report_cmd::execute(a),
        Command::Whatif(a) => whatif_cmd::execute(a),
        Command::Watch(a) => watch_cmd::execute(a, core),
        Command::Gui(a) => gui::execute(a, core),
    })
}

/// Opens the window (no subcommand) on `core`.
pub fn execute_gui(args: &gui::GuiArgs, core: &Arc<Core>) -> ExitCode {
    exit::finish(gui::execute(args, core))
}
