//! Exit codes of the `retryscope` command.

use std::process::ExitCode;

/// The run succeeded (or the command did what was asked).
pub const SUCCESS: u8 = 0;
/// The run gave up, stopped, hit its deadline or ended in an error outcome.
pub const FAILED: u8 = 1;
/// A usage or profile error (bad flag, bad URL, invalid profile). clap's own usage errors use 2 too.
pub const USAGE: u8 = 2;
/// Interrupted by Ctrl-C (128 + SIGINT).
pub const INTERRUPTED: u8 = 130;
/// Stopped by SIGHUP, the terminal closing (128 + 1).
pub const HUNG_UP: u8 = 129;
/// Stopped by SIGTERM (128 + 15).
pub const TERMINATED: u8 = 143;
/// Stdout was closed by its reader (128 + SIGPIPE, as shells report a writer killed by it):
/// `retryscope run … | head -1` after the run ended, was recorded and wrote its files.
pub const STDOUT_CLOSED: u8 = 141;

/// An error that ends a command: a one-line message for stderr and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    /// Exit code.
    pub code: u8,
    /// Lines printed after `error: ` (the first) on stderr.
    pub message: String,
}

impl CliError {
    /// A usage or profile error (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            code: USAGE,
            message: message.into(),
        }
    }

    /// A file the user named could not be written: a usage error (exit 2) when the path itself
    /// is wrong (no such folder, no file name), else a failure (exit 1). `what` starts the
    /// message (`cannot write the export`).
    pub fn write(what: &str, e: &crate::store::WriteError) -> Self {
        let message = format!("{what}: {e}");
        match e {
            crate::store::WriteError::NoFolder(_)
            | crate::store::WriteError::BadPath(_)
            | crate::store::WriteError::IsFolder(_) => Self::usage(message),
            crate::store::WriteError::Io { .. } => Self::failed(message),
        }
    }

    /// A runtime failure (exit 1).
    pub fn failed(message: impl Into<String>) -> Self {
        Self {
            code: FAILED,
            message: message.into(),
        }
    }
}

/// Prints `error: …` on stderr and turns the result into an exit code.
pub fn finish(result: Result<u8, CliError>) -> ExitCode {
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            super::out::write_stderr(&format!("error: {}\n", e.message));
            ExitCode::from(e.code)
        }
    }
}
