//! The process's core for tests that start services on it, as `main` builds one per process.

use retryscope::service::{Core, CoreOptions};
use std::sync::OnceLock;

/// One core with two workers, shared by every test of the binary (never dropped).
pub fn shared_core() -> &'static Core {
    static CORE: OnceLock<Core> = OnceLock::new();
    CORE.get_or_init(|| Core::new(CoreOptions::workers(2)).expect("the core's runtime starts"))
}
