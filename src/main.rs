//! `retryscope`: the desktop app with no arguments, headless subcommands otherwise.

use retryscope::cli::{self, Command};
use std::process::ExitCode;

fn main() -> ExitCode {
    let parsed = match cli::parse() {
        Ok(parsed) => parsed,
        Err(code) => return code,
    };
    match &parsed.command {
        // No subcommand (or `gui`): the window, through `retryscope::ui::run_app`.
        None => cli::execute_gui(&parsed.gui),
        Some(Command::Gui(args)) => cli::execute_gui(args),
        Some(command) => cli::execute(command),
    }
}
