//! What this binary is: its version (from Cargo.toml) and the commit it was built from.

/// The package version, e.g. `0.1.0`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The short (12 hex digits) git commit the binary was built from, or `unknown` when it was
/// built without git (a source tarball). Set by `build.rs`.
pub const COMMIT: &str = env!("RETRYSCOPE_COMMIT");

/// `VERSION (commit COMMIT)`, the text of `retryscope --version` after the program name.
pub const VERSION_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("RETRYSCOPE_COMMIT"),
    ")"
);

/// The licence, as Cargo.toml declares it (an SPDX expression).
pub const LICENSE: &str = env!("CARGO_PKG_LICENSE");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_line_names_version_and_commit() {
        assert_eq!(VERSION_LINE, format!("{VERSION} (commit {COMMIT})"));
        assert!(
            COMMIT == "unknown"
                || (COMMIT.len() >= 7 && COMMIT.chars().all(|c| c.is_ascii_hexdigit())),
            "{COMMIT}"
        );
    }
}
