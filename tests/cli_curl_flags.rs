//! `retryscope run`'s curl flags (`-i -o --no-body -s -u -k --cacert -L --max-redirs --no-follow -F`)
//! against the demo server started in this test process (loopback only).

mod demo_support;
mod fault_support;

use assert_cmd::Command;
use demo_support::Demo;
use std::io::Write;
use std::time::Duration;

/// A demo server on 127.0.0.1 with the runtime that serves it.
/// `retryscope run` with a fast profile (fixed 10 ms waits, 429/503 retried, 3 retries).
fn run(dir: &tempfile::TempDir) -> Command {
    let path = dir.path().join("fast.json");
    let mut f = std::fs::File::create(&path).expect("create");
    f.write_all(
        br#"{
  "format": "retryscope-profile/1",
  "name": "fast",
  "max_retries": 3,
  "retry_on": { "status": [429, 503] },
  "backoff": { "strategy": "fixed", "base_delay_ms": 10 }
}"#,
    )
    .expect("write");
    let mut cmd = demo_support::sandboxed();
    cmd.args(["run", "--seed", "1", "--profile"])
        .arg(path)
        .timeout(Duration::from_secs(30));
    cmd
}

/// Runs `cmd` expecting exit `code`; returns stdout and stderr.
fn output(cmd: &mut Command, code: i32) -> (String, String) {
    let out = cmd.assert().code(code).get_output().clone();
    (
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

#[test]
fn include_prints_the_final_response_headers_with_secrets_masked() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let url = demo.url("/header?name=Set-Cookie&value=sess%3Dabc123&status=200&key=curl-i");
    let (stdout, _) = output(run(&dir).arg("-i").arg(&url), 0);
    assert!(stdout.contains("\n< HTTP/1.1 200 OK\n"), "{stdout}");
    assert!(stdout.contains("\n< set-cookie: ***\n"), "{stdout}");
    assert!(
        stdout.contains("\n< content-type: application/json\n"),
        "{stdout}"
    );
    assert!(!stdout.contains("sess=abc123"), "{stdout}");
    // Without -i no response header prints.
    let (stdout, _) = output(run(&dir).arg(&url), 0);
    assert!(!stdout.contains("< "), "{stdout}");
}

#[test]
fn a_short_text_body_prints_before_the_summary_unless_no_body() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let url = demo.url("/status/503?times=1&key=curl-body");
    let (stdout, _) = output(run(&dir).arg(&url), 0);
    let lines: Vec<&str> = stdout.lines().collect();
    // `key` is a secret query name (DESIGN.md §9): the echoed value is masked too.
    let body = r#"{"attempt":2,"key":"***","status":200}"#;
    let at = lines.iter().position(|l| *l == body).expect(&stdout);
    assert!(
        lines[at - 1].starts_with("attempt 2 "),
        "after the timeline: {stdout}"
    );
    assert!(
        lines[at + 1].starts_with("succeeded on attempt 2"),
        "{stdout}"
    );
    let (stdout, _) = output(run(&dir).arg("--no-body").arg(&url), 0);
    assert!(!stdout.contains("curl-body\""), "{stdout}");
    // Longer than 4 KiB: one line instead.
    let (stdout, _) = output(run(&dir).arg(demo.url("/bytes?n=5000")), 0);
    assert!(
        stdout.contains(
            "\nbody: 5000 bytes, longer than 4096 bytes, not shown (save it with -o FILE"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("xxxx"), "{stdout}");
}

#[test]
fn output_streams_the_whole_final_body_of_any_size_to_the_file() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("answer.bin");
    std::fs::write(&file, b"old").expect("write");
    // Past the 100 MiB a body kept in memory once had to stay under.
    let n = 100 * 1024 * 1024 + 12_345;
    let url = demo.url(&format!("/bytes?n={n}"));
    let (stdout, _) = output(run(&dir).arg("-o").arg(&file).arg(&url), 0);
    assert!(
        stdout.contains(&format!("\nbody: {n} bytes saved to {}\n", file.display())),
        "{stdout}"
    );
    let saved = std::fs::read(&file).expect("saved");
    assert_eq!(saved.len(), n);
    assert!(saved.iter().all(|b| *b == b'x'));
    // No temp files left behind.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn output_with_json_saves_the_file_and_keeps_the_events_as_without_it() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("answer.bin");
    let n = retryscope::engine::BODY_PREVIEW_CAP + 10;
    let (stdout, stderr) = output(
        run(&dir)
            .args(["--json", "-o"])
            .arg(&file)
            .arg(demo.url(&format!("/bytes?n={n}"))),
        0,
    );
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(std::fs::read(&file).expect("saved").len(), n);
    let finished: serde_json::Value = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON"))
        .find(|e| e["event"] == "attempt_finished")
        .expect("attempt_finished");
    let body = &finished["outcome"]["body"];
    assert_eq!(body["truncated"], true, "{body}");
    assert_eq!(body["total_bytes"], n);
    assert_eq!(
        body["bytes"]["utf8"].as_str().expect("text").len(),
        retryscope::engine::BODY_PREVIEW_CAP
    );
}

#[test]
fn output_without_a_response_says_so_and_leaves_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("answer.bin");
    std::fs::write(&file, b"old").expect("write");
    // Nothing listens on the demo server's port after it is dropped.
    let url = Demo::start().url("/status/200");
    let (_, stderr) = output(
        run(&dir)
            .args(["--max-retries", "0", "-o"])
            .arg(&file)
            .arg(&url),
        1,
    );
    assert!(
        stderr.contains("error: no response body to save (attempt 1 ended in a connect error)"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&file).expect("kept"), b"old");
}

#[test]
fn silent_prints_the_summary_only() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let url = demo.url("/status/503?times=2&key=curl-s");
    let (stdout, _) = output(
        run(&dir)
            .args(["-s", "--no-body", "-H", "X-A: b"])
            .arg(&url),
        0,
    );
    assert_eq!(
        stdout.lines().count(),
        2,
        "summary and seed lines only: {stdout}"
    );
    assert!(stdout.starts_with("succeeded on attempt 3"), "{stdout}");
    assert!(
        stdout.ends_with("seed 1 (replay with --seed 1)\n"),
        "{stdout}"
    );
}

#[test]
fn user_sends_basic_auth_that_never_prints() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let (stdout, stderr) = output(
        run(&dir)
            .args(["-u", "alice:s3cret-pw"])
            .arg(demo.url("/echo")),
        0,
    );
    // base64("alice:s3cret-pw")
    let b64 = "YWxpY2U6czNjcmV0LXB3";
    let sent = demo
        .server
        .log()
        .iter()
        .find_map(|e| e.header("authorization").map(str::to_owned))
        .expect("the server got an Authorization header");
    assert_eq!(sent, format!("Basic {b64}"));
    assert!(stdout.contains("> Authorization: ***"), "{stdout}");
    // The echo server sends it back in its body: masked there too.
    assert!(stdout.contains(r#""authorization","***""#), "{stdout}");
    for leak in ["s3cret-pw", b64] {
        assert!(
            !stdout.contains(leak) && !stderr.contains(leak),
            "{stdout}{stderr}"
        );
    }
    let (_, stderr) = output(run(&dir).args(["-u", "alice"]).arg(demo.url("/echo")), 2);
    assert!(stderr.contains("-u needs USER:PASSWORD"), "{stderr}");
}

/// A redirect to another origin (another port) leaves the API key behind and the timeline says
/// so; `--location-trusted` keeps it, as in curl.
#[test]
fn secret_headers_stop_at_another_origin_unless_location_trusted() {
    let a = Demo::start();
    let b = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let url = a.url(&format!("/redirect?to={}", b.url("/echo")));
    let (stdout, _) = output(run(&dir).args(["-H", "X-Api-Key: k-1234567", &url]), 0);
    assert!(
        stdout.contains("(not sent to the new origin: x-api-key)\n"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("\"x-api-key\""),
        "the echo never saw it: {stdout}"
    );
    let (stdout, _) = output(
        run(&dir).args(["--location-trusted", "-H", "X-Api-Key: k-1234567", &url]),
        0,
    );
    assert!(!stdout.contains("not sent to the new origin"), "{stdout}");
}

#[test]
fn redirects_are_followed_limited_or_not_followed() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    // Two hops: /redirect → /redirect → /status/200.
    let url = demo.url("/redirect?to=/redirect%3Fto%3D/status/200");
    for flags in [&[][..], &["-L"][..]] {
        let (stdout, _) = output(run(&dir).args(flags).arg(&url), 0);
        assert_eq!(stdout.matches("  redirect 302 GET ").count(), 2, "{stdout}");
    }
    let (stdout, _) = output(run(&dir).args(["--max-redirs", "1"]).arg(&url), 1);
    assert!(
        stdout.contains("too many redirects: more than 1 hops"),
        "{stdout}"
    );
    let (stdout, _) = output(run(&dir).arg("--no-follow").arg(&url), 1);
    assert!(stdout.contains("  302  "), "{stdout}");
    assert!(!stdout.contains("  redirect "), "{stdout}");
    // The answer the user asked to see, said as such with where it points (not "302 is not
    // retryable"); still `stopped` (DESIGN.md §4: success is the profile's success_status).
    let said = "302 redirect not followed (Location: /redirect?to=/status/200)";
    assert!(stdout.contains(&format!("  stop: {said}\n")), "{stdout}");
    assert!(
        stdout.contains(&format!("\nstopped: {said}  (1 attempt")),
        "{stdout}"
    );
    // A profile whose success_status takes 3xx ends such a run in success.
    let profile = dir.path().join("redirect-ok.json");
    std::fs::write(
        &profile,
        r#"{"format": "retryscope-profile/2", "name": "3xx ok", "max_retries": 0,
            "success_status": ["200-399"], "backoff": {"strategy": "fixed", "base_delay_ms": 1}}"#,
    )
    .expect("write");
    let (stdout, _) = output(
        demo_support::sandboxed()
            .args(["run", "--no-follow", "--profile"])
            .arg(&profile)
            .arg(&url),
        0,
    );
    assert!(
        stdout.contains("  302  ") && stdout.contains("  success"),
        "{stdout}"
    );
}

#[test]
fn form_sends_multipart_text_and_file_parts() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let upload = dir.path().join("notes.txt");
    std::fs::write(&upload, "file line\n").expect("write");
    let echoed = dir.path().join("echo.json");
    output(
        run(&dir)
            .args(["-F", "greeting=hello world", "-F"])
            .arg(format!("notes=@{};type=text/plain", upload.display()))
            .arg("-o")
            .arg(&echoed)
            .arg(demo.url("/echo")),
        0,
    );
    let echo: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&echoed).expect("saved")).expect("JSON");
    assert_eq!(echo["method"], "POST", "-F implies POST");
    let content_type = echo["headers"]
        .as_array()
        .expect("headers")
        .iter()
        .find(|h| h[0] == "content-type")
        .and_then(|h| h[1].as_str())
        .expect("content-type")
        .to_owned();
    let boundary = content_type
        .strip_prefix("multipart/form-data; boundary=")
        .expect(&content_type);
    assert_eq!(
        echo["body"].as_str().expect("body"),
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"greeting\"\r\n\r\nhello world\r\n\
             --{boundary}\r\nContent-Disposition: form-data; name=\"notes\"; filename=\"notes.txt\"\r\n\
             Content-Type: text/plain\r\n\r\nfile line\n\r\n--{boundary}--\r\n"
        )
    );
    let (_, stderr) = output(
        run(&dir)
            .args(["-F", "a=1", "-d", "x"])
            .arg(demo.url("/echo")),
        2,
    );
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}

#[test]
fn text_only_flags_are_refused_with_json() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    for flag in ["-i", "-s", "--no-body"] {
        let (_, stderr) = output(
            run(&dir)
                .args(["--json", flag])
                .arg(demo.url("/status/200")),
            2,
        );
        assert!(stderr.contains("cannot be used with"), "{flag}: {stderr}");
    }
    let (_, stderr) = output(
        run(&dir)
            .args(["--json", "-o", "-"])
            .arg(demo.url("/status/200")),
        2,
    );
    assert!(
        stderr.contains("-o - writes the body to stdout, where --json writes the events"),
        "{stderr}"
    );
}

#[test]
fn output_dash_writes_the_whole_body_to_stdout_and_the_timeline_to_stderr() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    // 5000 bytes: longer than the 4 KiB printed by default, written whole.
    let (stdout, stderr) = output(
        run(&dir).args(["-o", "-"]).arg(demo.url("/bytes?n=5000")),
        0,
    );
    assert_eq!(stdout.len(), 5000, "{stderr}");
    assert!(stdout.bytes().all(|b| b == b'x'), "only the body: {stdout}");
    assert!(stderr.contains("attempt 1 "), "{stderr}");
    assert!(
        stderr.contains("body: 5000 bytes written to stdout"),
        "{stderr}"
    );
    assert!(stderr.contains("succeeded on attempt 1"), "{stderr}");
}

#[test]
fn insecure_accepts_a_self_signed_certificate_that_is_refused_without_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!(
        "https://127.0.0.1:{}/",
        fault_support::tls_server(fault_support::Cert::SelfSigned)
    );
    let (stdout, _) = output(run(&dir).arg(&url), 1);
    assert!(
        stdout.contains("  tls error ("),
        "verified by default: {stdout}"
    );
    let (stdout, _) = output(run(&dir).arg("-k").arg(&url), 0);
    assert!(
        stdout.contains("  200  ") && stdout.contains("\nok\n"),
        "{stdout}"
    );
}

#[test]
fn cacert_trusts_a_private_ca_and_a_bad_file_is_a_usage_error_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = fault_support::tls_server_signed_by_private_ca(&["127.0.0.1"]);
    let url = format!("https://127.0.0.1:{}/", server.port);
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, &server.ca_pem).expect("write");
    let (stdout, _) = output(run(&dir).arg("--cacert").arg(&ca).arg(&url), 0);
    assert!(
        stdout.contains("  200  ") && stdout.contains("\nok\n"),
        "{stdout}"
    );
    let (stdout, _) = output(run(&dir).arg(&url), 1);
    assert!(
        stdout.contains("not signed by a trusted authority"),
        "without --cacert: {stdout}"
    );
    let missing = dir.path().join("missing.pem");
    let (_, stderr) = output(run(&dir).arg("--cacert").arg(&missing).arg(&url), 2);
    assert!(
        stderr.contains("cannot use the CA certificate file of --cacert: ")
            && stderr.contains(&missing.display().to_string()),
        "{stderr}"
    );
}

#[test]
fn output_writes_the_raw_body_and_reports_its_byte_count() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("echo.json");
    // The echo quotes the secret header back; the screen masks it, the file keeps it.
    let (stdout, _) = output(
        run(&dir)
            .args(["-H", "Authorization: Bearer raw-secret-7", "-o"])
            .arg(&file)
            .arg(demo.url("/echo")),
        0,
    );
    let saved = std::fs::read(&file).expect("saved");
    let text = String::from_utf8_lossy(&saved);
    assert!(
        text.contains("raw-secret-7"),
        "the file is what the server sent: {text}"
    );
    assert!(
        stdout.contains(&format!(
            "\nbody: {} bytes saved to {}\n",
            saved.len(),
            file.display()
        )),
        "the count is what was written: {stdout}"
    );
    assert!(!stdout.contains("raw-secret-7"), "{stdout}");
}

/// `-b NAME=VALUE` (repeatable) sends one `Cookie` header, secret like every cookie; a value
/// without `=` (curl's cookie file) is refused without repeating it.
#[test]
fn cookie_sends_one_secret_cookie_header() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let (stdout, stderr) = output(
        run(&dir)
            .args(["-b", "session=abc123", "-b", "theme=dark"])
            .arg(demo.url("/echo?key=cookie-b")),
        0,
    );
    let sent = demo
        .server
        .log()
        .iter()
        .find_map(|e| e.header("cookie").map(str::to_owned))
        .expect("the server got a Cookie header");
    assert_eq!(sent, "session=abc123; theme=dark");
    assert!(stdout.contains("> Cookie: ***"), "{stdout}");
    assert!(
        !stdout.contains("abc123") && !stderr.contains("abc123"),
        "{stdout}{stderr}"
    );
    let (_, stderr) = output(
        run(&dir)
            .args(["-b", "jar-with-secret.txt"])
            .arg(demo.url("/echo?key=cookie-file")),
        2,
    );
    assert!(
        stderr.contains("-b takes cookies as NAME=VALUE"),
        "{stderr}"
    );
    assert!(!stderr.contains("jar-with-secret"), "{stderr}");
}

/// `retryscope curl … -o FILE` writes the final body to FILE, as `run -o` does (it was
/// ignored with a warning).
#[test]
fn curl_output_writes_the_final_body() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("body.json");
    let mut cmd = demo_support::sandboxed();
    cmd.args(["curl", "--no-history", "-o"])
        .arg(&file)
        .arg(demo.url("/status/200?key=curl-o"))
        .timeout(Duration::from_secs(30));
    let (stdout, stderr) = output(&mut cmd, 0);
    assert!(!stderr.contains("ignored"), "{stderr}");
    assert!(stdout.contains("saved to"), "{stdout}");
    let body = std::fs::read_to_string(&file).expect("the body was written");
    assert!(body.contains("\"status\":200"), "{body}");
}
