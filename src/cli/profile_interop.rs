//! `retryscope profile export --to FORMAT` and `profile import --from FORMAT`: a profile in
//! other tools' retry settings and back (see [`crate::interop::retry_formats`]).

use super::exit::{self, CliError};
use super::profile_source;
use crate::interop::retry_formats::{self, RetryFormat};
use crate::store::input_file::{IMPORTED_SETTINGS, InputFileError, cannot_read, read_input_file};
use std::path::Path;

/// Parses a `--to` / `--from` value (`grpc`, `envoy`, …).
///
/// # Errors
/// The list of known ids.
pub fn parse_format(text: &str) -> Result<RetryFormat, String> {
    RetryFormat::from_id(text).ok_or_else(|| {
        format!(
            "unknown format `{text}`; expected one of {}",
            RetryFormat::ids(false)
        )
    })
}

/// Parses a `--from` value: a format that is data (`polly`, `grpc`, `envoy`, `dapr`,
/// `aws-config`); the code formats are refused before any file is read.
///
/// # Errors
/// An unknown id, or a format Retryscope only writes.
pub fn parse_import_format(text: &str) -> Result<RetryFormat, String> {
    let format = parse_format(text)?;
    if !format.can_import() {
        return Err(format!(
            "{} can be exported but not imported (it is code, not a settings file); --from takes {}",
            format.label(),
            RetryFormat::ids(true)
        ));
    }
    Ok(format)
}

/// Writes the profile (`file`, else the built-in `builtin`) as `format` to `out` or stdout.
/// What the target cannot express goes to stderr when the output carries no comments (gRPC
/// JSON) or goes to a file; otherwise it is in the output's comments.
///
/// # Errors
/// Exit 2 for a bad profile or built-in name; exit 1 when `out` cannot be written.
pub fn export(
    format: RetryFormat,
    file: Option<&Path>,
    builtin: Option<&str>,
    out: Option<&Path>,
) -> Result<u8, CliError> {
    if let Some(output) = out {
        super::output_path::check_output_path(output, "-o")?;
    }
    if let (Some(input), Some(output)) = (file, out) {
        refuse_overwrite(input, output)?;
    }
    let profile = profile_source::select(file, builtin)?;
    let exported = retry_formats::export(&profile, format);
    match out {
        Some(path) => {
            write(path, &exported.text)?;
            crate::cli::out::write_stderr(&format!(
                "wrote {} ({}; {} not expressible{})\n",
                path.display(),
                format.label(),
                crate::model::counted(exported.not_expressed.len() as u64, "setting", "settings"),
                if exported.commented {
                    ", listed in its comments"
                } else {
                    ""
                }
            ));
        }
        None => crate::cli_out!("{}", exported.text),
    }
    if !exported.commented || out.is_some() {
        for gap in &exported.not_expressed {
            crate::cli::out::write_stderr(&format!("not expressible in {}: {gap}\n", format.id()));
        }
    }
    Ok(exit::SUCCESS)
}

/// Reads `file` as `format` into a profile, printed as JSON (or saved to `out`); every setting
/// that did not map is listed on stderr.
///
/// # Errors
/// Exit 2 when the file cannot be read or imported (the message says what and where, the
/// file first); exit 1 when `out` cannot be written.
pub fn import(
    format: RetryFormat,
    file: &Path,
    name: Option<&str>,
    out: Option<&Path>,
) -> Result<u8, CliError> {
    if let Some(output) = out {
        super::output_path::check_output_path(output, "-o")?;
        refuse_overwrite(file, output)?;
    }
    let bytes = read_input_file(file, IMPORTED_SETTINGS).map_err(|e| {
        let why = match e {
            InputFileError::Directory => {
                format!(
                    "it is a folder; profile import reads a file ({})",
                    format.label()
                )
            }
            e => e.to_string(),
        };
        CliError::usage(cannot_read(file.display(), "the file to import", why))
    })?;
    let default_name = file.file_stem().map_or_else(
        || "imported".to_owned(),
        |s| s.to_string_lossy().into_owned(),
    );
    let name = name.unwrap_or(&default_name);
    let imported = retry_formats::import_bytes(format, &bytes, name)
        .map_err(|e| CliError::usage(e.shown(format, file)))?;
    let json = crate::profile::to_json_pretty(&imported.profile);
    match out {
        Some(path) => {
            crate::profile::save_atomic(path, &imported.profile).map_err(|e| {
                CliError::failed(format!(
                    "cannot save the imported profile ({e}): {}",
                    path.display()
                ))
            })?;
            crate::cli::out::write_stderr(&format!("wrote {}\n", path.display()));
        }
        None => crate::cli_out!("{json}"),
    }
    for u in &imported.unmapped {
        crate::cli::out::write_stderr(&format!("{u}\n"));
    }
    Ok(exit::SUCCESS)
}

/// `-o` naming the file being read would replace it with the converted text.
///
/// # Errors
/// Exit 2 when they are the same file.
pub fn refuse_overwrite(input: &Path, output: &Path) -> Result<(), CliError> {
    if crate::store::same_file(input, output) {
        return Err(CliError::usage(format!(
            "-o names the file being read; write to another file: {}",
            output.display()
        )));
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<(), CliError> {
    crate::store::write_export(path, text.as_bytes())
        .map_err(|e| CliError::write("cannot write the export", &e))
}
