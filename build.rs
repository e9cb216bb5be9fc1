//! Build script: records the commit the binary is built from as `RETRYSCOPE_COMMIT`.
//!
//! The commit is, in order: `$RETRYSCOPE_COMMIT` when set at build time (a packager building
//! from a source tarball who knows it), else `git rev-parse --short=12 HEAD` when this package
//! is the top of a git work tree, else `unknown` (a tarball without `.git`, or no `git`).

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RETRYSCOPE_COMMIT");
    let commit = match std::env::var("RETRYSCOPE_COMMIT") {
        Ok(given) if !given.trim().is_empty() => given.trim().to_owned(),
        _ => commit_from_git().unwrap_or_else(|| "unknown".to_owned()),
    };
    println!("cargo:rustc-env=RETRYSCOPE_COMMIT={commit}");
}

/// The short commit of `HEAD`, when the package folder is itself the top of a git work tree
/// (not a tarball unpacked inside some other repository). Also asks cargo to run this script
/// again when `HEAD` or the branch it points to moves.
fn commit_from_git() -> Option<String> {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").ok()?;
    let top = git(&["rev-parse", "--show-toplevel"])?;
    let same = match (
        Path::new(&top).canonicalize(),
        Path::new(&manifest_dir).canonicalize(),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same {
        return None;
    }
    let branch = git(&["symbolic-ref", "-q", "HEAD"]);
    for watched in ["HEAD", "packed-refs"].into_iter().chain(branch.as_deref()) {
        watch_if_present(watched);
    }
    git(&["rev-parse", "--short=12", "HEAD"])
}

/// Asks cargo to rerun this script when the git file `name` (`HEAD`, `packed-refs`, a branch's
/// ref) changes, if the file exists: cargo counts a watched file that is missing as changed, so
/// watching one a checkout lacks (a fresh clone has no `packed-refs`, a packed branch no loose
/// ref) would rebuild the whole package on every build. When the file appears later, the files
/// that are watched change with it (a commit moves `HEAD`'s branch ref; packing deletes it).
/// A branch whose ref is missing (it lives in `packed-refs`) has its folder watched instead, so
/// the loose ref the next commit writes there is seen (cargo scans a watched folder's files).
fn watch_if_present(name: &str) {
    let Some(path) = git(&["rev-parse", "--git-path", name]) else {
        return;
    };
    let path = Path::new(&path);
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    } else if name.starts_with("refs/")
        && let Some(folder) = path.parent().filter(|f| f.is_dir())
    {
        println!("cargo:rerun-if-changed={}", folder.display());
    }
}

/// `git ARGS` run in the package folder: its trimmed standard output, `None` on any failure.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (!text.is_empty()).then_some(text)
}
