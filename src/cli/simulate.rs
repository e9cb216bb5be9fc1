//! `retryscope simulate`: sampled wait statistics of a profile, per retry, without any network.

use super::exit::{self, CliError};
use super::out;
use super::profile_source;
use super::signal::{Stop, StopSignals};
use crate::policy::{self, Quantiles, RetryStats};
use crate::service::Core;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// Sampled waits (samples × retries) from which a progress bar is shown on stderr (when stderr
/// is a terminal): about a quarter of a second of sampling in a release build.
pub const PROGRESS_MIN_WAITS: u64 = 10_000_000;

/// Flags of `retryscope simulate`.
#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Examples:
  retryscope simulate --builtin aws-standard
  retryscope simulate --profile my-profile.json --samples 100000 --seed 7
  retryscope simulate --contention --clients 100 --builtin aws-standard
  retryscope simulate --contention --model capacity --capacity 50 --retry-after --json
  retryscope simulate --stack servicenow-exponential,aws-standard --failure-rate 0.5

For every retry n it prints min / p50 / p95 / max of wait n and of the cumulative waiting up
to it (ms), sampled assuming every attempt fails with 503 and sends no delay header, plus the
formula's true maximum for wait n. `reached` counts the sampled runs that got to retry n (a custom
script returning () stops a run early); the quantiles of row n are over those runs only. A profile
whose triage does not retry 503 (say it retries only 429) reaches no retry: it says so, as
--stack does: its triage does not retry 503, one attempt per call.

Memory stays bounded for any --samples: up to 2,097,152 sampled waits (samples × retries) the
quantiles are exact; beyond that they come from histograms (p50/p95 within 0.1 %, exact below
2048 ms; min, max and reached stay exact). Long runs show a progress bar on stderr when it is a
terminal; Ctrl-C stops the sampling (exit 130, no table).

--contention starts N clients together against one server (virtual time, seeded): `occ` is the
AWS Architecture Blog post's optimistic-concurrency row, `capacity` a server handling C requests
a second. It compares no jitter, full, equal and decorrelated jitter, seed 001's exponential and
seed 000's proportional backoff (base --base-ms, cap --cap-ms, retrying without limit) with the
profile (its triage, retries, deadline, budget and waits), each figure the mean of --runs runs.
--stack takes profiles outer → inner and shows how layered retries multiply the attempts that
reach a failing server (each failed attempt answers 503). Its analytic figures follow each
layer's triage of that 503 and say when they leave out budgets or deadlines, which the
simulation applies. A stack whose worst case exceeds 2,000,000 simulated server attempts
is simulated with fewer calls (and a call cut there), which the output says. Long runs show a
progress bar on stderr when it is a terminal; Ctrl-C stops --stack and --contention, prints
what was done and exits 130.")]
#[command(group(clap::ArgGroup::new("lab").args(["contention", "stack"]).multiple(true)))]
pub struct SimulateArgs {
    /// Profile file (JSON).
    #[arg(long, value_name = "FILE", conflicts_with = "builtin")]
    pub profile: Option<PathBuf>,
    /// Built-in profile name. Default: servicenow-exponential.
    #[arg(long, value_name = "NAME")]
    pub builtin: Option<String>,
    /// Number of simulated runs (memory does not grow with it); not with --contention or
    /// --stack, which take --runs.
    #[arg(long, value_name = "N", default_value_t = 10_000,
          value_parser = crate::cli::whole_number::u32_at_least_1, allow_negative_numbers = true,
          conflicts_with = "lab")]
    pub samples: u32,
    /// RNG seed (default: the profile's seed, else a fresh one, printed).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::cli::whole_number::u64_value)]
    pub seed: Option<u64>,
    /// Simulate many clients contending for one server, the standard strategies side by side
    /// with the profile, instead of sampling the profile's waits.
    #[arg(long, conflicts_with = "stack")]
    pub contention: bool,
    /// Clients starting together (with --contention).
    #[arg(long, value_name = "N", default_value_t = 100, requires = "contention",
          conflicts_with = "stack",
          allow_negative_numbers = true, value_parser = |t: &str| crate::cli::whole_number::u32_in(t, 1, 1000))]
    pub clients: u32,
    /// Server model (with --contention): `occ`, optimistic concurrency (one of the competing
    /// writes wins), or `capacity`, C requests a second and 429/503 above.
    #[arg(long, value_enum, default_value_t = ModelArg::Occ, requires = "contention",
          conflicts_with = "stack")]
    pub model: ModelArg,
    /// Requests a second the `capacity` server handles (with --model capacity; default 100).
    #[arg(
        long,
        value_name = "C",
        requires = "contention",
        conflicts_with = "stack"
    )]
    pub capacity: Option<f64>,
    /// Status of a failed attempt, as the profile's triage sees it: 429 or 503 (default: 503
    /// for a lost `occ` write, 429 over `capacity`).
    #[arg(
        long,
        value_name = "STATUS",
        requires = "contention",
        conflicts_with = "stack",
        allow_negative_numbers = true,
        value_parser = crate::cli::whole_number::u16_value
    )]
    pub status: Option<u16>,
    /// The `capacity` server sends Retry-After (whole seconds) with its 429/503 (with
    /// --model capacity).
    #[arg(long, requires = "contention", conflicts_with = "stack")]
    pub retry_after: bool,
    /// Runs averaged per strategy (with --contention), or calls simulated (with --stack).
    #[arg(long, value_name = "N", default_value_t = 100,
          allow_negative_numbers = true,
          value_parser = |t: &str| crate::cli::whole_number::u32_in(t, 1, 100_000), requires = "lab")]
    pub runs: u32,
    /// Base delay of the standard strategies (with --contention), ms.
    #[arg(long, value_name = "MS", default_value_t = crate::sim::POST_BASE_MS, requires = "contention",
          conflicts_with = "stack", allow_negative_numbers = true, value_parser = crate::cli::whole_number::u64_value)]
    pub base_ms: u64,
    /// Max delay of the standard strategies (with --contention), ms.
    #[arg(long, value_name = "MS", default_value_t = crate::sim::POST_CAP_MS, requires = "contention",
          conflicts_with = "stack", allow_negative_numbers = true, value_parser = crate::cli::whole_number::u64_value)]
    pub cap_ms: u64,
    /// Layered retries: profiles outer → inner, comma-separated; each a profile file (a path
    /// that exists or ends in .json), a built-in name, or the name of a profile in your library
    /// (as batch items name them).
    #[arg(long, value_name = "A,B,C", value_delimiter = ',', num_args = 1..,
          conflicts_with_all = ["profile", "builtin"])]
    pub stack: Vec<String>,
    /// Chance that one server attempt fails (with --stack), 0 to 1.
    #[arg(
        long,
        value_name = "F",
        default_value_t = 1.0,
        requires = "stack",
        allow_negative_numbers = true
    )]
    pub failure_rate: f64,
    /// Time one server attempt takes (with --stack), ms.
    #[arg(
        long,
        value_name = "MS",
        default_value_t = 0,
        requires = "stack",
        allow_negative_numbers = true,
        value_parser = crate::cli::whole_number::u64_value
    )]
    pub attempt_ms: u64,
    /// Print JSON (one object per line) instead of a table (with --contention or --stack).
    #[arg(long, requires = "lab")]
    pub json: bool,
}

/// `--model`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModelArg {
    /// Optimistic concurrency: in each contention window one of the competing writes wins.
    Occ,
    /// A server handling C requests a second, answering 429 (or 503) above that.
    Capacity,
}

/// Prints the table: its first line (profile, samples, seed) before sampling, the rows after.
/// With `--contention` or `--stack` it runs the strategy lab's simulations instead
/// ([`super::contention_cmd`], [`super::stack_cmd`]).
/// Ctrl-C or SIGTERM during the sampling stops it: one line on stderr, exit 130 or 143.
///
/// # Errors
/// Exit 2 for an invalid profile, a script that does not compile, or a script that fails or returns
/// a bad value while sampled (the message names the retry); exit 1 when the signal handlers
/// cannot start.
pub fn execute(args: &SimulateArgs, core: &Core) -> Result<u8, CliError> {
    if !args.stack.is_empty() {
        return super::stack_cmd::execute(args, core);
    }
    let profile = profile_source::select(args.profile.as_deref(), args.builtin.as_deref())?;
    let seed = args.seed.or(profile.seed).unwrap_or_else(rand::random);
    if args.contention {
        return super::contention_cmd::execute(args, &profile, seed, core);
    }
    let cannot = |e: policy::PolicyError| {
        CliError::usage(format!("cannot simulate profile \"{}\": {e}", profile.name))
    };
    // A script that does not compile is reported before anything is printed.
    policy::Policy::new(profile.clone()).map_err(cannot)?;
    // Every simulated attempt answers 503: a profile that does not retry it never waits.
    if !crate::sim::retries_failure(&profile, SIMULATED_STATUS).map_err(cannot)? {
        crate::cli_out!("{}", no_retry_text(&profile, args.samples, seed));
        return Ok(exit::SUCCESS);
    }
    let stop = watch_stop_signals(core);
    crate::cli_outln!(
        "profile \"{}\"  {} samples  seed {seed} (replay with --seed {seed})",
        profile.name,
        args.samples
    );
    let retries = policy::listed_retries(&profile);
    // Shown for runs of at least PROGRESS_MIN_WAITS waits.
    let samples = u64::from(args.samples);
    let bar = progress_bar(
        samples.saturating_mul(u64::from(retries)) >= PROGRESS_MIN_WAITS,
        samples,
        "{wide_bar} {human_pos}/{human_len} samples, eta {eta} (Ctrl-C stops)",
    );
    let result = policy::simulate_with(&profile, args.samples, seed, &mut |done| {
        bar.set_position(u64::from(done));
        stop.load(Ordering::Relaxed) == 0
    });
    bar.finish_and_clear();
    let Some(stats) = result.map_err(cannot)? else {
        let (code, name) = stopped_by(stop.load(Ordering::Relaxed));
        out::write_stderr(&format!(
            "simulate stopped by {name} before the {} samples were done; no table printed\n",
            args.samples
        ));
        return Ok(code);
    };
    print_rows(&profile, &stats);
    Ok(exit::SUCCESS)
}

/// The status every simulated attempt answers (the help and `--stack` say 503).
const SIMULATED_STATUS: u16 = 503;

/// What `simulate` prints for a profile whose triage does not retry [`SIMULATED_STATUS`]: the
/// first line, the reason, and no retry reached.
fn no_retry_text(profile: &crate::model::RetryProfile, samples: u32, seed: u64) -> String {
    let mut text = format!(
        "profile \"{}\"  {samples} samples  seed {seed} (replay with --seed {seed})\n\
         its triage does not retry {SIMULATED_STATUS}: one attempt per call, 0 retries reached\n",
        profile.name
    );
    let retries = policy::listed_retries(profile);
    if retries > 0 {
        let _ = writeln!(
            text,
            "retries 1–{retries}: not reached by any sample (every attempt answers {SIMULATED_STATUS}, which this profile does not retry)"
        );
    }
    text
}

/// The exit code and signal name of a stop flag's value: the flag holds the stopping signal's
/// exit code ([`Stop::exit_code`]); 0 (keep going) never reaches here and reads as Ctrl-C.
pub(super) fn stopped_by(flag: u8) -> (u8, &'static str) {
    let stop = [Stop::Terminate, Stop::Hangup]
        .into_iter()
        .find(|s| s.exit_code() == flag)
        .unwrap_or(Stop::Interrupt);
    (stop.exit_code(), stop.name())
}

/// Installs the Ctrl-C / SIGTERM / SIGHUP handlers on the core (a worker runs them) with a task that
/// sets the returned flag; the sampling (on this thread) reads it between batches.
pub(super) fn watch_stop_signals(core: &Core) -> Arc<AtomicU8> {
    let stop = Arc::new(AtomicU8::new(0));
    let mut signals = {
        let _inside = core.handle().enter();
        StopSignals::install()
    };
    let flag = Arc::clone(&stop);
    core.handle().spawn(async move {
        flag.store(signals.recv().await.exit_code(), Ordering::Relaxed);
    });
    stop
}

/// A bar of `len` steps on stderr drawn with `template`, shown only when `show` and stderr is a
/// terminal (hidden otherwise).
pub(super) fn progress_bar(show: bool, len: u64, template: &str) -> ProgressBar {
    if !show || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// The rows under the first line.
fn print_rows(profile: &crate::model::RetryProfile, stats: &[RetryStats]) {
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
            policy::unreached_reason(profile)
        );
    }
    if let Some(note) = policy::unlisted_retries_note(profile) {
        crate::cli_outln!("{note}");
    }
    if profile.max_retries == Some(0) {
        crate::cli_outln!("(no retries: max_retries is 0)");
    }
}

fn quantiles(q: &Quantiles) -> String {
    format!(
        "{:>7.0} {:>7.0} {:>7.0} {:>7.0}",
        q.min, q.p50, q.p95, q.max
    )
}
