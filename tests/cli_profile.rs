//! `retryscope profile …` from the outside: exit codes and output.

mod demo_support;

use assert_cmd::Command;
use predicates::prelude::*;

fn retryscope() -> Command {
    demo_support::sandboxed()
}

#[test]
fn validate_good_file_prints_ok() {
    retryscope()
        .args(["profile", "validate", "tests/fixtures/good.json"])
        .assert()
        .success()
        .stdout("ok tests/fixtures/good.json\n");
}

#[test]
fn validate_bad_file_exits_2_with_line_and_column() {
    retryscope()
        .args(["profile", "validate", "tests/fixtures/unknown_field.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "tests/fixtures/unknown_field.json:6:5: backoff.base_delay: unknown field `base_delay` at backoff; did you mean `base_delay_ms`?",
        ));
}

#[test]
fn validate_reports_every_problem_of_every_file() {
    let out = retryscope()
        .args([
            "profile",
            "validate",
            "tests/fixtures/good.json",
            "tests/fixtures/many_problems.json",
            "tests/fixtures/wrong_format.json",
        ])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let stderr = String::from_utf8(out.stderr).expect("utf-8");
    assert_eq!(stdout, "ok tests/fixtures/good.json\n");
    let many = stderr
        .lines()
        .filter(|l| l.starts_with("tests/fixtures/many_problems.json:"))
        .count();
    // 8: format 2 takes `max_retries: 5000`, which format 1 refused.
    assert_eq!(many, 8, "{stderr}");
    assert!(
        stderr.starts_with("note: tests/fixtures/good.json: this profile is in the older format retryscope-profile/1; saving it writes retryscope-profile/2"),
        "a /1 file is named as upgraded: {stderr}"
    );
    assert!(
        stderr.contains("tests/fixtures/wrong_format.json:2:3: format: "),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn validate_needs_a_file() {
    retryscope().args(["profile", "validate"]).assert().code(2);
}

#[test]
fn builtins_lists_every_id_with_its_first_sentence() {
    let out = retryscope()
        .args(["profile", "builtins"])
        .assert()
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let ids: Vec<&str> = stdout
        .lines()
        .map(|l| l.split("  ").next().expect("id"))
        .collect();
    assert_eq!(ids, retryscope::profile::builtin_ids());
    for line in stdout.lines() {
        let (_, text) = line.split_once("  ").expect("two spaces");
        assert!(text.ends_with('.'), "first sentence: {line}");
    }
}

/// `profile list` lists the built-ins, then the library's profiles (by the file name that
/// `--profiles` takes, marked `(library)`, a broken one with its problem); `builtins` only the
/// built-ins.
#[test]
fn list_adds_the_library_profiles_after_the_built_ins() {
    let config = tempfile::tempdir().expect("tempdir");
    let library = config.path().join("retryscope").join("profiles");
    std::fs::create_dir_all(&library).expect("folder");
    std::fs::copy("tests/fixtures/good.json", library.join("team.json")).expect("copied");
    std::fs::write(library.join("broken.json"), "{").expect("written");
    let run = |command: &str| {
        let out = retryscope()
            .env("XDG_CONFIG_HOME", config.path())
            .args(["profile", command])
            .assert()
            .success()
            .get_output()
            .clone();
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let (list, builtins) = (run("list"), run("builtins"));
    let lines: Vec<&str> = list.lines().collect();
    let n = retryscope::profile::builtin_ids().len();
    assert_eq!(lines[..n].join("\n") + "\n", builtins, "built-ins first");
    assert!(
        lines[n].starts_with("broken  (library) does not load: "),
        "{list}"
    );
    assert!(lines[n].contains("broken.json:1:"), "{list}");
    assert_eq!(
        lines[n + 1],
        "team  (library) Good fixture: A valid profile used by the tests."
    );
    assert_eq!(lines.len(), n + 2, "{list}");
    assert!(!builtins.contains("(library)"), "{builtins}");
}

#[test]
fn show_prints_a_loadable_profile() {
    let out = retryscope()
        .args(["profile", "show", "azure-sdk"])
        .assert()
        .success()
        .get_output()
        .clone();
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let p = retryscope::profile::load_str(&text).expect("loads");
    assert_eq!(Some(p), retryscope::profile::builtin("azure-sdk"));
}

#[test]
fn show_unknown_builtin_exits_2() {
    retryscope()
        .args(["profile", "show", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "error: unknown built-in profile `nope`",
        ));
}

#[test]
fn a_library_profile_given_as_a_builtin_is_pointed_at_its_file() {
    let config = tempfile::tempdir().expect("tempdir");
    let library = config.path().join("retryscope").join("profiles");
    std::fs::create_dir_all(&library).expect("folder");
    std::fs::copy("tests/fixtures/good.json", library.join("team.json")).expect("copied");
    let file = library.join("team.json");
    retryscope()
        .env("XDG_CONFIG_HOME", config.path())
        .args(["run", "--builtin", "team", "http://127.0.0.1:9/"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "; `team` is a profile of your library: --profile {}",
            file.display()
        )));
    // `profile show` shows it.
    let out = retryscope()
        .env("XDG_CONFIG_HOME", config.path())
        .args(["profile", "show", "team"])
        .assert()
        .success()
        .get_output()
        .clone();
    let shown = retryscope::profile::load_str(&String::from_utf8(out.stdout).expect("utf-8"))
        .expect("loads");
    assert_eq!(
        shown,
        retryscope::profile::load_file(&file).expect("the file loads")
    );
}

#[test]
fn schema_prints_the_shipped_schema() {
    retryscope()
        .args(["profile", "schema"])
        .assert()
        .success()
        .stdout(retryscope::profile::schema_json());
}

#[test]
fn validate_warns_about_settings_that_never_take_effect_and_still_says_ok() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("dead.json");
    std::fs::write(
        &path,
        r#"{
  "format": "retryscope-profile/2",
  "name": "dead settings",
  "retry_on": { "status": [503] },
  "backoff": { "strategy": "fixed", "base_delay_ms": 10, "clamp_above_ms": 5000 },
  "throttling": { "status": [429] , "backoff": { "strategy": "fixed", "base_delay_ms": 1000 } }
}
"#,
    )
    .expect("write");
    let out = retryscope()
        .args(["profile", "validate"])
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let stderr = String::from_utf8(out.stderr).expect("utf-8");
    assert_eq!(stdout, format!("ok {}\n", path.display()));
    let file = path.display().to_string();
    assert!(
        stderr.contains(&format!(
            "warning: {file}:5:58: backoff.clamp_above_ms: clamp_above_ms 5000 has no effect"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "warning: {file}:6:30: throttling.status[0]: 429 is not in retry_on.status, so never retried"
        )),
        "{stderr}"
    );
}

/// `profile import`/`export -o` check the file to write as `run -o`, `--har`, `--report` and
/// `history export -o` do, in the same words: a folder is no file name, a missing folder is
/// not created; a folder given as the file to import is said to be one.
#[test]
fn profile_import_and_export_outputs_are_checked_like_every_other_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let polly = dir.path().join("polly.json");
    std::fs::write(&polly, r#"{"MaxRetryAttempts": 3}"#).expect("written");
    let missing = dir.path().join("nope").join("x.json");
    let stderr = |args: &[std::ffi::OsString]| demo_support::usage_error(args);
    let os = |s: &str| std::ffi::OsString::from(s);
    let import = [os("profile"), os("import"), os("--from"), os("polly")];
    let mut args: Vec<std::ffi::OsString> = import.to_vec();
    args.extend([polly.clone().into(), os("-o"), dir.path().into()]);
    assert_eq!(
        stderr(&args),
        format!(
            "error: -o needs a file name, not a folder: {}\n",
            dir.path().display()
        )
    );
    let mut args: Vec<std::ffi::OsString> = import.to_vec();
    args.extend([polly.clone().into(), os("-o"), missing.clone().into()]);
    assert_eq!(
        stderr(&args),
        format!(
            "error: -o: the folder {} does not exist (create it first): {}\n",
            dir.path().join("nope").display(),
            missing.display()
        )
    );
    assert!(!dir.path().join("nope").exists(), "the folder is not made");
    let mut args: Vec<std::ffi::OsString> = import.to_vec();
    args.push(dir.path().into());
    let said = stderr(&args);
    assert!(
        said.starts_with(&format!(
            "error: {}: cannot read the file to import: it is a folder; profile import reads a file (",
            dir.path().display()
        )),
        "{said}"
    );
    let args = [
        os("profile"),
        os("export"),
        os("--to"),
        os("polly"),
        os("--builtin"),
        os("aws-standard"),
        os("-o"),
        missing.clone().into(),
    ];
    assert!(
        stderr(&args).contains("-o: the folder "),
        "export says it as import does"
    );
}

/// `profile import` reads by the one input-file rule: a device is refused at once (it used to
/// be read without end, gigabytes in seconds) and so is a file over the limit.
#[test]
fn profile_import_refuses_devices_and_oversized_files() {
    let stderr = |args: &[std::ffi::OsString]| demo_support::usage_error(args);
    let os = |s: &str| std::ffi::OsString::from(s);
    let said = stderr(&[
        os("profile"),
        os("import"),
        os("--from"),
        os("polly"),
        os("/dev/zero"),
    ]);
    assert_eq!(
        said,
        "error: /dev/zero: cannot read the file to import: it is not a regular file (a device or a pipe has no end to read)\n"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let big = dir.path().join("appsettings.json");
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(16 * 1024 * 1024 + 1))
        .expect("sparse file");
    let said = stderr(&[
        os("profile"),
        os("import"),
        os("--from"),
        os("polly"),
        big.clone().into(),
    ]);
    assert!(
        said.contains("more than the 16 MiB limit for retry settings to import"),
        "{said}"
    );
}
