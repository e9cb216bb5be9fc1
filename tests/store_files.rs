//! The request library and environments on disk (temp folders only), with the in-memory
//! secret store: round trips, atomic saves, and no secret value in any byte written.

use retryscope::model::{
    AuthKind, ENVIRONMENT_FORMAT, Environment, KeyValue, RequestDraft, SAVED_REQUEST_FORMAT,
    SavedRequest, Variable,
};
use retryscope::store::{
    EnvironmentStore, MemorySecretStore, RequestLibrary, SecretStore, StoreError, secret_key,
};
use std::path::Path;
use std::sync::Arc;

const SECRETS: [&str; 5] = [
    "hdr-s3cret-1",
    "qry-s3cret-2",
    "bearer-s3cret-3",
    "basic-s3cret-4",
    "env-s3cret-5",
];

/// Every byte of every file under `dir` (recursively), with its path.
fn all_files(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)
        .expect("list")
        .map(|e| e.expect("entry"))
    {
        let path = entry.path();
        if path.is_dir() {
            out.extend(all_files(&path));
        } else {
            let bytes = std::fs::read(&path).expect("read");
            out.push((path, bytes));
        }
    }
    out
}

fn assert_no_secret_bytes(dir: &Path) {
    let files = all_files(dir);
    assert!(!files.is_empty(), "something was written");
    for (path, bytes) in files {
        let text = String::from_utf8_lossy(&bytes);
        for s in SECRETS {
            assert!(
                !text.contains(s),
                "{s} written to {}:\n{text}",
                path.display()
            );
        }
    }
}

fn draft_with_secrets() -> RequestDraft {
    let mut d = RequestDraft {
        method: "POST".into(),
        url: "http://127.0.0.1:9/orders?x={{host}}".into(),
        ..RequestDraft::default()
    };
    d.headers.push(KeyValue::new("Authorization", SECRETS[0]));
    d.headers.push(KeyValue::new("Accept", "application/json"));
    d.query.push(KeyValue {
        secret: true,
        ..KeyValue::new("sig", SECRETS[1])
    });
    d.auth.kind = AuthKind::Basic;
    d.auth.bearer_token = SECRETS[2].into();
    d.auth.basic_user = "alice".into();
    d.auth.basic_password = SECRETS[3].into();
    d
}

#[test]
fn saved_requests_round_trip_without_secrets() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = RequestLibrary::in_data_dir(dir.path());
    let draft = draft_with_secrets();
    let saved = lib.save_new("Create order", &draft).expect("saves");
    // Even a SavedRequest built by hand with secrets in it is blanked on save.
    let mut raw = saved.clone();
    raw.request = draft.clone();
    lib.save(&raw).expect("saves again");
    assert_no_secret_bytes(dir.path());

    let listed = lib.list();
    assert!(listed.problems.is_empty(), "{:?}", listed.problems);
    assert_eq!(listed.requests.len(), 1);
    let back = &listed.requests[0];
    assert_eq!(back.format, SAVED_REQUEST_FORMAT);
    assert_eq!(back.name, "Create order");
    assert_eq!(back.request, draft.without_secrets());
    assert_eq!(
        back.request.auth.basic_user, "alice",
        "non-secret auth kept"
    );
    assert_eq!(back.request.headers[1].value, "application/json");
    let text = std::fs::read_to_string(lib.path_of(&saved.id)).expect("file");
    assert!(
        text.contains("\"format\": \"retryscope-request/1\""),
        "{text}"
    );
}

#[test]
fn rename_duplicate_delete_and_search() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = RequestLibrary::in_data_dir(dir.path());
    let a = lib
        .save_new("health", &RequestDraft::demo("http://127.0.0.1:9", 503))
        .expect("saves");
    lib.rename(&a.id, "  Health check ").expect("renames");
    let copy = lib.duplicate(&a.id).expect("duplicates");
    assert_ne!(copy.id, a.id);
    assert_eq!(copy.name, "Health check (copy)");
    let names: Vec<String> = lib.list().requests.into_iter().map(|r| r.name).collect();
    assert_eq!(names, ["Health check", "Health check (copy)"]);
    assert!(copy.matches("COPY"));
    assert!(copy.matches("status/503"), "search looks at the URL");
    assert!(!copy.matches("nothing like it"));
    assert!(matches!(
        lib.rename(&a.id, "   "),
        Err(StoreError::Invalid(_))
    ));
    lib.delete(&a.id).expect("deletes");
    lib.delete(&a.id).expect("deleting twice is fine");
    let left = lib.list().requests;
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].id, copy.id);
    assert!(matches!(lib.load(&a.id), Err(StoreError::NotFound { .. })));
    assert!(matches!(
        lib.load("../etc/passwd"),
        Err(StoreError::Invalid(_))
    ));
}

#[test]
fn unreadable_files_are_reported_and_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = RequestLibrary::in_data_dir(dir.path());
    lib.save_new("ok", &RequestDraft::default()).expect("saves");
    std::fs::write(lib.dir().join("broken.json"), "{ not json").expect("write");
    let future = SavedRequest {
        format: "retryscope-request/99".into(),
        ..SavedRequest::new("f", "future", &RequestDraft::default())
    };
    std::fs::write(
        lib.dir().join("f.json"),
        serde_json::to_string(&future).expect("json"),
    )
    .expect("write");
    let listed = lib.list();
    assert_eq!(listed.requests.len(), 1);
    assert_eq!(listed.problems.len(), 2, "{:?}", listed.problems);
    assert!(
        listed
            .problems
            .iter()
            .any(|p| p.contains("unknown format `retryscope-request/99`")),
        "{:?}",
        listed.problems
    );
    assert!(lib.dir().join("broken.json").exists(), "left untouched");
}

#[test]
fn a_failed_save_keeps_the_old_file_and_leaves_no_temp_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("x.json");
    std::fs::write(&target, "old").expect("seed");
    let err = retryscope::store::write_atomic_with_hook(
        &target,
        b"new",
        retryscope::store::Access::Private,
        |_| Err(std::io::Error::other("disk full (injected)")),
    )
    .expect_err("injected");
    assert!(err.to_string().contains("disk full"), "{err}");
    assert_eq!(std::fs::read_to_string(&target).expect("read"), "old");
    assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 1);
}

/// The process's umask, read from `/proc/self/status` (Linux).
#[cfg(target_os = "linux")]
fn umask() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").expect("status");
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix("Umask:"))
        .expect("Umask line");
    u32::from_str_radix(line.trim(), 8).expect("octal")
}

#[cfg(target_os = "linux")]
#[test]
fn exports_are_readable_as_the_users_files_and_app_data_stays_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    let export = dir.path().join("run.har");
    retryscope::store::write_export(&export, b"{}").expect("exports");
    assert_eq!(mode(&export), 0o666 & !umask());
    // Replacing a file keeps the mode the user gave it.
    std::fs::set_permissions(&export, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    retryscope::store::write_export(&export, b"{ }").expect("exports again");
    assert_eq!(mode(&export), 0o640);
    let own = dir.path().join("data").join("x.json");
    retryscope::store::write_atomic(&own, b"{}").expect("writes");
    assert_eq!(mode(&own), 0o600);
}

#[test]
fn an_export_into_a_missing_folder_is_refused_and_creates_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("typo").join("out.csv");
    let err = retryscope::store::write_export(&target, b"a,b").expect_err("no folder");
    assert_eq!(
        err.to_string(),
        format!(
            "the folder does not exist (create it first): {}",
            dir.path().join("typo").display()
        )
    );
    assert!(!dir.path().join("typo").exists());
}

fn env_store(dir: &Path) -> (EnvironmentStore, Arc<MemorySecretStore>) {
    let secrets = Arc::new(MemorySecretStore::new());
    let store = EnvironmentStore::in_data_dir(dir, secrets.clone() as Arc<dyn SecretStore>);
    (store, secrets)
}

#[test]
fn environments_keep_secret_values_in_the_secret_store_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, secrets) = env_store(dir.path());
    let mut env = Environment::new("local dev");
    env.variables = vec![
        Variable::new("host", "127.0.0.1:9"),
        Variable::secret("token", SECRETS[4]),
    ];
    let path = store.save(&env).expect("saves");
    assert_eq!(
        path.file_name().and_then(|n| n.to_str()),
        Some("local-dev.json")
    );
    assert_no_secret_bytes(dir.path());
    assert_eq!(secrets.keys(), [secret_key("local dev", "token")]);
    assert_eq!(store.load("local dev").expect("loads"), env);
    let from_file = store.read("local dev").expect("reads");
    assert_eq!(from_file.format, ENVIRONMENT_FORMAT);
    assert_eq!(from_file.variables[1].value, "", "the file holds no secret");

    // Unmarking the secret moves its value into the file and out of the store.
    env.variables[1].secret = false;
    env.variables[1].value = "now-public".into();
    store.save(&env).expect("saves");
    assert!(secrets.keys().is_empty(), "{:?}", secrets.keys());

    // Rename moves the secrets; delete removes file and secrets.
    env.variables[1] = Variable::secret("token", SECRETS[4]);
    store.save(&env).expect("saves");
    store.rename("local dev", "staging").expect("renames");
    assert_eq!(secrets.keys(), [secret_key("staging", "token")]);
    assert!(matches!(
        store.read("local dev"),
        Err(StoreError::NotFound { .. })
    ));
    assert_eq!(
        store.load("staging").expect("loads").variables[1].value,
        SECRETS[4]
    );
    store.delete("staging").expect("deletes");
    assert!(secrets.keys().is_empty());
    assert!(store.list().environments.is_empty());
    assert_no_secret_bytes_or_empty(dir.path());
}

fn assert_no_secret_bytes_or_empty(dir: &Path) {
    for (path, bytes) in all_files(dir) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(SECRETS[4]), "{}", path.display());
    }
}

#[test]
fn a_secret_typed_into_an_environment_file_by_hand_is_not_used() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, _secrets) = env_store(dir.path());
    std::fs::create_dir_all(store.dir()).expect("mkdir");
    std::fs::write(
        store.dir().join("hand.json"),
        r#"{"format":"retryscope-environment/1","name":"hand",
            "variables":[{"name":"token","value":"plain","secret":true}]}"#,
    )
    .expect("write");
    let env = store.load("hand").expect("loads");
    assert_eq!(
        env.variables[0].value, "",
        "secret values come from the store only"
    );
}

#[test]
fn same_slug_names_get_their_own_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, _) = env_store(dir.path());
    store.save(&Environment::new("a b")).expect("saves");
    store.save(&Environment::new("a-b")).expect("saves");
    let names: Vec<String> = store
        .list()
        .environments
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(names, ["a b", "a-b"]);
    assert!(matches!(
        store.rename("a b", "a-b"),
        Err(StoreError::Invalid(_))
    ));
}

#[cfg(unix)]
#[test]
fn an_export_through_a_symlink_writes_its_target_and_keeps_the_link() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("real.json");
    std::fs::write(&target, b"old").expect("seed");
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink("real.json", &link).expect("symlink");
    retryscope::store::write_export(&link, b"new").expect("exports");
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("meta")
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read(&target).expect("read"), b"new");
    // A dangling link creates the file it points to.
    let dangling = dir.path().join("later.json");
    std::os::unix::fs::symlink("made.json", &dangling).expect("symlink");
    retryscope::store::write_export(&dangling, b"made").expect("exports");
    assert!(
        std::fs::symlink_metadata(&dangling)
            .expect("meta")
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read(dir.path().join("made.json")).expect("read"),
        b"made"
    );
}

#[cfg(unix)]
#[test]
fn an_export_to_a_fifo_writes_through_and_leaves_the_fifo_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(&fifo).expect("reads the fifo"))
    };
    retryscope::store::write_export(&fifo, b"through the pipe").expect("writes through");
    // Checked before joining: a replaced fifo would leave the reader waiting for ever.
    let kind = std::fs::symlink_metadata(&fifo).expect("meta").file_type();
    assert!(kind.is_fifo(), "the fifo was replaced by a {kind:?}");
    assert_eq!(reader.join().expect("reader"), b"through the pipe");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).expect("ls").collect();
    assert_eq!(leftovers.len(), 1, "no temporary file is left");
}

#[test]
fn an_export_onto_a_folder_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let err = retryscope::store::write_export(dir.path(), b"x").expect_err("a folder");
    assert!(
        err.to_string().starts_with("is a folder, not a file: "),
        "{err}"
    );
}
