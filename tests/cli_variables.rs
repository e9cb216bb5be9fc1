//! `retryscope run --env/--var/--data-dir` against the demo server on 127.0.0.1. The CLI runs
//! with `RETRYSCOPE_KEYRING=memory`, so it never touches a real keyring.

mod demo_support;

use assert_cmd::Command;
use demo_support::Demo;
use retryscope::model::{Environment, Variable};
use retryscope::store::{EnvironmentStore, MemorySecretStore};
use std::sync::Arc;

/// A data folder with environment `local`: `host` = the demo server, `token` secret (its value
/// only in an in-memory store, so the CLI process has no value for it).
fn data_dir(demo: &Demo) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = EnvironmentStore::in_data_dir(dir.path(), Arc::new(MemorySecretStore::new()));
    let mut env = Environment::new("local");
    let host = demo.server.addr().to_string();
    env.variables = vec![
        Variable::new("host", host),
        Variable::secret("token", "only-in-memory"),
    ];
    store.save(&env).expect("saves");
    dir
}

fn retryscope() -> Command {
    demo_support::sandboxed()
}

#[test]
fn env_and_var_fill_url_and_headers_and_secrets_print_masked() {
    let demo = Demo::start();
    let dir = data_dir(&demo);
    let out = retryscope()
        .args(["run", "--builtin", "servicenow-exponential", "--data-dir"])
        .arg(dir.path())
        .args([
            "--env",
            "local",
            "--var",
            "token=s3cret-from-cli",
            "-H",
            "Authorization: Bearer {{token}}",
            "-H",
            "X-Token-Copy: {{token}}",
            "-H",
            "X-Host: {{ host }}",
            "http://{{host}}/echo?id={{uuid}}&t={{token}}",
        ])
        .assert()
        .code(0)
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).expect("utf-8");
    let log = demo.server.log();
    assert_eq!(log.len(), 1, "one attempt: {stdout}");
    let seen = &log[0];
    assert_eq!(seen.header("authorization"), Some("Bearer s3cret-from-cli"));
    assert_eq!(seen.header("x-token-copy"), Some("s3cret-from-cli"));
    assert_eq!(
        seen.header("x-host"),
        Some(demo.server.addr().to_string().as_str())
    );
    let id = seen
        .path
        .strip_prefix("/echo?id=")
        .and_then(|rest| rest.strip_suffix("&t=s3cret-from-cli"))
        .unwrap_or_else(|| panic!("resolved path: {}", seen.path));
    assert_eq!(id.len(), 36, "{{{{uuid}}}} became a UUID: {id}");
    assert!(
        !stdout.contains("s3cret-from-cli"),
        "secret printed:\n{stdout}"
    );
    assert!(stdout.contains("> X-Token-Copy: ***"), "{stdout}");
    assert!(stdout.contains("t=***"), "URL masked: {stdout}");
}

#[test]
fn the_data_dir_variable_works_like_the_flag() {
    let demo = Demo::start();
    let dir = data_dir(&demo);
    retryscope()
        .env("RETRYSCOPE_DATA_DIR", dir.path())
        .args([
            "run",
            "--env",
            "local",
            "--json",
            "http://{{host}}/status/200",
        ])
        .assert()
        .code(0);
    assert_eq!(demo.server.log().len(), 1);
}

#[test]
fn unknown_variables_missing_secrets_and_environments_are_usage_errors() {
    let demo = Demo::start();
    let dir = data_dir(&demo);
    let run = |extra: &[&str]| {
        let out = retryscope()
            .args(["run", "--data-dir"])
            .arg(dir.path())
            .args(extra)
            .assert()
            .code(2)
            .get_output()
            .clone();
        String::from_utf8(out.stderr).expect("utf-8")
    };
    let err = run(&[
        "--env",
        "local",
        "-H",
        "Authorization: {{nope}}",
        "http://{{host}}/echo",
    ]);
    assert!(
        err.contains("unknown variable {{nope}} in header Authorization"),
        "{err}"
    );
    let err = run(&[
        "--env",
        "local",
        "-H",
        "X-A: {{token}}",
        "http://{{host}}/echo",
    ]);
    assert!(err.contains("secret variable `token`"), "{err}");
    assert!(err.contains("--var token=VALUE"), "{err}");
    assert!(!err.contains("only-in-memory"), "{err}");
    let err = run(&["--env", "staging", "http://127.0.0.1:9/"]);
    assert!(err.contains("no environment \"staging\""), "{err}");
    let err = run(&["--var", "novalue", "http://127.0.0.1:9/"]);
    assert!(err.contains("--var name=value"), "{err}");
    assert!(demo.server.log().is_empty(), "nothing was sent");
}
