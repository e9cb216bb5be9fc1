//! The persistent, timestamped run log that seed 000 asks for: one line per attempt, per wait
//! (with its explanation) and per run outcome, with local timestamps and their UTC offset
//! (`2026-12-01T11:02:03.125+01:00  INFO run 1 attempt 2: 503 in 4.2 ms; retry: 503 is
//! retryable`). Daily rolling files `retryscope.log.YYYY-MM-DD` in `logs/` of the data folder
//! (`tracing-appender`), or one file the user names (`--log-file`). Lines are written by a
//! thread of their own in the window and in a batch, by the thread that logs them in a one-shot
//! command. Events must be masked before they get here (the secrets rule); this module
//! only formats.

use super::private_files::{create_private_dir_all, make_private, open_private_append};
use crate::model::RunEvent;
use std::path::Path;
use tracing_appender::non_blocking::WorkerGuard;

/// Folder of the daily log files inside the data folder.
pub const LOG_DIR: &str = "logs";
/// File name prefix of the daily log files (the date follows: `retryscope.log.2026-12-01`).
pub const LOG_PREFIX: &str = "retryscope.log";
/// Environment variable choosing the level: `error`, `warn`, `info` (default), `debug`,
/// `trace` or `off`.
pub const LOG_LEVEL_ENV: &str = "RETRYSCOPE_LOG_LEVEL";
/// Lines that may wait for the log's writer thread before new ones are dropped, for a process
/// that runs for long (the window, a batch): tracing-appender's default, so a disk that stalls
/// for seconds under a stream of runs loses no line. The queue is allocated whole at start
/// (32 bytes a line).
pub const LOG_QUEUE_LINES: usize = 128_000;

/// Timestamp format of every line: local time with milliseconds and the UTC offset.
pub const TIME_FORMAT: &str = "%Y-%m-%dT%H:%M:%S%.3f%:z";

/// Local time with its UTC offset ([`TIME_FORMAT`]), from chrono (the `time` crate cannot read
/// the local offset in a multi-threaded process on Linux).
struct LocalTime;

impl tracing_subscriber::fmt::time::FormatTime for LocalTime {
    fn format_time(&self, w: &mut tracing_subscriber::fmt::format::Writer<'_>) -> std::fmt::Result {
        write!(w, "{}", chrono::Local::now().format(TIME_FORMAT))
    }
}

/// Keeps the log writer running; dropping it flushes the last lines.
pub struct RunLog {
    _guard: Option<WorkerGuard>,
}

/// Where log lines go.
#[derive(Debug, Clone, Copy)]
pub enum LogTarget<'a> {
    /// Daily rolling files in `DIR/logs/`.
    DataDir(&'a Path),
    /// One file, appended to.
    File(&'a Path),
}

/// Parses a level name (`info`, `DEBUG`, `off`, …); `None` = not a level.
pub fn parse_level(raw: &str) -> Option<tracing_subscriber::filter::LevelFilter> {
    raw.trim().parse().ok()
}

/// The level [`LOG_LEVEL_ENV`] asks for; `Ok(None)` when it is unset or empty.
///
/// # Errors
/// A message naming the variable, its value and the accepted levels when it is not a level.
pub fn level_from_env() -> Result<Option<tracing_subscriber::filter::LevelFilter>, String> {
    match std::env::var(LOG_LEVEL_ENV) {
        Ok(v) if v.trim().is_empty() => Ok(None),
        Ok(v) => parse_level(&v).map(Some).ok_or_else(|| {
            format!(
                "{LOG_LEVEL_ENV}={v:?} is not a log level; use error, warn, info, debug, trace or off (or unset it)"
            )
        }),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!(
            "{LOG_LEVEL_ENV} is not valid UTF-8; use error, warn, info, debug, trace or off"
        )),
    }
}

/// Installs the process-wide log writer at `level` (default: [`LOG_LEVEL_ENV`], else info).
/// `thread_queue`: `Some(n)` writes the lines on a thread of their own, `n` of them waiting at
/// most ([`LOG_QUEUE_LINES`]); `None` writes each line on the thread that logs it, for a
/// one-shot command (`run`, `curl`), whose thread writes each event to stdout anyway: no thread
/// to start, no queue to allocate, nothing to wait for at exit.
/// Called once per process; a second call (or a logger already installed) returns `Ok(None)`.
///
/// # Errors
/// A message naming the folder or file when it cannot be created or opened (a log file's
/// folder must exist: it is never created), or [`level_from_env`]'s when no `level` is given
/// and the variable is not a level.
pub fn install(
    target: LogTarget<'_>,
    level: Option<tracing_subscriber::filter::LevelFilter>,
    thread_queue: Option<usize>,
) -> Result<Option<RunLog>, String> {
    let level = match level {
        Some(l) => l,
        None => level_from_env()?.unwrap_or(tracing_subscriber::filter::LevelFilter::INFO),
    };
    let appender = match target {
        LogTarget::DataDir(dir) => {
            let logs = dir.join(LOG_DIR);
            create_private_dir_all(&logs)
                .map_err(|e| format!("cannot create the log folder ({e}): {}", logs.display()))?;
            let appender = tracing_appender::rolling::daily(&logs, LOG_PREFIX);
            // The appender made today's file with the default mode: the logs are the user's
            // alone (`0600` on Unix; a file a later day adds is tightened at the next start,
            // and the folder is `0700` meanwhile).
            if let Ok(entries) = std::fs::read_dir(&logs) {
                for entry in entries.flatten() {
                    if entry.file_name().to_string_lossy().starts_with(LOG_PREFIX) {
                        let _ = make_private(&entry.path());
                    }
                }
            }
            appender
        }
        LogTarget::File(path) => {
            let dir = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let name = path
                .file_name()
                .ok_or_else(|| format!("the log file needs a file name: {}", path.display()))?;
            // Opened here so an unwritable path (or a missing folder, which is never created) is
            // reported now, not lost in the writer thread. The CLI checks the path first in the
            // words of every output file (`cli::output_path`).
            open_private_append(path)
                .map_err(|e| format!("cannot open the log file ({e}): {}", path.display()))?;
            tracing_appender::rolling::never(dir, name)
        }
    };
    let lines = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_target(false)
        .with_timer(LocalTime)
        .with_max_level(level);
    let (installed, guard) = match thread_queue {
        Some(queue) => {
            let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
                .buffered_lines_limit(queue)
                .finish(appender);
            (lines.with_writer(writer).try_init().is_ok(), Some(guard))
        }
        None => (lines.with_writer(appender).try_init().is_ok(), None),
    };
    Ok(installed.then_some(RunLog { _guard: guard }))
}

/// Writes `event`'s line (if it has one) at info level, naming the run by its number.
pub fn log_event(event: &RunEvent) {
    log_event_as(event, &event.run_id().to_string());
}

/// Writes `event`'s line (if it has one) at info level, naming the run `run` (its history id
/// when it is recorded, so a log line leads to `retryscope history show ID`).
pub fn log_event_as(event: &RunEvent, run: &str) {
    // No line is made when nothing would write it (no log installed, or a quieter level).
    if !tracing::enabled!(tracing::Level::INFO) {
        return;
    }
    if let Some(line) = event_line_as(event, run) {
        tracing::info!("{line}");
    }
}

/// The log line of `event`: a run's start, each finished attempt, each planned and measured
/// wait, the outcome; `None` for an attempt's start (its line comes when it finishes).
///
/// ```
/// use retryscope::model::{RunEvent, RunOutcome, OutcomeKind};
/// let e = RunEvent::RunFinished {
///     run_id: 3,
///     outcome: RunOutcome { kind: OutcomeKind::GaveUp, message: "gave up after 4 attempts (503)".into(), last_status: Some(503) },
///     attempts: 4,
///     elapsed_ms: 7012.4,
/// };
/// assert_eq!(
///     retryscope::store::event_line(&e).as_deref(),
///     Some("run 3 gave_up: gave up after 4 attempts (503); 4 attempts in 7012 ms")
/// );
/// ```
pub fn event_line(event: &RunEvent) -> Option<String> {
    event_line_as(event, &event.run_id().to_string())
}

/// [`event_line`] with the run named `run_id` (e.g. its history id) instead of its number.
pub fn event_line_as(event: &RunEvent, run_id: &str) -> Option<String> {
    Some(match event {
        RunEvent::RunStarted {
            seed,
            profile,
            method,
            url,
            ..
        } => format!("run {run_id} started: {method} {url} (profile \"{profile}\", seed {seed})"),
        RunEvent::AttemptStarted { .. } => return None,
        RunEvent::AttemptFinished {
            attempt,
            outcome,
            timings,
            verdict,
            ..
        } => {
            let verdict = verdict.label();
            format!(
                "run {run_id} attempt {attempt}: {} in {:.1} ms; {verdict}",
                outcome.label(),
                timings.total_ms
            )
        }
        RunEvent::WaitScheduled { explanation, .. } => {
            format!("run {run_id} wait planned: {}", explanation.text)
        }
        RunEvent::BudgetChanged {
            attempt, change, ..
        } => {
            format!("run {run_id} after attempt {attempt}: {}", change.text)
        }
        RunEvent::WaitFinished {
            retry,
            planned_ms,
            actual_ms,
            skipped,
            ..
        } => format!(
            "run {run_id} wait {retry} measured {actual_ms:.1} ms of {planned_ms} ms planned{}",
            if *skipped {
                " (skipped: retry now)"
            } else {
                ""
            }
        ),
        RunEvent::RunFinished {
            outcome,
            attempts,
            elapsed_ms,
            ..
        } => format!(
            "run {run_id} {}: {}; {} in {elapsed_ms:.0} ms",
            serde_json::to_value(outcome.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            outcome.message,
            crate::model::counted(u64::from(*attempts), "attempt", "attempts")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AttemptOutcome, ErrorKind, NetError, Timings, Verdict};

    #[test]
    fn finished_attempts_and_waits_have_lines_starts_do_not() {
        let finished = RunEvent::AttemptFinished {
            run_id: 1,
            attempt: 2,
            outcome: AttemptOutcome::Error(NetError {
                kind: ErrorKind::Connect,
                message: "connection refused".into(),
                dns: None,
            }),
            hops: Vec::new(),
            timings: Timings {
                total_ms: 1.25,
                ..Timings::default()
            },
            verdict: Verdict::retry("connect is retryable"),
        };
        assert_eq!(
            event_line(&finished).as_deref(),
            Some("run 1 attempt 2: connect in 1.2 ms; retry: connect is retryable")
        );
        let waited = RunEvent::WaitFinished {
            run_id: 1,
            retry: 2,
            planned_ms: 500,
            actual_ms: 500.4,
            skipped: false,
        };
        assert_eq!(
            event_line(&waited).as_deref(),
            Some("run 1 wait 2 measured 500.4 ms of 500 ms planned")
        );
        assert_eq!(
            parse_level("DEBUG"),
            Some(tracing_subscriber::filter::LevelFilter::DEBUG)
        );
        assert_eq!(parse_level("loud"), None);
    }
}
