//! `retryscope curl`: a pasted curl command run under a retry profile, read by the same
//! parser as the window's Import curl… ([`crate::interop::parse_curl_words`]) and printed as
//! `run` prints ([`super::run::run_spec`]).

use super::exit::CliError;
use super::profile_source;
use super::request_args::check_url;
use crate::interop::{
    CurlError, CurlImport, is_curl_program, parse_curl, parse_curl_words, split_curl_command,
    starts_with_curl_program,
};
use crate::model::{BodyKind, Variables};
use clap::Args;
use std::path::PathBuf;

/// Flags of `retryscope curl`.
#[derive(Debug, Clone, Args)]
#[command(after_help = "\
The curl options are read as curl reads them (-X, -H, -d/--data*, --json DATA, -u, -k, -L,
--max-redirs, -m, --connect-timeout, -G, -A, -e, -b, -I, --url, …); options Retryscope cannot
honour are printed to stderr as warnings and ignored. Without -L redirects are not followed,
as in curl. -o FILE saves the final body (as `run -o`); -o - writes it to stdout byte for
byte, as curl does, and the timeline then goes to stderr. -s leaves out the attempt, wait
and request-header lines (curl's progress is our timeline), as `run -s` does; -S is accepted
(errors are always shown); -i prints the final response's headers, as `run -i` does. Stopped
on a redirect without -L, the run ends with a hint to add -L. A leading `curl` word
(or `curl.exe`, as Windows copies write it, or a path to either) is skipped, so a copied command can be pasted after
`retryscope curl`; a whole command in one quoted argument works too.

--profile, --builtin, --seed, --jsonl, --no-history and --har may come anywhere: before the curl
command, after its URL, or inside a whole command given as one quoted argument (curl has none of
these options). --jsonl prints JSON Lines (what `run --json` prints); --json is always curl's
--json DATA (a JSON body), wherever it stands.

Examples (start `retryscope demo-server --port 8080` first):
  retryscope curl -X POST -H 'Content-Type: application/json' -d '{\"a\":1}' \\
      http://127.0.0.1:8080/echo --builtin azure-sdk
  retryscope curl --jsonl --seed 7 curl 'http://127.0.0.1:8080/status/503?times=2' -L
  retryscope curl --json '{\"a\":1}' http://127.0.0.1:8080/echo     (a JSON body, as in curl)
  retryscope curl \"$(cat copied-from-browser.txt)\" --profile my-profile.json

Exit codes: as `run`.")]
pub struct CurlArgs {
    /// Profile file (JSON, format retryscope-profile/2; /1 files are read too).
    #[arg(long, value_name = "FILE", conflicts_with = "builtin")]
    pub profile: Option<PathBuf>,
    /// Built-in profile name (see `retryscope profile builtins`). Default: servicenow-exponential.
    #[arg(long, value_name = "NAME")]
    pub builtin: Option<String>,
    /// RNG seed for jitter (default: the profile's seed, else a fresh one, printed).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::cli::whole_number::u64_value)]
    pub seed: Option<u64>,
    /// Print every run event as one JSON object per line (JSON Lines) instead of text (`run`
    /// spells it --json; here --json is curl's JSON body option).
    #[arg(long)]
    pub jsonl: bool,
    /// Do not record this run in the history (may also come among the curl options).
    #[arg(long)]
    pub no_history: bool,
    /// Also write the run as a HAR 1.2 file (may also come among the curl options).
    #[arg(long, value_name = "FILE")]
    pub har: Option<PathBuf>,
    /// The curl command's options and URL (a leading `curl` is optional).
    #[arg(
        value_name = "CURL OPTIONS… URL",
        trailing_var_arg = true,
        allow_hyphen_values = true,
        required = true
    )]
    pub words: Vec<String>,
}

/// Our own flags found among the curl words.
#[derive(Debug, Default, PartialEq, Eq)]
struct Own {
    /// The whole curl command when it was given as one argument (split here, not by a shell).
    command: Option<String>,
    profile: Option<PathBuf>,
    builtin: Option<String>,
    seed: Option<u64>,
    json: bool,
    no_history: bool,
    har: Option<PathBuf>,
    curl: Vec<String>,
}

/// Our own flags and the curl command of `words`: [`split_own`], and when what is left is one
/// argument holding a whole command (`"curl 'URL' -u a:b --profile p.json"`), that command
/// split into words and [`split_own`] again, so a flag inside it is ours, not an unknown curl
/// option. A flag given both outside and inside is refused.
fn own_and_curl(words: &[String]) -> Result<Own, CliError> {
    let mut own = split_own(words)?;
    let [one] = own.curl.as_slice() else {
        return Ok(own);
    };
    if !starts_with_curl_program(one) {
        return Ok(own);
    }
    let inner = split_own(&split_curl_command(one).map_err(|e| CliError::usage(e.to_string()))?)?;
    let command = one.clone();
    let twice = |flag: &str| {
        CliError::usage(format!(
            "{flag} is given both outside and inside the quoted curl command; give it once"
        ))
    };
    own.profile = once(own.profile, inner.profile, || twice("--profile"))?;
    own.builtin = once(own.builtin, inner.builtin, || twice("--builtin"))?;
    own.seed = once(own.seed, inner.seed, || twice("--seed"))?;
    own.har = once(own.har, inner.har, || twice("--har"))?;
    own.json |= inner.json;
    own.no_history |= inner.no_history;
    own.curl = inner.curl;
    own.command = Some(command);
    Ok(own)
}

/// `outer` or `inner`, refused with `err` when both are given.
fn once<T>(
    outer: Option<T>,
    inner: Option<T>,
    err: impl FnOnce() -> CliError,
) -> Result<Option<T>, CliError> {
    match (outer, inner) {
        (Some(_), Some(_)) => Err(err()),
        (a, b) => Ok(a.or(b)),
    }
}

/// Takes `--profile`, `--builtin`, `--seed`, `--har`, `--jsonl` and `--no-history` (anywhere)
/// out of `words`; every other word, `--json` included, is curl's.
fn split_own(words: &[String]) -> Result<Own, CliError> {
    let mut own = Own::default();
    let mut i = 0;
    while i < words.len() {
        let word = words[i].as_str();
        let (name, inline) = match word.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
            _ => (word, None),
        };
        if matches!(name, "--profile" | "--builtin" | "--seed" | "--har") {
            let value = if let Some(v) = inline {
                v
            } else {
                i += 1;
                words
                    .get(i)
                    .cloned()
                    .ok_or_else(|| CliError::usage(format!("{name} needs a value")))?
            };
            match name {
                "--profile" => own.profile = Some(PathBuf::from(value)),
                "--builtin" => own.builtin = Some(value),
                "--har" => own.har = Some(PathBuf::from(value)),
                _ => {
                    own.seed = Some(
                        super::whole_number::u64_value(&value)
                            .map_err(|e| CliError::usage(format!("--seed `{value}`: {e}")))?,
                    );
                }
            }
        } else if word == "--jsonl" {
            own.json = true;
        } else if word == "--no-history" {
            own.no_history = true;
        } else {
            own.curl.push(words[i].clone());
        }
        i += 1;
    }
    Ok(own)
}

/// The curl command in `words` (retryscope's own flags taken out): one quoted argument holding
/// a whole command, or words that may start with the curl program (`curl`, `curl.exe`, a path
/// to either: [`is_curl_program`]), which is skipped like a leading `curl`.
fn read_curl_words(words: &[String]) -> Result<CurlImport, CurlError> {
    match words {
        [one] if starts_with_curl_program(one) => parse_curl(one),
        words if words.first().is_some_and(|w| is_curl_program(w)) => parse_curl_words(words),
        words => {
            let mut all = vec!["curl".to_owned()];
            all.extend_from_slice(words);
            parse_curl_words(&all)
        }
    }
}

/// Runs the command; returns the exit code.
///
/// # Errors
/// Exit 2 for a curl command that cannot be read, a bad URL, header, body file or profile.
pub fn execute(args: &CurlArgs, core: &crate::service::Core) -> Result<u8, CliError> {
    let own = own_and_curl(&args.words)?;
    if own.profile.is_some() && (own.builtin.is_some() || args.builtin.is_some())
        || own.builtin.is_some() && args.profile.is_some()
    {
        return Err(CliError::usage(
            "give either --profile or --builtin, not both",
        ));
    }
    if own.profile.is_some() && args.profile.is_some() || own.har.is_some() && args.har.is_some() {
        return Err(CliError::usage(
            "--profile and --har are each given once (before or after the curl command)",
        ));
    }
    let har = own.har.clone().or_else(|| args.har.clone());
    if let Some(har) = &har {
        super::output_path::check_output_path(har, "--har")?;
    }
    let profile = profile_source::select(
        own.profile.as_deref().or(args.profile.as_deref()),
        own.builtin.as_deref().or(args.builtin.as_deref()),
    )?;
    let mut import = read_curl_words(&own.curl).map_err(|e| CliError::usage(e.to_string()))?;
    if let Some(command) = &own.command {
        import.note_variables(command);
    }
    for note in &import.unsupported {
        super::out::write_stderr(&format!("warning: curl import: {note}\n"));
    }
    // `-o FILE` writes the final body there, as `run -o` does (checked the same way); `-o -`
    // writes it to stdout, as curl does.
    let json = own.json || args.jsonl;
    let save_to = import
        .output
        .as_deref()
        .map(|o| super::run::SaveBody::checked(std::path::Path::new(o), json, "--jsonl"))
        .transpose()?;
    let draft = import.draft;
    let draft_follows = draft.follow_redirects;
    check_url(&draft.url)?;
    if draft.body.kind == BodyKind::File {
        super::request_args::check_data_file(&draft.body.file_path)?;
    }
    let spec = draft
        .to_spec(&Variables::new(), &uuid::Uuid::new_v4().to_string())
        .map_err(|e| {
            CliError::usage(format!(
                "{e}; `retryscope curl` has no variables (use `retryscope run --var`)"
            ))
        })?;
    // A missing `-F name=@FILE` is said before anything is sent, as `run -F` says it.
    if let crate::model::Body::Multipart { parts } = &spec.body {
        for part in parts {
            if let crate::model::PartSource::File { path, .. } = &part.source {
                super::curl_args::check_part_file(&part.name, path)?;
            }
        }
    }
    // The draft's own secrets and what the one rule finds in the request (URL credentials,
    // secret query values), so an echoing server's body is masked as `run` masks it.
    let mut secrets = draft.secret_values();
    secrets.extend(crate::model::secrets::secret_values(&spec));
    // Logged as `run` logs its run (the daily files in the data folder; RETRYSCOPE_LOG_LEVEL).
    let _log =
        super::log_args::LogArgs::default().install(crate::store::data_dir().as_deref(), None)?;
    super::run::run_spec(
        core,
        spec,
        profile,
        super::run::RunPrint {
            seed: own.seed.or(args.seed),
            json,
            har,
            save_to,
            // `-s`: curl's progress meter is our timeline (as `run -s`).
            silent: import.silent.is_some(),
            // `-i`: the final response's headers, as `run -i`.
            include: import.include.is_some(),
            // curl follows a redirect only with -L; without it the run stops on the 3xx.
            redirect_hint: (!draft_follows)
                .then_some("hint: curl follows redirects only with -L: add -L to follow it"),
            history: if own.no_history || args.no_history {
                None
            } else {
                super::run::RunPrint::default().history
            },
            ..super::run::RunPrint::default()
        },
        &secrets,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(words: &[&str]) -> Vec<String> {
        words.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn own_flags_are_taken_anywhere_and_json_is_curls() {
        let own = split_own(&w(&[
            "--json",
            "{}",
            "-X",
            "POST",
            "--jsonl",
            "http://h/",
            "--builtin",
            "azure-sdk",
            "--seed=7",
            "--no-history",
        ]))
        .expect("valid");
        assert!(own.no_history);
        assert_eq!(own.builtin.as_deref(), Some("azure-sdk"));
        assert_eq!(own.seed, Some(7));
        assert!(own.json);
        assert_eq!(own.curl, w(&["--json", "{}", "-X", "POST", "http://h/"]));
        let last = split_own(&w(&["http://h/", "--json", "{\"a\":1}"])).expect("valid");
        assert!(!last.json, "curl's --json DATA at the end");
        assert!(split_own(&w(&["http://h/", "--seed", "x"])).is_err());
    }

    #[test]
    fn own_flags_after_the_url_or_inside_the_quoted_command_are_ours() {
        let own = own_and_curl(&w(&[
            "curl \"http://127.0.0.1:8080/echo\" -u a:b --profile fast.json --har out.har --seed=3",
        ]))
        .expect("valid");
        assert_eq!(own.profile, Some(PathBuf::from("fast.json")));
        assert_eq!(own.har, Some(PathBuf::from("out.har")));
        assert_eq!(own.seed, Some(3));
        assert_eq!(
            own.curl,
            w(&["curl", "http://127.0.0.1:8080/echo", "-u", "a:b"])
        );
        let after = own_and_curl(&w(&[
            "-u",
            "bob:x",
            "http://127.0.0.1:8080/x",
            "--profile",
            "f.json",
            "--har",
            "out.har",
        ]))
        .expect("valid");
        assert_eq!(after.profile, Some(PathBuf::from("f.json")));
        assert_eq!(after.har, Some(PathBuf::from("out.har")));
        assert_eq!(after.curl, w(&["-u", "bob:x", "http://127.0.0.1:8080/x"]));
        let import = read_curl_words(&after.curl).expect("reads");
        assert!(import.unsupported.is_empty(), "{:?}", import.unsupported);
        let twice = own_and_curl(&w(&[
            "curl http://127.0.0.1:8080/ --har a.har",
            "--har",
            "b.har",
        ]));
        assert!(twice.is_err_and(|e| e.message.contains("--har is given both outside and inside")),);
    }

    #[test]
    fn a_leading_curl_exe_or_curl_path_is_skipped_like_curl() {
        let url = "http://127.0.0.1:8080/echo";
        for program in [
            "curl",
            "curl.exe",
            "CURL.EXE",
            "Curl",
            "/usr/bin/curl",
            r"C:\Windows\System32\curl.exe",
        ] {
            let split = read_curl_words(&w(&[program, url, "-H", "X: 1"])).expect(program);
            assert_eq!(split.draft.url, url, "{program}");
            assert_eq!(split.unsupported, Vec::<String>::new(), "{program}");
        }
        for one in [
            format!("curl.exe '{url}' -H 'X: 1'"),
            format!("CURL.exe \"{url}\" -H \"X: 1\""),
            format!("/usr/bin/curl '{url}' -H 'X: 1'"),
        ] {
            let import = read_curl_words(&w(&[&one])).expect(&one);
            assert_eq!(import.draft.url, url, "{one}");
            assert_eq!(import.draft.headers[0].value, "1", "{one}");
        }
        // Without a program word the words are curl's options and URL; a URL ending in
        // `/curl` is a URL, not the program.
        let bare = read_curl_words(&w(&["http://127.0.0.1:8080/curl"])).expect("a URL");
        assert_eq!(bare.draft.url, "http://127.0.0.1:8080/curl");
        assert_eq!(bare.unsupported, Vec::<String>::new());
    }
}
