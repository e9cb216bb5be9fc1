//! The embedded flaky HTTP server on loopback, used by the GUI default, the CLI and the tests.
//!
//! STUB: signatures are the contract; the demo work replaces the bodies.

use std::net::SocketAddr;

/// A running demo server; dropping it shuts the server down.
pub struct DemoServer {
    addr: SocketAddr,
}

impl DemoServer {
    /// Starts the server on `127.0.0.1:port` (0 = any free port) on the current tokio runtime.
    ///
    /// # Errors
    /// When the port cannot be bound.
    pub async fn start(port: u16) -> std::io::Result<Self> {
        Ok(Self {
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
        })
    }

    /// Bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }
}
