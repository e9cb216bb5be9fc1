//! `retryscope run`: one request under a profile, printed live as a timeline or JSON Lines.

use super::exit::{self, CliError};
use super::mask;
use super::profile_source;
use super::request_args::build_spec;
use super::signal::{self, Stop};
use super::timeline_text::TextTimeline;
use super::variables_args::VariablesArgs;
use crate::engine::{self, RunOptions};
use crate::model::{OutcomeKind, RunEvent};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use tokio::sync::mpsc;

/// What clap stores for a bare `--idempotency-key`: a NUL, which no command-line argument can
/// contain, so it never collides with a key the user typed.
const AUTO_KEY: &str = "\0";

/// Flags of `retryscope run`.
#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Examples (start `retryscope demo-server --port 8080` first):
  retryscope run --builtin vbscript-module 'http://127.0.0.1:8080/status/503?times=2'
  retryscope run --builtin servicenow-exponential 'http://127.0.0.1:8080/status/429?times=2'
  retryscope run --profile my-profile.json --seed 42 --json \\
      'http://127.0.0.1:8080/status/500?times=1'
  retryscope run -X POST -H 'Content-Type: application/json' -d '{\"a\":1}' --idempotency-key \\
      http://127.0.0.1:8080/echo
  retryscope run -X POST -d '{\"a\":1}' --idempotency-key=order-42 http://127.0.0.1:8080/echo
  retryscope run -d @body.json --deadline-ms 5000 \\
      'http://127.0.0.1:8080/retry-after?value=2&times=1'

Output: one line per attempt (start time, status or error, duration, verdict), one line per
wait (the explanation of the planned wait, then the measured wait), and a summary with the
seed (replay any run with --seed). Secret headers (Authorization, Cookie, *token*, …) print
as ***.

Exit codes: 0 success; 1 gave up, stopped, deadline or error outcome; 2 usage or profile
error; 130 interrupted by Ctrl-C, 143 by SIGTERM (the run is cancelled cleanly first).")]
pub struct RunArgs {
    /// Profile file (JSON, format retryscope-profile/1).
    #[arg(long, value_name = "FILE", conflicts_with = "builtin")]
    pub profile: Option<PathBuf>,
    /// Built-in profile name (see `retryscope profile builtins`). Default: servicenow-exponential.
    #[arg(long, value_name = "NAME")]
    pub builtin: Option<String>,
    /// HTTP method. Default GET, or POST when -d is given.
    #[arg(short = 'X', long = "request", value_name = "METHOD")]
    pub method: Option<String>,
    /// Request header 'Name: value' (repeatable).
    #[arg(short = 'H', long = "header", value_name = "'NAME: VALUE'")]
    pub headers: Vec<String>,
    /// Request body: text, or @FILE to send a file's bytes. Implies POST unless -X is given.
    #[arg(short = 'd', long = "data", value_name = "DATA|@FILE")]
    pub data: Option<String>,
    /// RNG seed for jitter (default: the profile's seed, else a fresh one, printed).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Print every run event as one JSON object per line (JSON Lines) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Whole-attempt timeout, ms (overrides the profile's timeouts.total_ms).
    #[arg(long, value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// Connect timeout, ms.
    #[arg(long, value_name = "MS")]
    pub connect_timeout_ms: Option<u64>,
    /// Read timeout (between chunks), ms.
    #[arg(long, value_name = "MS")]
    pub read_timeout_ms: Option<u64>,
    /// Total budget of the run, ms, from the first attempt's start (overrides the profile).
    #[arg(long, value_name = "MS")]
    pub deadline_ms: Option<u64>,
    /// Max retries R, 0–1000 (at most R + 1 attempts; overrides the profile).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub max_retries: Option<u32>,
    /// Send an Idempotency-Key header, the same on every attempt: `--idempotency-key` alone sends
    /// a random UUID, `--idempotency-key=KEY` sends KEY (the `=` is required, so a URL after the
    /// bare flag is never taken for the key).
    #[arg(
        long,
        value_name = "KEY",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = AUTO_KEY
    )]
    pub idempotency_key: Option<String>,
    /// Also write the run as a HAR 1.2 file (one entry per attempt; secrets masked).
    #[arg(long, value_name = "FILE")]
    pub har: Option<PathBuf>,
    /// `{{name}}` variables: --env, --var, --data-dir (boxed: keeps `Command` small).
    #[command(flatten)]
    pub variables: Box<VariablesArgs>,
    /// Absolute http:// or https:// URL (may hold `{{name}}` variables; `{{uuid}}` is a fresh
    /// UUID per run).
    pub url: String,
}

/// Runs the request; returns the exit code.
///
/// # Errors
/// Exit 2 for usage/profile problems found before the run starts; exit 1 when the runtime
/// cannot start.
pub fn execute(args: &RunArgs) -> Result<u8, CliError> {
    let mut profile = profile_source::select(args.profile.as_deref(), args.builtin.as_deref())?;
    if let Some(r) = args.max_retries {
        profile.max_retries = r;
    }
    for (flag, value) in [
        ("--deadline-ms", args.deadline_ms),
        ("--timeout-ms", args.timeout_ms),
        ("--connect-timeout-ms", args.connect_timeout_ms),
        ("--read-timeout-ms", args.read_timeout_ms),
    ] {
        if value == Some(0) {
            return Err(CliError::usage(format!(
                "{flag} must be greater than 0 (leave it out for the profile's value)"
            )));
        }
    }
    if let Some(d) = args.deadline_ms {
        profile.deadline_ms = Some(d);
    }
    let variables = args.variables.load()?;
    let mut spec = build_spec(
        &variables.url(&args.url)?,
        args.method.as_deref(),
        &args.headers,
        args.data.as_deref(),
    )?;
    spec.timeouts.total_ms = args.timeout_ms.or(spec.timeouts.total_ms);
    spec.timeouts.connect_ms = args.connect_timeout_ms.or(spec.timeouts.connect_ms);
    spec.timeouts.read_ms = args.read_timeout_ms.or(spec.timeouts.read_ms);
    if args.idempotency_key.is_some()
        && spec
            .headers
            .iter()
            .any(|h| h.name.eq_ignore_ascii_case("idempotency-key"))
    {
        return Err(CliError::usage(
            "both -H 'Idempotency-Key: …' and --idempotency-key given; use one of them",
        ));
    }
    if let Some(key) = &args.idempotency_key {
        spec.idempotency_key = Some(if key == AUTO_KEY {
            uuid::Uuid::new_v4().to_string()
        } else if key.trim().is_empty() {
            return Err(CliError::usage(
                "--idempotency-key= needs a key after `=` (or give --idempotency-key alone for a random UUID)",
            ));
        } else {
            key.clone()
        });
    }

    let spec = variables.spec(spec, &args.url)?;
    let secrets = variables.secret_values();
    run_spec(
        spec,
        profile,
        RunPrint {
            seed: args.seed,
            json: args.json,
            har: args.har.as_deref(),
        },
        &secrets,
    )
}

/// How [`run_spec`] runs and prints.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunPrint<'a> {
    /// RNG seed (`None`: the profile's, else a fresh one).
    pub seed: Option<u64>,
    /// JSON Lines instead of the text timeline.
    pub json: bool,
    /// Also write the run as HAR 1.2 to this file (atomically, secrets masked).
    pub har: Option<&'a std::path::Path>,
}

/// Runs `spec` under `profile` and prints it as `run` does (text timeline with the sent
/// headers, or JSON Lines with `json`); `secrets` print as `***`. Shared with `curl`.
///
/// # Errors
/// Exit 2 when the engine refuses the spec; exit 1 when the runtime cannot start.
pub fn run_spec(
    spec: crate::model::RequestSpec,
    profile: crate::model::RetryProfile,
    print: RunPrint<'_>,
    secrets: &[String],
) -> Result<u8, CliError> {
    let RunPrint { seed, json, har } = print;
    engine::check_spec(&spec).map_err(|e| CliError::usage(e.to_string()))?;

    // The request headers, printed under the run's first line (secrets masked).
    let mut sent_headers = String::new();
    if !json {
        for h in spec.headers.iter().filter(|h| h.enabled) {
            sent_headers.push_str(&format!("> {}\n", mask::header_line(h)));
        }
        if let Some(key) = &spec.idempotency_key {
            sent_headers.push_str(&format!(
                "> Idempotency-Key: {}\n",
                mask::escape_controls(key)
            ));
        }
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::failed(format!("cannot start the async runtime: {e}")))?;
    let options = RunOptions { run_id: 1, seed };
    let har = har.map(|path| (path, spec.clone()));
    runtime.block_on(drive(
        spec,
        profile,
        options,
        json,
        sent_headers,
        secrets,
        har,
    ))
}

/// Starts the run and prints its events until `RunFinished`; Ctrl-C or SIGTERM cancels it
/// (the summary then starts on a fresh line, see [`TextTimeline`]). `sent_headers` is printed
/// right after the `RunStarted` line; `secrets` (values of secret variables) print as `***`.
async fn drive(
    spec: crate::model::RequestSpec,
    profile: crate::model::RetryProfile,
    options: RunOptions,
    json: bool,
    mut sent_headers: String,
    secrets: &[String],
    har: Option<(&std::path::Path, crate::model::RequestSpec)>,
) -> Result<u8, CliError> {
    let mut recorded: Vec<RunEvent> = Vec::new();
    let mut signals = signal::StopSignals::install();
    let (tx, mut rx) = mpsc::channel::<RunEvent>(256);
    let handle = engine::start_run(spec, profile, options, tx, None);
    let mut text = TextTimeline::default();
    let mut interrupted: Option<Stop> = None;
    let mut stdout = std::io::stdout();
    loop {
        let event = tokio::select! {
            event = rx.recv() => event,
            signal = signals.recv(), if interrupted.is_none() => {
                interrupted = Some(signal);
                handle.cancel();
                continue;
            }
        };
        let Some(event) = event else {
            return Err(CliError::failed(
                "the engine stopped without finishing the run (no run_finished event)",
            ));
        };
        let event = crate::model::mask_event_secrets(mask::event(event), secrets);
        let chunk = if json {
            match serde_json::to_string(&event) {
                Ok(line) => line + "\n",
                Err(e) => {
                    return Err(CliError::failed(format!(
                        "cannot encode event as JSON: {e}"
                    )));
                }
            }
        } else if matches!(event, RunEvent::RunStarted { .. }) {
            text.render(&event) + std::mem::take(&mut sent_headers).as_str()
        } else {
            text.render(&event)
        };
        crate::cli_out!("{chunk}");
        let _ = stdout.flush();
        if har.is_some() {
            recorded.push(event.clone());
        }
        if let RunEvent::RunFinished { outcome, .. } = &event {
            if let Some((path, request)) = &har {
                write_har(path, &recorded, request, secrets)?;
            }
            return Ok(match outcome.kind {
                OutcomeKind::Succeeded => exit::SUCCESS,
                _ => match interrupted {
                    Some(Stop::Interrupt) => exit::INTERRUPTED,
                    Some(Stop::Terminate) => exit::TERMINATED,
                    None => exit::FAILED,
                },
            });
        }
    }
}

/// Writes the run's (already masked) `events` as HAR 1.2 to `path`, atomically.
fn write_har(
    path: &std::path::Path,
    events: &[RunEvent],
    request: &crate::model::RequestSpec,
    secrets: &[String],
) -> Result<(), CliError> {
    let har = crate::interop::run_to_har(
        events,
        &crate::interop::HarExport {
            request: Some(request),
            secrets,
            include_secrets: false,
        },
    );
    let text = serde_json::to_string_pretty(&har)
        .map_err(|e| CliError::failed(format!("cannot encode the HAR file: {e}")))?;
    crate::store::write_atomic(path, text.as_bytes())
        .map_err(|e| CliError::failed(format!("cannot write the HAR file: {e}")))
}
