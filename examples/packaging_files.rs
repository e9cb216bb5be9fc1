//! Writes the files the packages ship that come from the clap definition: man pages
//! (`clap_mangen`: `retryscope.1` and one page per subcommand, e.g. `retryscope-run.1`) and
//! shell completions (`clap_complete`: bash, zsh, fish).
//!
//! ```text
//! cargo run --example packaging_files -- target/packaging   # the folder packaging/ expects
//! ```
//!
//! Writes `OUT/man/*.1` and `OUT/completions/{retryscope.bash,_retryscope,retryscope.fish}`.
//! An example rather than a build script or a subcommand: the generators stay out of the
//! shipped binary, and `cargo test` already builds it, so CI pays nothing to compile it.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a build tool: it lists what it wrote and its usage on the terminal"
)]

use clap::CommandFactory;
use clap_complete::Shell;
use retryscope::cli::Cli;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(out) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: packaging_files OUT_DIR");
        return ExitCode::from(2);
    };
    match write_all(&out) {
        Ok(written) => {
            for path in written {
                println!("{}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes the man pages and completions under `out`; the paths written.
fn write_all(out: &std::path::Path) -> Result<Vec<PathBuf>, String> {
    let man = out.join("man");
    let completions = out.join("completions");
    for dir in [&man, &completions] {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the folder ({e}): {}", dir.display()))?;
    }
    let mut written = Vec::new();
    let cmd = Cli::command();
    clap_mangen::generate_to(cmd.clone(), &man)
        .map_err(|e| format!("cannot write the man pages ({e}): {}", man.display()))?;
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&man)
        .map_err(|e| format!("cannot list the man pages ({e}): {}", man.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    pages.sort();
    written.extend(pages);
    for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
        let mut cmd = cmd.clone();
        let path = clap_complete::generate_to(shell, &mut cmd, "retryscope", &completions)
            .map_err(|e| {
                format!(
                    "cannot write the {shell} completions ({e}): {}",
                    completions.display()
                )
            })?;
        written.push(path);
    }
    Ok(written)
}
