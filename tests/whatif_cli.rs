//! `retryscope whatif` over runs recorded against the demo server on 127.0.0.1: a selection
//! that mixes profiles and URLs is said to be mixed, a profile named twice is ranked once, and
//! a folder given to `--profiles` is named under that flag.

mod demo_support;

use demo_support::{Demo, retryscope};
use std::path::Path;

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    retryscope(dir).args(args).output().expect("runs")
}

/// The candidates of `whatif --json` with `args`.
fn candidates(dir: &Path, args: &[&str]) -> Vec<serde_json::Value> {
    let out = run(dir, &[&["whatif", "--json"], args].concat());
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    r["candidates"].as_array().expect("candidates").clone()
}

/// Two runs under the default built-in against `/status/200`, one under `aws-standard`
/// against `/status/400`.
fn record_mixed(demo: &Demo, dir: &Path) {
    for (url, builtin) in [
        ("/status/200", None),
        ("/status/200", None),
        ("/status/400", Some("aws-standard")),
    ] {
        let mut cmd = retryscope(dir);
        cmd.args(["run", "--no-body"]);
        if let Some(name) = builtin {
            cmd.args(["--builtin", name]);
        }
        cmd.arg(demo.url(url)).output().expect("run");
    }
}

#[test]
fn a_selection_of_several_profiles_and_urls_is_said_to_be_mixed() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    record_mixed(&demo, dir.path());
    let out = run(
        dir.path(),
        &["whatif", "--url", "/status/", "--profiles", "azure-sdk"],
    );
    assert!(out.status.success(), "{out:?}");
    let table = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        table.contains(
            "\nwarning: the 3 runs selected (cancelled and unfinished ones included) were recorded under 2 profiles and sent to 2 endpoints (method and URL)"
        ),
        "{table}"
    );
    assert!(
        table.contains("* the newest run's profile (the runs were recorded under 2 profiles)"),
        "{table}"
    );
    let out = run(
        dir.path(),
        &[
            "whatif",
            "--url",
            "/status/",
            "--json",
            "--profiles",
            "azure-sdk",
        ],
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(r["recorded_profiles"], 2);
    assert_eq!(r["recorded_endpoints"], 2);
    assert!(
        r["warning"]
            .as_str()
            .is_some_and(|w| w.contains("2 profiles"))
    );
    // The newest run ran aws-standard: it is the current one.
    let listed = candidates(
        dir.path(),
        &["--url", "/status/", "--profiles", "azure-sdk"],
    );
    let current: Vec<&serde_json::Value> = listed.iter().filter(|c| c["current"] == true).collect();
    assert_eq!(current.len(), 1);
    assert!(
        current[0]["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("AWS")),
        "{listed:?}"
    );

    // The runs of one URL and one profile: no warning.
    let out = run(
        dir.path(),
        &["whatif", "--url", "/status/200", "--profiles", "azure-sdk"],
    );
    let table = String::from_utf8(out.stdout).expect("utf-8");
    assert!(!table.contains("warning:"), "{table}");
    assert!(table.contains("* the recorded runs' profile."), "{table}");
}

#[test]
fn a_profile_named_twice_is_ranked_once_and_a_folder_is_named_under_its_flag() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    record_mixed(&demo, dir.path());
    let listed = candidates(dir.path(), &["--profiles", "azure-sdk,azure-sdk"]);
    let ids: Vec<&str> = listed.iter().filter_map(|c| c["id"].as_str()).collect();
    assert_eq!(
        ids.iter().filter(|id| **id == "azure-sdk").count(),
        1,
        "{ids:?}"
    );

    let folder = dir.path().display().to_string();
    let out = run(dir.path(), &["whatif", "--profiles", &folder]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        format!(
            "error: --profiles: {folder} is a folder, not a profile file (give a profile file, a built-in id or the name of a profile in your library)"
        )
    );
}

/// A library profile named like a built-in is never what `--profiles` picks: whatif says so,
/// as `simulate --stack` and batch lists do.
#[cfg(target_os = "linux")]
#[test]
fn a_library_profile_hidden_by_a_built_in_is_warned_about() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    record_mixed(&demo, dir.path());
    let config = tempfile::tempdir().expect("temp dir");
    let library = config.path().join("retryscope").join("profiles");
    std::fs::create_dir_all(&library).expect("library folder");
    let profile = retryscope(dir.path())
        .args(["profile", "show", "azure-sdk"])
        .output()
        .expect("runs")
        .stdout;
    std::fs::write(library.join("aws-standard.json"), profile).expect("written");
    let out = retryscope(dir.path())
        .env("XDG_CONFIG_HOME", config.path())
        .args(["whatif", "--profiles", "aws-standard,azure-sdk"])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches("hides the library profile").count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "warning: the built-in profile `aws-standard` hides the library profile of that name (pick it by `Azure SDK for .NET (Azure.Core defaults)`, or rename it): "
        ),
        "{stderr}"
    );
}

/// A report over runs of several profiles and URLs says so at its top, as whatif does.
#[test]
fn a_report_of_mixed_runs_warns_that_its_figures_mix_them() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    record_mixed(&demo, dir.path());
    let out = run(
        dir.path(),
        &["report", "--url", "/status/", "--format", "json", "-o", "-"],
    );
    assert!(out.status.success(), "{out:?}");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let warning = r["warning"].as_str().expect("a warning");
    assert!(
        warning.starts_with("the 3 runs were recorded under 2 profiles and sent to 2 endpoints"),
        "{warning}"
    );
    let out = run(
        dir.path(),
        &[
            "report",
            "--url",
            "/status/200",
            "--format",
            "json",
            "-o",
            "-",
        ],
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(r.get("warning").is_none(), "one profile, one endpoint: {r}");
}
