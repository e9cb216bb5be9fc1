//! Batch runner benchmark: N single-attempt items (default 10,000) against
//! the in-process demo server at concurrency C (default 8), every item's state committed in the
//! history database and every run recorded; prints items per second, the wall time and the CPU
//! time per item (user + system, every thread of the process) and the peak resident memory. The
//! figure is compared with `curl -K list --parallel --parallel-max 8` on the same list
//! (BENCHMARKS.md "Batch runner").
//!
//! Run: `cargo build --release --example bench_batch && target/release/examples/bench_batch
//! [N] [C] [--split]`. `--split` measures the runner alone: this process starts the demo server
//! and queues the batch, then a second process (this program again, `--run-queued DIR ID`) only
//! works the queued batch and reports its own CPU and peak RSS (so neither the request list
//! built to queue the batch nor the server is in its figures); the server's CPU is reported
//! apart. Traffic stays on 127.0.0.1; the database goes to a temp folder.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_precision_loss,
    reason = "a benchmark program prints its figures"
)]

use retryscope::demo::DemoServer;
use retryscope::model::{BatchOptions, BatchRequest, RequestSpec, RetryProfile};
use retryscope::service::{BatchControl, BatchRunner, open_history_writer};
use retryscope::store::{BatchQueue, MemorySecretStore, SecretStore};
use std::collections::BTreeMap;
use std::error::Error;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

type Res<T> = Result<T, Box<dyn Error + Send + Sync>>;

#[path = "support/wal_watch.rs"]
mod wal_watch;

/// `VmHWM` / `VmRSS` of this process, KiB (Linux).
fn status_kib(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Clock ticks per second of `/proc/*/stat` (`USER_HZ`; 100 on Linux).
const TICKS_PER_S: f64 = 100.0;

/// The thread or process name and user + system CPU seconds of a `/proc/.../stat` file.
fn stat_cpu(path: &Path) -> Option<(String, f64)> {
    let text = std::fs::read_to_string(path).ok()?;
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let name = text[open + 1..close].to_owned();
    let fields: Vec<&str> = text[close + 2..].split_whitespace().collect();
    // Fields 14 and 15 of stat(5) (utime, stime) are 12 and 13 after the name.
    let user: f64 = fields.get(11)?.parse().ok()?;
    let system: f64 = fields.get(12)?.parse().ok()?;
    Some((name, (user + system) / TICKS_PER_S))
}

/// CPU seconds of this process so far (every thread, live or ended).
fn process_cpu() -> f64 {
    stat_cpu(Path::new("/proc/self/stat")).map_or(0.0, |(_, s)| s)
}

/// CPU seconds so far per thread name of this process (live threads).
fn thread_cpu() -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    if let Ok(dir) = std::fs::read_dir("/proc/self/task") {
        for task in dir.flatten() {
            if let Some((name, s)) = stat_cpu(&task.path().join("stat")) {
                *out.entry(name).or_insert(0.0) += s;
            }
        }
    }
    out
}

/// Thread CPU between two [`thread_cpu`] readings, µs per item, as `name µs, …`.
fn thread_delta(before: &BTreeMap<String, f64>, after: &BTreeMap<String, f64>, n: usize) -> String {
    after
        .iter()
        .map(|(name, s)| (name, s - before.get(name).copied().unwrap_or(0.0)))
        .filter(|(_, s)| *s > 0.0)
        .map(|(name, s)| format!("{name} {:.0}", s * 1e6 / n as f64))
        .collect::<Vec<_>>()
        .join(", ")
}

fn bench_profile() -> Res<RetryProfile> {
    Ok(serde_json::from_value(serde_json::json!({
        "format": "retryscope-profile/2", "name": "bench", "max_retries": 0,
        "backoff": {"strategy": "fixed", "base_delay_ms": 1}
    }))?)
}

/// Queues `n` items against `server` in `dir`, their secrets (the `key` query value, when
/// `param` is `key`) kept in `secrets`; returns the batch id and the time it took, ms.
fn queue_batch(
    server: &DemoServer,
    dir: &Path,
    (n, concurrency, param): (usize, usize, &str),
    secrets: &Arc<dyn SecretStore>,
) -> Res<(String, f64)> {
    let mut queue = BatchQueue::open_in(dir, Arc::clone(secrets))?;
    let items: Vec<BatchRequest> = (0..n)
        .map(|i| BatchRequest {
            name: None,
            request: RequestSpec::get(server.url(&format!("/status/200?{param}=b{i}"))),
            profile: None,
            source_line: None,
        })
        .collect();
    let queued = Instant::now();
    let options = BatchOptions {
        concurrency,
        ..BatchOptions::default()
    };
    let id = queue.create(None, &bench_profile()?, &options, &items)?;
    Ok((id, queued.elapsed().as_secs_f64() * 1000.0))
}

/// What one worked batch measured.
struct Worked {
    secs: f64,
    /// Largest WAL file while the batch was worked, MiB.
    wal_mib: f64,
    cpu: f64,
    threads: String,
    done: u64,
}

/// Works batch `id` in `dir` to its end on `runtime`, recording every run; item secrets are
/// read from `secrets`.
fn work(
    runtime: &tokio::runtime::Runtime,
    dir: &Path,
    id: &str,
    n: usize,
    secrets: &Arc<dyn SecretStore>,
) -> Res<Worked> {
    let writer = open_history_writer(dir)?;
    let runner = BatchRunner::new(Arc::clone(&writer), Arc::clone(secrets)).body_cap(4096);
    let (tx, mut rx) = tokio::sync::mpsc::channel(4096);
    let wal = wal_watch::WalWatch::start(dir);
    let threads_before = thread_cpu();
    let cpu_before = process_cpu();
    let started = Instant::now();
    let summary_id = id.to_owned();
    let id = id.to_owned();
    // As `retryscope batch` and the window do: the runner is a task on the runtime's workers
    // (not the thread blocking on the runtime).
    let summary = runtime.block_on(async move {
        let drain = tokio::spawn(async move { while rx.recv().await.is_some() {} });
        let summary: Res<_> =
            match tokio::spawn(async move { runner.run(&id, BatchControl::new(), tx).await }).await
            {
                Ok(worked) => worked.map_err(Into::into),
                Err(e) => Err(e.into()),
            };
        let _ = drain.await;
        summary
    })?;
    writer.flush()?;
    if summary.counts.error > 0 {
        let failed = BatchQueue::open_in(dir, Arc::clone(secrets))?.items(
            &summary_id,
            Some(retryscope::model::BatchItemState::Error),
            0,
            1,
        )?;
        eprintln!(
            "{} items ended in error, e.g. {:?}",
            summary.counts.error,
            failed.first().map(|i| &i.reason)
        );
    }
    let secs = started.elapsed().as_secs_f64();
    let threads = thread_delta(&threads_before, &thread_cpu(), n);
    Ok(Worked {
        secs,
        wal_mib: wal.stop(),
        cpu: process_cpu() - cpu_before,
        threads,
        done: summary.counts.done,
    })
}

fn runtime() -> Res<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?)
}

/// `--run-queued DIR ID N`: the second process of `--split`.
fn run_queued(dir: &str, id: &str, n: usize) -> Res<()> {
    let runtime = runtime()?;
    let rss_start = status_kib("VmRSS").unwrap_or(0);
    let secrets: Arc<dyn SecretStore> = Arc::new(MemorySecretStore::new());
    let w = work(&runtime, Path::new(dir), id, n, &secrets)?;
    println!(
        "runner alone | {n} items | run {:.2} s | {:.0} µs per item | CPU {:.0} µs per item ({}) | done {} | largest WAL {:.1} MiB | RSS at start {} KiB, peak {} KiB, at end {} KiB",
        w.secs,
        w.secs * 1e6 / n as f64,
        w.cpu * 1e6 / n as f64,
        w.threads,
        w.done,
        w.wal_mib,
        rss_start,
        status_kib("VmHWM").unwrap_or(0),
        status_kib("VmRSS").unwrap_or(0),
    );
    Ok(())
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, dir, id, n] = args.as_slice()
        && flag == "--run-queued"
    {
        return run_queued(dir, id, n.parse()?);
    }
    let split = args.iter().any(|a| a == "--split");
    let mut numbers = args.iter().filter(|a| !a.starts_with("--"));
    let n: usize = numbers.next().map_or(Ok(10_000), |a| a.parse())?;
    let concurrency: usize = numbers.next().map_or(Ok(8), |a| a.parse())?;
    let runtime = runtime()?;
    let server = runtime.block_on(DemoServer::start(0))?;
    let dir = tempfile::tempdir()?;
    // Each item's URL carries a `key` query value, a secret by the one rule: it is masked in
    // the database and its sendable request kept in the (memory) secret store, which a second
    // process cannot read; the split run's items carry an `n` value instead.
    let secrets: Arc<dyn SecretStore> = Arc::new(MemorySecretStore::new());
    let param = if split { "n" } else { "key" };
    let (id, queue_ms) = queue_batch(&server, dir.path(), (n, concurrency, param), &secrets)?;
    let rss_queued = status_kib("VmHWM").unwrap_or(0);
    if split {
        let cpu_before = process_cpu();
        let status = std::process::Command::new(std::env::current_exe()?)
            .arg("--run-queued")
            .arg(dir.path())
            .arg(&id)
            .arg(n.to_string())
            .status()?;
        if !status.success() {
            return Err(format!("the runner process failed: {status}").into());
        }
        println!(
            "queueing process: queue {queue_ms:.0} ms, peak RSS {rss_queued} KiB; demo server CPU while the runner worked {:.0} µs per item",
            (process_cpu() - cpu_before) * 1e6 / n as f64
        );
        return Ok(());
    }
    let w = work(&runtime, dir.path(), &id, n, &secrets)?;
    println!(
        "| items | concurrency | queue ms | run s | items/s | µs per item | CPU µs per item | done | peak RSS KiB after queueing / at end |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    println!(
        "| {n} | {concurrency} | {queue_ms:.0} | {:.2} | {:.0} | {:.0} | {:.0} | {} | {rss_queued} / {} |",
        w.secs,
        n as f64 / w.secs,
        w.secs * 1e6 / n as f64,
        w.cpu * 1e6 / n as f64,
        w.done,
        status_kib("VmHWM").unwrap_or(0)
    );
    println!("CPU µs per item by thread: {}", w.threads);
    println!("largest WAL file while the batch ran: {:.1} MiB", w.wal_mib);
    Ok(())
}
