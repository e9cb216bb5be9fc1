//! History benchmarks, printed as markdown tables:
//!
//! 1. **overhead**: 10,000 sequential single-attempt GETs against the demo server through the
//!    engine (`prepare_run` + `drive`, as `bench_engine`'s inline loop), with history off and
//!    on, interleaved in 20 rounds. Both loops pass every event through a [`RunRecording`] as
//!    `retryscope run` does (masking, log line); "on" also records it (the writer folds it into
//!    rows on its thread and commits them) into a fresh database, and each round ends with
//!    [`HistoryWriter::flush`], so the writer's work is in the time. Also printed: CPU time per
//!    GET of every thread (`/proc/self/task/*/schedstat`) and the load average.
//!    Target: on ≤ 1.05 × off.
//! 2. **commit latency**: over the same 10,000 attempt records, the time from the send to the
//!    writer's commit, measured in the writer ([`HistoryWriter::attempt_commit_latency`]).
//!    Target: p99 ≤ 2 ms.
//! 3. **list**: a database of 100,000 runs (2 attempts and a wait each), built in one
//!    transaction ([`HistoryStore::apply_all`]); then `history list --limit 50` as a process
//!    (the release binary next to this example) and in-process (open + list). Target < 100 ms.
//! 4. **size**: database bytes per attempt with the default 64 KiB body cap, for small demo
//!    answers and for 100 KB answers (capped).
//!
//! Run: `cargo build --release --bin retryscope --example bench_history_store &&
//! target/release/examples/bench_history_store` (`--quick` for a tenth of everything,
//! `--only overhead|list|size`; `--gather-us N` sets the store's group-commit window). Traffic stays on 127.0.0.1; databases go to a temp folder.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    reason = "a benchmark program prints its figures; its casts index percentiles and number synthetic runs from small counts"
)]

use chrono::DateTime;
use retryscope::demo::DemoServer;
use retryscope::engine::{ClientCache, RunOptions, prepare_run};
use retryscope::model::{OutcomeKind, RequestSpec, RetryProfile, RunEvent, Verdict};
use retryscope::service::RunRecording;
use retryscope::store::{
    DEFAULT_BODY_CAP, GATHER_WINDOW, HISTORY_FILE, HistoryRecorder, HistoryStore, HistoryWrite,
    HistoryWriter, RunFilter,
};
use retryscope::testkit::EventScript;
use retryscope::testkit::{response, retry};
use std::error::Error;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

type Res<T> = Result<T, Box<dyn Error + Send + Sync>>;

#[path = "support/wal_watch.rs"]
mod wal_watch;

/// Seconds the run's thread spent in [`RunRecording::new`] and in [`RunRecording::observe`]
/// (all of a run's events), with history off (`[0]`) and on (`[1]`).
static COSTS: std::sync::Mutex<[(f64, f64); 2]> = std::sync::Mutex::new([(0.0, 0.0); 2]);

fn fixed(wait_ms: u64, max_retries: u32) -> Res<RetryProfile> {
    Ok(serde_json::from_value(serde_json::json!({
        "format": "retryscope-profile/1",
        "name": format!("bench fixed {wait_ms} ms"),
        "max_retries": max_retries,
        "backoff": { "strategy": "fixed", "base_delay_ms": wait_ms },
    }))?)
}

/// CPU nanoseconds each live thread of this process has run so far, by thread name
/// (`/proc/self/task/*/schedstat`, first field; threads of the same name summed). Empty where
/// /proc is missing.
fn thread_cpu() -> std::collections::HashMap<String, u64> {
    let mut out = std::collections::HashMap::new();
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return out;
    };
    for task in tasks.flatten() {
        let dir = task.path();
        let name = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        let ns = std::fs::read_to_string(dir.join("schedstat"))
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
            .unwrap_or(0);
        *out.entry(name.trim().to_owned()).or_insert(0) += ns;
    }
    out
}

/// CPU seconds per thread name spent between two [`thread_cpu`] snapshots, added to `into`.
fn add_cpu(
    into: &mut std::collections::BTreeMap<String, f64>,
    before: &std::collections::HashMap<String, u64>,
    after: &std::collections::HashMap<String, u64>,
) {
    for (name, ns) in after {
        let spent = ns.saturating_sub(before.get(name).copied().unwrap_or(0));
        *into.entry(name.clone()).or_insert(0.0) += spent as f64 / 1e9;
    }
}

/// The 1-minute load average (`/proc/loadavg`), as text.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".into())
}

/// (median, p99, max) of `values`.
fn stats(values: &mut [f64]) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let i = ((values.len() as f64 - 1.0) * q).round() as usize;
        values.get(i).copied().unwrap_or(f64::NAN)
    };
    (at(0.5), at(0.99), at(1.0))
}

/// Seconds for `n` single-attempt GETs; every event goes through a [`RunRecording`] as in
/// `retryscope run` (masking, log line, and with `history` recording: the writer folds it into
/// rows and commits them); the loop ends with a flush of the writer.
async fn engine_loop(
    server: &DemoServer,
    n: u64,
    first_id: u64,
    history: Option<&Arc<HistoryWriter>>,
) -> Res<f64> {
    let profile = fixed(10, 0)?;
    let url = server.url("/status/200?key=history-overhead");
    // Shared by the block's runs, as a process's core shares its clients.
    let clients = ClientCache::default();
    let began = Instant::now();
    for i in 0..n {
        let (tx, mut rx) = mpsc::channel(64);
        let spec = RequestSpec::get(url.clone());
        let made = Instant::now();
        let mut recording =
            RunRecording::new(&spec, &profile, &[], history.cloned(), DEFAULT_BODY_CAP);
        let made_s = made.elapsed().as_secs_f64();
        let options = RunOptions {
            run_id: first_id + i,
            seed: Some(1),
            budget: None,
        };
        let (_handle, run) = prepare_run(spec, profile.clone(), options, tx, None);
        run.with_clients(&clients).drive().await;
        let mut ok = false;
        let observed = Instant::now();
        while let Ok(event) = rx.try_recv() {
            if let RunEvent::RunFinished { outcome, .. } = recording.observe(event).into_inner() {
                ok = outcome.kind == OutcomeKind::Succeeded;
            }
        }
        let observed_s = observed.elapsed().as_secs_f64();
        {
            let mut c = COSTS.lock().map_err(|_| "poisoned")?;
            let slot = usize::from(history.is_some());
            c[slot].0 += made_s;
            c[slot].1 += observed_s;
        }
        if let Some(e) = recording.take_failure() {
            return Err(e.into());
        }
        if !ok {
            return Err(format!("GET {i} did not succeed").into());
        }
    }
    if let Some(w) = history {
        w.flush()?;
    }
    Ok(began.elapsed().as_secs_f64())
}

async fn overhead_section(server: &DemoServer, n: u64, gather: Option<Duration>) -> Res<()> {
    const ROUNDS: u64 = 20;
    println!(
        "## History on vs off ({n} sequential single-attempt GETs, inline engine; group commit window {} µs)\n",
        gather.unwrap_or(GATHER_WINDOW).as_micros()
    );
    let dir = tempfile::tempdir()?;
    let store = HistoryStore::open_in(dir.path())?;
    let writer = Arc::new(match gather {
        Some(window) => HistoryWriter::spawn_gathering(store, window)?,
        None => HistoryWriter::spawn(store)?,
    });
    // Warm-up of both loops (connections, page cache, the database's first pages).
    engine_loop(server, 200, 1, None).await?;
    engine_loop(server, 200, 1_000, Some(&writer)).await?;
    let per_round = n / ROUNDS;
    let (mut off, mut on) = (0.0, 0.0);
    let mut ratios = Vec::new();
    let (mut cpu_off, mut cpu_on) = (
        std::collections::BTreeMap::default(),
        std::collections::BTreeMap::default(),
    );
    let load_before = load_average();
    let wal = wal_watch::WalWatch::start(dir.path());
    for round in 0..ROUNDS {
        let first = 10_000 + round * per_round * 2;
        let history_first = round % 2 == 1;
        let (mut f, mut o) = (0.0, 0.0);
        for history in [history_first, !history_first] {
            let before = thread_cpu();
            if history {
                o = engine_loop(server, per_round, first, Some(&writer)).await?;
                add_cpu(&mut cpu_on, &before, &thread_cpu());
            } else {
                f = engine_loop(server, per_round, first + per_round, None).await?;
                add_cpu(&mut cpu_off, &before, &thread_cpu());
            }
        }
        off += f;
        on += o;
        ratios.push(o / f);
    }
    let wal_mib = wal.stop();
    let per = |s: f64| s * 1e6 / n as f64;
    let (median, _, _) = stats(&mut ratios);
    println!("| loop | total s | µs per GET | ratio to off (totals) | median of {ROUNDS} rounds |");
    println!("|---|---:|---:|---:|---:|");
    println!(
        "| history off | {off:.3} | {:.1} | 1.000 | 1.000 |",
        per(off)
    );
    println!(
        "| history on | {on:.3} | {:.1} | {:.3} | {median:.3} |",
        per(on),
        on / off
    );
    if let Ok(c) = COSTS.lock() {
        let runs = (n + 200) as f64 / 1e6;
        println!(
            "\non the run's thread (warm-up included), µs per run, off / on: `RunRecording::new` \
             {:.1} / {:.1}, `observe` of its events {:.1} / {:.1}",
            c[0].0 / runs,
            c[1].0 / runs,
            c[0].1 / runs,
            c[1].1 / runs
        );
    }
    let cpu_per = |m: &std::collections::BTreeMap<String, f64>, name: &str| {
        m.get(name).copied().unwrap_or(0.0) * 1e6 / n as f64
    };
    let total =
        |m: &std::collections::BTreeMap<String, f64>| m.values().sum::<f64>() * 1e6 / n as f64;
    let mut names: Vec<&String> = cpu_on.keys().chain(cpu_off.keys()).collect();
    names.sort();
    names.dedup();
    println!(
        "\nCPU µs per GET by thread (/proc/self/task/*/schedstat; load average {load_before} before, {} after):\n",
        load_average()
    );
    println!("| thread | history off | history on | on − off |");
    println!("|---|---:|---:|---:|");
    for name in names {
        let (f, o) = (cpu_per(&cpu_off, name), cpu_per(&cpu_on, name));
        if f + o > 0.05 {
            println!("| {name} | {f:.1} | {o:.1} | {:+.1} |", o - f);
        }
    }
    println!(
        "| **all threads** | {:.1} | {:.1} | {:+.1} |",
        total(&cpu_off),
        total(&cpu_on),
        total(&cpu_on) - total(&cpu_off)
    );
    println!("\nlargest WAL file during the rounds: {wal_mib:.1} MiB");
    println!("\n(target: ratio ≤ 1.05)\n");
    println!("## Attempt record: send → commit, measured in the writer\n");
    match writer.attempt_commit_latency() {
        Some(l) => {
            println!(
                "| attempt records | p50 ms | p99 ms | max ms | commits | writes per commit |"
            );
            println!("|---:|---:|---:|---:|---:|---:|");
            println!(
                "| {} | {:.3} | {:.3} | {:.3} | {} | {:.1} |",
                l.count,
                l.p50_ms,
                l.p99_ms,
                l.max_ms,
                l.commits,
                l.writes as f64 / l.commits.max(1) as f64
            );
        }
        None => println!("no attempt was committed"),
    }
    println!("\n(target: p99 ≤ 2 ms)\n");
    Arc::into_inner(writer)
        .ok_or("the writer is still shared")?
        .close()?;
    Ok(())
}

/// The writes of one synthetic run: 503 (retry), a 100 ms wait, 200; bodies of `body_len` bytes.
fn synthetic_run(i: u64, body_len: usize) -> Res<Vec<HistoryWrite>> {
    let start = DateTime::parse_from_rfc3339("2026-01-01T00:00:00.000+00:00")?
        + chrono::Duration::seconds(i64::try_from(i)?);
    let url = format!("http://127.0.0.1:8080/status/503?times=1&key=run-{i}");
    let body = "x".repeat(body_len);
    let headers = [
        ("content-type", "text/plain; charset=utf-8"),
        ("date", "Thu, 01 Jan 2026 00:00:00 GMT"),
    ];
    let script = EventScript::new(i, "GET", &url, start)
        .attempt(
            response(503, &headers, &body),
            retry("503 is retryable"),
            1.5,
        )
        .wait(100, 100.2)
        .attempt(response(200, &headers, &body), Verdict::SUCCESS, 1.2)
        .finish(OutcomeKind::Succeeded, "succeeded on attempt 2", Some(200));
    let mut recorder = HistoryRecorder::new(
        &RequestSpec::get(url.clone()),
        &fixed(100, 3)?,
        Vec::new(),
        DEFAULT_BODY_CAP,
    );
    Ok(script
        .events()
        .iter()
        .filter_map(|(e, _)| recorder.fold(e))
        .collect())
}

/// Builds `runs` synthetic runs into `dir`'s database in one transaction; returns seconds.
fn build_db(dir: &Path, runs: u64, body_len: usize) -> Res<f64> {
    const CHUNK: u64 = 10_000;
    let began = Instant::now();
    let mut store = HistoryStore::open_in(dir)?;
    let mut writes = Vec::new();
    for i in 0..runs {
        writes.extend(synthetic_run(i, body_len)?);
        if (i + 1) % CHUNK == 0 || i + 1 == runs {
            store.apply_all(&writes)?;
            writes.clear();
        }
    }
    Ok(began.elapsed().as_secs_f64())
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn list_section(runs: u64) -> Res<()> {
    println!("## `history list --limit 50` on {runs} runs\n");
    let dir = tempfile::tempdir()?;
    let built = build_db(dir.path(), runs, 20)?;
    let bytes = std::fs::metadata(dir.path().join(HISTORY_FILE))?.len();
    println!(
        "database: {runs} runs, {} attempts, built in {built:.1} s (chunks of 10,000 runs, one \
         transaction each), {:.1} MiB\n",
        runs * 2,
        bytes as f64 / 1_048_576.0
    );
    let binary = std::env::current_exe()?
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join("retryscope"));
    println!("| how | filter | median ms | max ms (of 10) |");
    println!("|---|---|---:|---:|");
    for (name, extra) in [
        ("--limit 50", vec![]),
        (
            "--limit 50 --outcome gave_up (none match)",
            vec!["--outcome", "gave_up"],
        ),
        (
            "--limit 50 --url key=run-99 (few match)",
            vec!["--url", "key=run-99"],
        ),
    ] {
        if let Some(bin) = binary.as_ref().filter(|b| b.is_file()) {
            let mut times = Vec::new();
            for _ in 0..10 {
                let t = Instant::now();
                let out = std::process::Command::new(bin)
                    .args(["history", "list", "--limit", "50"])
                    .args(&extra)
                    .env("RETRYSCOPE_DATA_DIR", dir.path())
                    .output()?;
                times.push(ms_since(t));
                if !out.status.success() {
                    return Err(format!(
                        "history list failed: {}",
                        String::from_utf8_lossy(&out.stderr)
                    )
                    .into());
                }
            }
            let (median, _, max) = stats(&mut times);
            println!("| process `retryscope history list` | {name} | {median:.1} | {max:.1} |");
        }
        let mut times = Vec::new();
        for _ in 0..10 {
            let t = Instant::now();
            let store = HistoryStore::open_in(dir.path())?;
            let filter = RunFilter {
                limit: Some(50),
                outcome: extra
                    .get(1)
                    .filter(|_| extra[0] == "--outcome")
                    .and_then(|o| retryscope::store::OutcomeFilter::parse(o).ok()),
                url_contains: extra
                    .get(1)
                    .filter(|_| extra[0] == "--url")
                    .map(|s| (*s).to_owned()),
            };
            let listed = store.list(&filter)?;
            times.push(ms_since(t));
            if listed.len() > 50 {
                return Err("more than 50 runs listed".into());
            }
        }
        let (median, _, max) = stats(&mut times);
        println!("| in-process open + list | {name} | {median:.1} | {max:.1} |");
    }
    if binary.as_ref().is_none_or(|b| !b.is_file()) {
        println!("\n(no retryscope binary next to the example: build it with --bin retryscope)");
    }
    println!("\n(target: < 100 ms)\n");
    Ok(())
}

fn size_section(runs: u64) -> Res<()> {
    println!("## Database size per attempt (default body cap {DEFAULT_BODY_CAP} bytes)\n");
    println!("| answers | runs | attempts | database bytes | bytes per attempt |");
    println!("|---|---:|---:|---:|---:|");
    for (name, body_len) in [
        ("demo-sized (20-byte body, 2 headers)", 20),
        ("1 KiB body", 1024),
        ("100 KB body (capped at 64 KiB)", 100_000),
    ] {
        let dir = tempfile::tempdir()?;
        build_db(dir.path(), runs, body_len)?;
        // Dropping the last connection checkpoints and removes the WAL: one file remains.
        let bytes = std::fs::metadata(dir.path().join(HISTORY_FILE))?.len();
        let attempts = runs * 2;
        println!(
            "| {name} | {runs} | {attempts} | {bytes} | {:.0} |",
            bytes as f64 / attempts as f64
        );
    }
    println!();
    Ok(())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1).cloned());
    let wanted = |section: &str| only.as_deref().is_none_or(|o| o == section);
    let scale = |n: u64| if quick { n / 10 } else { n };
    // `--gather-us N`: the store's group-commit window for the overhead section.
    let gather = match args.iter().position(|a| a == "--gather-us") {
        Some(i) => Some(Duration::from_micros(
            args.get(i + 1).ok_or("--gather-us takes µs")?.parse()?,
        )),
        None => None,
    };
    if wanted("overhead") {
        let server = DemoServer::start(0).await?;
        overhead_section(&server, scale(10_000), gather).await?;
    }
    if wanted("list") {
        list_section(scale(100_000))?;
    }
    if wanted("size") {
        size_section(scale(1000))?;
    }
    Ok(())
}
