//! `retryscope run`: one request under a profile, printed live as a timeline or JSON Lines.

use super::curl_args::CurlArgs;
use super::exit::{self, CliError};
use super::final_response::FinalResponse;
use super::log_args::LogArgs;
use super::mask;
use super::profile_source;
use super::request_args::build_spec;
use super::signal::{self, Stop};
use super::timeline_text::TextTimeline;
use super::variables_args::VariablesArgs;
use crate::engine::{self, RunOptions};
use crate::model::{OutcomeKind, RunEvent, RunFold};
pub use crate::service::HistoryPlace;
use crate::service::RunRecording;
use clap::Args;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
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
  retryscope run -s -i -u alice:s3cret http://127.0.0.1:8080/echo
  retryscope run -o answer.bin 'http://127.0.0.1:8080/bytes?n=100000'
  retryscope run -F name=value -F 'upload=@photo.png;type=image/png' http://127.0.0.1:8080/echo
  retryscope run --max-redirs 2 'http://127.0.0.1:8080/redirect?to=/status/200'

Output: one line per attempt (start time, status or error, duration, verdict), one line per
wait (the explanation of the planned wait, then the measured wait), and a summary with the
seed (replay any run with --seed). Between the timeline and the summary: the final attempt's
response headers with -i (`< name: value`), then its body when it is UTF-8 text of at most
4 KiB (else one line with its size; --no-body hides it; -o FILE saves it instead; -o -
writes it whole to stdout and the rest to stderr). -s leaves out the attempt, wait and
request-header lines. Secret headers (Authorization, Cookie,
*token*, …) print as ***, and so do secret values the request sent wherever they come back in
the printed body (echo servers); -o saves the body byte for byte.

curl flags: -i, -o, -s, -u, -k, -F mean what they mean in curl. Redirects are followed by
default (each hop shown in its attempt); -L is accepted and changes nothing, --max-redirs N
limits the hops, --no-follow stops following (a 3xx then ends the run: `stopped: 302 redirect
not followed (Location: …)`, exit 1 unless the profile's success_status includes it).
With --json stdout carries only the JSON Lines events: -o still saves the body, -i, -s and
--no-body are refused.

Exit codes: 0 success; 1 gave up, stopped, deadline or error outcome; 2 usage or profile
error; 130 interrupted by Ctrl-C, 143 by SIGTERM, 129 by SIGHUP (the run is cancelled cleanly
first).
A closed stdout (`| head -1`) or one that cannot be written (disk full) does not stop the
run: it is still recorded and -o, --har and --png are written; then the exit code is the
run's own when it did not succeed, else 141 (stdout closed) or 1 (write failed, said on
stderr).")]
pub struct RunArgs {
    /// Profile file (JSON, format retryscope-profile/2; /1 files are read too).
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
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::cli::whole_number::u64_value)]
    pub seed: Option<u64>,
    /// Print every run event as one JSON object per line (JSON Lines) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Whole-attempt timeout, ms (overrides the profile's timeouts.total_ms).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_parser = crate::cli::whole_number::u64_value)]
    pub timeout_ms: Option<u64>,
    /// Connect timeout, ms.
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_parser = crate::cli::whole_number::u64_value)]
    pub connect_timeout_ms: Option<u64>,
    /// Read timeout (between chunks), ms.
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_parser = crate::cli::whole_number::u64_value)]
    pub read_timeout_ms: Option<u64>,
    /// Total budget of the run, ms, from the first attempt's start (overrides the profile).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_parser = crate::cli::whole_number::u64_value)]
    pub deadline_ms: Option<u64>,
    /// Max retries R, 0–4294967295 (at most R + 1 attempts), or `unlimited` (retries until the
    /// deadline, which is then required); overrides the profile.
    #[arg(
        long,
        value_name = "N|unlimited",
        value_parser = parse_max_retries,
        allow_negative_numbers = true
    )]
    pub max_retries: Option<MaxRetriesArg>,
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
    /// curl-compatible flags.
    #[command(flatten)]
    pub curl: CurlArgs,
    /// Where the run log goes.
    #[command(flatten)]
    pub log: LogArgs,
    /// Do not record this run in the history (history.sqlite3 in the data folder).
    #[arg(long)]
    pub no_history: bool,
    /// Most response body bytes kept per attempt in the history.
    #[arg(long, value_name = "BYTES", default_value_t = crate::store::DEFAULT_BODY_CAP,
          allow_negative_numbers = true, value_parser = crate::cli::whole_number::usize_value)]
    pub history_body_cap: usize,
    /// Also write the run as a HAR 1.2 file (one entry per attempt; secrets masked).
    #[arg(long, value_name = "FILE")]
    pub har: Option<PathBuf>,
    /// Also write the run's timeline plot as a PNG image (1200×400 pixels; secrets masked).
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,
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
pub fn execute(args: &RunArgs, core: &crate::service::Core) -> Result<u8, CliError> {
    let prepared = prepare(args)?;
    let _log = prepared.log;
    run_spec(
        core,
        prepared.spec,
        prepared.profile,
        RunPrint {
            seed: args.seed,
            json: args.json,
            har: args.har.clone(),
            png: args.png.clone(),
            silent: args.curl.silent,
            include: args.curl.include,
            show_body: !args.curl.no_body,
            save_to: prepared.save_to,
            history: (!args.no_history).then_some(HistoryPlace {
                data_dir: prepared.data_dir,
                body_cap: args.history_body_cap,
            }),
            redirect_hint: None,
        },
        &prepared.secrets,
    )
}

/// The request `run`'s flags describe, ready to send: shared by `run` and `watch`.
pub struct PreparedRequest {
    /// The request as sent (variables filled in, secrets included).
    pub spec: crate::model::RequestSpec,
    /// The profile with the flags' overrides.
    pub profile: crate::model::RetryProfile,
    /// What the one rule (DESIGN.md §9) hides in everything printed: secret variables and the
    /// request's own secrets.
    pub secrets: Vec<String>,
    /// The data folder (`--data-dir`, else the default).
    pub data_dir: Option<PathBuf>,
    /// The run log, installed (kept for as long as the command runs).
    pub log: Option<crate::store::RunLog>,
    /// `-o`, checked.
    pub save_to: Option<SaveBody>,
    /// The run's `{{uuid}}`, also its automatic Idempotency-Key (a watch makes a new one per
    /// run).
    pub fresh_uuid: String,
}

/// Builds the request and profile of `args` (profile, overrides, variables, request and curl
/// flags, Idempotency-Key) and installs the run log.
///
/// # Errors
/// Exit 2 for usage or profile problems.
pub fn prepare(args: &RunArgs) -> Result<PreparedRequest, CliError> {
    let mut profile = profile_source::select(args.profile.as_deref(), args.builtin.as_deref())?;
    if let Some(MaxRetriesArg(r)) = args.max_retries {
        profile.max_retries = r;
    }
    let flags = [
        ("--deadline-ms", args.deadline_ms),
        ("--timeout-ms", args.timeout_ms),
        ("--connect-timeout-ms", args.connect_timeout_ms),
        ("--read-timeout-ms", args.read_timeout_ms),
    ];
    for (flag, value) in flags {
        if value == Some(0) {
            return Err(CliError::usage(format!(
                "{flag} must be greater than 0 (leave it out for the profile's value)"
            )));
        }
    }
    if let Some(d) = args.deadline_ms {
        profile.deadline_ms = Some(d);
    }
    // The timeouts go to the request (they win over the profile's); checked as the profile's.
    // A profile as selected is checked already (a file by its load, a built-in by its test):
    // only these flags can make it invalid.
    if args.max_retries.is_some() || flags.iter().any(|(_, value)| value.is_some()) {
        let mut checked = profile.clone();
        let t = &mut checked.timeouts;
        t.total_ms = args.timeout_ms.or(t.total_ms);
        t.connect_ms = args.connect_timeout_ms.or(t.connect_ms);
        t.read_ms = args.read_timeout_ms.or(t.read_ms);
        profile_source::check_overridden(
            &checked,
            &[
                ("max_retries", "--max-retries"),
                ("deadline_ms", "--deadline-ms"),
                ("timeouts.total_ms", "--timeout-ms"),
                ("timeouts.connect_ms", "--connect-timeout-ms"),
                ("timeouts.read_ms", "--read-timeout-ms"),
            ],
        )?;
    }
    let variables = args.variables.load()?;
    let data_dir = args
        .variables
        .data_dir
        .clone()
        .or_else(crate::store::data_dir);
    let log = args.log.install(data_dir.as_deref(), None)?;
    let mut spec = build_spec(
        &variables.url(&args.url)?,
        args.method.as_deref(),
        &args.headers,
        args.data.as_deref(),
    )?;
    args.curl.apply(&mut spec, args.method.is_some())?;
    let save_to = args
        .curl
        .output
        .as_ref()
        .map(|o| SaveBody::checked(o, args.json, "--json"))
        .transpose()?;
    for (path, flag) in [(&args.har, "--har"), (&args.png, "--png")] {
        if let Some(path) = path {
            super::output_path::check_output_path(path, flag)?;
        }
    }
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
            variables.fresh_uuid().to_owned()
        } else if key.trim().is_empty() {
            return Err(CliError::usage(
                "--idempotency-key= needs a key after `=` (or give --idempotency-key alone for a random UUID)",
            ));
        } else if let Some(problem) = super::request_args::one_line_problem(key) {
            return Err(CliError::usage(format!(
                "--idempotency-key: the key {problem}; it is sent as one header line"
            )));
        } else {
            key.clone()
        });
    }

    let spec = variables.spec(spec, &args.url)?;
    let fresh_uuid = variables.fresh_uuid().to_owned();
    // What the one rule (DESIGN.md §9) hides in everything printed: secret variables and the
    // request's own secrets (URL user and password, secret headers, query values).
    let mut secrets = variables.secret_values();
    secrets.extend(crate::model::secrets::secret_values(&spec));
    Ok(PreparedRequest {
        spec,
        profile,
        secrets,
        data_dir,
        log,
        save_to,
        fresh_uuid,
    })
}

/// Refuses a request the engine cannot send, or one holding `***` where a secret was (a masked
/// copy: never send the mask).
///
/// # Errors
/// Exit 2 naming the problem.
pub fn check_sendable(spec: &crate::model::RequestSpec) -> Result<(), CliError> {
    engine::check_spec(spec).map_err(|e| CliError::usage(e.to_string()))?;
    if let Some(place) = crate::model::secrets::masked_places(spec)
        .into_iter()
        .next()
    {
        return Err(CliError::usage(format!(
            "not sent: {place} is `***`, the mask a copy or export writes for a secret; put the real value in (nothing was sent)"
        )));
    }
    Ok(())
}

/// Where `-o` writes the final attempt's whole body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaveBody {
    /// `-o FILE`: the file, written atomically.
    File(PathBuf),
    /// `-o -`: stdout, byte for byte, as curl writes it; the timeline then goes to stderr.
    Stdout,
}

impl SaveBody {
    /// `-o OUT` checked before anything is sent: `-` is stdout (refused with `json_flag`, whose
    /// JSON Lines stdout carries), anything else a file in an existing folder
    /// (checked as `--har` and `--png` files are).
    ///
    /// # Errors
    /// Exit 2 naming the flag.
    pub fn checked(out: &std::path::Path, json: bool, json_flag: &str) -> Result<Self, CliError> {
        if out == std::path::Path::new("-") {
            if json {
                return Err(CliError::usage(format!(
                    "-o - writes the body to stdout, where {json_flag} writes the events; give -o a file name"
                )));
            }
            return Ok(Self::Stdout);
        }
        super::output_path::check_output_path(out, "-o")?;
        Ok(Self::File(out.to_path_buf()))
    }

    /// The target as messages name it: the path, or `stdout`.
    pub fn shown(&self) -> String {
        match self {
            Self::File(path) => path.display().to_string(),
            Self::Stdout => "stdout".to_owned(),
        }
    }
}

/// How [`run_spec`] runs, prints and records (the flags of `run`, the defaults for `curl`).
#[derive(Debug, Clone)]
pub struct RunPrint {
    /// RNG seed (`None`: the profile's, else a fresh one).
    pub seed: Option<u64>,
    /// JSON Lines instead of the text timeline.
    pub json: bool,
    /// Also write the run as HAR 1.2 to this file (atomically, secrets masked).
    pub har: Option<PathBuf>,
    /// Also write the run's timeline plot as PNG to this file (atomically).
    pub png: Option<PathBuf>,
    /// `-s`: no attempt, wait or request-header lines.
    pub silent: bool,
    /// `-i`: the final response's headers.
    pub include: bool,
    /// Print the final body when it is short text.
    pub show_body: bool,
    /// `-o FILE` / `-o -`: the final attempt's whole body.
    pub save_to: Option<SaveBody>,
    /// Where to record the run (`None`: `--no-history`).
    pub history: Option<HistoryPlace>,
    /// A line printed after the summary when the run stopped on a redirect it did not follow
    /// (`retryscope curl` without -L: `hint: add -L to follow it …`).
    pub redirect_hint: Option<&'static str>,
}

impl Default for RunPrint {
    /// Text timeline, final body shown, recorded in the data folder's history.
    fn default() -> Self {
        Self {
            seed: None,
            json: false,
            har: None,
            png: None,
            silent: false,
            include: false,
            show_body: true,
            save_to: None,
            history: Some(HistoryPlace {
                data_dir: crate::store::data_dir(),
                body_cap: crate::store::DEFAULT_BODY_CAP,
            }),
            redirect_hint: None,
        }
    }
}

/// Runs `spec` under `profile` and prints it as `run` does (text timeline with the sent
/// headers, or JSON Lines), records it in the history and logs it; `secrets` print as `***`.
/// Shared by `run` and `curl`.
///
/// # Errors
/// Exit 2 when the engine refuses the spec; exit 1 when the runtime cannot start or a file
/// (`-o`, `--har`) cannot be written.
pub fn run_spec(
    core: &crate::service::Core,
    spec: crate::model::RequestSpec,
    profile: crate::model::RetryProfile,
    print: RunPrint,
    secrets: &[String],
) -> Result<u8, CliError> {
    check_sendable(&spec)?;
    // The request headers, printed under the run's first line (secrets masked).
    let mut sent_headers = String::new();
    if !print.json && !print.silent {
        for h in spec.headers.iter().filter(|h| h.enabled) {
            let _ = writeln!(
                sent_headers,
                "> {}",
                crate::model::mask_secret_values(&mask::header_line(h), secrets)
            );
        }
        if let Some(key) = &spec.idempotency_key {
            let _ = writeln!(
                sent_headers,
                "> Idempotency-Key: {}",
                mask::escape_controls(key)
            );
        }
    }
    // A closed or full stdout must not lose the run: it is still recorded and its files are
    // written; the loss decides the exit code at the end (`out::exit_code_after_output`).
    super::out::keep_going_when_stdout_is_lost();
    let options = RunOptions {
        run_id: 1,
        seed: print.seed,
        budget: core.budgets().bucket_for(&profile, &spec.url),
    };
    let writer = print
        .history
        .as_ref()
        .and_then(|place| place.data_dir.as_deref())
        .and_then(|dir| match core.history_writer(dir) {
            Ok(w) => Some(w),
            Err(e) => {
                warn_history("not", &e);
                None
            }
        });
    let body_cap = print
        .history
        .as_ref()
        .map_or(crate::store::DEFAULT_BODY_CAP, |p| p.body_cap);
    let recording = RunRecording::new(&spec, &profile, secrets, writer.clone(), body_cap);
    let output = Output {
        har_request: print.har.is_some().then(|| spec.clone()),
        print,
        secrets: secrets.to_vec(),
    };
    let code = core.block_on(drive(
        spec,
        profile,
        options,
        core.clients(),
        output,
        sent_headers,
        recording,
    ));
    // The recording ended with `drive`: every write is committed before the result is told
    // (the core closes the writer at exit).
    if let Some(w) = writer
        && let Err(e) = w.flush()
    {
        warn_history("not fully", &e);
    }
    code.map(super::out::exit_code_after_output)
}

/// What `run` prints besides the events: the flags, the secret values the request sends
/// (secret headers, secret variables), masked in the printed events, body and headers, and the
/// request a `--har` file describes.
struct Output {
    print: RunPrint,
    secrets: Vec<String>,
    har_request: Option<crate::model::RequestSpec>,
}

/// One warning line on stderr: the run is `not` or `not fully` recorded.
fn warn_history(how: &str, e: &crate::store::HistoryError) {
    super::out::write_stderr(&format!(
        "warning: this run is {how} recorded in the history: {e} (use --no-history to skip it)\n"
    ));
}

/// Starts the run and prints its events until `RunFinished`; Ctrl-C or SIGTERM cancels it
/// (the summary then starts on a fresh line, see [`TextTimeline`]). Each event is masked,
/// recorded and logged by `recording` before it is printed. `sent_headers` is printed
/// right after the `RunStarted` line. The final response block (`-i` headers, body or `-o`
/// line) goes between the timeline and the summary.
async fn drive(
    spec: crate::model::RequestSpec,
    profile: crate::model::RetryProfile,
    options: RunOptions,
    clients: &engine::ClientCache,
    output: Output,
    mut sent_headers: String,
    mut recording: RunRecording,
) -> Result<u8, CliError> {
    let mut fold: Option<RunFold> = None;
    let mut signals = signal::StopSignals::install();
    let (tx, mut rx) = mpsc::channel::<RunEvent>(256);
    let (handle, run) = engine::prepare_run(spec, profile, options, tx, None);
    let run = run.with_clients(clients);
    // `-o`: every attempt's body as the server sent it (the user asked for the file), spooled
    // to disk as it arrives; the final attempt's is put in place when the run ends.
    let meter = Arc::new(super::download_progress::BodyMeter::default());
    let spool = output
        .print
        .save_to
        .clone()
        .map(|to| Arc::new(super::body_spool::BodySpool::new(to, Arc::clone(&meter))));
    let mut progress = super::download_progress::DownloadProgress::new(
        Some(Arc::clone(&meter)),
        !output.print.json && !output.print.silent,
    );
    let run = match &spool {
        Some(spool) => run.with_body_sink(Arc::clone(spool) as Arc<dyn engine::BodySink>),
        None if progress.wanted() => run.with_body_sink(meter as Arc<dyn engine::BodySink>),
        None => run,
    };
    tokio::spawn(run.drive());
    let mut text = TextTimeline::default();
    let mut last = FinalResponse::default();
    // The final attempt's outcome before masking, for what `-o` says.
    let mut raw_last = FinalResponse::default();
    let mut interrupted: Option<Stop> = None;
    let mut tick = tokio::time::interval(super::download_progress::TICK);
    loop {
        let event = tokio::select! {
            event = rx.recv() => event,
            signal = signals.recv(), if interrupted.is_none() => {
                interrupted = Some(signal);
                handle.cancel();
                continue;
            }
            _ = tick.tick(), if progress.wanted() => {
                progress.show();
                continue;
            }
        };
        progress.clear();
        let Some(event) = event else {
            return Err(CliError::failed(
                "the engine stopped without finishing the run (no run_finished event)",
            ));
        };
        if output.print.save_to.is_some()
            && let RunEvent::AttemptFinished {
                attempt, outcome, ..
            } = &event
        {
            raw_last.keep(*attempt, outcome.clone());
        }
        // Masked, recorded and logged; a recording failure is reported once, after the run.
        let event = recording.observe(event);
        let finished = match &*event {
            RunEvent::RunFinished { outcome, .. } => Some(outcome.kind),
            _ => None,
        };
        // `-o`: saved once, when the run has ended (a cancelled run saves nothing).
        let saved = match (&output.print.save_to, finished) {
            (Some(to), Some(OutcomeKind::Cancelled)) => Some(Err(format!(
                "the run was cancelled, so no final body was saved: {}",
                to.shown()
            ))),
            (Some(_), Some(_)) => spool.as_ref().map(|spool| spool.save(&raw_last)),
            _ => None,
        };
        let json = if output.print.json {
            let line = serde_json::to_string(&event)
                .map_err(|e| CliError::failed(format!("cannot encode event as JSON: {e}")))?;
            Some(line + "\n")
        } else {
            None
        };
        if let (
            None,
            RunEvent::AttemptFinished {
                attempt, outcome, ..
            },
        ) = (&json, &*event)
        {
            last.keep(*attempt, outcome.clone());
        }
        let fold = fold.get_or_insert_with(|| RunFold::new(event.run_id()));
        fold.apply(event);
        let chunk = match json {
            Some(line) => line,
            None => text_chunk(
                fold,
                &output,
                &mut text,
                &last,
                &mut sent_headers,
                saved.as_ref(),
            ),
        };
        if output.print.save_to == Some(SaveBody::Stdout) {
            // `-o -`: stdout is the body's; the timeline goes where curl's progress goes.
            super::out::write_stderr(&chunk);
        } else {
            crate::cli_out!("{chunk}");
        }
        if let Some(kind) = finished {
            let mut code = match kind {
                OutcomeKind::Succeeded => exit::SUCCESS,
                _ => match interrupted {
                    Some(stop) => stop.exit_code(),
                    None => exit::FAILED,
                },
            };
            if let Some(Err(message)) = saved {
                super::out::write_stderr(&format!("error: {message}\n"));
                // A body cut short by a lost stdout keeps the lost stdout's code (141 for a
                // closed pipe, 1 for a failed write: `out::exit_code_after_output`).
                let stdout_went = output.print.save_to == Some(SaveBody::Stdout)
                    && super::out::stdout_lost().is_some();
                if code == exit::SUCCESS && !stdout_went {
                    code = exit::FAILED;
                }
            }
            if let (Some(path), Some(request)) = (&output.print.har, &output.har_request) {
                let request = crate::model::secrets::mask_spec(request, recording.secrets());
                write_har(path, fold, &request)?;
            }
            if let Some(path) = &output.print.png {
                write_png(path, fold)?;
            }
            // One warning, after the run's output (never in the middle of a timeline line).
            if let Some(e) = recording.take_failure() {
                warn_history("not fully", &e);
            }
            return Ok(code);
        }
    }
}

/// The text the run's last event added to `fold` prints (text mode). `last` is the final
/// attempt's outcome; `saved` is the `-o` result (bytes written) once the run has ended.
fn text_chunk(
    fold: &RunFold,
    output: &Output,
    text: &mut TextTimeline,
    last: &FinalResponse,
    sent_headers: &mut String,
    saved: Option<&Result<u64, String>>,
) -> String {
    let mut chunk = text.delta(fold) + std::mem::take(sent_headers).as_str();
    if output.print.silent {
        chunk.clear();
    }
    let Some(finish) = &fold.finish else {
        return chunk;
    };
    if output.print.include {
        chunk.push_str(&last.header_lines(&output.secrets));
    }
    match (saved, &output.print.save_to) {
        (Some(Ok(bytes)), Some(SaveBody::File(path))) => {
            let _ = writeln!(chunk, "body: {bytes} bytes saved to {}", path.display());
        }
        (Some(Ok(bytes)), Some(SaveBody::Stdout)) => {
            let _ = writeln!(chunk, "body: {bytes} bytes written to stdout");
        }
        (None, _) if output.print.show_body => chunk.push_str(&last.body_text(&output.secrets)),
        _ => {}
    }
    chunk.push_str(&text.summary(fold));
    if let Some(hint) = output.print.redirect_hint
        && finish.outcome.kind == OutcomeKind::Stopped
        && last.is_unfollowed_redirect()
    {
        chunk.push_str(hint);
        chunk.push('\n');
    }
    chunk
}

/// Writes the run `fold` as HAR 1.2 to `path`, atomically.
fn write_har(
    path: &std::path::Path,
    fold: &RunFold,
    request: &crate::model::secrets::Masked<crate::model::RequestSpec>,
) -> Result<(), CliError> {
    let har = crate::interop::run_to_har(fold, Some(request));
    let text = serde_json::to_string_pretty(&har)
        .map_err(|e| CliError::failed(format!("cannot encode the HAR file: {e}")))?;
    crate::store::write_export(path, text.as_bytes())
        .map_err(|e| CliError::failed(format!("cannot write the HAR file: {e}")))
}

/// Writes the timeline plot of the run `fold` as PNG to `path`, atomically.
fn write_png(path: &std::path::Path, fold: &RunFold) -> Result<(), CliError> {
    let bytes = crate::interop::TimelinePlot::of_fold(fold)
        .png()
        .map_err(|e| CliError::failed(e.to_string()))?;
    crate::store::write_export(path, &bytes)
        .map_err(|e| CliError::failed(format!("cannot write the PNG file: {e}")))
}

/// The value of `--max-retries`: a count, or `None` for `unlimited`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaxRetriesArg(pub Option<u32>);

/// `3` → `Some(3)`, `unlimited` → `None`.
fn parse_max_retries(text: &str) -> Result<MaxRetriesArg, String> {
    if text.eq_ignore_ascii_case("unlimited") {
        return Ok(MaxRetriesArg(None));
    }
    text.parse::<u32>()
        .map(|n| MaxRetriesArg(Some(n)))
        .map_err(|_| {
            format!(
                "expected a whole number from 0 to {} or `unlimited`",
                u32::MAX
            )
        })
}
