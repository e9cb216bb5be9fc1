//! `retryscope`: the desktop app with no arguments, headless subcommands otherwise. The process
//! has one core (DESIGN.md §11), built here for the face the arguments ask for.

use retryscope::cli::{self, Command};
use std::process::ExitCode;

fn main() -> ExitCode {
    let parsed = match cli::parse() {
        Ok(parsed) => parsed,
        Err(code) => return code,
    };
    let core = match cli::start_core(parsed.command.as_ref()) {
        Ok(core) => core,
        Err(code) => return code,
    };
    let code = match &parsed.command {
        // No subcommand (or `gui`): the window, through `retryscope::ui::run_app`.
        None => cli::execute_gui(&parsed.gui, &core),
        Some(Command::Gui(args)) => cli::execute_gui(args, &core),
        Some(command) => cli::execute(command, &core),
    };
    cli::stop_core(core);
    code
}
