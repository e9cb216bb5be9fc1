//! Writing to stdout without panicking when the reader has gone (`retryscope run | head`).
//!
//! `print!` panics on a closed pipe; these macros write through a locked stdout and, on any
//! write error, end the process quietly with exit code 141 (128 + SIGPIPE, as shells report it).

use std::io::Write;

/// Exit code when stdout is closed under us: 128 + SIGPIPE.
pub const BROKEN_PIPE: i32 = 141;

/// Writes `text` to stdout and flushes; exits quietly with [`BROKEN_PIPE`] if stdout is gone.
pub fn write_stdout(text: &str) {
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        std::process::exit(BROKEN_PIPE);
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
