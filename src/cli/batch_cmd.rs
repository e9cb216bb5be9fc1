//! `retryscope batch`: queue a list of requests and work it through a profile, resume
//! a batch, list batches, show one.

use super::batch_view;
use super::exit::{self, CliError};
use super::history_cmd::DataDirArg;
use super::profile_source;
use super::signal::{Stop, StopSignals};
use crate::interop::batch_list::{BatchListFormat, OnBadLines};
use crate::interop::batch_report::{ReportFormat, render_report};
use crate::model::{
    BatchEvent, BatchItemState, BatchOptions, DEFAULT_CONCURRENCY, ResponseMatcher, StatusSet,
};
use crate::service::{BatchControl, BatchRunner, BatchSummary};
use crate::store::{BatchQueue, HistoryWriter};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::mpsc;

/// Flags of `retryscope batch`.
#[derive(Debug, Clone, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = "\
Examples (start `retryscope demo-server --port 8080` first):
  retryscope batch requests.jsonl --builtin vbscript-module --concurrency 8
  retryscope batch requests.jsonl --rate-per-host 20 --expect-status 200-299 \\
      --expect-json /state=done --expect-body ok
  retryscope batch --resume 019a3c5e
  retryscope batch --resume 019a3c5e --concurrency 2 --rate-per-host 5
  retryscope batch list
  retryscope batch show 019a3c5e --state error

The list: JSON Lines (.jsonl: one object per line with `url` and optionally `method`, default
GET, `headers`, `body`, `name`, `profile`), CSV (.csv: a header row naming url, method, body,
name, profile and header:NAME columns), curl commands one per line (.curl, .sh, .txt) or a HAR
file (.har: every entry); --format overrides the extension. Every malformed line is reported
with its line number (the first 20, then how many more) and nothing is queued, unless
--skip-bad-lines queues the others.

--report FILE writes the results when the batch stops: CSV (.csv), JSON Lines (.jsonl) or
JUnit XML (.xml: each item a test case, its attempts in system-out); secrets masked.

Every item is stored in the history database before anything is sent, and every change of
its state (pending, running, done, error, cancelled) is committed before it is shown. Ctrl-C
pauses the batch: runs in flight are cancelled, their items go back to pending, and the
command that resumes the batch is printed; a killed process is resumed the same way (items
left running are sent again from attempt 1; done items are never sent again). --resume keeps
the profile and assertions the batch was queued with; --concurrency and --rate-per-host given
with it replace the stored values, which later resumes (and the window) then use.

Assertions (all must hold for an item's final response, else it ends in error naming the
first that failed): --expect-status SET (codes and ranges, `200-299,304`), --expect-json
POINTER=VALUE (RFC 6901 pointer; VALUE is JSON, or a plain string when it is not valid JSON),
--expect-body TEXT (the body contains TEXT). Each flag may repeat.

Exit codes: 0 every item done; 1 some item ended in error (or was cancelled); 2 usage,
profile or list error, or --resume of a batch with no item left (finished or cancelled:
nothing is sent; --report is still written); 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP (the batch
is left resumable). A closed stdout (`| head`) or one that cannot be written does not stop
the batch nor its --report; then the exit code is 141 (stdout closed) or 1 (write failed)
unless it already says failure."
)]
pub struct BatchArgs {
    /// list, show.
    #[command(subcommand)]
    pub command: Option<BatchCommand>,
    /// The list of requests to queue (JSON Lines, CSV, curl commands or HAR).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// The list's format, when its extension does not say: jsonl, csv, curl or har.
    #[arg(long, value_name = "FORMAT", value_parser = parse_list_format)]
    pub format: Option<BatchListFormat>,
    /// Queue the good lines of a list that has malformed ones (each is still reported); by
    /// default nothing is queued then.
    #[arg(long)]
    pub skip_bad_lines: bool,
    /// Write the results to FILE when the batch stops: .csv, .jsonl or .xml (JUnit).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Profile file for every item without a profile of its own.
    #[arg(long, value_name = "FILE", conflicts_with = "builtin")]
    pub profile: Option<PathBuf>,
    /// Built-in profile name (see `retryscope profile builtins`). Default: servicenow-exponential.
    #[arg(long, value_name = "NAME")]
    pub builtin: Option<String>,
    /// Items in flight at once, 1–256 (default 4; with --resume: the batch's stored value).
    #[arg(long, value_name = "N", value_parser = parse_concurrency, allow_negative_numbers = true)]
    pub concurrency: Option<usize>,
    /// Most item starts per second against one host (scheme + host + port); retries are paced
    /// by the profile and its retry budget, which all items of a host share. An item waiting
    /// for its host's turn holds no concurrency slot. With --resume: default the batch's
    /// stored value.
    #[arg(long, value_name = "R", value_parser = parse_rate, allow_negative_numbers = true)]
    pub rate_per_host: Option<f64>,
    /// With --resume: end the items that were in flight when the batch stopped and are not
    /// idempotent (POST, PATCH… without an Idempotency-Key) `cancelled` instead of sending them
    /// again; without it they are listed on stderr and sent again from attempt 1.
    #[arg(long, requires = "resume")]
    pub skip_interrupted: bool,
    /// Send every item an Idempotency-Key derived from the batch and the item
    /// (`retryscope-BATCH-POSITION`), the same on every attempt and on every resume: a server
    /// that honours it runs an item in flight at a crash only once, and POST items are retried
    /// as the profile allows. Stored with the batch. An item with its own key keeps it.
    #[arg(long)]
    pub idempotency_key: bool,
    /// Whole-attempt timeout of the batch's profile, ms (overrides its timeouts.total_ms; an
    /// item that names a profile keeps that profile's). Stored with the batch, so a resume
    /// keeps it. Without it, an attempt ends only at the profile's idle timeout (read_ms, 30 s
    /// without a byte by default) or its deadline.
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_parser = crate::cli::whole_number::u64_value)]
    pub timeout_ms: Option<u64>,
    /// Resume batch ID (full id, or a unique prefix of 8+ characters) with the profile and
    /// assertions it was queued with; --concurrency and --rate-per-host given here replace the
    /// stored ones (and are stored for the next resume).
    #[arg(long, value_name = "ID", conflicts_with_all = [
        "file", "profile", "builtin", "expect_status", "expect_json", "expect_body",
        "format", "skip_bad_lines", "timeout_ms", "idempotency_key"
    ])]
    pub resume: Option<String>,
    /// Assertion: the final status is in SET (`200-299`, `200,204`). Repeatable.
    #[arg(long, value_name = "SET", value_parser = crate::service::parse_expect_status)]
    pub expect_status: Vec<StatusSet>,
    /// Assertion: the JSON body at POINTER equals VALUE (`/state="done"`, `/count=3`; VALUE
    /// that is not JSON is a string: `/state=done`). Repeatable.
    #[arg(long, value_name = "POINTER=VALUE")]
    pub expect_json: Vec<String>,
    /// Assertion: the body contains TEXT (not empty). Repeatable.
    #[arg(long, value_name = "TEXT", value_parser = crate::service::parse_expect_body)]
    pub expect_body: Vec<String>,
    /// Most response body bytes kept per attempt in the history.
    #[arg(long, value_name = "BYTES", default_value_t = crate::store::DEFAULT_BODY_CAP,
          allow_negative_numbers = true, value_parser = crate::cli::whole_number::usize_value)]
    pub history_body_cap: usize,
    /// Where the database lives.
    #[command(flatten)]
    pub data_dir: DataDirArg,
    /// Where each item's run is logged (as `run` logs its run).
    #[command(flatten)]
    pub log: super::log_args::LogArgs,
}

/// `batch` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum BatchCommand {
    /// Batches, newest first: id, created, state (working, paused, interrupted, queued,
    /// finished, cancelled), profile, counts per state, source file.
    List {
        /// At most N batches (at least 1).
        #[arg(
            long,
            value_name = "N",
            default_value_t = 50,
            allow_negative_numbers = true,
            value_parser = crate::cli::whole_number::u32_at_least_1
        )]
        limit: u32,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// One batch: its options and one line per item (state, attempts, status or error, reason,
    /// run id for `history show`).
    Show {
        /// Batch id (or a unique prefix or suffix of 8+ characters).
        id: String,
        /// Only items in this state (pending, running, done, error, cancelled).
        #[arg(long, value_name = "STATE", value_parser = parse_state)]
        state: Option<BatchItemState>,
        /// One JSON object per item line.
        #[arg(long)]
        json: bool,
    },
    /// Deletes a batch that no process works: its queue rows and the secrets its items kept in
    /// the OS keyring. The runs its items made stay in the history.
    Delete {
        /// Batch id (or a unique prefix or suffix of 8+ characters).
        id: String,
    },
}

/// Runs `batch`; returns the exit code.
///
/// # Errors
/// Exit 2 for usage, profile and list problems; exit 1 when the database cannot be used.
pub fn execute(args: &BatchArgs, core: &crate::service::Core) -> Result<u8, CliError> {
    let dir = args.data_dir.resolve()?;
    // Reading an empty data folder never creates the database (nor the folder).
    let nothing_queued = !super::watch_cmd::history_exists(&dir.join(crate::store::HISTORY_FILE))?;
    match &args.command {
        Some(BatchCommand::List { json, .. }) if nothing_queued => {
            if !*json {
                crate::cli_outln!("no batches yet (queue one with `retryscope batch FILE`)");
            }
            Ok(exit::SUCCESS)
        }
        Some(BatchCommand::Show { id, .. } | BatchCommand::Delete { id }) if nothing_queued => {
            Err(CliError::usage(format!(
                "no batch {id}: nothing was queued in {}",
                dir.display()
            )))
        }
        Some(BatchCommand::List { limit, json }) => {
            batch_view::list(&open_queue(&dir)?, *limit, *json)
        }
        Some(BatchCommand::Show { id, state, json }) => {
            batch_view::show(&open_queue(&dir)?, id, *state, *json)
        }
        Some(BatchCommand::Delete { id }) => {
            batch_view::delete(&mut open_queue(&dir)?, id, &|| core.secret_store().store)
        }
        None => work(args, &dir, core),
    }
}

/// The queue for reading (list, show, the summary): no secret is read, so the keyring is not
/// contacted.
fn open_queue(dir: &Path) -> Result<BatchQueue, CliError> {
    let secrets: Arc<dyn crate::store::SecretStore> =
        Arc::new(crate::store::MemorySecretStore::new());
    BatchQueue::open_in(dir, secrets).map_err(|e| CliError::failed(e.to_string()))
}

/// Queues the file (or finds the batch to resume) and works it. Every read and write of the
/// queue is a call to the core's store actor of `dir` (one connection for the whole command).
fn work(args: &BatchArgs, dir: &Path, core: &crate::service::Core) -> Result<u8, CliError> {
    // A report that could not be written after the batch ran would be found out too late.
    let report = args.report.as_deref().map(report_target).transpose()?;
    // Each item's run is logged as `run` logs one: one line per attempt, wait and outcome,
    // named by the run's history id (the item's row names that run too).
    let _log = args
        .log
        .install(Some(dir), Some(crate::store::LOG_QUEUE_LINES))?;
    if let (Some((path, _)), Some(list)) = (&report, &args.file)
        && crate::store::same_file(list, path)
    {
        return Err(CliError::usage(format!(
            "--report names the list being read; write the report to another file: {}",
            path.display()
        )));
    }
    let opened = core.secret_store();
    let store = core
        .history_writer(dir)
        .map_err(|e| CliError::failed(e.to_string()))?;
    let secrets = Arc::clone(&opened.store);
    let on_store = |job: QueueCall| {
        let secrets = Arc::clone(&secrets);
        store
            .call_blocking(move |queue| {
                queue.use_secrets(secrets);
                job(queue)
            })
            .map_err(|e| CliError::failed(e.to_string()))?
    };
    let batch_id = match (&args.file, &args.resume) {
        (Some(file), None) => {
            let id = on_store(queue_file(args, file)?)?;
            let (batch, items_with_secrets) = (id.clone(), &store);
            if let Some(reason) = &opened.fallback_reason
                && items_with_secrets
                    .call_blocking(move |q| q.secret_items(&batch))
                    .is_ok_and(|n| n.is_ok_and(|n| n > 0))
            {
                warn_unresumable("some items carry secrets", "the batch", reason);
            }
            id
        }
        (None, Some(id)) => {
            let (wanted, report) = (id.clone(), report.clone());
            let (skip, concurrency, rate) =
                (args.skip_interrupted, args.concurrency, args.rate_per_host);
            on_store(Box::new(move |queue| {
                let record = queue
                    .batch(&wanted)
                    .map_err(|e| CliError::usage(e.to_string()))?;
                // Refused before anything is said of it or changed.
                queue
                    .check_free(&record.id)
                    .map_err(|e| CliError::failed(e.to_string()))?;
                // The batch's own list is as much the user's as a list given now.
                if let (Some((path, _)), Some(source)) = (&report, &record.source)
                    && crate::store::same_file(Path::new(source), path)
                {
                    return Err(CliError::usage(format!(
                        "--report names the list this batch was queued from; write the report to another file: {}",
                        path.display()
                    )));
                }
                let (c, state) = (record.counts, record.state(false));
                if c.pending + c.running == 0 {
                    // Its report is still written when asked: nothing is sent for it.
                    if let Some((path, format)) = &report {
                        write_report(queue, &record.id, path, *format)?;
                    }
                    return Err(CliError::usage(format!(
                        "batch {} is {state} ({}: {}): nothing to resume; its items: retryscope batch show {0}",
                        record.id,
                        crate::model::counted(c.total(), "item", "items"),
                        c.summary()
                    )));
                }
                let id = record.id;
                super::batch_interrupted::say_or_skip(queue, &id, skip)?;
                if concurrency.is_some() || rate.is_some() {
                    queue
                        .set_run_options(&id, concurrency, rate)
                        .map_err(|e| match e {
                            crate::store::BatchError::Options(p) => CliError::usage(p),
                            e => CliError::failed(e.to_string()),
                        })?;
                }
                Ok(id)
            }))?
        }
        _ => {
            return Err(CliError::usage(
                "give a FILE of requests to queue, --resume ID, or a subcommand (list, show)",
            ));
        }
    };
    let dir_given =
        args.data_dir.data_dir.is_some() || std::env::var_os(crate::store::DATA_DIR_ENV).is_some();
    // The id goes out before anything is sent: after a crash or `kill -9` the user has it.
    super::out::write_stderr(&format!(
        "batch {batch_id}: working it (Ctrl-C pauses; after a crash: {})\n",
        resume_command(&batch_id, dir, dir_given)
    ));
    let runner = BatchRunner::new(Arc::clone(&store), Arc::clone(&opened.store))
        .worked_by(crate::model::BatchWorker::Cli)
        .body_cap(args.history_body_cap)
        .with_budgets(core.budgets().clone())
        .with_clients(core.clients())
        .with_profiles(crate::service::library_lookup(
            crate::service::default_library_dir(),
        ));
    // A closed or full stdout must not lose the report: it is written all the same, and the
    // loss decides the exit code at the end (`out::exit_code_after_output`).
    super::out::keep_going_when_stdout_is_lost();
    let started = std::time::Instant::now();
    let (summary, stop) = match core.block_on(drive(runner, &batch_id)) {
        Ok(ended) => ended,
        Err((e, true)) => return Err(stopped_by(&batch_id, dir, dir_given, &e)),
        Err((e, false)) => return Err(e),
    };
    flush_writer(&store);
    let secrets_in_memory = opened.fallback_reason.is_some();
    let code = finish(
        &batch_id,
        dir,
        dir_given,
        (summary, stop, started),
        secrets_in_memory,
    )?;
    if let Some((path, format)) = report {
        write_report(&open_queue(dir)?, &batch_id, &path, format)?;
    }
    Ok(super::out::exit_code_after_output(code))
}

/// Says on stderr that work holding secrets (`what`: `some items carry secrets`; `subject`:
/// `the batch`) cannot be resumed by another process: no OS keyring keeps them (`reason`, the
/// secret store's).
pub(super) fn warn_unresumable(what: &str, subject: &str, reason: &str) {
    super::out::write_stderr(&format!(
        "warning: {what}, and {reason}: after this process ends {subject} cannot be resumed\n"
    ));
}

/// What a batch stopped by an error says (exit 1): the error in words, that the items not
/// finished stay queued, and the command that resumes it.
fn stopped_by(batch_id: &str, dir: &Path, dir_given: bool, e: &CliError) -> CliError {
    CliError::failed(format!(
        "batch {batch_id} stopped: {}\nthe items not finished stay queued; resume with: {}",
        e.message,
        resume_command(batch_id, dir, dir_given)
    ))
}

/// A step of `work` run on the store actor; it returns the batch id.
type QueueCall = Box<dyn FnOnce(&mut BatchQueue) -> Result<String, CliError> + Send>;

/// The command that resumes batch `batch_id`, with `--data-dir` when the folder was given (by
/// flag or environment), quoted for a POSIX shell so it pastes as printed (`it's dir`).
fn resume_command(batch_id: &str, dir: &Path, dir_given: bool) -> String {
    if dir_given {
        format!(
            "retryscope batch --resume {batch_id} --data-dir {}",
            shell_words::quote(&dir.display().to_string())
        )
    } else {
        format!("retryscope batch --resume {batch_id}")
    }
}

/// The `--report` path and its format (from the extension), checked before anything is sent.
fn report_target(path: &Path) -> Result<(PathBuf, ReportFormat), CliError> {
    let format = ReportFormat::from_path(path).ok_or_else(|| {
        CliError::usage(format!(
            "--report: name a .csv, .jsonl or .xml (JUnit) file: {}",
            path.display()
        ))
    })?;
    super::output_path::check_output_path(path, "--report")?;
    Ok((path.to_owned(), format))
}

/// Writes batch `batch_id`'s results to `path` (secrets masked by the report writers).
fn write_report(
    queue: &BatchQueue,
    batch_id: &str,
    path: &Path,
    format: ReportFormat,
) -> Result<(), CliError> {
    let batch = queue
        .batch(batch_id)
        .map_err(|e| CliError::failed(e.to_string()))?;
    let title = batch
        .source
        .as_deref()
        .and_then(|s| Path::new(s).file_name())
        .map_or_else(|| batch.id.clone(), |n| n.to_string_lossy().into_owned());
    let report = crate::service::batch_report(queue, &batch.id, &title)
        .map_err(|e| CliError::failed(e.to_string()))?;
    let text = render_report(format, &report, &[])
        .map_err(|e| CliError::failed(format!("cannot write the report: {e}")))?;
    crate::store::write_export(path, text.as_bytes())
        .map_err(|e| CliError::write("cannot write the report", &e))?;
    super::out::write_stderr(&format!("report written: {}\n", path.display()));
    Ok(())
}

/// The store call that reads and queues `file` under the flags' profile and options (each good
/// item inserted as it is read, in the batch's one transaction); it returns the batch id.
/// The flags are checked here, before anything is read.
fn queue_file(args: &BatchArgs, file: &Path) -> Result<QueueCall, CliError> {
    let on_bad = if args.skip_bad_lines {
        OnBadLines::Skip
    } else {
        OnBadLines::Refuse
    };
    let mut profile = profile_source::select(args.profile.as_deref(), args.builtin.as_deref())?;
    match args.timeout_ms {
        Some(0) => {
            return Err(CliError::usage(
                "--timeout-ms must be greater than 0 (leave it out for the profile's value)",
            ));
        }
        Some(ms) => {
            profile.timeouts.total_ms = Some(ms);
            profile_source::check_overridden(&profile, &[("timeouts.total_ms", "--timeout-ms")])?;
        }
        None => {}
    }
    let options = BatchOptions {
        concurrency: args.concurrency.unwrap_or(DEFAULT_CONCURRENCY),
        rate_per_host: args.rate_per_host,
        assertions: assertions(args)?,
        idempotency_keys: args.idempotency_key,
    };
    if let Some(problem) = options.problem() {
        return Err(CliError::usage(problem));
    }
    // Items naming a profile neither built in nor in the library are bad lines like the
    // malformed ones (counted, refused or skipped with them). A refused list is rolled back.
    let profiles = crate::service::library_lookup(crate::service::default_library_dir());
    let (file, format) = (file.to_owned(), args.format);
    Ok(Box::new(move |queue| {
        let mut read: Result<Vec<String>, String> = Ok(Vec::new());
        let mut queue_error: Option<crate::store::BatchError> = None;
        let id = queue
            .create_streaming(
                Some(&file.display().to_string()),
                &profile,
                &options,
                |queue_item| {
                    read = crate::service::stream_batch_list(
                        &file,
                        format,
                        on_bad,
                        Some(&profiles),
                        &mut |item| {
                            queue_item(&item).map_err(|e| {
                                let said = e.to_string();
                                queue_error = Some(e);
                                said
                            })
                        },
                    );
                    if let Some(e) = queue_error.take() {
                        return Err(e);
                    }
                    Ok(read.is_ok())
                },
            )
            .map_err(|e| match e {
                crate::store::BatchError::SecretInAssertion { .. } => {
                    CliError::usage(e.to_string())
                }
                e => CliError::failed(e.to_string()),
            })?;
        let notes = read.map_err(|e| {
            if e.contains("skip bad lines") {
                CliError::usage(format!("{e}\n(--skip-bad-lines queues the good lines)"))
            } else {
                CliError::usage(e)
            }
        })?;
        for note in &notes {
            super::out::write_stderr(&format!("warning: {note}\n"));
        }
        id.ok_or_else(|| CliError::failed("the list was read but not queued"))
    }))
}

/// The assertions of the `--expect-*` flags, in the order: statuses, JSON pointers, bodies
/// (parsed and compiled by the code the Batch tab uses too).
fn assertions(args: &BatchArgs) -> Result<Vec<ResponseMatcher>, CliError> {
    let jsons = args
        .expect_json
        .iter()
        .map(|raw| crate::service::parse_expect_json(raw).map_err(|e| format!("--expect-json {e}")))
        .collect::<Result<Vec<_>, _>>()
        .map_err(CliError::usage)?;
    crate::service::expect_assertions(&args.expect_status, jsons, &args.expect_body)
        .map_err(CliError::usage)
}

/// Works the batch, showing progress; Ctrl-C / SIGTERM pauses it. Returns the summary and the
/// signal that stopped it, if any; or the error and whether the batch had started.
async fn drive(
    runner: BatchRunner,
    batch_id: &str,
) -> Result<(BatchSummary, Option<Stop>), (CliError, bool)> {
    let mut signals = StopSignals::install();
    let control = BatchControl::new();
    let (tx, mut rx) = mpsc::channel::<BatchEvent>(1024);
    let id = batch_id.to_owned();
    let worker_control = control.clone();
    let mut task = tokio::spawn(async move { runner.run(&id, worker_control, tx).await });
    let bar = progress_bar();
    let mut stop = None;
    let mut counts = crate::model::BatchCounts::default();
    let mut open = true;
    let result = loop {
        tokio::select! {
            event = rx.recv(), if open => match event {
                Some(event) => show_progress(&bar, &event, &mut counts),
                None => open = false,
            },
            signal = signals.recv(), if stop.is_none() => {
                stop = Some(signal);
                bar.set_message("stopping: cancelling the runs in flight…");
                control.pause();
            }
            joined = &mut task => break joined,
        }
    };
    bar.finish_and_clear();
    let started = counts.total() > 0;
    let summary = result
        .map_err(|e| {
            (
                CliError::failed(format!("the batch runner stopped: {e}")),
                started,
            )
        })?
        .map_err(|e| (CliError::failed(e.to_string()), started))?;
    Ok((summary, stop))
}

/// A bar on stderr, hidden when stderr is not a terminal.
fn progress_bar() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{wide_bar} {pos}/{len} items, {per_sec}, {eta_once_known} · {msg} (Ctrl-C pauses)",
    ) {
        bar.set_style(style.with_key("eta_once_known", eta_once_known));
    }
    bar
}

/// The bar's time left: "eta …" once an item has ended, "eta —" before (indicatif's own
/// `{eta}` says "0s" while it has nothing to go by).
fn eta_once_known(state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write) {
    let _ = out.write_str(&eta_text(state.pos(), state.eta()));
}

/// "eta —" while no item has ended (`finished` 0), else "eta " and `eta` as indicatif writes it.
fn eta_text(finished: u64, eta: std::time::Duration) -> String {
    if finished == 0 {
        "eta —".to_owned()
    } else {
        format!("eta {:#}", indicatif::HumanDuration(eta))
    }
}

fn show_progress(bar: &ProgressBar, event: &BatchEvent, counts: &mut crate::model::BatchCounts) {
    match event {
        BatchEvent::BatchStarted { counts: c, .. }
        | BatchEvent::BatchFinished { counts: c, .. } => {
            *counts = *c;
            bar.set_length(c.total());
            bar.set_position(c.finished());
        }
        BatchEvent::ItemStarted { .. } => {
            counts.moved(BatchItemState::Pending, BatchItemState::Running);
        }
        BatchEvent::ItemFinished { state, .. } => {
            counts.moved(BatchItemState::Running, *state);
            bar.set_position(counts.finished());
        }
    }
    bar.set_message(format!("{} done, {} error", counts.done, counts.error));
}

/// Commits what the store actor holds, so every run is recorded before the summary is
/// printed (the core closes it at exit).
fn flush_writer(store: &HistoryWriter) {
    if let Err(e) = store.flush() {
        super::out::write_stderr(&format!(
            "warning: the batch's runs are not fully recorded in the history: {e}\n"
        ));
    }
}

/// Prints the summary (and the failed items) and picks the exit code.
/// `secrets_in_memory`: no OS keyring held the items' secrets, so another process cannot send
/// those items.
fn finish(
    batch_id: &str,
    dir: &Path,
    dir_given: bool,
    (summary, stop, started): (BatchSummary, Option<Stop>, std::time::Instant),
    secrets_in_memory: bool,
) -> Result<u8, CliError> {
    let queue = open_queue(dir)?;
    batch_view::print_failed(&queue, batch_id)?;
    let c = summary.counts;
    crate::cli_outln!(
        "batch {batch_id}: {}: {} in {:.1} s",
        crate::model::counted(c.total(), "item", "items"),
        c.summary(),
        started.elapsed().as_secs_f64()
    );
    if summary.stopped {
        super::out::write_stderr(&format!(
            "{} left pending; resume with: {}\n",
            crate::model::counted(c.pending, "item", "items"),
            resume_command(batch_id, dir, dir_given)
        ));
        let with_secrets = queue.secret_items(batch_id).unwrap_or(0);
        if secrets_in_memory && with_secrets > 0 {
            super::out::write_stderr(&format!(
                "note: {} secrets that were kept in memory only (no OS keyring): \
                 a resumed batch ends those still pending in error; queue the list again to send them\n",
                crate::model::counted(with_secrets, "item carries", "items carry")
            ));
        }
    }
    Ok(match stop {
        Some(stop) => stop.exit_code(),
        None if c.error > 0 || c.cancelled > 0 || c.pending > 0 => exit::FAILED,
        None => exit::SUCCESS,
    })
}

fn parse_list_format(text: &str) -> Result<BatchListFormat, String> {
    text.parse()
        .map_err(|e: crate::interop::batch_list::UnknownListFormat| e.to_string())
}

fn parse_concurrency(text: &str) -> Result<usize, String> {
    let max = crate::model::MAX_CONCURRENCY;
    text.parse()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| format!("expected a whole number from 1 to {max}"))
}

fn parse_rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(r) => crate::model::rate_per_host_problem(r).map_or(Ok(r), Err),
        Err(_) => Err("expected a number of requests per second above 0 (e.g. 10 or 0.5)".into()),
    }
}

fn parse_state(text: &str) -> Result<BatchItemState, String> {
    BatchItemState::from_id(text).ok_or_else(|| {
        format!(
            "expected one of {}",
            BatchItemState::ALL.map(BatchItemState::id).join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    #[test]
    fn the_eta_waits_for_the_first_item_to_end() {
        assert_eq!(super::eta_text(0, Duration::ZERO), "eta —");
        assert_eq!(super::eta_text(0, Duration::from_secs(90)), "eta —");
        assert_eq!(super::eta_text(3, Duration::from_secs(90)), "eta 2m");
        assert_eq!(super::eta_text(3, Duration::from_secs(5)), "eta 5s");
    }
}
