//! `retryscope watch`: send a request on a schedule (each slot a full run under the profile,
//! recorded in the history under one watch), one line per run and a live summary on a
//! terminal; `watch --resume ID`, `watch list`, `watch show ID` (DESIGN.md §12).

#![allow(
    clippy::doc_markdown,
    reason = "clap prints these doc comments as --help text, where backticks would show"
)]

use super::exit::{self, CliError};
use super::history_cmd::DataDirArg;
use super::run::{RunArgs, check_sendable, prepare};
use super::signal::{Stop, StopSignals};
use crate::report::{
    Figures, ObservedRun, ReportContext, duration_text, figures, outcome_id, percent_text,
    time_text,
};
use crate::service::watch_service::{self, WatchEvent, WatchPlan, parse_every, parse_length};
use crate::service::{CoreCommand, CoreEvent, CoreLink, WatchCommand, WatchUpdate};
use crate::store::{Missed, WatchRecord, WatchSlot, WatchState};
use clap::{Args, Subcommand};
use std::fmt::Write as _;
use std::io::IsTerminal;

/// Flags of `retryscope watch`.
#[derive(Debug, Clone, Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    mut_arg("url", |a| a.required(false).default_value("").hide_default_value(true)),
    // Flags of `run` a watch refuses (refuse_run_only_flags): kept off watch's help.
    mut_arg("json", |a| a.hide(true)),
    mut_arg("seed", |a| a.hide(true)),
    mut_arg("include", |a| a.hide(true)),
    mut_arg("output", |a| a.hide(true)),
    mut_arg("no_body", |a| a.hide(true)),
    mut_arg("no_history", |a| a.hide(true)),
    mut_arg("har", |a| a.hide(true)),
    mut_arg("png", |a| a.hide(true)),
    mut_arg("silent", |a| a.help("Summary only: no line per run or missed slot")),
    after_help = "\
Examples (start `retryscope demo-server --port 8080` first):
  retryscope watch --every 30s --for 8h --jitter 10% http://127.0.0.1:8080/outage
  retryscope watch --builtin azure-sdk --every 200ms --count 5 \\
      'http://127.0.0.1:8080/outage?down_s=2&period_s=10'
  retryscope watch --resume 0193a7c2
  retryscope watch list
  retryscope watch show 0193a7c2
  retryscope report --watch 0193a7c2 -o watch.html

Every slot is a full run under the profile, recorded in the history with the watch's id. Slot k
is due at start + k × every (± the jitter); one run at a time: a slot whose time passes while
the previous run still goes is missed, and so is one whose time passed by more than half an
interval while nothing could send (the machine slept): missed slots are recorded, never sent
late. One line per run (time, slot, outcome, attempts, time to success, status or error); on a
terminal a live summary line below them. Ctrl-C, SIGTERM or SIGHUP stop it cleanly (the run in
flight is cancelled and recorded, the watch is `paused`: `watch --resume ID` carries it on).

Exit codes: 0 the watch ran to its end, at least one run finished and every finished run
succeeded (cancelled runs and missed slots count neither way); 1 it ended with a failed run or
with no finished run, or it could not go on; 2 usage or profile error; 130, 143, 129 stopped by Ctrl-C,
SIGTERM, SIGHUP (paused, resumable).")]
pub struct WatchArgs {
    /// `list` or `show`.
    #[command(subcommand)]
    pub action: Option<WatchAction>,
    /// Carry on the paused or interrupted watch ID (full, or a unique start of it); the slots
    /// that passed meanwhile are recorded as missed. The watch keeps its request, profile and
    /// schedule: flags that would change them are refused with it.
    #[arg(long, value_name = "ID", conflicts_with_all = [
        "every", "for_ms", "count", "jitter", "profile", "builtin", "method", "headers", "data",
        "seed", "timeout_ms", "connect_timeout_ms", "read_timeout_ms", "deadline_ms",
        "max_retries", "idempotency_key", "history_body_cap", "user", "cookie", "form",
        "insecure", "cacert", "location", "location_trusted", "max_redirs", "no_follow", "env",
        "vars",
    ])]
    pub resume: Option<String>,
    /// Interval between slots: 200ms, 30s, 5m, 1h (at least 100ms).
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true, value_parser = parse_every)]
    pub every: Option<u64>,
    /// Stop after this long: 8h, 90m, 2d (default: until stopped).
    #[arg(long = "for", value_name = "DURATION", allow_hyphen_values = true, value_parser = parse_length,
          conflicts_with = "count")]
    pub for_ms: Option<u64>,
    /// Stop after N slots (runs and missed slots).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = |t: &str| crate::cli::whole_number::whole_in(t, 1, u64::MAX))]
    pub count: Option<u64>,
    /// Move each slot by a random share of the interval, at most this much either way: 10% or
    /// 0.1 (below 50 %).
    #[arg(long, value_name = "SHARE", default_value = "0", allow_hyphen_values = true,
          value_parser = parse_jitter)]
    pub jitter: f64,
    /// The request and profile, as `retryscope run` takes them.
    #[command(flatten)]
    pub run: Box<RunArgs>,
}

/// `watch list` and `watch show`.
#[derive(Debug, Clone, Subcommand)]
pub enum WatchAction {
    /// Watches, newest first.
    List(WatchListArgs),
    /// One watch: its record, the summary of its runs and every slot.
    Show(WatchShowArgs),
}

/// Flags of `watch list`.
#[derive(Debug, Clone, Args)]
pub struct WatchListArgs {
    /// At most N watches (at least 1).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 50,
        allow_negative_numbers = true,
        value_parser = crate::cli::whole_number::u32_at_least_1
    )]
    pub limit: u32,
    /// The watch records as JSON (docs/formats.md) instead of one line each.
    #[arg(long)]
    pub json: bool,
    /// Where the database lives.
    #[command(flatten)]
    pub data_dir: DataDirArg,
}

/// Flags of `watch show`.
#[derive(Debug, Clone, Args)]
pub struct WatchShowArgs {
    /// The watch (full id, or a unique start of it).
    pub id: String,
    /// The record, its slots and the summary's figures as JSON (docs/formats.md).
    #[arg(long)]
    pub json: bool,
    /// Where the database lives.
    #[command(flatten)]
    pub data_dir: DataDirArg,
}

fn parse_jitter(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let ratio = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|p| p / 100.0),
        None => t.parse::<f64>(),
    };
    match ratio {
        Ok(r) if (0.0..crate::policy::MAX_JITTER).contains(&r) => Ok(r),
        _ => Err(format!(
            "expected a share of the interval below 50 % (10% or 0.1), found {}",
            crate::model::quote::quote_input(t)
        )),
    }
}

/// Runs `watch`; returns the exit code.
///
/// # Errors
/// Exit 2 for usage or profile problems, an unknown watch or one that cannot be resumed; exit
/// 1 when the history cannot be opened.
pub fn execute(args: &WatchArgs, core: &crate::service::Core) -> Result<u8, CliError> {
    match &args.action {
        Some(WatchAction::List(a)) => return list(a, core),
        Some(WatchAction::Show(a)) => return show(a),
        None => {}
    }
    let run = &args.run;
    if let Some(id) = &args.resume {
        if !run.url.is_empty() || args.every.is_some() || args.count.is_some() {
            return Err(CliError::usage(
                "--resume carries a watch on as it began: give no URL, --every or --count with it",
            ));
        }
        refuse_run_only_flags(run)?;
        let dir = data_dir(run)?;
        // An unknown, ended or running watch, or one whose secrets are gone, is refused here
        // with exit 2, before the core would (its refusal reaches the CLI as a failure).
        if !history_exists(&dir.join(crate::store::HISTORY_FILE))? {
            return Err(watch_error(crate::store::WatchError::NotFound(id.clone())));
        }
        let record = crate::store::HistoryStore::open_in(&dir)
            .map_err(|e| CliError::failed(e.to_string()))?
            .resumable_watch(id)
            .map_err(watch_error)?;
        if secrets_lost(&record, core) {
            return Err(watch_error(crate::store::WatchError::SecretsLost {
                id: record.id,
            }));
        }
        let log = run.log.install(Some(&dir), None)?;
        let command = WatchCommand::Resume {
            id: id.clone(),
            live: false,
        };
        return watch_on_link(core, &dir, command, id, log, run.curl.silent, true);
    }
    if run.url.is_empty() {
        return Err(CliError::usage(
            "give the URL to watch (or --resume ID, `watch list`, `watch show ID`)",
        ));
    }
    let Some(every_ms) = args.every else {
        return Err(CliError::usage("give --every DURATION (e.g. --every 30s)"));
    };
    refuse_run_only_flags(run)?;
    let prepared = prepare(run)?;
    check_sendable(&prepared.spec)?;
    let dir = data_dir(run)?;
    let plan = WatchPlan {
        id: watch_service::new_watch_id(),
        // Each run gets its own `{{uuid}}` and automatic Idempotency-Key.
        request: crate::model::uuid_template(&prepared.spec, &prepared.fresh_uuid),
        profile: prepared.profile,
        secrets: prepared.secrets,
        every_ms,
        jitter: args.jitter,
        count: args.count,
        for_ms: args.for_ms,
        body_cap: run.history_body_cap,
    };
    let unresumable = core
        .secret_store()
        .fallback_reason
        .filter(|_| plan.holds_secrets());
    if let Some(reason) = &unresumable {
        super::batch_cmd::warn_unresumable("the watch's runs carry secrets", "the watch", reason);
    }
    let id = plan.id.clone();
    let command = WatchCommand::Start {
        plan: Box::new(plan),
        live: false,
    };
    // The log guard lives as long as the watch does.
    let resumable = unresumable.is_none();
    watch_on_link(
        core,
        &dir,
        command,
        &id,
        prepared.log,
        run.curl.silent,
        resumable,
    )
}

/// Drives the watch through a link to the core over `dir`'s history, as the window does:
/// sends `command`, then prints watch `id`'s events until it ends (`silent`: the summary only;
/// `resumable`: a paused watch can be carried on by another process, else its secrets live in
/// this process only and the end says so instead of how to resume it).
fn watch_on_link(
    core: &crate::service::Core,
    dir: &std::path::Path,
    command: WatchCommand,
    id: &str,
    log: Option<crate::store::RunLog>,
    silent: bool,
    resumable: bool,
) -> Result<u8, CliError> {
    // Opened first, to say why it cannot be; the link then serves the same store actor.
    let writer = core
        .history_writer(dir)
        .map_err(|e| CliError::failed(e.to_string()))?;
    let mut link = CoreLink::start(
        core,
        crate::service::LinkSetup {
            waker: std::sync::Arc::new(|| {}),
            data_dir: Some(dir.to_path_buf()),
            record_runs: false,
            body_cap: 0,
            batches: None,
            secrets: Some(core.secret_store().store),
        },
    );
    link.send(CoreCommand::Watch(command));
    let code = core.block_on(follow(&mut link, id, writer, log, silent, resumable));
    // The watch has ended: nothing is left for the link to close.
    link.stop(std::time::Duration::from_secs(5));
    code
}

/// The data folder a watch is recorded in (`--data-dir`, else the default).
fn data_dir(run: &RunArgs) -> Result<std::path::PathBuf, CliError> {
    DataDirArg {
        data_dir: run.variables.data_dir.clone(),
    }
    .resolve()
}

/// Flags of `run` that have no place in a watch.
fn refuse_run_only_flags(run: &RunArgs) -> Result<(), CliError> {
    let given = [
        ("--json", run.json),
        ("--har", run.har.is_some()),
        ("--png", run.png.is_some()),
        ("-o", run.curl.output.is_some()),
        ("-i", run.curl.include),
        ("--no-history", run.no_history),
        ("--no-body", run.curl.no_body),
        ("--seed", run.seed.is_some()),
    ];
    match given.iter().find(|(_, on)| *on) {
        Some((flag, _)) => Err(CliError::usage(format!(
            "{flag} is a flag of `run`; a watch prints one line per run and records every run (open one with `retryscope history show ID`)"
        ))),
        None => Ok(()),
    }
}

/// Prints watch `name`'s events (it is named so on the link) until it ends; a signal stops it
/// (paused). `writer`: the store actor the watch records through (a resumed watch's earlier
/// runs are read from it for the live summary, and every run for the last one, as `watch show`
/// reads them); `_log`: the run log, kept open as long as the watch runs; `silent`: no line
/// per run or missed slot.
async fn follow(
    link: &mut CoreLink,
    name: &str,
    writer: std::sync::Arc<crate::store::HistoryWriter>,
    _log: Option<crate::store::RunLog>,
    silent: bool,
    resumable: bool,
) -> Result<u8, CliError> {
    let stop = |link: &CoreLink| link.send(CoreCommand::Watch(WatchCommand::Stop(name.to_owned())));
    let mut id = name.to_owned();
    let mut signals = StopSignals::install();
    let mut stopped: Option<Stop> = None;
    // A reader that goes (`| head -4`) pauses the watch as a stop signal does: the run in
    // flight is recorded and the watch can be resumed.
    crate::cli::out::keep_going_when_stdout_is_lost();
    let mut stdout_gone = false;
    let live = std::io::stdout().is_terminal();
    let mut runs: Vec<ObservedRun> = Vec::new();
    let mut summary_shown = false;
    // The watch began here (a failure after that leaves it to resume).
    let mut began = false;
    loop {
        let event = tokio::select! {
            event = link.recv() => event,
            signal = signals.recv(), if stopped.is_none() => {
                stopped = Some(signal);
                stop(link);
                continue;
            }
        };
        let event = match event {
            Some(CoreEvent::Watch(WatchUpdate { watch, event })) if watch == name => event,
            Some(_) => continue,
            None => return Err(CliError::failed("the watch stopped without a word")),
        };
        let mut text = String::new();
        let mut hint = None;
        if summary_shown {
            // Erase the live summary line before printing under it.
            text.push_str("\r\x1b[2K");
        }
        let code = match event {
            WatchEvent::Started(record) => {
                began = true;
                text.push_str(&started_line(&record));
                if record.next_slot > 0 {
                    // A resume: say where it carries on (before the line's newline).
                    text.pop();
                    let _ = writeln!(
                        text,
                        " (resumed at slot {}, {} before)",
                        record.next_slot + 1,
                        crate::model::counted(record.runs, "run", "runs")
                    );
                }
                if record.runs > 0 {
                    runs = watch_service::watch_runs(&writer, &record.id)
                        .await
                        .map_err(|e| CliError::failed(e.to_string()))?
                        .2;
                }
                id.clone_from(&record.id);
                None
            }
            // Events of a watch shown live only.
            WatchEvent::RunStarted { .. } | WatchEvent::Run(_) => continue,
            WatchEvent::Ran { slot, run } => {
                if !silent {
                    text.push_str(&run_line(slot, &run));
                }
                // Read with the earlier runs when it had begun before they were read.
                runs.retain(|r| r.id != run.id);
                runs.push(*run);
                None
            }
            WatchEvent::Missed { slots, reason } => {
                if !silent {
                    text.push_str(&missed_line(&slots, reason));
                }
                None
            }
            WatchEvent::Ended(state) => {
                // Its runs as `watch show` reads them, every write committed by now.
                runs = watch_service::watch_runs(&writer, &id)
                    .await
                    .map_err(|e| CliError::failed(e.to_string()))?
                    .2;
                let f = summary_figures(&runs);
                let _ = writeln!(text, "watch {id}: {}", state.id());
                text.push_str(&summary_text(&f, &runs));
                // On stderr, as a batch's: it reaches the user when stdout is a file, a
                // closed pipe or a full disk.
                if state == WatchState::Paused && resumable {
                    hint = Some(format!("carry on with: retryscope watch --resume {id}\n"));
                } else if state == WatchState::Paused {
                    hint = Some(
                        "this watch cannot be resumed: its secrets were kept in this process only (no OS keyring); start a new watch\n"
                            .to_owned(),
                    );
                }
                Some(crate::cli::out::exit_code_after_output(match stopped {
                    Some(signal) => signal.exit_code(),
                    None if stdout_gone || all_succeeded(&f) => exit::SUCCESS,
                    None => exit::FAILED,
                }))
            }
            WatchEvent::Failed(message) => {
                let mut said = format!("error: {message}\n");
                if began && resumable {
                    let _ = writeln!(
                        said,
                        "once that is fixed, carry on with: retryscope watch --resume {id}"
                    );
                }
                crate::cli::out::write_stderr(&said);
                Some(exit::FAILED)
            }
        };
        summary_shown = false;
        if code.is_none() && live && !runs.is_empty() {
            text.push_str(&summary_text(&summary_figures(&runs), &runs));
            summary_shown = true;
        }
        crate::cli::out::write_stdout(&text);
        if let Some(hint) = hint {
            crate::cli::out::write_stderr(&hint);
        }
        if let Some(code) = code {
            return Ok(code);
        }
        if !stdout_gone && stopped.is_none() && crate::cli::out::stdout_lost().is_some() {
            stdout_gone = true;
            stop(link);
        }
    }
}

/// The exit rule of a watch that ended on its own: at least one run finished and every finished
/// run succeeded (cancelled runs and missed slots count neither way; a watch with no finished
/// run proves nothing, so it is not a success).
fn all_succeeded(f: &Figures) -> bool {
    f.success_rate.trials > 0 && f.runs.failed == 0
}

fn started_line(w: &WatchRecord) -> String {
    format!(
        "watch {} of {} {} under {}: {}\n",
        w.id,
        w.method,
        w.url,
        w.profile_name,
        watch_service::schedule_text(&w.schedule)
    )
}

/// `2026-12-06 03:10:00 +00:00  #3  gave_up  3 attempts  —  503  gave up after 3 attempts (503)`:
/// a run as it ends and as `watch show` reads it back.
fn run_line(slot: u64, run: &ObservedRun) -> String {
    let tts = if run.succeeded() {
        duration_text(run.last_attempt_end_ms())
    } else {
        "—".to_owned()
    };
    let last = run
        .attempts
        .last()
        .map_or_else(|| "no answer".to_owned(), |a| a.result.label());
    let attempts = crate::model::counted(u64::from(run.attempts_made), "attempt", "attempts");
    let mut line = format!(
        "{}  #{}  {}  {attempts}  {tts}  {last}",
        time_text(&run.started_at),
        slot + 1,
        outcome_id(run.outcome)
    );
    if let Some(message) = run.message.as_deref().filter(|_| !run.succeeded()) {
        let _ = write!(line, "  {message}");
    }
    line.push('\n');
    line
}

fn missed_line(slots: &std::ops::Range<u64>, reason: Missed) -> String {
    let mut line = watch_service::missed_text(slots, reason);
    line.push('\n');
    line
}

fn summary_figures(runs: &[ObservedRun]) -> Figures {
    figures(runs, &ReportContext::default())
}

/// `12 runs · success 83.3 % (55.2–95.3 %) · time to success p50 12 ms, p95 1.2 s · errors
/// 503 ×4, timeout ×1 · last failure 2026-… gave_up 503`.
fn summary_text(f: &Figures, runs: &[ObservedRun]) -> String {
    let runs_text = crate::model::counted(f.runs.total, "run", "runs");
    let mut line = if f.success_rate.trials == 0 {
        // Cancelled or unfinished runs only: no evidence either way.
        format!("{runs_text} · success n/a (no run finished)")
    } else {
        format!(
            "{runs_text} · success {} ({}–{})",
            percent_text(f.success_rate.value),
            percent_text(f.success_rate.low),
            percent_text(f.success_rate.high)
        )
    };
    if f.time_to_success.count > 0 {
        let _ = write!(
            line,
            " · time to success p50 {}, p95 {}",
            duration_text(f.time_to_success.p50_ms),
            duration_text(f.time_to_success.p95_ms)
        );
    }
    if !f.failures.is_empty() {
        let kinds: Vec<String> = f
            .failures
            .iter()
            .map(|c| format!("{} ×{}", c.label, c.attempts))
            .collect();
        let _ = write!(line, " · errors {}", kinds.join(", "));
    }
    if let Some(run) = runs.iter().rev().find(|r| r.failed()) {
        let _ = write!(
            line,
            " · last failure {} {}",
            time_text(&run.started_at),
            outcome_id(run.outcome)
        );
        if let Some(a) = run.attempts.last() {
            let _ = write!(line, " {}", a.result.label());
        }
    }
    line.push('\n');
    line
}

/// Whether watch `w`, resumable by its state, holds secrets no process can read any more: with
/// no OS keyring (`core`'s secret store keeps secrets in memory only, looked at only for such a
/// watch) they lived in the process that started it.
fn secrets_lost(w: &WatchRecord, core: &crate::service::Core) -> bool {
    w.has_secrets && w.state.resumable() && core.secret_store().fallback_reason.is_some()
}

/// `watch list` (`core`: its secret store says whether a paused watch holding secrets can be
/// resumed).
fn list(args: &WatchListArgs, core: &crate::service::Core) -> Result<u8, CliError> {
    let store = open_history(&args.data_dir, "watches")?;
    let watches = store
        .watches(args.limit)
        .map_err(|e| CliError::failed(e.to_string()))?;
    if args.json {
        return print_json(&serde_json::json!({
            "format": "retryscope-watches/1",
            "watches": watches,
        }));
    }
    if watches.is_empty() {
        crate::cli_outln!("no watches recorded");
        return Ok(exit::SUCCESS);
    }
    for w in watches {
        let mut state = w.state.id().to_owned();
        if secrets_lost(&w, core) {
            state.push_str(" (cannot resume: secrets were in memory only)");
        }
        crate::cli_outln!(
            "{}  {}  {:<11}  every {}  {}, {} missed  {} {}",
            w.id,
            time_text(&w.created_at),
            state,
            duration_text(w.schedule.every_ms as f64),
            crate::model::counted(w.runs, "run", "runs"),
            w.missed,
            w.method,
            w.url
        );
    }
    Ok(exit::SUCCESS)
}

/// Prints `value` as pretty JSON and a newline.
fn print_json(value: &serde_json::Value) -> Result<u8, CliError> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|e| CliError::failed(format!("cannot encode the JSON: {e}")))?;
    text.push('\n');
    crate::cli_out!("{text}");
    Ok(exit::SUCCESS)
}

/// `watch show ID`.
fn show(args: &WatchShowArgs) -> Result<u8, CliError> {
    let store = open_history(&args.data_dir, "watches")?;
    let (watch, slots, runs) = watch_service::read_watch(&store, &args.id).map_err(watch_error)?;
    let f = summary_figures(&runs);
    if args.json {
        let slots: Vec<serde_json::Value> = slot_groups(&slots)
            .into_iter()
            .map(|g| match g {
                SlotGroup::Sent(slot) => serde_json::json!(slot),
                SlotGroup::Missed(run) => {
                    let (first, last) = (&run[0], &run[run.len() - 1]);
                    serde_json::json!({
                        "slot": first.slot,
                        "last_slot": last.slot,
                        "count": run.len(),
                        "due_unix_ms": first.due_unix_ms,
                        "last_due_unix_ms": last.due_unix_ms,
                        "missed": first.missed,
                    })
                }
            })
            .collect();
        return print_json(&serde_json::json!({
            "format": "retryscope-watch/1",
            "watch": watch,
            "slots": slots,
            "figures": f,
        }));
    }
    let mut text = started_line(&watch);
    let _ = writeln!(text, "state: {}", watch.state.id());
    text.push_str(&summary_text(&f, &runs));
    let by_id: std::collections::HashMap<&str, &ObservedRun> =
        runs.iter().map(|r| (r.id.as_str(), r)).collect();
    for group in slot_groups(&slots) {
        match group {
            SlotGroup::Sent(slot) => text.push_str(&slot_line(
                slot,
                by_id.get(slot.run_id.as_deref().unwrap_or("")),
            )),
            SlotGroup::Missed(run) => {
                let (first, n) = (run[0].slot, run.len() as u64);
                if let Some(reason) = run[0].missed {
                    text.push_str(&missed_line(&(first..first + n), reason));
                }
            }
        }
    }
    crate::cli_out!("{text}");
    Ok(exit::SUCCESS)
}

/// A slot that sent a run, or consecutive slots missed for one reason (never empty).
enum SlotGroup<'a> {
    Sent(&'a WatchSlot),
    Missed(&'a [WatchSlot]),
}

/// `slots` (in order) with each run of consecutive slots missed for one reason as one group:
/// one line of `watch show`, as the live output prints them, and one entry of its JSON.
fn slot_groups(slots: &[WatchSlot]) -> Vec<SlotGroup<'_>> {
    let mut groups = Vec::new();
    let mut rest = slots;
    while let Some(slot) = rest.first() {
        let n = match slot.missed {
            Some(reason) => rest
                .iter()
                .zip(slot.slot..)
                .take_while(|(s, k)| s.missed == Some(reason) && s.slot == *k)
                .count(),
            None => 0,
        };
        if n == 0 {
            groups.push(SlotGroup::Sent(slot));
            rest = &rest[1..];
        } else {
            groups.push(SlotGroup::Missed(&rest[..n]));
            rest = &rest[n..];
        }
    }
    groups
}

/// A slot that ran: its run's line, or why its run cannot be read.
fn slot_line(slot: &WatchSlot, run: Option<&&ObservedRun>) -> String {
    match run {
        Some(run) => run_line(slot.slot, run),
        None => format!(
            "#{}  run {} ({})\n",
            slot.slot + 1,
            slot.run_id.as_deref().unwrap_or("?"),
            if slot.run_deleted {
                "deleted from the history"
            } else {
                "not recorded: the process ended before it started"
            }
        ),
    }
}

/// The CLI's error for a watch that cannot be read: exit 2 for an unknown or ambiguous id (and
/// one that cannot be resumed), exit 1 when the history fails.
pub(super) fn watch_error(e: crate::store::WatchError) -> CliError {
    match e {
        crate::store::WatchError::History(e) => CliError::failed(e.to_string()),
        e => CliError::usage(e.to_string()),
    }
}

/// The history database of `dir`, opened to read `what` (`runs`, `watches`): exit 2 when none
/// is recorded yet (reading never creates it), exit 1 when it cannot be opened.
pub(super) fn open_history(
    dir: &DataDirArg,
    what: &str,
) -> Result<crate::store::HistoryStore, CliError> {
    let dir = dir.resolve()?;
    let db = dir.join(crate::store::HISTORY_FILE);
    if !history_exists(&db)? {
        return Err(CliError::usage(format!(
            "no {what} recorded yet (no history at {})",
            db.display()
        )));
    }
    crate::store::HistoryStore::open_in(&dir).map_err(|e| CliError::failed(e.to_string()))
}

/// Whether the history database `db` exists, for a command that reads it (and never creates
/// it). A folder that cannot be looked into, or a data folder that is a file, is an error (exit
/// 1) rather than "nothing recorded yet".
///
/// # Errors
/// Exit 1 naming the folder and the OS's reason.
pub(super) fn history_exists(db: &std::path::Path) -> Result<bool, CliError> {
    let folder = db.parent().unwrap_or(db);
    if folder.is_file() {
        return Err(CliError::failed(format!(
            "the data folder is a file, not a folder: {}",
            folder.display()
        )));
    }
    db.try_exists().map_err(|e| {
        CliError::failed(crate::store::input_file::cannot_read(
            folder.display(),
            "the data folder",
            format_args!("{e}; check its permissions"),
        ))
    })
}
