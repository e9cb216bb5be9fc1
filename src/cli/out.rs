//! Writing to stdout without panicking when the reader has gone (`retryscope run | head`).
//!
//! `print!` panics on a closed pipe; these macros write through a locked stdout. A closed pipe
//! ends the process quietly with exit code 141 (128 + SIGPIPE, as shells report it); any other
//! write error (a full disk, `> /dev/full`) prints one line on stderr and exits with 1, since
//! the output the user asked for is incomplete.

use std::io::Write;

/// Exit code when stdout is closed under us: 128 + SIGPIPE.
pub const BROKEN_PIPE: i32 = 141;

/// Exit code when stdout cannot be written for another reason (disk full, I/O error).
pub const WRITE_FAILED: i32 = 1;

/// Writes `text` to stdout and flushes; exits quietly with [`BROKEN_PIPE`] if stdout is gone,
/// or with [`WRITE_FAILED`] and a message on stderr for any other write error.
pub fn write_stdout(text: &str) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(BROKEN_PIPE);
        }
        write_stderr(&format!("error: cannot write the output: {e}\n"));
        std::process::exit(WRITE_FAILED);
    }
}

/// `print!` that survives a closed pipe.
#[macro_export]
#[doc(hidden)]
macro_rules! cli_out {
    ($($arg:tt)*) => { $crate::cli::out::write_stdout(&format!($($arg)*)) };
}

/// `println!` that survives a closed pipe.
#[macro_export]
#[doc(hidden)]
macro_rules! cli_outln {
    ($($arg:tt)*) => { $crate::cli::out::write_stdout(&format!("{}\n", format_args!($($arg)*))) };
}

/// Writes `text` to stderr, ignoring failure (`eprint!` panics when stderr is closed or full;
/// there is nowhere left to report that, and the exit code still tells).
pub fn write_stderr(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}
