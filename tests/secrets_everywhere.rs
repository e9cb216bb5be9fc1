//! DESIGN.md §9 end to end: a request to the demo server on 127.0.0.1 carries a distinct secret
//! in every place the rule names; `retryscope run` (text and `--json`) prints it, the demo
//! server echoes it back, and then every byte printed and every file under the process's data,
//! config and home folders is searched: no secret appears.

mod demo_support;

use assert_cmd::Command;
use demo_support::Demo;
use retryscope::model::{Environment, Variable};
use retryscope::store::{EnvironmentStore, MemorySecretStore};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

/// Every query parameter name §9 calls secret.
const SECRET_QUERY_NAMES: [&str; 16] = [
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "api_key",
    "apikey",
    "key",
    "sig",
    "signature",
    "password",
    "passwd",
    "secret",
    "client_secret",
    "code",
    "auth",
    "session",
];

/// One header of each secret kind of §9.
const SECRET_HEADERS: [&str; 12] = [
    "Authorization",
    "Proxy-Authorization",
    "Cookie",
    "Set-Cookie",
    "X-Auth-Token",
    "X-Client-Secret",
    "X-Api-Key",
    "X-Apikey",
    "X-Api_key",
    "X-Password",
    "X-Session",
    "X-Signature",
];

/// A folder tree standing in for the user's home, data and config folders.
struct Folders {
    root: tempfile::TempDir,
}

impl Folders {
    fn new() -> Self {
        let root = tempfile::tempdir().expect("tempdir");
        for sub in ["home", "data", "config", "cache"] {
            std::fs::create_dir_all(root.path().join(sub)).expect("mkdir");
        }
        Self { root }
    }

    fn data(&self) -> std::path::PathBuf {
        self.root.path().join("data")
    }

    fn command(&self) -> Command {
        let mut cmd = Command::cargo_bin("retryscope").expect("binary built");
        let r = self.root.path();
        cmd.env("RETRYSCOPE_KEYRING", "memory")
            .env_remove("RETRYSCOPE_DATA_DIR")
            .env("HOME", r.join("home"))
            .env("XDG_DATA_HOME", r.join("home"))
            .env("XDG_CONFIG_HOME", r.join("config"))
            .env("XDG_CACHE_HOME", r.join("cache"))
            .timeout(std::time::Duration::from_mins(1));
        cmd
    }
}

fn all_file_bytes(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).expect("readable dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            all_file_bytes(&path, out);
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((path.display().to_string(), bytes));
        }
    }
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

/// Runs `args` and returns stdout + stderr.
fn printed(folders: &Folders, args: &[String]) -> Vec<u8> {
    let out = folders
        .command()
        .args(args)
        .output()
        .expect("retryscope runs");
    let mut bytes = out.stdout;
    bytes.extend_from_slice(&out.stderr);
    bytes
}

#[test]
fn no_secret_is_printed_or_written_anywhere() {
    let demo = Demo::start();
    let folders = Folders::new();
    // A secret variable: marked secret in the environment, its value given with --var.
    let store = EnvironmentStore::in_data_dir(&folders.data(), Arc::new(MemorySecretStore::new()));
    let mut env = Environment::new("local");
    env.variables = vec![Variable::secret("vsecret", "not-this-one")];
    store.save(&env).expect("saves");

    let mut secrets: Vec<String> = vec![
        "urlUserSecret1".into(),
        "urlPassSecret2".into(),
        "varSecretValue3".into(),
    ];
    let addr = demo.server.addr();
    let mut url = format!("http://urlUserSecret1:urlPassSecret2@{addr}/echo?plain=visible1");
    for (i, name) in SECRET_QUERY_NAMES.iter().enumerate() {
        let value = format!("querySecret{i}x{name}");
        let _ = write!(url, "&{name}={value}");
        secrets.push(value);
    }
    url.push_str("&note={{vsecret}}");
    let mut common: Vec<String> = vec![
        "--data-dir".into(),
        folders.data().display().to_string(),
        "--env".into(),
        "local".into(),
        "--var".into(),
        "vsecret=varSecretValue3".into(),
        "--builtin".into(),
        "servicenow-exponential".into(),
    ];
    for (i, name) in SECRET_HEADERS.iter().enumerate() {
        let value = format!("headerSecret{i}");
        common.push("-H".into());
        common.push(if *name == "Authorization" {
            format!("{name}: Bearer {value}")
        } else {
            format!("{name}: {value}")
        });
        secrets.push(value);
    }
    // A header whose name is harmless, marked secret because it holds a secret variable.
    common.push("-H".into());
    common.push("X-Plain: {{vsecret}}".into());
    common.push("-H".into());
    common.push("X-Visible: visible2".into());

    let mut output = Vec::new();
    for json in [false, true] {
        let mut args = vec!["run".to_owned()];
        args.extend(common.iter().cloned());
        if json {
            args.push("--json".into());
        }
        args.push(url.clone());
        let bytes = printed(&folders, &args);
        // The run happened, printed its non-secret parts, and the server saw the secrets.
        let text = String::from_utf8_lossy(&bytes).into_owned();
        assert!(text.contains("visible1"), "{text}");
        if !json {
            assert!(text.contains("X-Visible: visible2"), "{text}");
            assert!(text.contains("sig=***"), "{text}");
            assert!(text.contains("http://***:***@"), "{text}");
        }
        output.extend(bytes);
    }
    let log = demo.server.log();
    assert_eq!(log.len(), 2, "two runs of one attempt each");
    assert!(log[0].path.contains("querySecret7xsig"), "{}", log[0].path);
    assert_eq!(log[0].header("x-plain"), Some("varSecretValue3"));

    // URL credentials alone are sent as `Authorization: Basic …`, which /echo repeats.
    let basic_url = format!("http://basicUser1:basicPass2@{addr}/echo");
    for json in ["--json", "--seed=1"] {
        let args: Vec<String> = vec![
            "run".into(),
            json.into(),
            "--data-dir".into(),
            folders.data().display().to_string(),
            basic_url.clone(),
        ];
        output.extend(printed(&folders, &args));
    }
    assert_eq!(
        demo.server.log()[2].header("authorization"),
        Some("Basic YmFzaWNVc2VyMTpiYXNpY1Bhc3My")
    );
    secrets.extend(["basicUser1", "basicPass2", "YmFzaWNVc2VyMTpiYXNpY1Bhc3My"].map(String::from));

    // A Set-Cookie *response* header (its value is in the URL, so only the header is checked).
    let cookie_url = format!("http://{addr}/header?name=Set-Cookie&value=respCookie9&status=200");
    let mut args: Vec<String> = ["run", "--json", "--data-dir"].map(String::from).to_vec();
    args.push(folders.data().display().to_string());
    args.push(cookie_url);
    let cookie_out = String::from_utf8_lossy(&printed(&folders, &args)).into_owned();
    assert!(
        cookie_out.contains(r#"["set-cookie","***"]"#),
        "{cookie_out}"
    );

    // Errors quoting the URL: a refused connection and an invalid URL.
    for (i, bad) in [
        "http://errUser4:errPass5@127.0.0.1:1/x?token=errToken6",
        "http://errUser7:errPass8@127.0.0.1:99999/x?sig=errSig9",
    ]
    .iter()
    .enumerate()
    {
        for json in [false, true] {
            let mut args: Vec<String> = ["run", "--max-retries", "0", "--data-dir"]
                .map(String::from)
                .to_vec();
            args.push(folders.data().display().to_string());
            if json {
                args.push("--json".into());
            }
            args.push((*bad).to_owned());
            output.extend(printed(&folders, &args));
        }
        let base = 4 + 3 * i;
        secrets.extend([format!("errUser{base}"), format!("errPass{}", base + 1)]);
    }
    secrets.extend(["errToken6".to_owned(), "errSig9".to_owned()]);

    let mut files = Vec::new();
    all_file_bytes(folders.root.path(), &mut files);
    assert!(!files.is_empty(), "the environment file at least");
    for secret in &secrets {
        assert!(
            !contains(&output, secret),
            "{secret} printed:\n{}",
            String::from_utf8_lossy(&output)
        );
        for (path, bytes) in &files {
            assert!(!contains(bytes, secret), "{secret} written to {path}");
        }
    }
}

/// A secret the server echoes inside a JSON string arrives escaped (`\"`, `\\`): it is masked
/// in that form too, in what is printed and in every file written (history included).
#[test]
fn a_secret_echoed_escaped_inside_json_is_masked_too() {
    let demo = Demo::start();
    let folders = Folders::new();
    let secret = r#"q"uo\te<&>Secret1"#;
    let escaped = r#"q\"uo\\te<&>Secret1"#;
    let url = format!("http://{}/echo", demo.server.addr());
    let mut output = Vec::new();
    for json in [false, true] {
        let mut args: Vec<String> = vec![
            "run".into(),
            "--data-dir".into(),
            folders.data().display().to_string(),
            "-H".into(),
            format!("X-Api-Key: {secret}"),
        ];
        if json {
            args.push("--json".into());
        }
        args.push(url.clone());
        output.extend(printed(&folders, &args));
    }
    assert_eq!(
        demo.server.log()[0].header("x-api-key"),
        Some(secret),
        "the bytes sent are the secret itself"
    );
    let text = String::from_utf8_lossy(&output).into_owned();
    assert!(text.contains("x-api-key"), "the echo was printed: {text}");
    let mut files = Vec::new();
    all_file_bytes(folders.root.path(), &mut files);
    assert!(
        files.iter().any(|(p, _)| p.ends_with("history.sqlite3")),
        "history was written"
    );
    for form in [secret, escaped] {
        assert!(!contains(&output, form), "{form} printed:\n{text}");
        for (path, bytes) in &files {
            assert!(!contains(bytes, form), "{form} written to {path}");
        }
    }
}

/// A JSON body member the rule calls secret (`password`, `client_secret`) is sent as typed
/// but stored and printed as `***`, and the server's echo of it is masked too.
#[test]
fn secret_members_of_a_json_body_are_sent_but_never_stored_or_printed() {
    let demo = Demo::start();
    let folders = Folders::new();
    let body = r#"{"username": "alice", "password": "pw-77-secret", "nested": {"client_secret": "cs-88-secret"}}"#;
    let url = format!("http://{}/echo", demo.server.addr());
    let args: Vec<String> = vec![
        "run".into(),
        "--data-dir".into(),
        folders.data().display().to_string(),
        "--json".into(),
        "-H".into(),
        "Content-Type: application/json".into(),
        "-d".into(),
        body.into(),
        url,
    ];
    let output = printed(&folders, &args);
    let received = demo.server.log()[0].body.clone();
    assert!(
        received.contains("pw-77-secret"),
        "sent as typed: {received}"
    );
    let id = String::from_utf8_lossy(&printed(
        &folders,
        &[
            "history".into(),
            "list".into(),
            "--data-dir".into(),
            folders.data().display().to_string(),
        ],
    ))
    .split_whitespace()
    .next()
    .unwrap_or_default()
    .to_owned();
    let shown = printed(
        &folders,
        &[
            "history".into(),
            "show".into(),
            "--json".into(),
            "--data-dir".into(),
            folders.data().display().to_string(),
            id,
        ],
    );
    let echoed = String::from_utf8_lossy(&output).into_owned();
    assert!(
        echoed.contains(r#"\\\"password\\\": \\\"***\\\""#),
        "the echo shows the member masked: {echoed}"
    );
    let mut files = Vec::new();
    all_file_bytes(folders.root.path(), &mut files);
    for secret in ["pw-77-secret", "cs-88-secret"] {
        assert!(
            !contains(&output, secret),
            "{secret} printed: {}",
            String::from_utf8_lossy(&output)
        );
        assert!(!contains(&shown, secret), "{secret} in history show");
        for (path, bytes) in &files {
            assert!(!contains(bytes, secret), "{secret} written to {path}");
        }
    }
}
