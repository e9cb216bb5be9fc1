//! `retryscope history …`: list, show, export, delete and prune recorded runs (the database of
//! [`crate::store::HistoryStore`] in the data folder).

use super::exit::{self, CliError};
use super::history_export;
use super::timeline_text::TextTimeline;
use crate::model::OutcomeKind;
use crate::store::{self, HistoryStore, OutcomeFilter, RUNNING, RunFilter, RunRecord};
use clap::{Args, Subcommand, ValueEnum};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The data folder flag shared by subcommands that read or write the data folder.
#[derive(Debug, Clone, Default, Args)]
pub struct DataDirArg {
    /// Data folder holding history.sqlite3 (default: $RETRYSCOPE_DATA_DIR, else the platform
    /// data folder, e.g. ~/.local/share/retryscope).
    #[arg(long, value_name = "DIR", global = true)]
    pub data_dir: Option<PathBuf>,
}

impl DataDirArg {
    /// The folder to use: the flag, else [`store::data_dir`].
    ///
    /// # Errors
    /// Exit 2 when neither is known (no home folder).
    pub fn resolve(&self) -> Result<PathBuf, CliError> {
        self.data_dir
            .clone()
            .or_else(store::data_dir)
            .ok_or_else(|| {
                CliError::usage(format!(
                    "no data folder known (no home folder); give --data-dir DIR or set {}",
                    store::DATA_DIR_ENV
                ))
            })
    }
}

/// Flags of `retryscope history`.
#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Examples:
  retryscope history list --limit 20 --outcome gave_up
  retryscope history show 019a3c5e
  retryscope history export 019a3c5e --format csv -o attempts.csv
  retryscope history export 019a3c5e --format png -o timeline.png
  retryscope history prune --older-than 30

Ids may be shortened to any unique prefix or suffix of 8 or more characters (runs of the same minute share their first 8; the last 12, as the window shows them, are random).")]
pub struct HistoryArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: HistoryCommand,
    /// Where the database lives.
    #[command(flatten)]
    pub data_dir: DataDirArg,
}

/// `history` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum HistoryCommand {
    /// One line per run, newest first: id, start, method, URL (masked), outcome, attempts, elapsed.
    List {
        /// At most N runs (at least 1).
        #[arg(
            long,
            value_name = "N",
            default_value_t = 50,
            allow_negative_numbers = true,
            value_parser = crate::cli::whole_number::u32_at_least_1
        )]
        limit: u32,
        /// Only runs with this outcome (succeeded, gave_up, stopped, deadline, cancelled, error,
        /// interrupted), or `running` for runs still being recorded.
        #[arg(long, value_name = "OUTCOME", value_parser = OutcomeFilter::parse)]
        outcome: Option<OutcomeFilter>,
        /// Only runs whose URL contains TEXT (case-insensitive), as typed or as URLs are stored
        /// (non-ASCII text percent-encoded: ünï also finds %C3%BCn%C3%AF).
        #[arg(long, value_name = "TEXT")]
        url: Option<String>,
        /// One JSON object per line instead of text.
        #[arg(long)]
        json: bool,
    },
    /// A recorded run as the same timeline `run` prints (or its events as JSON Lines).
    Show {
        /// Run id (or a unique prefix or suffix).
        id: String,
        /// The run's events as JSON Lines, like `run --json`.
        #[arg(long)]
        json: bool,
    },
    /// Write a run as JSON (the run with its attempts), CSV (one row per attempt), HAR 1.2 or
    /// the timeline plot as PNG.
    Export {
        /// Run id (or a unique prefix or suffix).
        id: String,
        /// Format.
        #[arg(long, value_enum)]
        format: ExportFormat,
        /// Write to FILE (atomically) instead of stdout.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Delete runs with their attempts (a run still being recorded asks first).
    Delete {
        /// Run ids (or unique prefixes or suffixes).
        #[arg(required = true)]
        ids: Vec<String>,
        /// Do not ask before deleting a run that is still being recorded.
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Delete runs that started more than DAYS days ago.
    Prune {
        /// Age in days, 0 to 36500 (0 deletes every run, and asks first).
        #[arg(long, value_name = "DAYS", allow_negative_numbers = true,
              value_parser = |t: &str| crate::cli::whole_number::u32_in(t, 0, 36_500))]
        older_than: u32,
        /// Do not ask before `--older-than 0`.
        #[arg(long, short = 'y')]
        yes: bool,
    },
}

/// Export formats of `history export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// The run and its attempts as one JSON document.
    Json,
    /// One CSV row per attempt.
    Csv,
    /// HTTP Archive 1.2: one entry per attempt, in order (secrets masked).
    Har,
    /// The timeline plot as a PNG image (needs -o FILE).
    Png,
}

/// The runs `history list` shows: newest first, at most `limit`.
fn listed_runs(
    store: &HistoryStore,
    limit: u32,
    outcome: Option<OutcomeFilter>,
    url: Option<&String>,
) -> Result<Vec<RunRecord>, CliError> {
    if let Some(text) = url {
        if text.trim().is_empty() {
            return Err(CliError::usage(
                "--url is blank: give the text the URL contains, or leave --url out for every run",
            ));
        }
        if text.len() > store::URL_FILTER_MAX_BYTES {
            return Err(CliError::usage(format!(
                "--url is {} bytes long: a URL filter holds at most {} bytes",
                text.len(),
                store::URL_FILTER_MAX_BYTES
            )));
        }
    }
    let filter = RunFilter {
        limit: Some(limit),
        outcome,
        url_contains: url.cloned(),
    };
    store.list(&filter).map_err(failed)
}

/// Runs `history …`; returns the exit code.
///
/// # Errors
/// Exit 2 for an unknown or ambiguous run id or unusable flags; exit 1 when the database
/// cannot be used.
pub fn execute(args: &HistoryArgs) -> Result<u8, CliError> {
    let dir = args.data_dir.resolve()?;
    // Reading an empty data folder never creates the database (nor the folder).
    let db = dir.join(store::HISTORY_FILE);
    if !super::watch_cmd::history_exists(&db)? {
        return nothing_recorded(&args.command, &db);
    }
    for id in command_ids(&args.command) {
        check_id(id)?;
    }
    let mut store = HistoryStore::open_in(&dir).map_err(failed)?;
    match &args.command {
        HistoryCommand::List {
            limit,
            outcome,
            url,
            json,
        } => {
            let runs = listed_runs(&store, *limit, *outcome, url.as_ref())?;
            if runs.is_empty() && !*json {
                let filtered = outcome.is_some() || url.is_some();
                crate::cli_outln!(
                    "{}",
                    if filtered {
                        "no recorded run matches"
                    } else {
                        "no runs recorded yet"
                    }
                );
                return Ok(exit::SUCCESS);
            }
            let mut text = String::new();
            for run in &runs {
                text.push_str(&if *json {
                    list_json(run)
                } else {
                    list_line(run)
                });
                text.push('\n');
            }
            crate::cli_out!("{text}");
            Ok(exit::SUCCESS)
        }
        HistoryCommand::Show { id, json } => {
            let stored = store
                .run(id)
                .map_err(failed)?
                .ok_or_else(|| not_found(id, store.path()))?;
            let mut text = if *json {
                super::history_json::show_lines(&stored)?
            } else {
                let mut timeline = TextTimeline::default();
                timeline.delta(&stored.fold) + timeline.summary(&stored.fold).as_str()
            };
            if !*json && stored.run.outcome.is_none() {
                text.push_str("\n(still running or being recorded)\n");
            }
            crate::cli_out!("{text}");
            Ok(exit::SUCCESS)
        }
        HistoryCommand::Export { id, format, output } => {
            if *format == ExportFormat::Png && output.is_none() {
                return Err(CliError::usage(
                    "--format png writes an image: give -o FILE.png",
                ));
            }
            if let Some(path) = output.as_deref() {
                super::output_path::check_output_path(path, "-o")?;
            }
            let stored = store
                .run(id)
                .map_err(failed)?
                .ok_or_else(|| not_found(id, store.path()))?;
            let bytes = match format {
                ExportFormat::Csv => history_export::csv(&stored).into_bytes(),
                ExportFormat::Json => history_export::json(&stored)?.into_bytes(),
                ExportFormat::Har => history_export::har(&stored)?.into_bytes(),
                ExportFormat::Png => history_export::png(&stored)?,
            };
            match output {
                Some(path) => store::write_export(path, &bytes)
                    .map_err(|e| CliError::write("cannot write the export", &e))?,
                None => crate::cli_out!("{}", String::from_utf8_lossy(&bytes)),
            }
            Ok(exit::SUCCESS)
        }
        HistoryCommand::Delete { ids, yes } => {
            let live = store.live_among(ids).map_err(failed)?;
            if !live.is_empty() && !*yes {
                let question = format!(
                    "{} still being recorded by a running retryscope: {}. Delete anyway?",
                    if live.len() == 1 {
                        "this run is"
                    } else {
                        "these runs are"
                    },
                    live.join(", ")
                );
                confirm(&question)?;
            }
            let deleted = store.delete(ids).map_err(failed)?;
            let mut text = String::new();
            for id in &deleted {
                let _ = writeln!(text, "deleted {id}");
            }
            crate::cli_out!("{text}");
            let missing: Vec<&str> = ids
                .iter()
                .map(String::as_str)
                .filter(|i| !deleted.iter().any(|d| d.starts_with(i.trim())))
                .collect();
            match missing.as_slice() {
                [] => Ok(exit::SUCCESS),
                [one] => Err(not_found(one, store.path())),
                many => Err(CliError::usage(format!(
                    "no runs {} in {}",
                    many.join(", "),
                    store.path().display()
                ))),
            }
        }
        HistoryCommand::Prune { older_than, yes } => {
            let now = chrono::Local::now().fixed_offset();
            let cutoff = now
                .checked_sub_signed(chrono::Duration::days(i64::from(*older_than)))
                .ok_or_else(|| {
                    CliError::usage(format!("--older-than {older_than}: too far back"))
                })?;
            if *older_than == 0 && !*yes {
                let n = store.count_before(cutoff).map_err(failed)?;
                if n > 0 {
                    confirm(&format!(
                        "--older-than 0 deletes every recorded run ({n}, including any still \
                         being recorded). Delete them?"
                    ))?;
                }
            }
            let n = store.prune_before(cutoff).map_err(failed)?;
            crate::cli_outln!(
                "deleted {} started before {}",
                crate::model::counted(n as u64, "run", "runs"),
                cutoff.format("%Y-%m-%d %H:%M:%S%:z")
            );
            Ok(exit::SUCCESS)
        }
    }
}

/// What a command says when the data folder has no history database yet.
fn nothing_recorded(command: &HistoryCommand, db: &Path) -> Result<u8, CliError> {
    match command {
        HistoryCommand::List { json: true, .. } => Ok(exit::SUCCESS),
        HistoryCommand::List { .. } => {
            crate::cli_outln!("no runs recorded yet (no history at {})", db.display());
            Ok(exit::SUCCESS)
        }
        HistoryCommand::Prune { .. } => {
            crate::cli_outln!("deleted 0 runs (no runs recorded yet)");
            Ok(exit::SUCCESS)
        }
        HistoryCommand::Show { .. }
        | HistoryCommand::Export { .. }
        | HistoryCommand::Delete { .. } => Err(CliError::usage(format!(
            "no runs recorded yet (no history at {})",
            db.display()
        ))),
    }
}

/// The run ids a command names.
fn command_ids(command: &HistoryCommand) -> Vec<&String> {
    match command {
        HistoryCommand::Show { id, .. } | HistoryCommand::Export { id, .. } => vec![id],
        HistoryCommand::Delete { ids, .. } => ids.iter().collect(),
        _ => Vec::new(),
    }
}

/// Ids are UUIDs; a prefix must have 8 characters or more (a shorter one could name many runs).
fn check_id(id: &str) -> Result<(), CliError> {
    let id = id.trim();
    if id.chars().count() < 8 {
        return Err(CliError::usage(format!(
            "give at least 8 characters of the run id, not `{}` (see `retryscope history list`)",
            super::mask::escape_controls(id)
        )));
    }
    Ok(())
}

/// Asks `question` on a terminal (`y` / `yes` goes on); refuses without one.
///
/// # Errors
/// Exit 2 when stdin is not a terminal (give --yes) or the answer is not yes.
fn confirm(question: &str) -> Result<(), CliError> {
    use std::io::{BufRead, IsTerminal, Write};
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Err(CliError::usage(format!(
            "{question} Not asked (stdin is not a terminal): add --yes to confirm"
        )));
    }
    let mut stderr = std::io::stderr();
    let _ = write!(stderr, "{question} [y/N] ");
    let _ = stderr.flush();
    let mut answer = String::new();
    stdin
        .lock()
        .read_line(&mut answer)
        .map_err(|e| CliError::failed(format!("cannot read the answer: {e}")))?;
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        Ok(())
    } else {
        Err(CliError::usage("nothing deleted"))
    }
}

#[allow(
    clippy::needless_pass_by_value,
    reason = "by value so that it fits `map_err(failed)`"
)]
fn failed(e: store::HistoryError) -> CliError {
    // An id prefix naming several runs is the user's to fix, as an unknown id is (exit 2).
    if matches!(e, store::HistoryError::Ambiguous(_)) {
        return CliError::usage(e.to_string());
    }
    CliError::failed(e.to_string())
}

fn not_found(id: &str, db: &Path) -> CliError {
    CliError::usage(format!(
        "no run `{}` in the history (see `retryscope history list`): {}",
        super::mask::escape_controls(id),
        db.display()
    ))
}

/// `id  start  METHOD url  outcome  N attempts  elapsed`.
fn list_line(run: &RunRecord) -> String {
    format!(
        "{}  {}  {} {}  {}  {}  {}",
        run.id,
        run.started_at.format("%Y-%m-%d %H:%M:%S%:z"),
        run.method,
        super::mask::escape_controls(&run.url),
        run.outcome.map_or(RUNNING, OutcomeKind::id),
        crate::model::counted(u64::from(run.attempts), "attempt", "attempts"),
        run.elapsed_ms
            .map_or_else(|| "-".to_owned(), crate::model::units::ms_or_seconds),
    )
}

fn list_json(run: &RunRecord) -> String {
    serde_json::json!({
        "id": run.id,
        "started_at": run.started_at.to_rfc3339(),
        "ended_at": run.ended_at.map(|t| t.to_rfc3339()),
        "method": run.method,
        "url": run.url,
        "profile": run.profile_name,
        "seed": run.seed,
        "outcome": run.outcome.map(OutcomeKind::id),
        "last_status": run.last_status,
        "attempts": run.attempts,
        "elapsed_ms": run.elapsed_ms,
    })
    .to_string()
}
