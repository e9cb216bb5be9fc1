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
