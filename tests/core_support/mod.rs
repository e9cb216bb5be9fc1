//! The process's core for tests that start services on it, as `main` builds one per process.

#![allow(dead_code)]

use retryscope::service::{Core, CoreOptions};
use std::sync::OnceLock;

/// One core with two workers, shared by every test of the binary (never dropped).
pub fn shared_core() -> &'static Core {
    static CORE: OnceLock<Core> = OnceLock::new();
    CORE.get_or_init(|| Core::new(CoreOptions::workers(2)).expect("the core's runtime starts"))
}

/// A link over `data_dir`'s history that records no runs and works no batches (set
/// `batches` for a Batch tab), with a waker that does nothing.
pub fn history_setup(data_dir: &std::path::Path) -> retryscope::service::LinkSetup {
    retryscope::service::LinkSetup {
        waker: std::sync::Arc::new(|| {}),
        data_dir: Some(data_dir.to_path_buf()),
        record_runs: false,
        body_cap: 0,
        batches: None,
        secrets: None,
    }
}

/// A link on the shared core over `dir`'s history with the window's Batch tab setup (the
/// window's importer, secrets in memory, the built-in profiles and those of `library`); runs
/// it starts are not recorded.
pub fn batch_link(
    dir: &std::path::Path,
    library: Option<std::path::PathBuf>,
) -> retryscope::service::CoreLink {
    let mut setup = history_setup(dir);
    setup.batches = Some(retryscope::service::BatchSetup {
        importer: retryscope::ui::batch::list_importer(),
        secrets: std::sync::Arc::new(retryscope::store::MemorySecretStore::new()),
        profiles: retryscope::service::library_lookup(library),
    });
    retryscope::service::CoreLink::start(shared_core(), setup)
}
