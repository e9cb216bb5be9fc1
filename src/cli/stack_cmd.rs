//! `retryscope simulate --stack A,B,C`: layered retries (outer → inner), worked out and
//! simulated.

use super::exit::{self, CliError};
use super::profile_source;
use super::simulate::SimulateArgs;
use crate::model::RetryProfile;
use crate::policy::retries_text;
use crate::sim::{analyse_stack, simulate_stack};
use std::fmt::Write as _;

/// Loads the stack's profiles, prints the worst case, the expected attempts and a simulation.
///
/// # Errors
/// Exit 2 for a failure rate outside 0–1, a profile that cannot be loaded (file errors or an
/// unknown built-in name) or whose script or matchers do not compile.
pub fn execute(args: &SimulateArgs) -> Result<u8, CliError> {
    let f = args.failure_rate;
    if !(0.0..=1.0).contains(&f) {
        return Err(CliError::usage(format!(
            "--failure-rate: expected a number from 0 to 1, found {f}"
        )));
    }
    let layers = args
        .stack
        .iter()
        .map(|spec| profile_source::resolve(spec))
        .collect::<Result<Vec<_>, _>>()?;
    let seed = args.seed.unwrap_or_else(rand::random);
    let analysis = analyse_stack(&layers, f);
    let sim = simulate_stack(&layers, f, 503, args.attempt_ms, args.runs, seed)
        .map_err(|e| CliError::usage(format!("cannot simulate the stack: {e}")))?;
    let names: Vec<&str> = layers.iter().map(|p| p.name.as_str()).collect();
    if args.json {
        let value = serde_json::json!({
            "layers": names,
            "failure_rate": f,
            "worst_attempts": analysis.worst_attempts,
            "expected_attempts": finite(analysis.expected_attempts),
            "failure_chance": analysis.failure_chance,
            "worst_time_ms": analysis.worst_time_ms,
            "seed": seed,
            "simulated": {
                "runs": sim.runs,
                "mean_attempts": sim.mean_attempts,
                "max_attempts": sim.max_attempts,
                "mean_time_ms": sim.mean_time_ms,
                "max_time_ms": sim.max_time_ms,
                "success_share": sim.success_share,
            },
        });
        crate::cli_outln!("{value}");
        return Ok(exit::SUCCESS);
    }
    crate::cli_outln!(
        "stack of {} layers (outer → inner), each server attempt failing with chance {f}:",
        layers.len()
    );
    for (i, p) in layers.iter().enumerate() {
        crate::cli_outln!("  {}. \"{}\": {}", i + 1, p.name, layer_text(p));
    }
    crate::cli_outln!(
        "worst case: {} reach the server; {}",
        analysis.worst_attempts.map_or(
            "unbounded attempts (a layer has unlimited retries)".to_owned(),
            |a| { format!("{a} attempts") }
        ),
        analysis.worst_time_ms.map_or(
            "no bound on the time (unlimited retries without a deadline)".to_owned(),
            |t| format!("a call takes at most {t} ms (waits at their maximum)")
        )
    );
    crate::cli_outln!(
        "expected: {:.2} attempts reach the server; the whole stack fails with chance {:.4}",
        analysis.expected_attempts,
        analysis.failure_chance
    );
    crate::cli_outln!(
        "simulated {} calls (seed {seed}, {} ms per attempt): mean {:.2} attempts (max {}), mean {:.0} ms (max {:.0} ms), {:.1} % succeeded",
        sim.runs,
        args.attempt_ms,
        sim.mean_attempts,
        sim.max_attempts,
        sim.mean_time_ms,
        sim.max_time_ms,
        sim.success_share * 100.0
    );
    Ok(exit::SUCCESS)
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
