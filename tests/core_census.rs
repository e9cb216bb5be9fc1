//! One core per process (DESIGN §11): the window's services — engine, batch, History panel —
//! started on one core share its one runtime, its one store actor (the only thread that
//! touches SQLite) and its one budget registry. Its own test binary, so the process-wide
//! counts are this test's alone.

#![allow(clippy::unwrap_used)]

use retryscope::service::{
    BatchService, Census, Core, CoreOptions, EngineService, HistoryPlace, HistoryService, Threads,
};
use retryscope::store::MemorySecretStore;
use std::sync::Arc;

#[test]
fn the_window_s_services_share_one_runtime_one_store_thread_and_one_budget_registry() {
    let core = Core::new(CoreOptions {
        threads: Threads::Workers(2),
        demo: true,
    })
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let engine = EngineService::start(
        &core,
        Arc::new(|| {}),
        Some(HistoryPlace {
            data_dir: Some(dir.path().to_path_buf()),
            body_cap: 1024,
        }),
    );
    assert!(engine.is_recording());
    let batch = BatchService::start(
        &core,
        dir.path(),
        Arc::new(MemorySecretStore::new()),
        retryscope::ui::batch::list_importer(),
        Arc::new(|| {}),
        retryscope::service::library_lookup(None),
    );
    let history = HistoryService::start(&core, dir.path(), Arc::new(|| {}));
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
    drop((engine, batch, history));
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
