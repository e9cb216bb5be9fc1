//! DESIGN.md §9 as a property, end to end: for an arbitrary secret (quotes, backslashes,
//! `&`, `%`, `<`, `+`, `/`, `=`, spaces, non-ASCII where the place allows it) sent in every place a
//! user puts one, and echoed back by the demo server on 127.0.0.1 in its own encoding, no sink
//! holds the secret in any form a server or a file format commonly writes it: raw, JSON-escaped
//! (also `\uXXXX`), percent- and form-encoded, base64 and HTML entities. The sinks: stdout and
//! stderr of `run` (text and `--json`), `--har`, `--png`, `--log-file`, the history database,
//! `history show/export` (JSON, CSV, HAR), and a batch's JUnit, CSV and JSON Lines reports.

mod demo_support;

use base64::Engine as _;
use demo_support::{Demo, retryscope};
use proptest::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

/// Every file under `dir`, with its bytes.
fn all_files(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).expect("readable dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            all_files(&path, out);
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((path.display().to_string(), bytes));
        }
    }
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    !needle.is_empty()
        && haystack
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
}

/// `s` in the forms a server or a file format writes it.
fn encodings(s: &str) -> Vec<String> {
    let json = serde_json::to_string(s).expect("a string serialises");
    let json = json[1..json.len() - 1].to_owned();
    let mut ascii_json = String::new();
    for c in s.chars() {
        if c.is_ascii() {
            ascii_json.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units).iter() {
                let _ = write!(ascii_json, "\\u{u:04x}");
            }
        }
    }
    let html = s
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;");
    let mut forms = vec![
        s.to_owned(),
        json,
        ascii_json,
        html,
        urlencoding(s, false),
        urlencoding(s, true),
        base64::engine::general_purpose::STANDARD.encode(s),
    ];
    forms.sort();
    forms.dedup();
    forms
}

/// Percent-encoding of every byte but unreserved ones; `form` writes a space as `+`.
fn urlencoding(s: &str, form: bool) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(char::from(b));
            }
            b' ' if form => out.push('+'),
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// Visible ASCII a header value can carry, tricky characters included.
fn header_secret() -> impl Strategy<Value = String> {
    "[A-Za-z0-9\"\\\\/+=%&<>' ;:,.!#$()*?@\\[\\]^_`{|}~-]{8,20}"
        .prop_map(|tail| format!("Zq{}", tail.trim_end()))
        .prop_filter("long enough to be searched", |s| s.len() >= 10)
}

/// Any text, non-ASCII included (query values and body members carry it encoded).
fn text_secret() -> impl Strategy<Value = String> {
    "[A-Za-z0-9\"\\\\/+=%&<>' éü✓ж-]{8,20}".prop_map(|tail| format!("Zw{tail}"))
}

/// Runs `args`, returns stdout and stderr together.
fn output(data: &Path, args: &[&str]) -> Vec<u8> {
    let out = retryscope(data)
        .args(args)
        .output()
        .expect("retryscope runs");
    let mut bytes = out.stdout;
    bytes.extend_from_slice(&out.stderr);
    bytes
}

fn check(header: &str, text: &str) {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let outdir = dir.path().join("out");
    std::fs::create_dir_all(&outdir).expect("mkdir");
    let path = |name: &str| outdir.join(name).display().to_string();

    let query = urlencoding(text, true);
    let url = demo.url(&format!("/echo?plain=visible1&token={query}"));
    let auth = format!("Authorization: Bearer {header}");
    let api_key = format!("X-Api-Key: {header}");
    let body = serde_json::json!({ "user": "alice", "password": text }).to_string();
    let mut printed = Vec::new();
    for extra in [&[][..], &["--json"][..]] {
        let (har, png, log) = if extra.is_empty() {
            (path("run.har"), path("run.png"), path("run.log"))
        } else {
            (path("run2.har"), path("run2.png"), path("run2.log"))
        };
        let mut args = vec![
            "run",
            "-X",
            "POST",
            "-H",
            &auth,
            "-H",
            &api_key,
            "-H",
            "Content-Type: application/json",
            "-d",
            &body,
            "--har",
            &har,
            "--png",
            &png,
            "--log-file",
            &log,
            "--log-level",
            "debug",
        ];
        args.extend_from_slice(extra);
        args.push(&url);
        let bytes = output(&data, &args);
        assert!(
            contains(&bytes, "visible1"),
            "the run was printed: {}",
            String::from_utf8_lossy(&bytes)
        );
        printed.extend(bytes);
    }
    let seen = demo.server.log();
    assert_eq!(
        seen[0].header("authorization"),
        Some(format!("Bearer {header}").as_str()),
        "the bytes sent are the secret itself"
    );

    // The recorded runs, every way they come back out.
    let list = output(&data, &["history", "list", "--json"]);
    let ids: Vec<String> = String::from_utf8_lossy(&list)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get("id").and_then(|id| id.as_str()).map(str::to_owned))
        .collect();
    assert!(
        !ids.is_empty(),
        "runs were recorded: {}",
        String::from_utf8_lossy(&list)
    );
    printed.extend(list);
    for id in &ids {
        printed.extend(output(&data, &["history", "show", id]));
        printed.extend(output(&data, &["history", "show", "--json", id]));
        for format in ["json", "csv", "har"] {
            printed.extend(output(
                &data,
                &["history", "export", id, "--format", format],
            ));
        }
    }

    // A batch of the same request, with its three reports.
    let list_file = outdir.join("list.jsonl");
    let item = serde_json::json!({
        "method": "POST",
        "url": url,
        "headers": [["Authorization", format!("Bearer {header}")], ["X-Api-Key", header]],
        "body": { "user": "alice", "password": text },
    });
    std::fs::write(&list_file, format!("{item}\n")).expect("write list");
    for report in ["report.xml", "report.csv", "report.jsonl"] {
        let list_arg = list_file.display().to_string();
        let report_arg = path(report);
        printed.extend(output(
            &data,
            &["batch", &list_arg, "--report", &report_arg],
        ));
    }
    // The list itself holds the secret on purpose: it is the user's input, not a sink.
    std::fs::remove_file(&list_file).expect("remove list");

    let mut files = Vec::new();
    all_files(dir.path(), &mut files);
    for required in [
        "run.har",
        "run.png",
        "run.log",
        "report.xml",
        "report.csv",
        "history.sqlite3",
    ] {
        assert!(
            files.iter().any(|(p, _)| p.ends_with(required)),
            "{required} was written: {:?}",
            files.iter().map(|(p, _)| p).collect::<Vec<_>>()
        );
    }
    for secret in [header, text] {
        for form in encodings(secret) {
            assert!(
                !contains(&printed, &form),
                "{form:?} (a form of {secret:?}) printed:\n{}",
                String::from_utf8_lossy(&printed)
            );
            for (path, bytes) in &files {
                assert!(
                    !contains(bytes, &form),
                    "{form:?} (a form of {secret:?}) written to {path}"
                );
            }
        }
    }
}

proptest! {
    // Each case runs a dozen processes against the demo server: few cases, every sink.
    #![proptest_config(ProptestConfig { cases: 6, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn no_form_of_an_arbitrary_secret_reaches_any_sink(header in header_secret(), text in text_secret()) {
        check(&header, &text);
    }
}
