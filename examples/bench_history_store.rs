//! History benchmarks of issue 8, printed as markdown tables:
//!
//! 1. **overhead**: 10,000 sequential single-attempt GETs against the demo server through the
//!    engine (`prepare_run` + `drive`, as `bench_engine`'s inline loop), with history off and
//!    on, interleaved in 20 rounds. "On" records every event as `retryscope run` does (the one
//!    rule's masking once, [`HistoryRecorder::fold_masked`], [`HistoryWriter::send`]) into a fresh database,
//!    and each round ends with [`HistoryWriter::flush`], so the writer's work is in the time.
//!    Target: on ≤ 1.10 × off.
//! 2. **commit latency**: over the same 10,000 attempt records, the time from `send` to the
//!    writer's commit, measured in the writer ([`HistoryWriter::attempt_commit_latency`]).
//!    Target: p99 ≤ 2 ms.
//! 3. **list**: a database of 100,000 runs (2 attempts and a wait each), built in one
//!    transaction ([`HistoryStore::apply_all`]); then `history list --limit 50` as a process
//!    (the release binary next to this example) and in-process (open + list). Target < 100 ms.
//! 4. **size**: database bytes per attempt with the default 64 KiB body cap, for small demo
//!    answers and for 100 KB answers (capped).
//!
//! Run: `cargo build --release --bin retryscope --example bench_history &&
//! target/release/examples/bench_history` (`--quick` for a tenth of everything,
//! `--only overhead|list|size`). Traffic stays on 127.0.0.1; databases go to a temp folder.

use chrono::DateTime;
use retryscope::demo::DemoServer;
use retryscope::engine::{RunOptions, prepare_run};
use retryscope::model::{OutcomeKind, RequestSpec, RetryProfile, RunEvent, Verdict};
use retryscope::store::{
    DEFAULT_BODY_CAP, HISTORY_FILE, HistoryRecorder, HistoryStore, HistoryWrite, HistoryWriter,
    RunFilter,
};
use retryscope::ui::timeline::EventScript;
use retryscope::ui::timeline::event_script::{response, retry};
use std::error::Error;
use std::path::Path;
use std::time::Instant;
use tokio::sync::mpsc;

type Res<T> = Result<T, Box<dyn Error + Send + Sync>>;

/// Seconds the recording loop spent folding events into rows and sending them to the writer.
static COSTS: std::sync::Mutex<(f64, f64)> = std::sync::Mutex::new((0.0, 0.0));

fn fixed(wait_ms: u64, max_retries: u32) -> Res<RetryProfile> {
    Ok(serde_json::from_value(serde_json::json!({
        "format": "retryscope-profile/1",
        "name": format!("bench fixed {wait_ms} ms"),
        "max_retries": max_retries,
        "backoff": { "strategy": "fixed", "base_delay_ms": wait_ms },
    }))?)
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

/// Seconds for `n` single-attempt GETs; with `history`, every event is recorded as
/// `retryscope run` records it and the loop ends with a flush of the writer.
async fn engine_loop(
    server: &DemoServer,
    n: u64,
    first_id: u64,
    history: Option<&HistoryWriter>,
) -> Res<f64> {
    let profile = fixed(10, 0)?;
    let url = server.url("/status/200?key=history-overhead");
    let began = Instant::now();
    for i in 0..n {
        let (tx, mut rx) = mpsc::channel(64);
        let spec = RequestSpec::get(url.clone());
        let mut recorder =
            history.map(|_| HistoryRecorder::new(&spec, &profile, Vec::new(), DEFAULT_BODY_CAP));
        let options = RunOptions {
            run_id: first_id + i,
            seed: Some(1),
            budget: None,
        };
        let (_handle, run) = prepare_run(spec, profile.clone(), options, tx, None);
        run.drive().await;
        let mut ok = false;
        while let Ok(event) = rx.try_recv() {
            // Both loops mask as the CLI does; only recording differs.
            let event = retryscope::model::secrets::mask_event(event, &[]);
            if let RunEvent::RunFinished { outcome, .. } = &event {
                ok = outcome.kind == OutcomeKind::Succeeded;
            }
            if let (Some(r), Some(w)) = (recorder.as_mut(), history) {
                let t = Instant::now();
                let write = r.fold_masked(event.clone());
                let folded = Instant::now();
                if let Some(write) = write {
                    w.send(write)?;
                }
                let mut c = COSTS.lock().map_err(|_| "poisoned")?;
                c.0 += (folded - t).as_secs_f64();
                c.1 += folded.elapsed().as_secs_f64();
            }
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

async fn overhead_section(server: &DemoServer, n: u64) -> Res<()> {
    println!("## History on vs off ({n} sequential single-attempt GETs, inline engine)\n");
    let dir = tempfile::tempdir()?;
    let writer = HistoryWriter::spawn(HistoryStore::open_in(dir.path())?)?;
    // Warm-up of both loops (connections, page cache, the database's first pages).
    engine_loop(server, 200, 1, None).await?;
    engine_loop(server, 200, 1_000, Some(&writer)).await?;
    const ROUNDS: u64 = 20;
    let per_round = n / ROUNDS;
    let (mut off, mut on) = (0.0, 0.0);
    let mut ratios = Vec::new();
    for round in 0..ROUNDS {
        let first = 10_000 + round * per_round * 2;
        let (f, o) = if round % 2 == 0 {
            let f = engine_loop(server, per_round, first, None).await?;
            (
                f,
                engine_loop(server, per_round, first + per_round, Some(&writer)).await?,
            )
        } else {
            let o = engine_loop(server, per_round, first, Some(&writer)).await?;
            (
                engine_loop(server, per_round, first + per_round, None).await?,
                o,
            )
        };
        off += f;
        on += o;
        ratios.push(o / f);
    }
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
        println!(
            "\nin the recording loop (warm-up included): folding events into rows {:.1} µs per run, \
             sending them to the writer (blocks only while its queue is full) {:.1} µs per run",
            c.0 * 1e6 / (n + 200) as f64,
            c.1 * 1e6 / (n + 200) as f64
        );
    }
    println!("\n(target: ratio ≤ 1.10)\n");
    println!("## Attempt record: send → commit, measured in the writer\n");
    match writer.attempt_commit_latency() {
        Some(l) => {
            println!("| attempt records | p50 ms | p99 ms | max ms |");
            println!("|---:|---:|---:|---:|");
            println!(
                "| {} | {:.3} | {:.3} | {:.3} |",
                l.count, l.p50_ms, l.p99_ms, l.max_ms
            );
        }
        None => println!("no attempt was committed"),
    }
    println!("\n(target: p99 ≤ 2 ms)\n");
    writer.close()?;
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
        .attempt(response(200, &headers, &body), Verdict::Success, 1.2)
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
    let began = Instant::now();
    let mut store = HistoryStore::open_in(dir)?;
    const CHUNK: u64 = 10_000;
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
                    .and_then(|o| retryscope::store::RecordedOutcome::from_id(o)),
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
    if wanted("overhead") {
        let server = DemoServer::start(0).await?;
        overhead_section(&server, scale(10_000)).await?;
    }
    if wanted("list") {
        list_section(scale(100_000))?;
    }
    if wanted("size") {
        size_section(scale(1000))?;
    }
    Ok(())
}
