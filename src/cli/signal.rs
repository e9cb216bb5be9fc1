//! Waiting for the user to stop a command: Ctrl-C (SIGINT) or, on Unix, SIGTERM.

/// Which signal stopped the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Ctrl-C / SIGINT.
    Interrupt,
    /// SIGTERM (Unix only).
    Terminate,
}

/// Installed signal handlers. Created before anything tells the user the command is ready,
/// so a signal sent right after that is caught, not fatal.
pub struct StopSignals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
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
            }
        }
        #[cfg(not(unix))]
        Self {}
    }

    /// Resolves at the next Ctrl-C or SIGTERM.
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
