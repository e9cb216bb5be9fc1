//! Writing to stdout without panicking when the reader has gone (`retryscope run | head`).
//!
//! `print!` panics on a closed pipe; these macros write through a locked stdout. By default a
//! closed pipe ends the process quietly with exit code 141 (128 + SIGPIPE, as shells report
//! it); any other write error (a full disk, `> /dev/full`) prints one line on stderr and exits
//! with 1, since the output the user asked for is incomplete.
//!
//! A command whose work must not stop with its output (`run` and `curl`: the run is recorded
//! and its `-o`/`--har`/`--png` files are written; `batch`: its report) calls
//! [`keep_going_when_stdout_is_lost`] first: stdout is then written until its first failure
//! and skipped after it, the command finishes its work, and [`exit_code_after_output`] turns
//! the loss into the exit code at the end.

use super::exit;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Exit code when stdout is closed under us: 128 + SIGPIPE.
pub const BROKEN_PIPE: i32 = exit::STDOUT_CLOSED as i32;

/// Exit code when stdout cannot be written for another reason (disk full, I/O error).
pub const WRITE_FAILED: i32 = exit::FAILED as i32;

/// How stdout was lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StdoutLost {
    /// The reader closed the pipe (`| head -1`).
    Closed,
    /// Another write error (`> /dev/full`); its message was printed on stderr.
    Failed,
}

/// Set by [`keep_going_when_stdout_is_lost`].
static KEEP_GOING: AtomicBool = AtomicBool::new(false);

/// The first loss, once stdout failed (only kept when [`KEEP_GOING`] is set).
static LOST: Mutex<Option<StdoutLost>> = Mutex::new(None);

/// From now on a failed stdout write does not end the process: the failure is remembered,
/// later output is skipped, and [`exit_code_after_output`] says it at the end.
pub fn keep_going_when_stdout_is_lost() {
    KEEP_GOING.store(true, Ordering::SeqCst);
}

/// How stdout was lost, if it was (after [`keep_going_when_stdout_is_lost`]).
pub fn stdout_lost() -> Option<StdoutLost> {
    *LOST
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The exit code of a command that kept going after losing stdout: its own `code` when that
/// is not success (the run failed: that says more), else [`exit::STDOUT_CLOSED`] (141) for a
/// closed pipe and [`exit::FAILED`] (1) for a failed write; `code` when stdout was never lost.
pub fn exit_code_after_output(code: u8) -> u8 {
    match stdout_lost() {
        Some(_) if code != exit::SUCCESS => code,
        Some(StdoutLost::Closed) => exit::STDOUT_CLOSED,
        Some(StdoutLost::Failed) => exit::FAILED,
        None => code,
    }
}

/// Writes `text` to stdout and flushes. If stdout is gone: exits quietly with [`BROKEN_PIPE`]
/// (a closed pipe) or with [`WRITE_FAILED`] and a message on stderr (any other write error);
/// after [`keep_going_when_stdout_is_lost`], remembers the loss instead (the message is still
/// printed once) and skips this and every later write.
pub fn write_stdout(text: &str) {
    write_stdout_counted(text.as_bytes());
}

/// Writes `bytes` to stdout as [`write_stdout`] does and returns how many of them are
/// known to have reached it: all of them, or those written before stdout failed (0 when it was
/// lost before). Each piece is flushed before it is counted, so the count never claims bytes
/// that were only buffered (`-o -` says it: `body: N bytes written to stdout`).
pub fn write_stdout_counted(bytes: &[u8]) -> usize {
    let keep_going = KEEP_GOING.load(Ordering::SeqCst);
    if keep_going && stdout_lost().is_some() {
        return 0;
    }
    let mut stdout = std::io::stdout().lock();
    let mut written = 0;
    while written < bytes.len() {
        let piece = match stdout.write(&bytes[written..]) {
            Ok(0) => Err(std::io::Error::from(std::io::ErrorKind::WriteZero)),
            Ok(n) => stdout.flush().map(|()| n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => Ok(0),
            Err(e) => Err(e),
        };
        match piece {
            Ok(n) => written += n,
            Err(e) => {
                stdout_failed(&e, keep_going);
                break;
            }
        }
    }
    written
}

/// A stdout write failed with `e`: exits (see [`write_stdout`]) unless `keep_going`, else
/// remembers the loss.
fn stdout_failed(e: &std::io::Error, keep_going: bool) {
    let lost = if e.kind() == std::io::ErrorKind::BrokenPipe {
        StdoutLost::Closed
    } else {
        write_stderr(&format!("error: cannot write the output: {e}\n"));
        StdoutLost::Failed
    };
    if !keep_going {
        std::process::exit(match lost {
            StdoutLost::Closed => BROKEN_PIPE,
            StdoutLost::Failed => WRITE_FAILED,
        });
    }
    LOST.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get_or_insert(lost);
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
/// there is nowhere left to report that, and the exit code still tells). Every control
/// character but line feed and tab is escaped ([`terminal_safe`]): messages quote input, and
/// no input may drive the terminal.
pub fn write_stderr(text: &str) {
    let _ = std::io::stderr()
        .lock()
        .write_all(terminal_safe(text).as_bytes());
}

/// `text` with every control character but `\n` and `\t` escaped as
/// [`crate::model::quote::escape_controls`] does; borrowed when there is none.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}
