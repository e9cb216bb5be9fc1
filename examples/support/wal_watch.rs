//! The largest size the history database's WAL file reached while a benchmark ran: a thread
//! looks at `history.sqlite3-wal` every 20 ms (shared by the history and batch benchmarks).

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;

/// Watches the WAL of the database in a data folder until [`WalWatch::stop`].
pub struct WalWatch {
    stop: Arc<AtomicBool>,
    largest: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
}

impl WalWatch {
    /// Starts watching `data_dir`'s `history.sqlite3-wal`.
    pub fn start(data_dir: &std::path::Path) -> Self {
        let wal: PathBuf = data_dir.join(format!("{}-wal", retryscope::store::HISTORY_FILE));
        let stop = Arc::new(AtomicBool::new(false));
        let largest = Arc::new(AtomicU64::new(0));
        let (s, l) = (Arc::clone(&stop), Arc::clone(&largest));
        let thread = std::thread::Builder::new()
            .name("wal-watch".into())
            .spawn(move || {
                while !s.load(Ordering::Relaxed) {
                    if let Ok(m) = std::fs::metadata(&wal) {
                        l.fetch_max(m.len(), Ordering::Relaxed);
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
            })
            .ok();
        Self {
            stop,
            largest,
            thread,
        }
    }

    /// Stops the thread; returns the largest WAL size seen, MiB.
    pub fn stop(mut self) -> f64 {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.largest.load(Ordering::Relaxed) as f64 / (1024.0 * 1024.0)
    }
}
