//! `retryscope simulate`: sampled wait statistics of a profile, per retry, without any network.

use super::exit::{self, CliError};
use super::profile_source;
use crate::policy::{self, Quantiles};
use clap::Args;
use std::path::PathBuf;

/// Flags of `retryscope simulate`.
#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Examples:
  retryscope simulate --builtin aws-standard
  retryscope simulate --profile my-profile.json --samples 100000 --seed 7

For every retry n it prints min / p50 / p95 / max of wait n and of the cumulative waiting up
to it (ms), sampled assuming every attempt fails with 503 and sends no delay header, plus the
formula's true maximum for wait n. `reached` counts the sampled runs that got to retry n (a custom
script returning () stops a run early); the quantiles of row n are over those runs only.")]
pub struct SimulateArgs {
    /// Profile file (JSON).
    #[arg(long, value_name = "FILE", conflicts_with = "builtin")]
    pub profile: Option<PathBuf>,
    /// Built-in profile name. Default: servicenow-exponential.
    #[arg(long, value_name = "NAME")]
    pub builtin: Option<String>,
    /// Number of simulated runs.
    #[arg(long, value_name = "N", default_value_t = 10_000,
          value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub samples: u32,
    /// RNG seed (default: the profile's seed, else a fresh one, printed).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
}

/// Prints the table.
///
/// # Errors
/// Exit 2 for an invalid profile, a script that does not compile, or a script that fails or returns
/// a bad value while sampled (the message names the retry).
pub fn execute(args: &SimulateArgs) -> Result<u8, CliError> {
    let profile = profile_source::select(args.profile.as_deref(), args.builtin.as_deref())?;
    let seed = args.seed.or(profile.seed).unwrap_or_else(rand::random);
    let stats = policy::simulate(&profile, args.samples, seed).map_err(|e| {
        CliError::usage(format!("cannot simulate profile \"{}\": {e}", profile.name))
    })?;
    crate::cli_outln!(
        "profile \"{}\"  {} samples  seed {seed} (replay with --seed {seed})",
        profile.name,
        args.samples
    );
    crate::cli_outln!(
        "{:>5}  {:>8}  {:>31}  {:>31}  {:>10}",
        "retry",
        "reached",
        "wait ms: min / p50 / p95 / max",
        "cumulative: min / p50 / p95 / max",
        "bound max"
    );
    // `reached` never grows with n: once no sample gets to a retry, none gets further.
    let reached = stats.iter().take_while(|s| s.reached > 0).count();
    for s in &stats[..reached] {
        crate::cli_outln!(
            "{:>5}  {:>8}  {}  {}  {:>10.0}",
            s.retry,
            s.reached,
            quantiles(&s.wait),
            quantiles(&s.cumulative),
            s.bound_max
        );
    }
    if let (Some(first), Some(last)) = (stats.get(reached), stats.last()) {
        crate::cli_outln!(
            "retries {}–{}: not reached by any sample ({})",
            first.retry,
            last.retry,
            policy::unreached_reason(&profile)
        );
    }
    if profile.max_retries == 0 {
        crate::cli_outln!("(no retries: max_retries is 0)");
    }
    Ok(exit::SUCCESS)
}

fn quantiles(q: &Quantiles) -> String {
    format!(
        "{:>7.0} {:>7.0} {:>7.0} {:>7.0}",
        q.min, q.p50, q.p95, q.max
    )
}
