//! The embedded demo server on 127.0.0.1 for tests that run the `retryscope` binary against it.

#![allow(dead_code)]

use retryscope::demo::DemoServer;

/// A demo server on a free loopback port and the runtime it runs on (both stop on drop).
pub struct Demo {
    _runtime: tokio::runtime::Runtime,
    /// The server (its request log, its address).
    pub server: DemoServer,
}

impl Demo {
    /// Starts the server on `127.0.0.1:0`.
    pub fn start() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let server = runtime
            .block_on(DemoServer::start(0))
            .expect("demo server binds a free port");
        Self {
            _runtime: runtime,
            server,
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        self.server.base_url()
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server.base_url())
    }
}

/// The `retryscope` binary with its data folder (history, logs, environments) in `data_dir`
/// and the in-memory keyring, so a test never records into the machine's real data folder;
/// killed after 30 s.
pub fn retryscope(data_dir: &std::path::Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("retryscope").expect("binary built");
    cmd.env("RETRYSCOPE_DATA_DIR", data_dir)
        .env("RETRYSCOPE_KEYRING", "memory")
        .env_remove("RETRYSCOPE_LOG_LEVEL")
        .timeout(std::time::Duration::from_secs(30));
    cmd
}

/// The data folder of tests that need none of their own (`target/tmp/retryscope-test-data`),
/// so no test ever records into the machine's real data folder.
pub fn shared_data_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("retryscope-test-data")
}

/// [`retryscope`] with the [`shared_data_dir`].
pub fn sandboxed() -> assert_cmd::Command {
    retryscope(&shared_data_dir())
}

/// The stderr of `retryscope ARGS` run [`sandboxed`], which must exit 2 (a usage error).
#[allow(dead_code)]
pub fn usage_error<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let out = sandboxed().args(args).assert().code(2).get_output().clone();
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The binary as a `std::process::Command` (for tests that signal or time it), with the
/// [`shared_data_dir`] and the in-memory keyring.
pub fn sandboxed_std() -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("retryscope"));
    cmd.env("RETRYSCOPE_DATA_DIR", shared_data_dir())
        .env("RETRYSCOPE_KEYRING", "memory")
        .env_remove("RETRYSCOPE_LOG_LEVEL");
    cmd
}

/// A profile file in `dir` with millisecond waits (fixed 10 ms + up to 5 ms, 3 retries on 429
/// and 503) so runs finish quickly.
pub fn fast_profile(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let path = dir.path().join("fast.json");
    std::fs::write(
        &path,
        br#"{
  "format": "retryscope-profile/1",
  "name": "fast",
  "max_retries": 3,
  "retry_on": { "status": [429, 503] },
  "backoff": { "strategy": "fixed", "base_delay_ms": 10, "jitter_window_ms": 5 }
}"#,
    )
    .expect("write");
    path
}
