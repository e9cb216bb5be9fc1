//! `retryscope profile …`: validate files, print the schema, list and show built-ins, export to
//! and import from other tools' retry settings.

use super::exit::{self, CliError};
use super::profile_interop;
use super::profile_source::issue_lines;
use crate::interop::retry_formats::RetryFormat;
use crate::profile;
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// Flags of `retryscope profile`.
#[derive(Debug, Clone, Args)]
#[command(after_help = "\
Examples:
  retryscope profile validate my-profile.json other.json
  retryscope profile schema > retry-profile.schema.json
  retryscope profile list
  retryscope profile show azure-sdk > my-azure.json
  retryscope profile export --to urllib3 --builtin aws-standard
  retryscope profile export --to grpc my-profile.json -o service-config.json
  retryscope profile import --from envoy route.yaml -o my-envoy.json")]
pub struct ProfileArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: ProfileAction,
}

/// `profile` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum ProfileAction {
    /// Check profile files: prints `ok FILE`, or every problem as `FILE:line:col: path: message`.
    /// Settings that are valid but never take effect are listed on stderr as `warning:
    /// FILE:line:col: path: message` (the file is still ok). Exit 2 if any file is invalid.
    Validate {
        /// Profile files (JSON).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Print the JSON Schema of a profile document.
    Schema,
    /// List built-in profiles: the name `--builtin` takes, two spaces, what it is.
    Builtins,
    /// List the built-in profiles, then those in your library folder, each `NAME  (library) …`:
    /// every name `--profiles`, `--stack` and a batch item's `profile` take.
    List,
    /// Print a built-in profile, or the library's profile of that name, as pretty JSON (a
    /// starting point for your own).
    Show {
        /// Built-in name (`retryscope profile builtins`), or a library profile's (`profile list`).
        name: String,
    },
    /// Write a profile as another tool's retry settings (the nearest equivalent), with what
    /// the target cannot express: in the output's comments, or on stderr for gRPC JSON and
    /// with -o.
    Export {
        /// Target format: curl, urllib3, tenacity, polly, grpc, envoy, dapr, aws-config.
        #[arg(long = "to", value_name = "FORMAT", value_parser = profile_interop::parse_format)]
        to: RetryFormat,
        /// Profile file (JSON).
        #[arg(
            value_name = "FILE",
            required_unless_present = "builtin",
            conflicts_with = "builtin"
        )]
        file: Option<PathBuf>,
        /// A built-in profile instead of a file (see `retryscope profile builtins`).
        #[arg(long, value_name = "NAME")]
        builtin: Option<String>,
        /// Write to this file (atomically) instead of stdout.
        #[arg(short = 'o', long = "output", value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// Read another tool's retry settings into a profile (JSON on stdout, or -o); every
    /// setting that did not map is listed on stderr with its path.
    Import {
        /// Source format: polly, grpc, envoy, dapr, aws-config.
        #[arg(long = "from", value_name = "FORMAT", value_parser = profile_interop::parse_import_format)]
        from: RetryFormat,
        /// The file to read.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Profile name (default: the file name without its extension).
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
        /// Save the profile to this file (atomically) instead of printing it.
        #[arg(short = 'o', long = "output", value_name = "OUT")]
        output: Option<PathBuf>,
    },
}

/// Runs a `profile` subcommand.
///
/// # Errors
/// Exit 2 for an unknown built-in name.
pub fn execute(args: &ProfileArgs) -> Result<u8, CliError> {
    match &args.action {
        ProfileAction::Validate { files } => Ok(validate(files)),
        ProfileAction::Schema => {
            crate::cli_out!("{}", profile::schema_json());
            Ok(exit::SUCCESS)
        }
        ProfileAction::Builtins | ProfileAction::List => {
            for b in profile::builtins() {
                crate::cli_outln!("{}  {}", b.id, first_sentence(&b.profile.description));
            }
            if matches!(args.action, ProfileAction::List) {
                list_library(crate::service::default_library_dir().as_deref());
            }
            Ok(exit::SUCCESS)
        }
        ProfileAction::Show { name } => {
            // A built-in, else the library's profile of that name.
            let p = match (
                profile::builtin(name),
                super::profile_source::library_file(name),
            ) {
                (Some(p), _) => p,
                (None, Some(file)) => super::profile_source::select(Some(&file), None)?,
                (None, None) => return Err(super::profile_source::unknown_builtin(name)),
            };
            crate::cli_out!("{}", profile::to_json_pretty(&p));
            Ok(exit::SUCCESS)
        }
        ProfileAction::Export {
            to,
            file,
            builtin,
            output,
        } => profile_interop::export(*to, file.as_deref(), builtin.as_deref(), output.as_deref()),
        ProfileAction::Import {
            from,
            file,
            name,
            output,
        } => profile_interop::import(*from, file, name.as_deref(), output.as_deref()),
    }
}

fn validate(files: &[PathBuf]) -> u8 {
    let mut code = exit::SUCCESS;
    for path in files {
        match profile::load_file_noted(path) {
            Ok(loaded) => {
                crate::cli_outln!("ok {}", path.display());
                for line in issue_lines(
                    path,
                    &profile::ProfileErrors {
                        issues: loaded.warnings,
                    },
                ) {
                    crate::cli::out::write_stderr(&format!("warning: {line}\n"));
                }
                if let Some(upgrade) = loaded.upgrade {
                    crate::cli::out::write_stderr(&format!(
                        "note: {}: {}\n",
                        path.display(),
                        upgrade.note()
                    ));
                }
            }
            Err(errors) => {
                code = exit::USAGE;
                for line in issue_lines(path, &errors) {
                    crate::cli::out::write_stderr(&format!("{line}\n"));
                }
            }
        }
    }
    code
}

/// Prints each profile of the library folder `dir` as `STEM  (library) NAME: first sentence`
/// (or its load problem, `FILE:line:col: …`); on stderr, which of them a built-in hides.
fn list_library(dir: Option<&std::path::Path>) {
    let Some(dir) = dir else { return };
    let mut names = Vec::new();
    for file in crate::service::library_files(dir) {
        let stem = file.file_stem().unwrap_or_default().to_string_lossy();
        let text = match profile::load_file(&file) {
            Ok(p) => {
                let about = first_sentence(&p.description);
                let line = format!(
                    "{}{}{about}",
                    p.name,
                    if about.is_empty() { "" } else { ": " }
                );
                names.push(p.name);
                line
            }
            Err(e) => format!(
                "does not load: {}",
                crate::service::profile_lookup::load_problem(&file, &e)
            ),
        };
        crate::cli_outln!("{stem}  (library) {text}");
        names.push(stem.into_owned());
    }
    for warning in crate::service::shadowed_among(Some(dir), &names) {
        crate::cli::out::write_stderr(&format!("warning: {warning}\n"));
    }
}

/// The text up to and including the first `. ` (or all of it).
fn first_sentence(text: &str) -> &str {
    match text.find(". ") {
        Some(i) => &text[..=i],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::first_sentence;

    #[test]
    fn cuts_at_the_first_sentence() {
        assert_eq!(first_sentence("One (a.b). Two."), "One (a.b).");
        assert_eq!(first_sentence("Only one."), "Only one.");
    }
}
