//! `retryscope simulate --contention`: the strategy lab's contention simulator, one row (or one
//! JSON object per line) per strategy.

use super::exit::{self, CliError};
use super::out;
use super::simulate::{ModelArg, SimulateArgs, stopped_by, watch_stop_signals};
use crate::model::RetryProfile;
use crate::sim::{Contender, ContentionResult, ContentionSetup, ServerModel, contention_with};
use std::sync::atomic::Ordering;

/// Requests a second of the `capacity` server without `--capacity`.
const DEFAULT_CAPACITY: f64 = 100.0;

/// Runs the seven contenders for `args.clients` clients and prints the comparison.
///
/// # Errors
/// Exit 2 for a capacity that is not a positive number, `--capacity` or `--retry-after` with the
/// `occ` model (which ignores them), a `--status` other than 429 or 503,
/// or a profile whose script or matchers do not compile; exit 1 when the signal handlers cannot
/// start. Ctrl-C or SIGTERM stops it between runs: the strategies done stay printed, a line on
/// stderr says where it stopped, exit 130 or 143.
pub fn execute(
    args: &SimulateArgs,
    profile: &RetryProfile,
    seed: u64,
    core: &crate::service::Core,
) -> Result<u8, CliError> {
    let model = match args.model {
        ModelArg::Occ => {
            // The `occ` server has no capacity and sends no Retry-After: refuse what it ignores.
            for (given, flag) in [
                (args.capacity.is_some(), "--capacity"),
                (args.retry_after, "--retry-after"),
            ] {
                if given {
                    return Err(CliError::usage(format!(
                        "{flag} applies to --model capacity only (the occ model ignores it)"
                    )));
                }
            }
            ServerModel::Occ
        }
        ModelArg::Capacity => {
            let capacity = args.capacity.unwrap_or(DEFAULT_CAPACITY);
            if !(capacity.is_finite() && capacity > 0.0) {
                return Err(CliError::usage(format!(
                    "--capacity: expected a number of requests a second above 0, found {capacity}"
                )));
            }
            ServerModel::Capacity {
                per_second: capacity,
                retry_after: args.retry_after,
            }
        }
    };
    let status = args.status.unwrap_or_else(|| model.default_status());
    if !matches!(status, 429 | 503) {
        return Err(CliError::usage(format!(
            "--status: expected 429 or 503, found {status}"
        )));
    }
    // The strategies' cap below their base: refused as a profile refuses it.
    if args.cap_ms < args.base_ms {
        return Err(CliError::usage(format!(
            "--cap-ms {} is smaller than --base-ms {}; raise the cap or lower the base",
            args.cap_ms, args.base_ms
        )));
    }
    let contenders = Contender::lab(args.base_ms, args.cap_ms, profile).map_err(|e| {
        CliError::usage(format!("cannot simulate profile \"{}\": {e}", profile.name))
    })?;
    let mut setup = ContentionSetup::post();
    setup.clients = args.clients;
    setup.runs = args.runs;
    setup.seed = seed;
    setup.model = model;
    setup.failure_status = status;
    setup.keep_load = false;
    let stop = watch_stop_signals(core);
    // The strategy column fits the longest label (a profile's name can be long).
    let width = contenders
        .iter()
        .map(|c| c.label.chars().count())
        .max()
        .unwrap_or(0)
        .max(28);
    if !args.json {
        crate::cli_outln!(
            "contention: {} against {}, {} each, network {}±{} ms, base {} ms, cap {} ms, seed {seed} (replay with --seed {seed})",
            crate::model::counted(u64::from(setup.clients), "client", "clients"),
            model_text(model, status),
            crate::model::counted(u64::from(setup.runs), "run", "runs"),
            setup.network.mean_ms,
            setup.network.sd_ms,
            args.base_ms,
            args.cap_ms
        );
        crate::cli_outln!(
            "{:<width$}  {:>10}  {:>13}  {:>8}  {:>11}  {:>11}",
            "strategy (mean of the runs)",
            "calls",
            "completion ms",
            "gave up",
            "peak load/s",
            "mean load/s"
        );
    }
    for (done, c) in contenders.iter().enumerate() {
        let Some(r) = contention_with(&setup, c, &mut |_| stop.load(Ordering::Relaxed) == 0) else {
            let (code, name) = stopped_by(stop.load(Ordering::Relaxed));
            out::write_stderr(&format!(
                "simulate --contention stopped by {name} during \"{}\"; {done} of {} strategies done (above)\n",
                c.label,
                contenders.len()
            ));
            return Ok(code);
        };
        if args.json {
            crate::cli_outln!("{}", json_line(&r, &setup, seed));
        } else {
            crate::cli_outln!(
                "{:<width$}  {:>10.1}  {:>13.1}  {:>8.1}  {:>11.0}  {:>11.0}",
                r.label,
                r.total_calls,
                r.completion_ms,
                r.gave_up,
                r.peak_load,
                r.mean_load
            );
        }
    }
    Ok(exit::SUCCESS)
}

/// `an occ server (…)` or `a capacity server (100 req/s, 429 above, with Retry-After)`.
fn model_text(model: ServerModel, status: u16) -> String {
    match model {
        ServerModel::Occ => {
            format!("an occ server (optimistic concurrency, a lost write is {status})")
        }
        ServerModel::Capacity {
            per_second,
            retry_after,
        } => format!(
            "a capacity server ({per_second} req/s, {status} above{})",
            if retry_after {
                ", with Retry-After"
            } else {
                ""
            }
        ),
    }
}

/// One strategy as a JSON object: `strategy`, `label`, `clients`, `runs`, `model`, `seed`,
/// `total_calls`, `completion_ms`, `gave_up`, `peak_load`, `mean_load` (loads in calls a second).
pub fn json_line(r: &ContentionResult, setup: &ContentionSetup, seed: u64) -> serde_json::Value {
    serde_json::json!({
        "strategy": r.strategy,
        "label": r.label,
        "clients": r.clients,
        "runs": r.runs,
        "model": setup.model.id(),
        "seed": seed,
        "total_calls": r.total_calls,
        "completion_ms": r.completion_ms,
        "gave_up": r.gave_up,
        "peak_load": r.peak_load,
        "mean_load": r.mean_load,
    })
}
