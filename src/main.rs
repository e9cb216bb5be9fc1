//! `retryscope`: the desktop app with no arguments, headless subcommands otherwise.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::SUCCESS
}
