//! `retryscope simulate --stack A,B,C`: layered retries (outer → inner), worked out and
//! simulated.

use super::exit::{self, CliError};
use super::out;
use super::profile_source;
use super::simulate::{SimulateArgs, stopped_by, watch_stop_signals};
use crate::model::RetryProfile;
use crate::policy::retries_text;
use crate::sim::{
    STACK_ATTEMPT_BOUND, StackAnalysis, StackSetup, StackSimulation, analyse_stack,
    simulate_stack_with,
};
use indicatif::ProgressBar;
use std::fmt::Write as _;
use std::sync::atomic::Ordering;

/// Status every failed server attempt of the stack simulation answers.
const FAILURE_STATUS: u16 = 503;

/// Worst-case simulated server attempts from which a progress bar is shown (on a terminal).
const PROGRESS_MIN_ATTEMPTS: u64 = 100_000;

/// Loads the stack's profiles, prints the worst case, the expected attempts and a simulation.
/// Ctrl-C or SIGTERM stops the simulation: the figures of the calls done are printed, a line on
/// stderr says so, exit 130 or 143.
///
/// # Errors
/// Exit 2 for a failure rate outside 0–1, a profile that cannot be loaded (file errors, a library
/// profile's load error, or an unknown name) or whose script or matchers do not compile; exit 1 when the signal
/// handlers cannot start.
pub fn execute(args: &SimulateArgs, core: &crate::service::Core) -> Result<u8, CliError> {
    let f = args.failure_rate;
    if !(0.0..=1.0).contains(&f) {
        return Err(CliError::usage(format!(
            "--failure-rate: expected a number from 0 to 1, found {f}"
        )));
    }
    profile_source::no_empty_entry(&args.stack, "--stack")?;
    let library = crate::service::default_library_dir();
    let layers = args
        .stack
        .iter()
        .map(|spec| profile_source::resolve(spec, library.as_deref(), "--stack"))
        .collect::<Result<Vec<_>, _>>()?;
    // A library profile named like a built-in is never used: say so rather than pick silently.
    for warning in crate::service::shadowed_among(library.as_deref(), &args.stack) {
        out::write_stderr(&format!("warning: {warning}\n"));
    }
    let seed = args.seed.unwrap_or_else(rand::random);
    let cannot = |e| CliError::usage(format!("cannot simulate the stack: {e}"));
    let analysis = analyse_stack(&layers, f, FAILURE_STATUS).map_err(cannot)?;
    let stop = watch_stop_signals(core);
    let setup = StackSetup {
        failure_rate: f,
        failure_status: FAILURE_STATUS,
        attempt_ms: args.attempt_ms,
        runs: args.runs,
        seed,
    };
    if !args.json {
        // Printed before the simulation (and after the signal handlers are installed), so a
        // long run shows what it works on.
        print_layers(&layers, &analysis, args.failure_rate);
    }
    let bar = progress_bar(&analysis, args.runs);
    let sim = simulate_stack_with(&layers, &setup, &mut |done, attempts| {
        bar.set_position(u64::from(done));
        bar.set_message(format!("{attempts} server attempts"));
        stop.load(Ordering::Relaxed) == 0
    })
    .map_err(cannot);
    bar.finish_and_clear();
    let sim = sim?;
    if args.json {
        print_json(&layers, &analysis, &sim, f, seed);
    } else {
        print_text(&analysis, &sim, args, seed);
    }
    if sim.stopped {
        let (code, name) = stopped_by(stop.load(Ordering::Relaxed));
        out::write_stderr(&format!(
            "simulate --stack stopped by {name} after {} of {} calls ({} server attempts); the figures above cover the calls finished\n",
            sim.runs, sim.requested_runs, sim.server_attempts
        ));
        return Ok(code);
    }
    Ok(exit::SUCCESS)
}

/// A bar of calls done on stderr when the worst case is large (see [`super::simulate::progress_bar`]).
fn progress_bar(analysis: &StackAnalysis, runs: u32) -> ProgressBar {
    let worst = analysis
        .worst_attempts
        .unwrap_or(u64::MAX)
        .saturating_mul(u64::from(runs));
    super::simulate::progress_bar(
        worst >= PROGRESS_MIN_ATTEMPTS,
        u64::from(runs),
        "{wide_bar} {human_pos}/{human_len} calls, {msg}, eta {eta} (Ctrl-C stops)",
    )
}

fn print_json(
    layers: &[RetryProfile],
    analysis: &StackAnalysis,
    sim: &StackSimulation,
    f: f64,
    seed: u64,
) {
    let names: Vec<&str> = layers.iter().map(|p| p.name.as_str()).collect();
    let ignored: Vec<&str> = [
        (analysis.ignores_budgets, "budgets"),
        (analysis.ignores_deadlines, "deadlines"),
    ]
    .into_iter()
    .filter_map(|(on, what)| on.then_some(what))
    .collect();
    let value = serde_json::json!({
        "layers": names,
        "failure_rate": f,
        "failure_status": FAILURE_STATUS,
        "not_retrying_layers": analysis.not_retrying.iter().map(|i| i + 1).collect::<Vec<_>>(),
        "worst_attempts": analysis.worst_attempts,
        "worst_attempts_saturated": analysis.worst_attempts_saturated,
        "expected_attempts": finite(analysis.expected_attempts),
        "failure_chance": analysis.failure_chance,
        "analytic_ignores": ignored,
        "worst_time_ms": analysis.worst_time_ms,
        "seed": seed,
        "simulated": {
            "runs": sim.runs,
            "requested_runs": sim.requested_runs,
            "capped_runs": sim.capped_runs,
            "cut_calls": sim.cut_calls,
            "attempt_bound": STACK_ATTEMPT_BOUND,
            "stopped": sim.stopped,
            "server_attempts": sim.server_attempts,
            "mean_attempts": sim.mean_attempts,
            "max_attempts": sim.max_attempts,
            "mean_time_ms": sim.mean_time_ms,
            "max_time_ms": sim.max_time_ms,
            "success_share": sim.success_share,
        },
    });
    crate::cli_outln!("{value}");
}

/// The first lines: the failure and the layers, outer first.
fn print_layers(layers: &[RetryProfile], analysis: &StackAnalysis, failure_rate: f64) {
    crate::cli_outln!(
        "stack of {} (outer → inner), each server attempt failing with chance {} (answering {FAILURE_STATUS}):",
        crate::model::counted(layers.len() as u64, "layer", "layers"),
        failure_rate
    );
    for (i, p) in layers.iter().enumerate() {
        let triage = if analysis.not_retrying.contains(&i) {
            format!("; its triage does not retry {FAILURE_STATUS}: one attempt per call")
        } else {
            String::new()
        };
        crate::cli_outln!("  {}. \"{}\": {}{triage}", i + 1, p.name, layer_text(p));
    }
}

fn print_text(analysis: &StackAnalysis, sim: &StackSimulation, args: &SimulateArgs, seed: u64) {
    for line in analysis.summary_lines() {
        crate::cli_outln!("{line}");
    }
    if sim.capped_runs {
        crate::cli_outln!(
            "note: {} × the worst case per call exceed {STACK_ATTEMPT_BOUND} simulated server attempts; simulated {} instead (lower --runs or the layers' max retries to simulate them all)",
            crate::model::counted(u64::from(sim.requested_runs), "call", "calls"),
            crate::model::counted(u64::from(sim.runs), "call", "calls")
        );
    }
    if sim.cut_calls > 0 {
        crate::cli_outln!(
            "note: {} cut at {STACK_ATTEMPT_BOUND} server attempts and count as failed",
            crate::model::counted(u64::from(sim.cut_calls), "call was", "calls were")
        );
    }
    crate::cli_outln!(
        "simulated {} (seed {seed}, {} ms per attempt): mean {:.2} attempts (max {}), mean {:.0} ms (max {:.0} ms), {:.1} % succeeded",
        crate::model::counted(u64::from(sim.runs), "call", "calls"),
        args.attempt_ms,
        sim.mean_attempts,
        sim.max_attempts,
        sim.mean_time_ms,
        sim.max_time_ms,
        sim.success_share * 100.0
    );
}

/// `3 retries (4 attempts), deadline 60000 ms, retry budget 500 tokens`.
fn layer_text(p: &RetryProfile) -> String {
    let mut text = retries_text(p.max_retries, p.deadline_ms);
    if let (Some(_), Some(d)) = (p.max_retries, p.deadline_ms) {
        let _ = write!(text, ", deadline {d} ms");
    }
    if let Some(b) = &p.retry_budget {
        let _ = write!(
            text,
            ", retry budget {} tokens",
            crate::policy::tokens_text(b.capacity)
        );
    }
    text
}

/// JSON has no infinity: an unbounded expectation is `null`.
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}
