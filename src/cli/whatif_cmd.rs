//! `retryscope whatif`: what other retry profiles would have done against the endpoint the
//! recorded runs saw (DESIGN.md §12), ranked, with the recorded runs' own profile marked.

#![allow(
    clippy::doc_markdown,
    reason = "clap prints these doc comments as --help text, where backticks would show"
)]

use super::exit::{self, CliError};
use super::profile_source;
use super::run_selection::RunSelection;
use crate::report::{duration_text, percent_text};
use crate::sim::{WhatIfCandidate, WhatIfResult, whatif};
use clap::Args;
use std::fmt::Write as _;

/// Flags of `retryscope whatif`.
#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Examples:
  retryscope whatif --url /orders --since 8h --profiles azure-sdk,aws-standard,my-profile.json
  retryscope whatif --since 2026-12-05 --profiles envoy-route --json

Each recorded run is replayed under each profile from the run's start: an attempt at time t gets
the answer recorded nearest to t, waits follow the profile's formulas (seeded). The recorded
runs' own profile is replayed too and marked `*`. The band is the success share with answers
between two samples taken as the worse or the better of the two; the resolution lines show it
with the evidence of every 2nd, 4th and 8th run only.")]
pub struct WhatIfArgs {
    /// Which runs.
    #[command(flatten)]
    pub selection: RunSelection,
    /// Profiles to compare, comma-separated: built-in ids, names of profiles in your library,
    /// or profile files.
    #[arg(long, value_name = "A,B,…", value_delimiter = ',', required = true)]
    pub profiles: Vec<String>,
    /// RNG seed of the replays (the same seed gives the same table).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// The result as JSON (docs/formats.md) instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `whatif`; returns the exit code.
///
/// # Errors
/// Exit 2 for an unknown or invalid profile, an empty history or no matching run; exit 1 when
/// the history cannot be read.
pub fn execute(args: &WhatIfArgs) -> Result<u8, CliError> {
    let library = crate::service::default_library_dir();
    let mut candidates = args
        .profiles
        .iter()
        .filter(|spec| !spec.trim().is_empty())
        .map(|spec| {
            profile_source::resolve(spec, library.as_deref()).map(|profile| WhatIfCandidate {
                id: spec.trim().to_owned(),
                profile,
                current: false,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if candidates.is_empty() {
        return Err(CliError::usage(
            "--profiles names no profile: give one or more, comma-separated (built-in names, library names or files)",
        ));
    }
    let selected = args.selection.load()?;
    // The newest run's profile is "current"; a listed profile equal to it is marked instead
    // of replayed twice.
    let recorded = selected
        .profile
        .as_ref()
        .and_then(|json| crate::profile::load_str(&json.to_string()).ok());
    match recorded {
        Some(own) => match candidates.iter_mut().find(|c| c.profile == own) {
            Some(c) => c.current = true,
            None => candidates.insert(
                0,
                WhatIfCandidate {
                    id: "recorded".to_owned(),
                    profile: own,
                    current: true,
                },
            ),
        },
        None => super::out::write_stderr(
            "warning: the recorded profile cannot be read back; it is left out of the table\n",
        ),
    }
    let result = whatif(&selected.runs, &candidates, args.seed)
        .map_err(|e| CliError::usage(format!("cannot replay a profile: {e}")))?;
    if result.runs == 0 {
        return Err(CliError::usage(format!(
            "nothing to replay: the {} selected ended before an attempt finished (cancelled or unfinished)",
            crate::model::counted(selected.runs.len() as u64, "run", "runs")
        )));
    }
    if args.json {
        let text = serde_json::to_string_pretty(&result)
            .map_err(|e| CliError::failed(format!("cannot encode the result: {e}")))?;
        crate::cli_outln!("{text}");
    } else {
        crate::cli_out!("{}", table(&result));
    }
    Ok(exit::SUCCESS)
}

/// The ranked table, the resolution lines of the current profile and the assumptions.
pub fn table(r: &WhatIfResult) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "what-if over {} ({} attempts as samples, a run every {}), seed {}",
        crate::model::counted(r.runs, "recorded run", "recorded runs"),
        r.samples,
        duration_text(r.sampling_interval_ms),
        r.seed
    );
    let _ = writeln!(
        t,
        "recorded: {} succeeded (95 % interval {} – {})\n",
        percent_text(r.recorded.value),
        percent_text(r.recorded.low),
        percent_text(r.recorded.high)
    );
    let _ = writeln!(
        t,
        "rank  {:<36} {:>8}  {:>17}  {:>8} {:>8} {:>8}  {:>12}  {:>8}",
        "profile", "success", "band", "p50", "p95", "p99", "attempts/run", "deadline"
    );
    for c in &r.candidates {
        let name = if c.id == c.name || c.id == "recorded" {
            c.name.clone()
        } else {
            format!("{} ({})", c.id, c.name)
        };
        let name: String = name.chars().take(36).collect();
        let _ = writeln!(
            t,
            "{}{:>3}  {:<36} {:>8}  {:>17}  {:>8} {:>8} {:>8}  {:>12.2}  {:>8}",
            if c.current { "*" } else { " " },
            c.rank,
            name,
            percent_text(c.success.value),
            format!(
                "{} – {}",
                percent_text(c.band.low),
                percent_text(c.band.high)
            ),
            duration_text(c.time_to_success.p50_ms),
            duration_text(c.time_to_success.p95_ms),
            duration_text(c.time_to_success.p99_ms),
            c.attempts_per_run,
            c.deadline_hits
        );
    }
    if let Some(current) = r.candidates.iter().find(|c| c.current) {
        let _ = writeln!(
            t,
            "\n* the recorded runs' profile. Its band as the samples thin out:"
        );
        for row in &current.resolution {
            let _ = writeln!(
                t,
                "  a run every {:>8}: {} (band {} – {})",
                duration_text(row.sampling_interval_ms),
                percent_text(row.success_share),
                percent_text(row.band.low),
                percent_text(row.band.high)
            );
        }
    }
    t.push_str("\nassumptions:\n");
    for a in &r.assumptions {
        let _ = writeln!(t, "- {a}");
    }
    t
}
