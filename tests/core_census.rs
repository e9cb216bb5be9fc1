//! One core per process (DESIGN §11): the window's one link to the core — runs, batches,
//! History panel queries — shares the core's one runtime, its one store actor (the only thread
//! that touches SQLite) and its one budget registry. Its own test binary, so the process-wide
//! counts are this test's alone.

#![allow(clippy::unwrap_used)]

use retryscope::service::{BatchSetup, Census, Core, CoreLink, CoreOptions, LinkSetup, Threads};
use retryscope::store::MemorySecretStore;
use std::sync::Arc;

#[test]
fn the_window_s_link_shares_one_runtime_one_store_thread_and_one_budget_registry() {
    let core = Core::new(CoreOptions {
        threads: Threads::Workers(2),
        demo: true,
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let link = CoreLink::start(
        &core,
        LinkSetup {
            waker: Arc::new(|| {}),
            data_dir: Some(dir.path().to_path_buf()),
            record_runs: true,
            body_cap: 1024,
            batches: Some(BatchSetup {
                importer: retryscope::ui::batch::list_importer(),
                secrets: Arc::new(MemorySecretStore::new()),
                profiles: retryscope::service::library_lookup(None),
            }),
            secrets: None,
        },
    );
    let offer = link.offer();
    assert!(offer.recording && offer.history && offer.batches);
    assert_eq!(
        core.census(),
        Census {
            cores: 1,
            workers: 2,
            stores: 1,
            budget_registries: 1,
        }
    );
    #[cfg(target_os = "linux")]
    {
        // A thread names itself once it runs, so a just-spawned one may still carry its
        // parent's name: look again until the names settle (at most 5 s).
        let wanted = |names: &[String]| {
            let count = |n: &str| names.iter().filter(|t| t.as_str() == n).count();
            (
                count(retryscope::store::STORE_THREAD_NAME),
                count(retryscope::service::CORE_THREAD_NAME),
                // Threads of their own for the History panel or for checkpoints: none.
                names.iter().filter(|t| t.starts_with("history")).count(),
            )
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let mut names = thread_names();
        while wanted(&names) != (1, 2, 0) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
            names = thread_names();
        }
        assert_eq!(
            wanted(&names),
            (1, 2, 0),
            "store, core and history-* threads: {names:?}"
        );
    }
    drop(link);
    core.shutdown(std::time::Duration::from_secs(2)).unwrap();
    assert_eq!(retryscope::store::HistoryWriter::live_count(), 0);
}

/// The names of this process's threads (Linux: `/proc/self/task/*/comm`).
#[cfg(target_os = "linux")]
fn thread_names() -> Vec<String> {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|n| n.trim().to_owned())
        .collect()
}
