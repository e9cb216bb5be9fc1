//! Picking the profile a command runs: `--profile FILE` or `--builtin NAME`.

use super::exit::CliError;
use crate::model::RetryProfile;
use crate::profile::{self, ProfileErrors, ProfileIssue};
use std::path::Path;

/// Loads `file`, else the built-in `builtin`, else the default built-in.
///
/// # Errors
/// Exit 2 with every problem of an invalid file (`FILE:line:col: path: message`, one per line)
/// or an unknown built-in name.
pub fn select(file: Option<&Path>, builtin: Option<&str>) -> Result<RetryProfile, CliError> {
    if let Some(path) = file {
        return profile::load_file(path).map_err(|e| CliError::usage(file_errors(path, &e)));
    }
    let name = builtin.unwrap_or(profile::DEFAULT_BUILTIN);
    profile::builtin(name).ok_or_else(|| unknown_builtin(name))
}

/// The library's profile file named `name` (its stem), if there is one.
pub fn library_file(name: &str) -> Option<std::path::PathBuf> {
    crate::service::default_library_dir()
        .as_deref()
        .map(crate::service::library_files)
        .unwrap_or_default()
        .into_iter()
        .find(|p| p.file_stem().is_some_and(|s| s == name))
}

/// The error of `--builtin NAME` (or `profile show NAME`) for a name that is no built-in: the
/// built-ins listed, and the library file when `NAME` is one of the library's profiles.
pub fn unknown_builtin(name: &str) -> CliError {
    let library = library_file(name)
        .map(|p| {
            format!(
                "; `{name}` is a profile of your library: --profile {}",
                p.display()
            )
        })
        .unwrap_or_default();
    CliError::usage(format!(
        "unknown built-in profile `{}`; `retryscope profile list` lists them ({}){library}",
        crate::model::quote::quote_input(name),
        profile::builtin_ids().join(", ")
    ))
}

/// Checks the profile a command runs once its command-line overrides are applied, with the
/// same schema and rules as a profile file (a flag is never a way around them). `overrides`
/// pairs each overridden field's path (`max_retries`) with the flag that set it
/// (`--max-retries`).
///
/// # Errors
/// Exit 2 with one line per problem: `--max-retries: expected a whole number from 0 to 1000,
/// found 5000` for an overridden field, `path: message` for any other.
pub fn check_overridden(
    profile: &RetryProfile,
    overrides: &[(&str, &str)],
) -> Result<(), CliError> {
    let issues = profile::validate(profile);
    if issues.is_empty() {
        return Ok(());
    }
    let line = |issue: &ProfileIssue| {
        let text = match overrides.iter().find(|(path, _)| *path == issue.path) {
            Some((_, flag)) => format!("{flag}: {}", issue.message),
            None => issue.path_and_message(),
        };
        name_flags(&text, overrides)
    };
    Err(CliError::usage(
        issues.iter().map(line).collect::<Vec<_>>().join("\n"),
    ))
}

/// `set deadline_ms` → ``set deadline_ms (`--deadline-ms`)``: a message that tells the user to
/// set a field says which flag sets it on this command line.
fn name_flags(text: &str, overrides: &[(&str, &str)]) -> String {
    let mut out = text.to_owned();
    for (path, flag) in overrides {
        let advice = format!("set {path}");
        if let Some(at) = out.find(&advice) {
            let end = at + advice.len();
            let next = out[end..].chars().next();
            if !next.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                out.insert_str(end, &format!(" (`{flag}`)"));
            }
        }
    }
    out
}

/// `invalid profile FILE` followed by one `FILE:line:col: path: message` line per issue; the one
/// line `FILE: cannot read the profile file: REASON` when the file cannot be read.
pub fn file_errors(path: &Path, errors: &ProfileErrors) -> String {
    let lines = issue_lines(path, errors).join("\n");
    // A file that cannot be read at all is one issue at the root: one line naming the file.
    if let [only] = errors.issues.as_slice()
        && only.line.is_none()
        && only.path.is_empty()
    {
        return lines;
    }
    format!("invalid profile {}\n{lines}", path.display())
}

/// One `FILE:line:col: path: message` line per issue (`FILE: …` when the position is unknown).
pub fn issue_lines(path: &Path, errors: &ProfileErrors) -> Vec<String> {
    errors
        .issues
        .iter()
        .map(|i| crate::model::file_message(path.display(), i.line, i.column, i.path_and_message()))
        .collect()
}

/// Refuses an empty entry in the comma-separated list `flag` gave (`a,,b`, a comma at an end).
///
/// # Errors
/// Exit 2 naming the flag and the entry's place.
pub fn no_empty_entry(list: &[String], flag: &str) -> Result<(), CliError> {
    match list.iter().position(|s| s.trim().is_empty()) {
        Some(i) => Err(CliError::usage(format!(
            "{flag}: entry {} of {} is empty (two commas in a row, or a comma at an end?)",
            i + 1,
            list.len()
        ))),
        None => Ok(()),
    }
}

/// One entry of the list `flag` gave (`--stack A,B,C`, `--profiles A,B`): a profile file when
/// `spec` names a file that exists (a device or pipe too, which the input-file rule refuses) or
/// ends in `.json`, else a built-in id or the name of a
/// profile in the library folder `library` (as batch items name them:
/// [`crate::service::find_profile`]).
///
/// # Errors
/// As [`select`]: the file's problems; a library profile's load error; an unknown name; a
/// folder (`--profiles: /tmp is a folder, not a profile file`).
pub fn resolve(spec: &str, library: Option<&Path>, flag: &str) -> Result<RetryProfile, CliError> {
    let spec = spec.trim();
    let path = Path::new(spec);
    let json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if path.is_dir() {
        return Err(CliError::usage(format!(
            "{flag}: {spec} is a folder, not a profile file (give a profile file, a built-in id or the name of a profile in your library)"
        )));
    }
    if path.exists() || json {
        select(Some(path), None)
    } else {
        crate::service::find_profile(spec, library).map_err(CliError::usage)
    }
}

#[cfg(test)]
mod tests {
    use super::name_flags;

    #[test]
    fn a_folder_given_as_a_profile_is_said_to_be_a_folder_under_its_flag() {
        let dir = tempfile::tempdir().expect("tempdir");
        let shown = dir.path().display().to_string();
        for flag in ["--stack", "--profiles"] {
            let e = super::resolve(&shown, None, flag).expect_err("a folder");
            assert_eq!(
                e.message,
                format!(
                    "{flag}: {shown} is a folder, not a profile file (give a profile file, a built-in id or the name of a profile in your library)"
                )
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_device_given_as_a_profile_is_read_as_a_file_and_refused_as_one() {
        let e = super::resolve("/dev/null", None, "--profiles").expect_err("a device");
        assert!(e.message.contains("/dev/null"), "{}", e.message);
        assert!(e.message.contains("not a regular file"), "{}", e.message);
    }

    #[test]
    fn an_empty_entry_is_refused_at_its_place() {
        let list = |l: &[&str]| l.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let e = super::no_empty_entry(&list(&["a", " ", "b"]), "--stack").expect_err("empty");
        assert_eq!(
            e.message,
            "--stack: entry 2 of 3 is empty (two commas in a row, or a comma at an end?)"
        );
        assert!(super::no_empty_entry(&list(&["a", "b"]), "--profiles").is_ok());
    }

    #[test]
    fn advice_to_set_a_field_names_its_flag() {
        let flags = [
            ("deadline_ms", "--deadline-ms"),
            ("max_retries", "--max-retries"),
        ];
        assert_eq!(
            name_flags(
                "need a deadline; set deadline_ms or give max_retries a number",
                &flags
            ),
            "need a deadline; set deadline_ms (`--deadline-ms`) or give max_retries a number"
        );
        // A longer field name that starts with a flagged one is left alone.
        assert_eq!(name_flags("set deadline_ms_x", &flags), "set deadline_ms_x");
    }
}
