//! `retryscope whatif`: what other retry profiles would have done against the endpoint the
//! recorded runs saw (DESIGN.md §12), ranked, with the recorded runs' own profile marked.

#![allow(
    clippy::doc_markdown,
    reason = "clap prints these doc comments as --help text, where backticks would show"
)]

use super::exit::{self, CliError};
use super::profile_source;
use super::run_selection::RunSelection;
use crate::sim::{compare, whatif_table};
use clap::Args;

/// Flags of `retryscope whatif`.
#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Examples:
  retryscope whatif --url /orders --since 8h --profiles azure-sdk,aws-standard,my-profile.json
  retryscope whatif --since 2026-12-05 --profiles envoy-route --json

Each recorded run is replayed under each profile from the run's start: an attempt at time t gets
the answer recorded nearest to t, waits follow the profile's formulas (seeded). The recorded
runs' own profile is replayed too and marked `*` (the newest run's, with a warning, when the runs
mix profiles or endpoints); a profile named twice is compared once. The band is the success
share with answers between two samples taken as the worse or the better of the two; the
resolution lines show it with the evidence of every 2nd, 4th and 8th run only.")]
pub struct WhatIfArgs {
    /// Which runs.
    #[command(flatten)]
    pub selection: RunSelection,
    /// Profiles to compare, comma-separated: built-in ids, names of profiles in your library,
    /// or profile files.
    #[arg(long, value_name = "A,B,…", value_delimiter = ',', required = true)]
    pub profiles: Vec<String>,
    /// RNG seed of the replays (the same seed gives the same table).
    #[arg(long, value_name = "N", default_value_t = 0, allow_negative_numbers = true,
          value_parser = crate::cli::whole_number::u64_value)]
    pub seed: u64,
    /// The result as JSON (docs/formats.md) instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `whatif` ([`crate::sim::compare`]); returns the exit code.
///
/// # Errors
/// Exit 2 for an unknown or invalid profile, an empty history or no matching run; exit 1 when
/// the history cannot be read.
pub fn execute(args: &WhatIfArgs) -> Result<u8, CliError> {
    if args.profiles.iter().all(|spec| spec.trim().is_empty()) {
        return Err(CliError::usage(
            "--profiles names no profile: give one or more, comma-separated (built-in names, library names or files)",
        ));
    }
    profile_source::no_empty_entry(&args.profiles, "--profiles")?;
    let library = crate::service::default_library_dir();
    let selected = args.selection.load()?;
    // The newest run's profile is "current".
    let compared = compare(
        &selected.runs,
        selected.profile.as_deref(),
        &selected.recorded_with,
        &args.profiles,
        |spec| {
            profile_source::resolve(spec, library.as_deref(), "--profiles").map_err(|e| e.message)
        },
        args.seed,
    )
    .map_err(CliError::usage)?;
    // A library profile named like a built-in is never used: say so rather than pick silently.
    for warning in crate::service::shadowed_among(library.as_deref(), &args.profiles) {
        super::out::write_stderr(&format!("warning: {warning}\n"));
    }
    if compared.recorded_left_out {
        super::out::write_stderr(
            "warning: the recorded profile cannot be read back; it is left out of the table\n",
        );
    }
    if args.json {
        let text = serde_json::to_string_pretty(&compared.result)
            .map_err(|e| CliError::failed(format!("cannot encode the result: {e}")))?;
        crate::cli_outln!("{text}");
    } else {
        crate::cli_out!("{}", whatif_table(&compared.result));
    }
    Ok(exit::SUCCESS)
}
