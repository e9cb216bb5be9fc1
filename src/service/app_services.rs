//! The background services the app owns: a small tokio runtime (file dialogs, the demo server)
//! and the embedded demo server on a free loopback port.

use crate::demo::DemoServer;
use std::time::Duration;

/// Longest wait for the demo server to bind at start-up, s.
const DEMO_START_TIMEOUT_S: u64 = 5;

/// The app's runtime and demo server; dropping it stops both.
pub struct AppServices {
    demo: Option<DemoServer>,
    demo_problem: Option<String>,
    // Declared last so the demo server drops before its runtime.
    runtime: tokio::runtime::Runtime,
}

impl AppServices {
    /// Starts a one-worker runtime (`retryscope-demo` threads) and the demo server on
    /// `127.0.0.1:0`. A demo server that cannot start is reported by [`Self::demo_problem`],
    /// not as an error: the app still works against other URLs.
    ///
    /// # Errors
    /// When the runtime cannot be created.
    pub fn start() -> std::io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("retryscope-demo")
            .enable_all()
            .build()?;
        let started = runtime.block_on(async {
            tokio::time::timeout(
                Duration::from_secs(DEMO_START_TIMEOUT_S),
                DemoServer::start(0),
            )
            .await
        });
        let (demo, demo_problem) = match started {
            Ok(Ok(server)) => (Some(server), None),
            Ok(Err(e)) => (
                None,
                Some(format!("the demo server could not bind 127.0.0.1: {e}")),
            ),
            Err(_) => (
                None,
                Some(format!(
                    "the demo server did not start within {DEMO_START_TIMEOUT_S} s"
                )),
            ),
        };
        Ok(Self {
            demo,
            demo_problem,
            runtime,
        })
    }

    /// `http://127.0.0.1:PORT` of the demo server, when it runs.
    pub fn demo_base_url(&self) -> Option<String> {
        self.demo.as_ref().map(DemoServer::base_url)
    }

    /// Why the demo server is not running, if it is not.
    pub fn demo_problem(&self) -> Option<&str> {
        self.demo_problem.as_deref()
    }

    /// A handle to spawn background work (file dialogs) on.
    pub fn handle(&self) -> tokio::runtime::Handle {
        self.runtime.handle().clone()
    }
}
