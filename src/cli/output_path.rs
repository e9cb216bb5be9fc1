//! The one check of a file the user asks a command to write (`run -o/--har/--png`, `curl
//! --har`, `batch --report`, `history export -o`, `profile export/import -o`, `--log-file`),
//! made before any work: a folder is no file name, and the file's folder must exist (it is
//! never created: a typo in a folder name would be hidden). One wording for all of them.

use super::exit::CliError;
use std::path::Path;

/// Checks that `path`, given to `flag`, can be written: not a folder, in a folder that exists.
///
/// # Errors
/// Exit 2: `FLAG needs a file name, not a folder: PATH` (also for a path ending in `/`),
/// `FLAG: DIR is a file, not a folder: PATH` or `FLAG: the folder DIR does not exist (create it
/// first): PATH`.
pub fn check_output_path(path: &Path, flag: &str) -> Result<(), CliError> {
    let names_folder = path
        .as_os_str()
        .to_string_lossy()
        .ends_with(std::path::is_separator);
    if path.is_dir() || names_folder {
        return Err(CliError::usage(format!(
            "{flag} needs a file name, not a folder: {}",
            path.display()
        )));
    }
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if parent.is_file() {
        return Err(CliError::usage(format!(
            "{flag}: {} is a file, not a folder: {}",
            parent.display(),
            path.display()
        )));
    }
    if !parent.is_dir() {
        return Err(CliError::usage(format!(
            "{flag}: the folder {} does not exist (create it first): {}",
            parent.display(),
            path.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_and_a_missing_folder_are_said_the_same_way_for_every_flag() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = check_output_path(dir.path(), "-o").expect_err("a folder");
        assert_eq!(
            err.message,
            format!(
                "-o needs a file name, not a folder: {}",
                dir.path().display()
            )
        );
        let missing = dir.path().join("nope").join("x.json");
        let err = check_output_path(&missing, "--report").expect_err("missing folder");
        assert_eq!(
            err.message,
            format!(
                "--report: the folder {} does not exist (create it first): {}",
                dir.path().join("nope").display(),
                missing.display()
            )
        );
        let slash = dir.path().join("new").join("");
        let err = check_output_path(&slash, "--log-file").expect_err("a folder name");
        assert!(
            err.message
                .starts_with("--log-file needs a file name, not a folder: ")
        );
        let file = dir.path().join("file.txt");
        std::fs::write(&file, "x").expect("write");
        let err = check_output_path(&file.join("out.har"), "--har").expect_err("file as folder");
        assert!(
            err.message.contains("file.txt is a file, not a folder: "),
            "{}",
            err.message
        );
        assert!(check_output_path(&dir.path().join("x.json"), "-o").is_ok());
        assert!(check_output_path(Path::new("x.json"), "-o").is_ok());
    }
}
