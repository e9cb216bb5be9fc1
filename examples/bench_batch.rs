//! Batch runner benchmark of issue 9 ("Speed"): N single-attempt items (default 10,000) against
//! the in-process demo server at concurrency C (default 8), every item's state committed in the
//! history database and every run recorded; prints items per second, the cost per item and the
//! peak resident memory. The lead compares it with `curl -K list --parallel --parallel-max 8` on
//! the same list (BENCHMARKS.md "Batch runner").
//!
//! Run: `cargo build --release --example bench_batch && target/release/examples/bench_batch
//! [N] [C]`. Traffic stays on 127.0.0.1; the database goes to a temp folder.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark program prints its figures"
)]

use retryscope::demo::DemoServer;
use retryscope::model::{BatchOptions, BatchRequest, RequestSpec, RetryProfile};
use retryscope::service::{BatchControl, BatchRunner, open_history_writer};
use retryscope::store::{BatchQueue, MemorySecretStore, SecretStore};
use std::error::Error;
use std::sync::Arc;
use std::time::Instant;

type Res<T> = Result<T, Box<dyn Error + Send + Sync>>;

/// `VmHWM` / `VmRSS` of this process, KiB (Linux).
fn status_kib(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() -> Res<()> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(Ok(10_000), |a| a.parse())?;
    let concurrency: usize = args.next().map_or(Ok(8), |a| a.parse())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let server = runtime.block_on(DemoServer::start(0))?;
    let dir = tempfile::tempdir()?;
    let secrets: Arc<dyn SecretStore> = Arc::new(MemorySecretStore::new());
    let mut queue = BatchQueue::open_in(dir.path(), Arc::clone(&secrets))?;
    let profile: RetryProfile = serde_json::from_value(serde_json::json!({
        "format": "retryscope-profile/2", "name": "bench", "max_retries": 0,
        "backoff": {"strategy": "fixed", "base_delay_ms": 1}
    }))?;
    let items: Vec<BatchRequest> = (0..n)
        .map(|i| BatchRequest {
            name: None,
            request: RequestSpec::get(server.url(&format!("/status/200?key=b{i}"))),
            profile: None,
            source_line: None,
        })
        .collect();
    let queued = Instant::now();
    let options = BatchOptions {
        concurrency,
        ..BatchOptions::default()
    };
    let id = queue.create(None, &profile, &options, &items)?;
    let queue_ms = queued.elapsed().as_secs_f64() * 1000.0;
    drop(items);
    let writer = open_history_writer(dir.path())?;
    let runner = BatchRunner::new(queue).recording(Arc::clone(&writer), 4096);
    let (tx, mut rx) = tokio::sync::mpsc::channel(4096);
    let started = Instant::now();
    let summary = runtime.block_on(async move {
        let drain = tokio::spawn(async move { while rx.recv().await.is_some() {} });
        let summary = runner.run(&id, BatchControl::new(), tx).await;
        let _ = drain.await;
        summary
    })?;
    writer.flush()?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "| items | concurrency | queue ms | run s | items/s | µs per item | done | peak RSS KiB |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    println!(
        "| {n} | {concurrency} | {queue_ms:.0} | {secs:.2} | {:.0} | {:.0} | {} | {} |",
        n as f64 / secs,
        secs * 1e6 / n as f64,
        summary.counts.done,
        status_kib("VmHWM").unwrap_or(0)
    );
    Ok(())
}
