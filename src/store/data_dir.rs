//! Where the app keeps its data: `RETRYSCOPE_DATA_DIR` when set, else the platform data folder.

use std::ffi::OsString;
use std::path::PathBuf;

/// Environment variable that overrides the data folder (tests, portable installs).
pub const DATA_DIR_ENV: &str = "RETRYSCOPE_DATA_DIR";

/// The data folder: `$RETRYSCOPE_DATA_DIR` when set and not empty, else the platform data
/// folder of `dev.retryscope.Retryscope` (`~/.local/share/retryscope` on Linux). `None` when
/// neither is known (no home folder). Requests live in `requests/`, environments in
/// `environments/` under it.
pub fn data_dir() -> Option<PathBuf> {
    data_dir_from(std::env::var_os(DATA_DIR_ENV))
}

/// [`data_dir`] with the variable's value passed in (testable without touching the process
/// environment).
pub fn data_dir_from(env_value: Option<OsString>) -> Option<PathBuf> {
    match env_value {
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ => directories::ProjectDirs::from("dev", "retryscope", "Retryscope")
            .map(|d| d.data_dir().to_path_buf()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_wins_and_empty_means_unset() {
        assert_eq!(
            data_dir_from(Some("/tmp/rs-data".into())),
            Some(PathBuf::from("/tmp/rs-data"))
        );
        assert_ne!(
            data_dir_from(Some(OsString::new())),
            Some(PathBuf::from(""))
        );
    }
}
