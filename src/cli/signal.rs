//! Waiting for the user to stop a command: Ctrl-C (SIGINT) or, on Unix, SIGTERM or SIGHUP
//! (the terminal was closed). Each stops the command the same clean way: the run is cancelled
//! and recorded, a batch is left resumable; only the exit code (128 + signal number) differs.

/// Which signal stopped the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Ctrl-C / SIGINT.
    Interrupt,
    /// SIGTERM (Unix only).
    Terminate,
    /// SIGHUP: the terminal was closed (Unix only).
    Hangup,
}

impl Stop {
    /// The exit code for this signal: 130, 143 or 129 (128 + the signal number, as shells report).
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Interrupt => super::exit::INTERRUPTED,
            Self::Terminate => super::exit::TERMINATED,
            Self::Hangup => super::exit::HUNG_UP,
        }
    }

    /// How messages name the signal: `Ctrl-C`, `SIGTERM` or `SIGHUP`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Interrupt => "Ctrl-C",
            Self::Terminate => "SIGTERM",
            Self::Hangup => "SIGHUP",
        }
    }
}

/// Installed signal handlers. Created before anything tells the user the command is ready,
/// so a signal sent right after that is caught, not fatal.
pub struct StopSignals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    hangup: Option<tokio::signal::unix::Signal>,
}

impl StopSignals {
    /// Installs the handlers now (inside a tokio runtime). A handler that cannot be installed
    /// is simply not waited for: that signal keeps its default action (ending the process).
    pub fn install() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Self {
                interrupt: signal(SignalKind::interrupt()).ok(),
                terminate: signal(SignalKind::terminate()).ok(),
                hangup: signal(SignalKind::hangup()).ok(),
            }
        }
        #[cfg(not(unix))]
        Self {}
    }

    /// Resolves at the next Ctrl-C, SIGTERM or SIGHUP.
    pub async fn recv(&mut self) -> Stop {
        #[cfg(unix)]
        {
            async fn next(s: &mut Option<tokio::signal::unix::Signal>) {
                match s {
                    Some(s) => {
                        if s.recv().await.is_none() {
                            std::future::pending::<()>().await;
                        }
                    }
                    None => std::future::pending::<()>().await,
                }
            }
            tokio::select! {
                () = next(&mut self.interrupt) => Stop::Interrupt,
                () = next(&mut self.terminate) => Stop::Terminate,
                () = next(&mut self.hangup) => Stop::Hangup,
            }
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
            Stop::Interrupt
        }
    }
}
