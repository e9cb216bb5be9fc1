//! `retryscope demo-server`: the embedded flaky HTTP server, standalone on loopback.

use super::exit::{self, CliError};
use crate::demo::DemoServer;
use clap::Args;

/// Flags of `retryscope demo-server`.
#[derive(Debug, Clone, Args)]
#[command(after_help = after_help())]
pub struct DemoServerArgs {
    /// Port on 127.0.0.1 (0 = any free port; the address is printed).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = crate::cli::whole_number::u16_value)]
    pub port: u16,
}

/// Examples, then every endpoint (from [`crate::demo::ENDPOINTS`], so the list cannot drift).
fn after_help() -> String {
    let mut text = String::from(
        "Examples:\n  retryscope demo-server --port 8080\n  \
         then, in another terminal:\n  \
         retryscope run --builtin vbscript-module 'http://127.0.0.1:8080/status/503?times=2'\n\n\
         Listens on 127.0.0.1 only. Stop it with Ctrl-C (or SIGTERM). Endpoints:\n",
    );
    for endpoint in crate::demo::ENDPOINTS {
        text.push_str("  ");
        text.push_str(endpoint);
        text.push('\n');
    }
    text
}

/// Serves until Ctrl-C.
///
/// # Errors
/// Exit 2 when the port is in use or not allowed; exit 1 when it cannot be bound otherwise or
/// the runtime cannot start.
pub fn execute(args: &DemoServerArgs, core: &crate::service::Core) -> Result<u8, CliError> {
    core.block_on(async {
        let mut signals = super::signal::StopSignals::install();
        let server = DemoServer::start(args.port)
            .await
            .map_err(|e| listen_error(args.port, &e))?;
        crate::cli_outln!("demo server listening on {}", server.base_url());
        signals.recv().await;
        // The terminal echoed `^C` without a newline: end the output on a fresh line.
        crate::cli_outln!("\ndemo server stopped");
        Ok(exit::SUCCESS)
    })
}

/// One line for a port that cannot be bound: exit 2 (a usage problem: pick another port) for
/// a port in use or not allowed, exit 1 otherwise.
fn listen_error(port: u16, e: &std::io::Error) -> CliError {
    let at = format!("cannot listen on 127.0.0.1:{port}");
    match e.kind() {
        std::io::ErrorKind::AddrInUse => CliError::usage(format!(
            "{at}: address already in use; pick another --port, or 0 for any free port"
        )),
        std::io::ErrorKind::PermissionDenied => CliError::usage(format!(
            "{at}: permission denied; ports below 1024 need privileges, pick another --port"
        )),
        _ => CliError::failed(format!("{at}: {}", e.to_string().to_lowercase())),
    }
}
