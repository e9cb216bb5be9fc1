//! Report generation time for 10,000 recorded runs, and the what-if replay over them, for
//! BENCHMARKS.md.
//!
//! ```text
//! cargo run --release --example bench_report            # 10,000 runs
//! cargo run --release --example bench_report -- --quick # 1,000 runs
//! ```
//!
//! The history holds a watch-like series (built untimed, in one transaction): a run every 10 s
//! against an endpoint down for 5 minutes of every hour (503 with `Retry-After: 1` three times,
//! then the run gives up), a connection reset before the 200 in every 20th run, a 200 at once
//! otherwise. Timed, each the median of 5 passes on one thread: reading the runs from SQLite
//! (`RunSelection::load`, as `retryscope report` does), the figures, the HTML page (with its
//! SVG plots and three PNG timelines), the JSON, the Markdown with its PNGs, and the what-if of
//! three profiles (with their sampling bands and resolution rows).

#![allow(
    clippy::print_stdout,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap,
    reason = "a benchmark program prints its figures; its casts number synthetic runs"
)]

use chrono::DateTime;
use retryscope::cli::history_cmd::DataDirArg;
use retryscope::cli::run_selection::RunSelection;
use retryscope::model::{ErrorKind, OutcomeKind, RequestSpec, Verdict};
use retryscope::report::{ReportContext, Timelines, figures, html, markdown};
use retryscope::sim::{WhatIfCandidate, whatif};
use retryscope::store::{DEFAULT_BODY_CAP, HistoryRecorder, HistoryStore};
use retryscope::testkit::{EventScript, net_error, response, retry};
use std::time::Instant;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// The writes of synthetic run `i` (started 10·i s after the first).
fn run_writes(
    i: u64,
    recorder_profile: &retryscope::model::RetryProfile,
) -> Res<Vec<retryscope::store::HistoryWrite>> {
    let start = DateTime::parse_from_rfc3339("2026-12-05T00:00:00.000+00:00")?
        + chrono::Duration::seconds(10 * i as i64);
    let url = "http://127.0.0.1:8080/orders?token=secret".to_owned();
    let down = (10 * i) % 3600 < 300;
    let mut script = EventScript::new(i, "GET", &url, start);
    if down {
        let headers = [("retry-after", "1")];
        for n in 0..3 {
            script = script.attempt(response(503, &headers, ""), retry("503 is retryable"), 12.0);
            if n < 2 {
                script = script.wait(1000, 1000.4);
            }
        }
        script = script.finish(
            OutcomeKind::GaveUp,
            "gave up after 3 attempts (503)",
            Some(503),
        );
    } else {
        if i.is_multiple_of(20) {
            script = script
                .attempt(
                    net_error(ErrorKind::Reset, "reset"),
                    retry("reset is retryable"),
                    3.0,
                )
                .wait(1000, 1000.3);
        }
        script = script
            .attempt(response(200, &[], "ok"), Verdict::SUCCESS, 9.0)
            .finish(OutcomeKind::Succeeded, "succeeded", Some(200));
    }
    let mut recorder = HistoryRecorder::new(
        &RequestSpec::get(url.clone()),
        recorder_profile,
        Vec::new(),
        DEFAULT_BODY_CAP,
    );
    Ok(script
        .events()
        .iter()
        .filter_map(|(e, _)| recorder.fold(e))
        .collect())
}

/// Median seconds of `passes` runs of `f`.
fn median_s(passes: usize, f: &mut dyn FnMut()) -> f64 {
    let mut took: Vec<f64> = (0..passes)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    took.sort_by(f64::total_cmp);
    took[took.len() / 2]
}

fn main() -> Res<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let runs: u64 = if quick { 1_000 } else { 10_000 };
    let dir = tempfile::tempdir()?;
    let mut profile = retryscope::profile::builtin("servicenow-exponential").ok_or("builtin")?;
    profile.max_retries = Some(2);
    {
        let mut store = HistoryStore::open_in(dir.path())?;
        let mut writes = Vec::new();
        for i in 0..runs {
            writes.extend(run_writes(i, &profile)?);
        }
        store.apply_all(&writes)?;
    }
    let selection = RunSelection {
        url: Some("/orders".to_owned()),
        watch: None,
        since: None,
        until: None,
        data_dir: DataDirArg {
            data_dir: Some(dir.path().to_path_buf()),
        },
    };
    let mut selected = None;
    let load = median_s(5, &mut || {
        selected = selection.load().ok();
    });
    let selected = selected.ok_or("no runs loaded")?;
    let context = ReportContext::default();
    let mut f = None;
    let figures_s = median_s(5, &mut || {
        f = Some(figures(&selected.runs, &context));
    });
    let f = f.ok_or("no figures")?;
    let mut page = String::new();
    let html_s = median_s(5, &mut || {
        page = html(&f, &Timelines::new());
    });
    let mut json = String::new();
    let json_s = median_s(5, &mut || {
        json = serde_json::to_string(&f).unwrap_or_default();
    });
    let md_s = median_s(5, &mut || {
        let _ = markdown(&f, "report", &Timelines::new());
    });
    let candidates: Vec<WhatIfCandidate> = ["servicenow-exponential", "azure-sdk", "envoy-route"]
        .iter()
        .filter_map(|id| retryscope::profile::builtin(id))
        .enumerate()
        .map(|(i, profile)| WhatIfCandidate {
            id: profile.name.clone(),
            profile,
            current: i == 0,
        })
        .collect();
    let whatif_s = median_s(5, &mut || {
        let _ = whatif(&selected.runs, &candidates, 0);
    });
    println!(
        "| figure ({runs} runs, {} attempts) | median of 5 |",
        f.attempts_per_run.total
    );
    println!("|---|---:|");
    println!("| read the runs from SQLite | {load:.3} s |");
    println!("| figures | {figures_s:.3} s |");
    println!(
        "| HTML page ({} KiB, SVG plots + 3 PNG timelines) | {html_s:.3} s |",
        page.len() / 1024
    );
    println!("| JSON ({} KiB) | {json_s:.3} s |", json.len() / 1024);
    println!("| Markdown + 4 PNGs | {md_s:.3} s |");
    println!(
        "| report in all (read + figures + HTML) | {:.3} s |",
        load + figures_s + html_s
    );
    println!("| what-if, 3 profiles (12 replays each) | {whatif_s:.3} s |");
    Ok(())
}
