//! The one core of a process (DESIGN.md §11): `main` builds it once, whether it opens the window
//! or runs a CLI command, and both faces ask it for what does the work. It owns the one tokio
//! runtime, the one retry budget registry (§7: shared by every run and batch item of a host),
//! the HTTP client cache, the store actor of each data folder (the one thread and connection
//! that reads and writes its history and batch queue; opened on first use, so a command that
//! records nothing never opens the store) and the embedded demo server when asked for.
//!
//! Faces never build a runtime, a store or a registry of their own: the window drives the core
//! through a [`super::CoreLink`] started on it.

use super::budget_registry::BudgetRegistry;
use super::keyring::Keyring;
use crate::demo::DemoServer;
use crate::engine::ClientCache;
use crate::store::OpenedSecretStore;
use crate::store::{HistoryError, HistoryStore, HistoryWriter};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;
use tokio_util::task::TaskTracker;

/// Longest wait for the demo server to bind at start-up, s.
const DEMO_START_TIMEOUT_S: u64 = 5;

/// Longest wait at shutdown for the keyring worker's last writes.
const KEYRING_FINISH_LIMIT: Duration = Duration::from_secs(5);

/// Longest wait at shutdown for a store actor to commit what it holds.
pub const STORE_CLOSE_LIMIT: Duration = Duration::from_secs(10);

/// Name of the core runtime's threads (the window's and the batch command's workers).
pub const CORE_THREAD_NAME: &str = "retryscope-core";

/// Cores alive in this process (see [`Core::census`]).
static LIVE_CORES: AtomicUsize = AtomicUsize::new(0);

/// How the core's runtime runs its tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threads {
    /// On the thread that calls [`Core::block_on`] only: a one-shot command (`run`, `curl`,
    /// the lab's commands), whose run is driven from `main`'s thread with no hand-off between
    /// threads (the wait precision the engine promises comes from this).
    Current,
    /// On this many worker threads named [`CORE_THREAD_NAME`]: the window and `batch`, whose
    /// services run while the caller does other work.
    Workers(usize),
}

/// What a face asks of its core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoreOptions {
    /// The runtime's flavour.
    pub threads: Threads,
    /// Start the embedded demo server on `127.0.0.1:0` (the window's default request).
    pub demo: bool,
}

impl CoreOptions {
    /// A one-shot command's core: current-thread runtime, no demo server.
    pub const ONE_SHOT: Self = Self {
        threads: Threads::Current,
        demo: false,
    };

    /// A core with `n` worker threads and no demo server.
    pub const fn workers(n: usize) -> Self {
        Self {
            threads: Threads::Workers(n),
            demo: false,
        }
    }
}

/// What a core holds, counted for tests and diagnostics ([`Core::census`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Census {
    /// Cores alive in the process (one runtime each).
    pub cores: usize,
    /// Worker threads of this core's runtime (0 for [`Threads::Current`]).
    pub workers: usize,
    /// Store actors (threads that own a SQLite connection) alive in the process.
    pub stores: usize,
    /// Budget registries alive in the process.
    pub budget_registries: usize,
}

/// The process's core. Dropping it stops the runtime without waiting; [`Self::shutdown`] lets
/// the tasks end and commits what the history writers hold first.
pub struct Core {
    options: CoreOptions,
    budgets: BudgetRegistry,
    clients: ClientCache,
    writers: Mutex<Vec<(PathBuf, Arc<HistoryWriter>)>>,
    /// The keyring worker, started on the first [`Self::secret_store`].
    keyring: OnceLock<Result<Keyring, String>>,
    tasks: TaskTracker,
    demo: Option<DemoServer>,
    demo_problem: Option<String>,
    // Declared last: dropped after everything that runs on it.
    runtime: tokio::runtime::Runtime,
}

impl std::fmt::Debug for Core {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Core")
            .field("options", &self.options)
            .field("demo", &self.demo_base_url())
            .finish_non_exhaustive()
    }
}

impl Core {
    /// Builds the runtime and, when `options.demo`, starts the demo server on `127.0.0.1:0`
    /// (waiting at most 5 s for it to bind). A demo server that cannot start is reported by
    /// [`Self::demo_problem`], not as an error: the app still works against other URLs.
    ///
    /// # Errors
    /// When the runtime cannot be created.
    pub fn new(options: CoreOptions) -> std::io::Result<Self> {
        let runtime = match options.threads {
            Threads::Current => tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?,
            Threads::Workers(n) => tokio::runtime::Builder::new_multi_thread()
                .worker_threads(n.max(1))
                .thread_name(CORE_THREAD_NAME)
                .enable_all()
                .build()?,
        };
        let (demo, demo_problem) = if options.demo {
            start_demo(&runtime)
        } else {
            (None, None)
        };
        LIVE_CORES.fetch_add(1, Ordering::SeqCst);
        Ok(Self {
            options,
            budgets: BudgetRegistry::new(),
            clients: ClientCache::default(),
            writers: Mutex::new(Vec::new()),
            keyring: OnceLock::new(),
            tasks: TaskTracker::new(),
            demo,
            demo_problem,
            runtime,
        })
    }

    /// The runtime's handle (to spawn on, or to enter for a file dialog).
    pub fn handle(&self) -> &tokio::runtime::Handle {
        self.runtime.handle()
    }

    /// Runs `future` to its end on the calling thread (never from inside the runtime).
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }

    /// Spawns a long-lived task of a service; [`Self::shutdown`] waits for it to end.
    pub fn spawn<F>(&self, future: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.tasks.spawn_on(future, self.runtime.handle())
    }

    /// True when the runtime has worker threads (services that run while the caller does
    /// other work need them).
    pub fn has_workers(&self) -> bool {
        matches!(self.options.threads, Threads::Workers(_))
    }

    /// The process's one budget registry (clones share its buckets).
    pub fn budgets(&self) -> &BudgetRegistry {
        &self.budgets
    }

    /// The process's HTTP clients, shared by every run started on the core (keep-alive
    /// connections across runs, the trust store loaded once).
    pub fn clients(&self) -> &ClientCache {
        &self.clients
    }

    /// The store actor of `data_dir`, opened on the first call for that folder and shared by
    /// every later caller (the window's runs, its batch and its History panel go through one
    /// thread and one connection).
    ///
    /// # Errors
    /// The store's open or migration error; the caller runs on unrecorded and says so. A
    /// failed open is tried again by the next call.
    pub fn history_writer(&self, data_dir: &Path) -> Result<Arc<HistoryWriter>, HistoryError> {
        let mut writers = self.writers.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, w)) = writers.iter().find(|(dir, _)| dir == data_dir) {
            return Ok(Arc::clone(w));
        }
        let writer = if self.has_workers() {
            super::run_recording::open_history_writer(data_dir)?
        } else {
            // A one-shot command: no checkpoint thread, the WAL left for a later process.
            HistoryStore::open_in(data_dir)
                .and_then(HistoryWriter::spawn_for_one_shot)
                .map(Arc::new)?
        };
        writers.push((data_dir.to_path_buf(), Arc::clone(&writer)));
        Ok(writer)
    }

    /// The process's secret store (the OS keyring when one answers, else memory only with the
    /// reason), every call of which the keyring worker makes ([`Keyring`]): writes return at
    /// once, so no face waits for a keyring that prompts or hangs. Opened on the first call
    /// (the probe of the OS keyring runs then, on the caller's thread); a worker thread that
    /// cannot start leaves the store's calls on the caller's thread.
    pub fn secret_store(&self) -> OpenedSecretStore {
        let keyring = self.keyring.get_or_init(|| {
            Keyring::start(crate::store::open_secret_store()).map_err(|e| e.to_string())
        });
        match keyring {
            Ok(keyring) => keyring.store(),
            Err(e) => crate::store::memory_secret_store(&format!(
                "the keyring worker could not start ({e})"
            )),
        }
    }

    /// Waits at most 5 s for the keyring worker to make the writes queued so far (the
    /// window's last "Remember secrets" save); [`Self::shutdown`] does it too.
    pub fn finish_keyring(&self) {
        if let Some(Ok(keyring)) = self.keyring.get()
            && !keyring.finish(KEYRING_FINISH_LIMIT)
        {
            tracing::warn!(
                "the keyring did not answer within 5 s; the last secrets saved may not be kept"
            );
        }
    }

    /// `http://127.0.0.1:PORT` of the demo server, when it runs.
    pub fn demo_base_url(&self) -> Option<String> {
        self.demo.as_ref().map(DemoServer::base_url)
    }

    /// Why the demo server is not running, when it was asked for and is not.
    pub fn demo_problem(&self) -> Option<&str> {
        self.demo_problem.as_deref()
    }

    /// What this core and the process hold: one core, its workers, one store actor per data
    /// folder, one budget registry — a face that built its own would show here.
    pub fn census(&self) -> Census {
        Census {
            cores: LIVE_CORES.load(Ordering::SeqCst),
            workers: match self.options.threads {
                Threads::Current => 0,
                Threads::Workers(n) => n.max(1),
            },
            stores: HistoryWriter::live_count(),
            budget_registries: BudgetRegistry::live_count(),
        }
    }

    /// Ends the process's work in order: waits at most `wait` for the services' tasks (runs
    /// record their end as cancelled once their faces let go), lets the keyring worker make the
    /// writes queued (at most 5 s), then closes each store actor,
    /// committing what it holds (waiting at most [`STORE_CLOSE_LIMIT`]: a database another
    /// program keeps locked does not hold the process), then stops the runtime.
    ///
    /// # Errors
    /// The first store's close error (what was not committed); the others are closed all the
    /// same.
    pub fn shutdown(self, wait: Duration) -> Result<(), HistoryError> {
        self.tasks.close();
        let tasks = self.tasks.clone();
        if self.has_workers() {
            self.runtime.block_on(async {
                let _ = tokio::time::timeout(wait, tasks.wait()).await;
            });
        }
        if let Some(Ok(keyring)) = self.keyring.get()
            && !keyring.finish(KEYRING_FINISH_LIMIT)
        {
            tracing::warn!(
                "the keyring did not answer within 5 s; the last secrets may not be kept"
            );
        }
        let writers =
            std::mem::take(&mut *self.writers.lock().unwrap_or_else(PoisonError::into_inner));
        let mut first_problem = None;
        for (_, writer) in writers {
            // A writer still shared (a service task that did not end in time) commits what it
            // holds when its last handle drops.
            if let Ok(writer) = Arc::try_unwrap(writer)
                && let Err(e) = writer.close_within(STORE_CLOSE_LIMIT)
            {
                first_problem.get_or_insert(e);
            }
        }
        first_problem.map_or(Ok(()), Err)
    }
}

impl Drop for Core {
    fn drop(&mut self) {
        LIVE_CORES.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Starts the demo server on the runtime: the server, or why it did not start.
fn start_demo(runtime: &tokio::runtime::Runtime) -> (Option<DemoServer>, Option<String>) {
    let started = runtime.block_on(async {
        tokio::time::timeout(
            Duration::from_secs(DEMO_START_TIMEOUT_S),
            DemoServer::start(0),
        )
        .await
    });
    match started {
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
    }
}
