//! Engine benchmarks, printed as markdown tables:
//!
//! 1. **Wait fidelity**: one run of 200 waits of 50 ms and one of 200 waits of 500 ms against the
//!    demo server; per wait, error = (gap between the two arrivals in the server's log) − planned
//!    wait − the attempt's own duration (`total_ms`). Median, p95 and max.
//! 2. **Engine overhead**: 10,000 sequential single-attempt GETs through the engine
//!    (`start_run`, one run each; events drained after the run, as a UI drains per frame) vs a plain reqwest loop in the same process,
//!    interleaved in 10 rounds.
//! 3. **Concurrency**: 1,000 concurrent runs (503, 503, 200 with 10 ms waits); all must succeed;
//!    peak resident memory from `/proc/self/status` (`VmHWM`).
//!
//! Run with `cargo run --release --example bench_engine` (about 2 minutes: the 500 ms waits alone
//! take 100 s); `-- --quick` runs a tenth of everything to check the harness; `--only fidelity|overhead|concurrency` runs one section. Needs the real policy (`fixed` strategy). Traffic stays on 127.0.0.1.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    reason = "a benchmark program prints its figures; its casts index percentiles and number synthetic runs from small counts"
)]

use retryscope::demo::DemoServer;
use retryscope::engine::{ClientCache, RunOptions, prepare_run};
use retryscope::model::{OutcomeKind, RequestSpec, RetryProfile, RunEvent, RunId};
use std::collections::BTreeMap;
use std::error::Error;
use std::time::Instant;
use tokio::sync::mpsc;

type Res<T> = Result<T, Box<dyn Error + Send + Sync>>;

/// A `fixed` profile: `wait_ms` without jitter, `max_retries` retries, default triage.
fn fixed(wait_ms: u64, max_retries: u32) -> Res<RetryProfile> {
    Ok(serde_json::from_value(serde_json::json!({
        "format": "retryscope-profile/1",
        "name": format!("bench fixed {wait_ms} ms"),
        "max_retries": max_retries,
        "backoff": { "strategy": "fixed", "base_delay_ms": wait_ms },
    }))?)
}

/// The clients every run of the bench shares, as a process's core shares its own.
static CLIENTS: std::sync::LazyLock<ClientCache> = std::sync::LazyLock::new(ClientCache::default);

/// Runs one request under `profile` to the end and returns its events.
async fn run(run_id: RunId, url: String, profile: RetryProfile) -> Res<Vec<RunEvent>> {
    let (tx, mut rx) = mpsc::channel(4096);
    let (_handle, run) = prepare_run(
        RequestSpec::get(url),
        profile,
        RunOptions {
            run_id,
            seed: Some(run_id),
            budget: None,
        },
        tx,
        None,
    );
    tokio::spawn(run.with_clients(&CLIENTS).drive());
    let mut events = Vec::new();
    while let Some(event) = rx.recv().await {
        let last = matches!(event, RunEvent::RunFinished { .. });
        events.push(event);
        if last {
            return Ok(events);
        }
    }
    Err("the run ended without RunFinished".into())
}

fn outcome_kind(events: &[RunEvent]) -> Option<OutcomeKind> {
    events.iter().rev().find_map(|e| match e {
        RunEvent::RunFinished { outcome, .. } => Some(outcome.kind),
        _ => None,
    })
}

/// (median, p95, max) of `values`.
fn stats(values: &mut [f64]) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let i = ((values.len() as f64 - 1.0) * q).round() as usize;
        values.get(i).copied().unwrap_or(f64::NAN)
    };
    (at(0.5), at(0.95), at(1.0))
}

/// Wait-fidelity errors of `count` waits of `wait_ms`, ms, and each wait's overshoot as the
/// engine measured it (`actual_ms − planned_ms`).
async fn wait_fidelity(server: &DemoServer, wait_ms: u64, count: u32) -> Res<(Vec<f64>, Vec<f64>)> {
    let key = format!("fidelity-{wait_ms}");
    let url = server.url(&format!("/status/503?times={count}&key={key}"));
    let events = run(u64::from(count) + wait_ms, url, fixed(wait_ms, count)?).await?;
    if outcome_kind(&events) != Some(OutcomeKind::Succeeded) {
        return Err(format!(
            "fidelity run for {wait_ms} ms did not succeed: {:?}",
            events.last()
        )
        .into());
    }
    let durations: Vec<f64> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::AttemptFinished { timings, .. } => Some(timings.total_ms),
            _ => None,
        })
        .collect();
    let planned: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::WaitScheduled { planned_ms, .. } => Some(*planned_ms),
            _ => None,
        })
        .collect();
    let overshoot: Vec<f64> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::WaitFinished {
                planned_ms,
                actual_ms,
                ..
            } => Some(actual_ms - *planned_ms as f64),
            _ => None,
        })
        .collect();
    let arrivals: Vec<f64> = server
        .log()
        .into_iter()
        .filter(|e| e.key == key)
        .map(|e| e.at_ms)
        .collect();
    let errors = planned
        .iter()
        .enumerate()
        .filter_map(|(i, &p)| {
            let gap = arrivals.get(i + 1)? - arrivals.get(i)?;
            Some(gap - p as f64 - durations.get(i)?)
        })
        .collect();
    Ok((errors, overshoot))
}

/// How the bench runs each engine run.
#[derive(Clone, Copy)]
enum Drive {
    /// `start_run`: spawned on the runtime, as the UI does; the loop waits for the run to end.
    Spawned,
    /// `prepare_run` + `drive`: the same loop on the calling task, as a front end that awaits.
    Inline,
}

/// Seconds for `n` sequential single-attempt GETs through the engine. Like a UI, the loop does
/// not await each event: it waits for the run to end, then drains its events.
async fn engine_loop(server: &DemoServer, n: u64, first_id: RunId, how: Drive) -> Res<f64> {
    let profile = fixed(10, 0)?;
    let url = server.url("/status/200?key=overhead");
    let began = Instant::now();
    for i in 0..n {
        let (tx, mut rx) = mpsc::channel(64);
        let spec = RequestSpec::get(url.clone());
        let options = RunOptions {
            run_id: first_id + i,
            seed: Some(1),
            budget: None,
        };
        match how {
            Drive::Spawned => {
                let (handle, run) = prepare_run(spec, profile.clone(), options, tx, None);
                tokio::spawn(run.with_clients(&CLIENTS).drive());
                handle.finished().await;
            }
            Drive::Inline => {
                let (_handle, run) = prepare_run(spec, profile.clone(), options, tx, None);
                run.with_clients(&CLIENTS).drive().await;
            }
        }
        let mut events = Vec::new();
        while let Ok(event) = rx.try_recv() {
            events.push(event);
        }
        if outcome_kind(&events) != Some(OutcomeKind::Succeeded) {
            return Err(format!("engine GET {i} failed: {:?}", events.last()).into());
        }
    }
    Ok(began.elapsed().as_secs_f64())
}

/// Seconds for `n` sequential GETs with one plain reqwest client (body read to the end).
async fn plain_loop(server: &DemoServer, n: u64) -> Res<f64> {
    let client = reqwest::Client::builder().no_proxy().build()?;
    let url = server.url("/status/200?key=overhead");
    let began = Instant::now();
    for _ in 0..n {
        let response = client.get(&url).send().await?;
        if response.status().as_u16() != 200 {
            return Err("plain GET did not answer 200".into());
        }
        response.bytes().await?;
    }
    Ok(began.elapsed().as_secs_f64())
}

/// A `/proc/self/status` field in KiB (`VmHWM` = peak resident set, `VmRSS` = current), if readable.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn mib(kib: Option<u64>) -> String {
    kib.map_or_else(
        || "n/a".to_owned(),
        |k| format!("{:.1} MiB", k as f64 / 1024.0),
    )
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    // `--only fidelity|overhead|concurrency` runs one section.
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1).cloned());
    let wanted = |section: &str| only.as_deref().is_none_or(|o| o == section);
    let scale = |n: u64| if quick { n / 10 } else { n };
    let server = DemoServer::start(0).await?;

    if wanted("fidelity") {
        fidelity_section(&server, scale(200)).await?;
    }
    if wanted("overhead") {
        overhead_section(&server, scale(10_000)).await?;
    }
    if wanted("concurrency") {
        concurrency_section(&server, scale(1000)).await?;
    }
    Ok(())
}

async fn fidelity_section(server: &DemoServer, count: u64) -> Res<()> {
    println!("## Wait fidelity (error = server gap − planned wait − attempt duration)\n");
    println!(
        "| waits | planned ms | median error ms | p95 error ms | max error ms | median sleep overshoot ms |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for wait_ms in [50, 500] {
        let (mut errors, mut overshoot) =
            wait_fidelity(server, wait_ms, u32::try_from(count)?).await?;
        let (median, p95, max) = stats(&mut errors);
        let (sleep_median, _, _) = stats(&mut overshoot);
        println!(
            "| {} | {wait_ms} | {median:.3} | {p95:.3} | {max:.3} | {sleep_median:.3} |",
            errors.len()
        );
    }

    Ok(())
}

async fn overhead_section(server: &DemoServer, n: u64) -> Res<()> {
    const ROUNDS: u64 = 20;
    println!("\n## Engine overhead ({n} sequential single-attempt GETs)\n");
    plain_loop(server, 200).await?;
    engine_loop(server, 200, 1_000_000, Drive::Spawned).await?;
    engine_loop(server, 200, 1_500_000, Drive::Inline).await?;
    // Interleaved in ROUNDS rounds, the order rotating each round, so load changes on a shared
    // machine hit all loops alike; the per-round ratios show how much the machine moved.
    let per_round = n / ROUNDS;
    let (mut plain, mut spawned, mut inline) = (0.0, 0.0, 0.0);
    let (mut spawned_ratios, mut inline_ratios) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let (mut p, mut s, mut i) = (0.0, 0.0, 0.0);
        for slot in 0..3 {
            match (round + slot) % 3 {
                0 => p = plain_loop(server, per_round).await?,
                1 => {
                    s = engine_loop(server, per_round, 2_000_000 + round * n, Drive::Spawned)
                        .await?;
                }
                _ => {
                    i = engine_loop(server, per_round, 3_000_000 + round * n, Drive::Inline)
                        .await?;
                }
            }
        }
        plain += p;
        spawned += s;
        inline += i;
        spawned_ratios.push(s / p);
        inline_ratios.push(i / p);
    }
    let per = |s: f64| s * 1e6 / n as f64;
    let (spawned_median, _, _) = stats(&mut spawned_ratios);
    let (inline_median, _, _) = stats(&mut inline_ratios);
    println!(
        "| loop | total s | µs per GET | ratio to plain (totals) | median of {ROUNDS} per-round ratios |"
    );
    println!("|---|---:|---:|---:|---:|");
    println!(
        "| plain reqwest | {plain:.3} | {:.1} | 1.000 | 1.000 |",
        per(plain)
    );
    println!(
        "| engine, `start_run` (spawned) | {spawned:.3} | {:.1} | {:.3} | {spawned_median:.3} |",
        per(spawned),
        spawned / plain
    );
    println!(
        "| engine, `prepare_run` + `drive` | {inline:.3} | {:.1} | {:.3} | {inline_median:.3} |",
        per(inline),
        inline / plain
    );
    println!("\n(target: ratio ≤ 1.10)");
    Ok(())
}

async fn concurrency_section(server: &DemoServer, runs: u64) -> Res<()> {
    println!("\n## {runs} concurrent runs (503, 503, 200; 10 ms waits)\n");
    let profile = fixed(10, 3)?;
    // Start the peak-memory measurement here: drop the earlier sections' request log and reset
    // the kernel's high-water mark (writing 5 to clear_refs resets VmHWM, Linux ≥ 4.0).
    server.clear();
    let hwm_reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let rss_before = status_kib("VmRSS:");
    let began = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..runs {
        let url = server.url(&format!("/status/503?times=2&key=concurrent-{i}"));
        tasks.push(tokio::spawn(run(3_000_000 + i, url, profile.clone())));
    }
    let mut outcomes: BTreeMap<String, u32> = BTreeMap::new();
    let mut attempts = 0usize;
    for task in tasks {
        let kind = match task.await {
            Ok(Ok(events)) => {
                attempts += events
                    .iter()
                    .filter(|e| matches!(e, RunEvent::AttemptFinished { .. }))
                    .count();
                format!("{:?}", outcome_kind(&events))
            }
            Ok(Err(e)) => format!("error: {e}"),
            Err(e) => format!("task failed: {e}"),
        };
        *outcomes.entry(kind).or_default() += 1;
    }
    let wall = began.elapsed().as_secs_f64();
    let peak = mib(status_kib("VmHWM:"));
    println!("| runs | attempts | wall s | outcomes | RSS before | peak RSS (VmHWM) |");
    println!("|---:|---:|---:|---|---:|---:|");
    println!(
        "| {runs} | {attempts} | {wall:.3} | {outcomes:?} | {} | {peak} |",
        mib(rss_before)
    );
    if !hwm_reset {
        println!("\n(could not reset VmHWM: the peak covers the whole process run)");
    }
    Ok(())
}
