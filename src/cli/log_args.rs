//! `--log-file` / `--log-level` of the commands that run requests: where the run log goes
//! ([`crate::store::install_run_log`]); by default the daily files in the data folder.

use super::exit::CliError;
use super::output_path::check_output_path;
use crate::store::{self, LogTarget, RunLog};
use clap::Args;
use std::path::{Path, PathBuf};

/// Log flags.
#[derive(Debug, Clone, Default, Args)]
pub struct LogArgs {
    /// Append the run log (one line per attempt, wait and outcome, secrets masked) to FILE
    /// instead of the daily files in the data folder's logs/.
    #[arg(long, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    /// Log level: error, warn, info (default), debug, trace or off (also RETRYSCOPE_LOG_LEVEL).
    #[arg(long, value_name = "LEVEL", value_parser = parse_level_arg)]
    pub log_level: Option<tracing_subscriber::filter::LevelFilter>,
}

fn parse_level_arg(raw: &str) -> Result<tracing_subscriber::filter::LevelFilter, String> {
    store::parse_level(raw).ok_or_else(|| {
        format!("unknown log level `{raw}`; use error, warn, info, debug, trace or off")
    })
}

impl LogArgs {
    /// Starts the log: `--log-file`, else the daily files under `data_dir` (when known),
    /// written by a thread with a queue of `thread_queue` lines ([`store::LOG_QUEUE_LINES`] for
    /// a batch), or by the logging thread (`None`: one run; see [`store::install_run_log`]).
    ///
    /// # Errors
    /// Exit 2 when `--log-file` is a folder, its folder does not exist (the words of
    /// [`check_output_path`], as every file a command writes) or it cannot be opened, or
    /// `RETRYSCOPE_LOG_LEVEL` is not a level. A data folder whose log cannot be created is
    /// reported on stderr and the run goes on without a log.
    pub fn install(
        &self,
        data_dir: Option<&Path>,
        thread_queue: Option<usize>,
    ) -> Result<Option<RunLog>, CliError> {
        let level = match self.log_level {
            Some(l) => Some(l),
            None => store::level_from_env().map_err(CliError::usage)?,
        };
        if let Some(file) = &self.log_file {
            check_output_path(file, "--log-file")?;
            return store::install_run_log(LogTarget::File(file), level, thread_queue)
                .map_err(|e| CliError::usage(format!("--log-file: {e}")));
        }
        let Some(dir) = data_dir else {
            return Ok(None);
        };
        match store::install_run_log(LogTarget::DataDir(dir), level, thread_queue) {
            Ok(log) => Ok(log),
            Err(e) => {
                eprintln!("warning: {e}; the run is not logged");
                Ok(None)
            }
        }
    }
}
