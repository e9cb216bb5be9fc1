//! `retryscope demo-server`: the embedded flaky HTTP server, standalone on loopback.

use super::exit::{self, CliError};
use crate::demo::DemoServer;
use clap::Args;

/// Flags of `retryscope demo-server`.
#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Examples:
  retryscope demo-server --port 8080
  retryscope run --builtin vbscript-module http://127.0.0.1:8080/status/503?times=2     (in another terminal)

Listens on 127.0.0.1 only. Endpoints: /status/{code}?times=N&key=K, /retry-after?value=V&times=N,
/retry-after-ms?value=V, /slow?ms=N, /hang, /reset, /bytes?n=N, /echo, /log.
Stop it with Ctrl-C.")]
pub struct DemoServerArgs {
    /// Port on 127.0.0.1 (0 = any free port; the address is printed).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
}

/// Serves until Ctrl-C.
///
/// # Errors
/// Exit 1 when the port cannot be bound or the runtime cannot start.
pub fn execute(args: &DemoServerArgs) -> Result<u8, CliError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::failed(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(async {
        let server = DemoServer::start(args.port).await.map_err(|e| {
            CliError::failed(format!("cannot listen on 127.0.0.1:{}: {e}", args.port))
        })?;
        crate::cli_outln!("demo server listening on {}", server.base_url());
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let _ = tokio::signal::ctrl_c().await;
        Ok(exit::SUCCESS)
    })
}
