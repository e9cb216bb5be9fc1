//! Batch lists in and batch results out: the four list formats read the same
//! requests, every malformed line is named in one pass, no input panics (property tests), and
//! the reports open: the CSV parses back with the `csv` crate, the JSON Lines parse, and the
//! JUnit XML validates against the JUnit schema (tests/fixtures/junit-schema/junit-10.xsd)
//! with `xmllint`. Without `xmllint` (Debian: libxml2-utils) the schema test skips with a
//! message, unless `RETRYSCOPE_REQUIRE_TOOLS=1` or `CI` is set (as .ci/run does): then it fails.

#![allow(clippy::unwrap_used)]

mod tool_support;

use proptest::prelude::*;
use retryscope::interop::batch_list::{
    BatchListFormat, ListPlace, ListProblemKind, OnBadLines, parse_batch_list,
    parse_batch_list_bytes,
};
use retryscope::interop::batch_report::{
    BatchReport, REPORT_CSV_COLUMNS, ReportFormat, render_report, report_csv, report_junit,
    xml_safe,
};
use retryscope::model::{
    BatchItemState, BatchReportAttempt, BatchReportRow, BatchRequest, Body, ErrorKind, KeyValue,
    OutcomeKind, RequestSpec,
};
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn cases(default: u32) -> ProptestConfig {
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig::with_cases(n)
}

/// What a request puts on the wire, whatever editor shape the importer chose: method, URL,
/// headers other than Content-Type (sorted), the effective Content-Type and the body text.
fn sent(spec: &RequestSpec) -> (String, String, Vec<(String, String)>, String, String) {
    let mut headers: Vec<(String, String)> = spec
        .headers
        .iter()
        .filter(|h| h.enabled && !h.name.eq_ignore_ascii_case("content-type"))
        .map(|h| (h.name.to_ascii_lowercase(), h.value.clone()))
        .collect();
    headers.sort();
    let declared = spec
        .headers
        .iter()
        .find(|h| h.enabled && h.name.eq_ignore_ascii_case("content-type"))
        .map(|h| h.value.clone());
    let (default_type, body) = match &spec.body {
        Body::None => (String::new(), String::new()),
        Body::Text { text, content_type } => (
            content_type
                .clone()
                .unwrap_or_else(|| "text/plain; charset=utf-8".into()),
            text.clone(),
        ),
        Body::Json { text } => ("application/json".into(), text.clone()),
        other => panic!("unexpected body {other:?}"),
    };
    (
        spec.method.clone(),
        spec.url.clone(),
        headers,
        declared.unwrap_or(default_type),
        body,
    )
}

#[test]
fn the_four_formats_read_the_same_requests() {
    let mut seen = Vec::new();
    for name in ["smoke.jsonl", "smoke.csv", "smoke.curl", "smoke.har"] {
        let path = fixture(&format!("batch/{name}"));
        let format = BatchListFormat::detect(&path, None).unwrap();
        let list = parse_batch_list_bytes(&std::fs::read(&path).unwrap(), format);
        assert!(list.is_clean(), "{name}: {:?}", list.problems);
        let items = list.accept(OnBadLines::Refuse).unwrap();
        assert_eq!(items.len(), 3, "{name}");
        seen.push((name, items));
    }
    let want: Vec<_> = seen[0].1.iter().map(|i| sent(&i.request)).collect();
    assert_eq!(want[1].0, "POST");
    assert_eq!(want[1].3, "application/json");
    assert_eq!(want[1].4, r#"{"a":1}"#);
    assert_eq!(want[2].0, "DELETE");
    for (name, items) in &seen[1..] {
        let got: Vec<_> = items.iter().map(|i| sent(&i.request)).collect();
        assert_eq!(got, want, "{name}");
    }
    // Names and profiles where the format has them; source lines as in each file.
    let (jsonl, csv) = (&seen[0].1, &seen[1].1);
    for items in [jsonl, csv] {
        assert_eq!(items[0].name.as_deref(), Some("health"));
        assert_eq!(items[2].profile.as_deref(), Some("aws-standard"));
    }
    let lines = |items: &[BatchRequest]| items.iter().map(|i| i.source_line).collect::<Vec<_>>();
    assert_eq!(lines(jsonl), [Some(1), Some(2), Some(4)]);
    assert_eq!(lines(csv), [Some(2), Some(3), Some(4)]);
    assert_eq!(lines(&seen[2].1), [Some(2), Some(3), Some(6)]);
    assert_eq!(lines(&seen[3].1), [Some(1), Some(2), Some(3)]);
}

#[test]
fn every_malformed_line_is_reported_in_one_pass() {
    let path = fixture("batch/bad.jsonl");
    let list = parse_batch_list(
        &std::fs::read_to_string(&path).unwrap(),
        BatchListFormat::JsonLines,
    );
    let located: Vec<String> = list
        .problems
        .iter()
        .map(|p| p.located("bad.jsonl"))
        .collect();
    assert_eq!(
        located,
        [
            "bad.jsonl:2:36: unknown key `hedaers` (an item has: method, url, headers, body, name, profile)",
            "bad.jsonl:3:58: expected a string, found the number 5",
            "bad.jsonl:4:33: the text ends inside an object: a `}` is missing",
            "bad.jsonl:5: `url` is missing or empty",
            "bad.jsonl:6:9: the URL has no scheme; start it with http:// or https:// (URL localhost:8080/x)",
        ]
    );
    assert_eq!(list.items.len(), 2);
    let refused = list.clone().accept(OnBadLines::Refuse).unwrap_err();
    assert_eq!(refused.problems.len(), 5);
    assert_eq!(refused.good, 2);
    let kept = list.accept(OnBadLines::Skip).unwrap();
    assert_eq!(
        kept.iter().map(|i| i.source_line).collect::<Vec<_>>(),
        [Some(1), Some(7)]
    );
}

/// A HAR exported with secrets masked (the default) holds `***` where each secret was: every
/// such entry is a bad line naming the place, so a batch never sends the mask as a credential.
#[test]
fn a_har_exported_with_masked_secrets_is_refused_entry_by_entry() {
    let har = r#"{"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": [
        {"request": {"method": "GET", "url": "http://127.0.0.1:8080/a",
            "headers": [{"name": "Authorization", "value": "***"}]}},
        {"request": {"method": "GET", "url": "http://127.0.0.1:8080/b?sig=***&x=1", "headers": []}},
        {"request": {"method": "GET", "url": "http://127.0.0.1:8080/c", "headers": []}}
    ]}}"#;
    let list = parse_batch_list(har, BatchListFormat::Har);
    let located: Vec<String> = list.problems.iter().map(|p| p.located("x.har")).collect();
    assert_eq!(located.len(), 2, "{located:?}");
    assert!(
        located[0].contains("entries[0]: header Authorization is `***`"),
        "{located:?}"
    );
    assert!(
        located[1].contains("entries[1]: query parameter sig is `***`"),
        "{located:?}"
    );
    assert_eq!(list.items.len(), 1);
}

/// Fragments lists are made of: good and bad lines of every format, quotes, continuations.
/// An unknown profile name is a bad line like a malformed one: counted with them in the
/// refusal, and skipped (named) with them when asked.
#[test]
fn unknown_profile_lines_count_with_the_malformed_ones() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("mixed.jsonl");
    std::fs::write(
        &list,
        "{\"url\": \"http://127.0.0.1:9/a\", \"profile\": \"nope\"}\n{\"url\": \n{\"url\": \"http://127.0.0.1:9/c\", \"profile\": \"aws-standard\"}\n{\"url\": \"http://127.0.0.1:9/d\"}\n",
    )
    .unwrap();
    let lookup = retryscope::service::library_lookup(None);
    let read = |on_bad| retryscope::service::read_batch_list(&list, None, on_bad, Some(&lookup));
    let refused = read(OnBadLines::Refuse).unwrap_err();
    let lines: Vec<&str> = refused.lines().collect();
    assert_eq!(lines.len(), 3, "{refused}");
    assert!(lines[0].ends_with("mixed.jsonl:1:44: unknown profile `nope` (use a built-in id, see `retryscope profile builtins`, or the name of a profile in your library)"), "{refused}");
    assert!(lines[1].contains("mixed.jsonl:2:"), "{refused}");
    assert!(
        lines[2].starts_with("2 malformed lines (above); nothing was queued")
            && lines[2].contains("the other 2"),
        "{refused}"
    );
    let skipped = read(OnBadLines::Skip).unwrap();
    assert_eq!(skipped.items.len(), 2);
    assert_eq!(skipped.notes.len(), 2, "{:?}", skipped.notes);
    assert!(
        skipped.notes[0].contains("unknown profile `nope`")
            && skipped.notes[0].ends_with("(skipped)")
    );
}

/// Thousands of bad lines: the first `LISTED_LINES` are named, the others counted in one line,
/// refused or skipped; the refusal still counts every one.
#[test]
fn thousands_of_bad_lines_name_the_first_twenty_and_count_the_rest() {
    let listed = retryscope::service::LISTED_LINES;
    assert_eq!(listed, 20);
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("many.jsonl");
    let mut text = String::from("{\"url\": \"http://127.0.0.1:9/ok\"}\n");
    for _ in 0..5000 {
        text.push_str("{\"url\": 5}\n");
    }
    std::fs::write(&list, text).unwrap();
    let read = |on_bad| retryscope::service::read_batch_list(&list, None, on_bad, None);
    let refused = read(OnBadLines::Refuse).unwrap_err();
    let lines: Vec<&str> = refused.lines().collect();
    assert_eq!(lines.len(), listed + 2, "{refused}");
    assert!(lines[0].ends_with("many.jsonl:2:9: expected a string, found the number 5"));
    assert!(lines[listed - 1].contains("many.jsonl:21:9: "), "{refused}");
    assert_eq!(lines[listed], "… and 4980 more malformed lines");
    assert!(
        lines[listed + 1].starts_with("5000 malformed lines (above); nothing was queued"),
        "{refused}"
    );
    let skipped = read(OnBadLines::Skip).unwrap();
    assert_eq!(skipped.items.len(), 1);
    assert_eq!(skipped.notes.len(), listed + 1, "{:?}", skipped.notes);
    assert_eq!(
        skipped.notes[listed],
        "… and 4980 more malformed lines (skipped)"
    );
    // 21 bad lines: one more, in the singular.
    std::fs::write(&list, "{\"url\": 5}\n".repeat(listed + 1)).unwrap();
    let refused = read(OnBadLines::Refuse).unwrap_err();
    assert!(
        refused.contains("\n… and 1 more malformed line\n"),
        "{refused}"
    );
}

/// A curl list's body files are checked when the list is read, in the words `run` and `curl`
/// use, and a relative `@file` is read from the list's folder, not the current one.
#[test]
fn curl_list_body_files_are_checked_up_front_beside_the_list() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("lists")).unwrap();
    std::fs::write(dir.path().join("lists/body.json"), "{\"a\":1}").unwrap();
    std::fs::write(dir.path().join("lists/up.bin"), "x").unwrap();
    let list = dir.path().join("lists/calls.curl");
    std::fs::write(
        &list,
        "curl http://127.0.0.1:9/echo -F f=@/nonexistent/file.bin\n\
         curl http://127.0.0.1:9/echo -d @/nonexistent/body.json\n\
         curl http://127.0.0.1:9/echo --data-binary @body.json\n\
         curl http://127.0.0.1:9/echo -F up=@up.bin\n",
    )
    .unwrap();
    let name = list.display().to_string();
    let refused =
        retryscope::service::read_batch_list(&list, None, OnBadLines::Refuse, None).unwrap_err();
    let lines: Vec<&str> = refused.lines().collect();
    assert!(
        lines[0].starts_with(&format!(
            "{name}:1: /nonexistent/file.bin: cannot read the file of -F f: no such file"
        )),
        "{refused}"
    );
    assert!(
        lines[1].starts_with(&format!(
            "{name}:2: /nonexistent/body.json: cannot read body file: no such file"
        )),
        "{refused}"
    );
    assert!(
        lines[2].starts_with("2 malformed lines (above); nothing was queued"),
        "{refused}"
    );
    let read = retryscope::service::read_batch_list(&list, None, OnBadLines::Skip, None).unwrap();
    assert_eq!(read.items.len(), 2, "{read:?}");
    // Relative files are the list's neighbours (the test runs in the crate's folder).
    match &read.items[0].request.body {
        Body::File { path, .. } => {
            assert_eq!(Path::new(path), dir.path().join("lists/body.json"));
        }
        other => panic!("{other:?}"),
    }
    match &read.items[1].request.body {
        Body::Multipart { parts } => assert_eq!(
            parts[0].source,
            retryscope::model::PartSource::File {
                path: dir.path().join("lists/up.bin").display().to_string(),
                content_type: None
            }
        ),
        other => panic!("{other:?}"),
    }
}

/// One bad entry of a HAR list spoils only itself: refused naming `entries[N]` (without our
/// type names), skipped with "skip bad lines".
#[test]
fn a_bad_har_entry_is_skipped_like_a_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let har = dir.path().join("two.har");
    std::fs::write(
        &har,
        r#"{"log": {"version": "1.2", "entries": [
            {"request": {"method": "GET", "url": "http://127.0.0.1:9/a"}},
            {"request": {"method": "GET", "url": "http://127.0.0.1:9/b", "headers": {"x": 1}}},
            {"request": {"method": "GET", "url": "http://127.0.0.1:9/c"}}
        ]}}"#,
    )
    .unwrap();
    let refused =
        retryscope::service::read_batch_list(&har, None, OnBadLines::Refuse, None).unwrap_err();
    assert!(
        refused.contains(
            "two.har:3:74: entries[1].request.headers: not a HAR entry: expected a list, found an object"
        ),
        "{refused}"
    );
    assert!(refused.contains("1 malformed line"), "{refused}");
    assert_eq!(
        refused.matches("expected a list").count(),
        1,
        "each problem is said once: {refused}"
    );
    for rust_name in ["struct", "Entry", "Request", "NameValue"] {
        assert!(!refused.contains(rust_name), "no type names: {refused}");
    }
    let read = retryscope::service::read_batch_list(&har, None, OnBadLines::Skip, None).unwrap();
    assert_eq!(read.items.len(), 2);
    assert_eq!(read.items[1].source_line, Some(3));
    assert_eq!(read.notes.len(), 1);
    assert!(
        read.notes[0].contains("entries[1]") && read.notes[0].ends_with("(skipped)"),
        "{:?}",
        read.notes
    );
}

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(r#"{"url": "http://127.0.0.1:8080/a"}"#.to_owned()),
        Just(r#"{"url": "http://127.0.0.1:8080/a", "x": 1}"#.to_owned()),
        Just(
            r#"{"method": "P", "url": "http://[::1]:8/", "headers": [["A", "b"]], "body": {}}"#
                .to_owned()
        ),
        Just("curl http://127.0.0.1:8080/c".to_owned()),
        Just("curl -H 'X: y' \\".to_owned()),
        Just("curl -d 'unclosed".to_owned()),
        Just("url,method,body,header:X".to_owned()),
        Just("http://127.0.0.1/,GET,\"a\nb\",1".to_owned()),
        Just("\"".to_owned()),
        Just("\\".to_owned()),
        Just("^".to_owned()),
        Just("#".to_owned()),
        Just("\u{feff}".to_owned()),
        Just(
            r#"{"log": {"entries": [{"request": {"method": "GET", "url": "http://127.0.0.1/"}}]}}"#
                .to_owned()
        ),
        "[ -~]{0,20}",
        any::<String>(),
    ]
}

fn any_format() -> impl Strategy<Value = BatchListFormat> {
    prop::sample::select(BatchListFormat::ALL.to_vec())
}

/// Methods, paths and texts of generated items.
fn method() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("GET".to_owned()),
        Just("post".to_owned()),
        Just("PURGE".to_owned()),
        Just("DELETE".to_owned())
    ]
}

fn expected_method(m: &str) -> String {
    retryscope::model::standard_method_case(m)
}

proptest! {
    #![proptest_config(cases(400))]

    /// Any text in any format: a list and problems, never a panic; problems are in file order
    /// and on lines the file has; items carry increasing source lines; only a clean list is
    /// accepted without skipping.
    #[test]
    fn any_text_gives_a_list_or_problems(
        lines in prop::collection::vec(fragment(), 0..10),
        crlf in any::<bool>(),
        format in any_format(),
    ) {
        let text = lines.join(if crlf { "\r\n" } else { "\n" });
        let list = parse_batch_list(&text, format);
        let line_count = text.split('\n').count() as u64;
        let mut last = 0;
        for p in &list.problems {
            let ordinal = p.place.ordinal();
            prop_assert!(ordinal >= last, "problems out of order: {:?}", list.problems);
            last = ordinal;
            match p.place {
                ListPlace::Line { line, column } => {
                    prop_assert!(line >= 1 && line <= line_count, "{p} past {line_count} lines");
                    prop_assert!(column.is_none_or(|c| c >= 1), "{p}");
                }
                ListPlace::Entry { index } => prop_assert!(index >= 1),
                ListPlace::EntryField { index, line, column, .. } => {
                    prop_assert!(index >= 1 && column >= 1, "{p}");
                    prop_assert!(line >= 1 && line <= line_count, "{p} past {line_count} lines");
                }
            }
            prop_assert!(p.located("f").starts_with("f:"));
            prop_assert!(!p.kind.to_string().is_empty());
        }
        let mut previous = 0;
        for item in &list.items {
            let line = item.source_line.unwrap_or(0);
            prop_assert!(line > previous, "source lines not increasing");
            previous = line;
            prop_assert!(!item.request.url.is_empty() && !item.request.method.is_empty());
        }
        prop_assert!(!(list.items.is_empty() && list.problems.is_empty()), "an empty list must be a problem");
        let clean = list.is_clean();
        prop_assert_eq!(list.accept(OnBadLines::Refuse).is_ok(), clean);
    }

    /// Any bytes: UTF-8 or a located NotUtf8 problem.
    #[test]
    fn any_bytes_are_read_or_located(bytes in prop::collection::vec(any::<u8>(), 0..200), format in any_format()) {
        let list = parse_batch_list_bytes(&bytes, format);
        if std::str::from_utf8(&bytes).is_err() {
            prop_assert_eq!(list.problems.len(), 1);
            // A UTF-16 byte-order mark is said as such.
            let utf16 = bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]);
            let want = if utf16 { ListProblemKind::Utf16 } else { ListProblemKind::NotUtf8 };
            prop_assert_eq!(&list.problems[0].kind, &want);
            prop_assert!(list.items.is_empty());
        }
    }

    /// Generated JSON Lines items among garbage and blank lines read back as exactly those
    /// items, on their lines, with exactly the garbage lines reported.
    #[test]
    fn json_lines_read_back_exactly(
        rows in prop::collection::vec((
            0..4usize,
            method(),
            "[a-z0-9/]{0,10}",
            prop::collection::vec(("X-[A-Za-z]{1,6}", "[ -~]{0,10}"), 0..3),
            prop::option::of(any::<String>()),
            prop::option::of("[a-z ]{1,8}"),
            any::<bool>(),
        ), 1..12),
    ) {
        const GARBAGE: [&str; 6] = [
            r#"{"url": 5}"#,
            r#"{"url": "http://127.0.0.1/x", "nope": 1}"#,
            "not json",
            r#"{"method": "G T", "url": "http://127.0.0.1/"}"#,
            "[]",
            r#"{"url": "ftp://127.0.0.1/"}"#,
        ];
        let mut text = String::new();
        let mut want = Vec::new();
        let mut bad_lines = Vec::new();
        let mut line = 0u64;
        for (kind, m, path, headers, body, name, as_object) in &rows {
            line += 1;
            match kind {
                0 => {
                    text.push_str(GARBAGE[bad_lines.len() % GARBAGE.len()]);
                    bad_lines.push(line);
                }
                1 => text.push_str("   "),
                _ => {
                    let url = format!("http://127.0.0.1:8080/{path}");
                    let q = |s: &str| serde_json::to_string(s).unwrap();
                    let mut parts = vec![format!("\"method\": {}", q(m)), format!("\"url\": {}", q(&url))];
                    let pairs: Vec<String> = headers.iter().map(|(n, v)| {
                        if *as_object { format!("{}: {}", q(n), q(v)) } else { format!("[{}, {}]", q(n), q(v)) }
                    }).collect();
                    if *as_object {
                        parts.push(format!("\"headers\": {{{}}}", pairs.join(", ")));
                    } else {
                        parts.push(format!("\"headers\": [{}]", pairs.join(", ")));
                    }
                    if let Some(b) = body { parts.push(format!("\"body\": {}", q(b))); }
                    if let Some(n) = name { parts.push(format!("\"name\": {}", q(n))); }
                    text.push('{');
                    text.push_str(&parts.join(", "));
                    text.push('}');
                    want.push((line, expected_method(m), url, headers.clone(), body.clone(), name.clone().filter(|n| !n.trim().is_empty())));
                }
            }
            text.push('\n');
        }
        let list = parse_batch_list(&text, BatchListFormat::JsonLines);
        let mut problem_lines: Vec<u64> = list.problems.iter().map(|p| p.place.ordinal()).collect();
        problem_lines.dedup();
        if want.is_empty() && bad_lines.is_empty() {
            prop_assert_eq!(&list.problems[0].kind, &ListProblemKind::Empty);
            return Ok(());
        }
        prop_assert_eq!(problem_lines, bad_lines);
        prop_assert_eq!(list.items.len(), want.len());
        for (item, (line, m, url, headers, body, name)) in list.items.iter().zip(&want) {
            prop_assert_eq!(item.source_line, Some(*line));
            prop_assert_eq!(&item.request.method, m);
            prop_assert_eq!(&item.request.url, url);
            let got: Vec<(String, String)> = item.request.headers.iter().map(|h| (h.name.clone(), h.value.clone())).collect();
            prop_assert_eq!(&got, headers);
            let got_body = match &item.request.body {
                Body::None => None,
                Body::Text { text, content_type: None } => Some(text.clone()),
                other => return Err(TestCaseError::fail(format!("body {other:?}"))),
            };
            prop_assert_eq!(&got_body, body);
            prop_assert_eq!(&item.name, name);
        }
    }

    /// CSV records written by the `csv` crate (bodies with commas, quotes and line breaks)
    /// read back as the same requests, each on the line its record starts.
    #[test]
    fn csv_reads_back_exactly(
        rows in prop::collection::vec((method(), "[a-z0-9]{0,8}", "[ -~\n\r]{0,24}", "[a-z]{0,4}", "[ -~]{0,8}"), 1..10),
    ) {
        // `***` is the mask a copied secret leaves: refused by design (MaskedSecret).
        prop_assume!(rows.iter().all(|(_, _, body, name, extra)| ![body, name, extra].iter().any(|c| c.contains("***"))));
        let record = |cells: &[&str]| {
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record(cells).unwrap();
            String::from_utf8(w.into_inner().unwrap()).unwrap()
        };
        let mut text = record(&["method", "url", "body", "name", "header:X-Extra"]);
        let mut want = Vec::new();
        for (m, path, body, name, extra) in &rows {
            let line = text.matches('\n').count() as u64 + 1;
            let url = format!("http://127.0.0.1:8080/{path}");
            text.push_str(&record(&[m, &url, body, name, extra]));
            want.push((line, expected_method(m), url, body.clone(), name.clone(), extra.clone()));
        }
        let list = parse_batch_list(&text, BatchListFormat::Csv);
        prop_assert!(list.is_clean(), "{:?}\n{}", list.problems, text);
        prop_assert_eq!(list.items.len(), want.len());
        for (item, (line, m, url, body, name, extra)) in list.items.iter().zip(&want) {
            prop_assert_eq!(item.source_line, Some(*line));
            prop_assert_eq!(&item.request.method, m);
            prop_assert_eq!(&item.request.url, url);
            let got_body = match &item.request.body {
                Body::None => String::new(),
                Body::Text { text, .. } => text.clone(),
                other => return Err(TestCaseError::fail(format!("body {other:?}"))),
            };
            prop_assert_eq!(&got_body, body);
            prop_assert_eq!(item.name.clone().unwrap_or_default(), name.clone());
            let sent_extra = item.request.headers.iter().find(|h| h.name == "X-Extra").map(|h| h.value.clone()).unwrap_or_default();
            prop_assert_eq!(&sent_extra, extra);
        }
    }
}

// ---- reports ----

fn at(s: &str) -> chrono::DateTime<chrono::FixedOffset> {
    chrono::DateTime::parse_from_rfc3339(s).unwrap()
}

/// A batch of every state, with secrets in the URL, the headers and the reason.
fn sample_report() -> BatchReport {
    let mut spec =
        RequestSpec::get("http://ops:pa55word@127.0.0.1:8080/status/503?times=2&token=tok-9876543");
    spec.headers
        .push(KeyValue::new("Authorization", "Bearer sk-live-123456"));
    spec.headers
        .push(KeyValue::new("Accept", "application/json"));
    let item = |name: Option<&str>, spec: RequestSpec| BatchRequest {
        name: name.map(str::to_owned),
        request: spec,
        profile: None,
        source_line: Some(1),
    };
    let mut done = BatchReportRow::new(
        &item(Some("passed on attempt 3"), spec.clone()),
        1,
        BatchItemState::Done,
    );
    done.attempts = 3;
    done.final_status = Some(200);
    done.outcome = Some(OutcomeKind::Succeeded);
    done.reason = "succeeded on attempt 3 after 0.3 s".into();
    done.run_id = Some("019a3c5e-0000-7000-8000-000000000001".into());
    done.started_at = Some(at("2026-12-01T18:00:00.000+00:00"));
    done.finished_at = Some(at("2026-12-01T18:00:00.300+00:00"));
    done.elapsed_ms = Some(300);
    done.attempts_detail = vec![
        BatchReportAttempt {
            attempt: 1,
            status: Some(503),
            reason: "503 is in retry_on.status".into(),
            wait_ms: Some(100),
            ..Default::default()
        },
        BatchReportAttempt {
            attempt: 2,
            status: Some(503),
            reason: "503 is in retry_on.status".into(),
            wait_ms: Some(200),
            ..Default::default()
        },
        BatchReportAttempt {
            attempt: 3,
            status: Some(200),
            ..Default::default()
        },
    ];
    let mut failed = BatchReportRow::new(&item(None, spec.clone()), 2, BatchItemState::Error);
    failed.attempts = 1;
    failed.final_status = Some(404);
    failed.outcome = Some(OutcomeKind::Stopped);
    failed.reason =
        "stopped: 404 is not retryable, body said \"sk-live-123456\", <b>&</b>, line\nbreak".into();
    failed.assertion = Some(
        "assertion --expect-status 200-299 failed: status 404, expected one of 200-299".into(),
    );
    failed.elapsed_ms = Some(12);
    let mut reset = BatchReportRow::new(
        &item(
            Some("reset, \"quoted\""),
            RequestSpec::get("http://127.0.0.1:8080/reset"),
        ),
        3,
        BatchItemState::Error,
    );
    reset.attempts = 4;
    reset.error_kind = Some(ErrorKind::Reset);
    reset.outcome = Some(OutcomeKind::GaveUp);
    reset.reason = "gave up after 4 attempts (reset)".into();
    reset.attempts_detail = vec![BatchReportAttempt {
        attempt: 1,
        error_kind: Some(ErrorKind::Reset),
        wait_ms: Some(50),
        ..Default::default()
    }];
    let cancelled = BatchReportRow::new(
        &item(
            Some("cancelled \u{1} control"),
            RequestSpec::get("http://127.0.0.1:8080/slow?ms=5000"),
        ),
        4,
        BatchItemState::Cancelled,
    );
    let pending = BatchReportRow::new(
        &item(None, RequestSpec::get("http://127.0.0.1:8080/a")),
        5,
        BatchItemState::Pending,
    );
    BatchReport {
        batch_id: "019a3c5e-batch".into(),
        title: "smoke.jsonl".into(),
        rows: vec![done, failed, reset, cancelled, pending],
    }
}

const SECRETS: [&str; 4] = [
    "pa55word",
    "tok-9876543",
    "sk-live-123456",
    "my-variable-secret",
];

#[test]
fn no_report_holds_a_secret() {
    let mut report = sample_report();
    report.rows[2].reason.push_str(" my-variable-secret");
    for format in ReportFormat::ALL {
        let text = render_report(format, &report, &["my-variable-secret".into()]).unwrap();
        for secret in SECRETS {
            assert!(!text.contains(secret), "{format}: {secret} in\n{text}");
        }
        assert!(text.contains("***"), "{format}");
    }
}

#[test]
fn the_csv_report_parses_back() {
    let report = sample_report();
    let text = report_csv(&report, &[]);
    assert!(text.contains("\r\n"), "RFC 4180 line ends");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(header, REPORT_CSV_COLUMNS);
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), 5);
    let col = |name: &str| REPORT_CSV_COLUMNS.iter().position(|c| *c == name).unwrap();
    let done = &records[0];
    assert_eq!(&done[col("label")], "passed on attempt 3");
    assert_eq!(&done[col("state")], "done");
    assert_eq!(
        &done[col("url")],
        "http://***:***@127.0.0.1:8080/status/503?times=2&token=***"
    );
    assert_eq!(&done[col("attempts")], "3");
    assert_eq!(&done[col("attempt_results")], "503;503;200");
    assert_eq!(&done[col("waits_ms")], "100;200");
    assert_eq!(&done[col("started_at")], "2026-12-01T18:00:00.000+00:00");
    assert_eq!(&done[col("outcome")], "succeeded");
    let failed = &records[1];
    assert_eq!(
        &failed[col("reason")],
        "stopped: 404 is not retryable, body said \"***\", <b>&</b>, line\nbreak"
    );
    assert_eq!(&failed[col("final_status")], "404");
    assert!(failed[col("label")].starts_with("GET http://***:***@127.0.0.1"));
    assert_eq!(&records[2][col("label")], "reset, \"quoted\"");
    assert_eq!(&records[2][col("error_kind")], "reset");
    assert_eq!(&records[3][col("state")], "cancelled");
    assert_eq!(&records[4][col("attempts")], "0");
}

/// A label, URL or reason a spreadsheet would run as a formula is text in the CSV report: a
/// leading `'` (the JSON Lines report keeps the value as it is).
#[test]
fn csv_report_cells_that_look_like_formulas_are_text() {
    let mut report = sample_report();
    report.rows[0].label = "=HYPERLINK(\"http://evil\",\"x\")".into();
    report.rows[1].label = "+1".into();
    report.rows[2].label = "@cmd".into();
    report.rows[3].label = "-2".into();
    let text = report_csv(&report, &[]);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let labels: Vec<String> = reader.records().map(|r| r.unwrap()[1].to_owned()).collect();
    assert_eq!(
        labels[..4],
        ["'=HYPERLINK(\"http://evil\",\"x\")", "'+1", "'@cmd", "'-2"]
    );
    let jsonl = render_report(ReportFormat::JsonLines, &report, &[]).unwrap();
    assert!(jsonl.contains("\"label\":\"=HYPERLINK("), "{jsonl}");
}

#[test]
fn the_json_lines_report_parses_back_as_rows() {
    let report = sample_report();
    let text = render_report(ReportFormat::JsonLines, &report, &[]).unwrap();
    let rows: Vec<BatchReportRow> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[0].attempts_detail.len(), 3);
    assert_eq!(rows[0].headers[0], KeyValue::new("Authorization", "***"));
    assert_eq!(
        rows[0].headers[1],
        KeyValue::new("Accept", "application/json")
    );
    assert_eq!(rows[2].error_kind, Some(ErrorKind::Reset));
    assert_eq!(rows[3].state, BatchItemState::Cancelled);
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["state"], "done");
    assert_eq!(first["outcome"], "succeeded");
}

/// CSV, JSON Lines and JUnit write a time the same way: RFC 3339, milliseconds, the offset as
/// `+00:00` (not nanoseconds and `Z` in one format and milliseconds in the others).
#[test]
fn every_report_writes_times_alike() {
    let mut report = sample_report();
    report.rows[0].started_at = Some(at("2026-12-01T17:59:59.123456789Z"));
    for format in ReportFormat::ALL {
        let text = render_report(format, &report, &[]).unwrap();
        assert!(
            text.contains("2026-12-01T17:59:59.123+00:00"),
            "{format}: {text}"
        );
        assert!(!text.contains("59.123456789"), "{format}: {text}");
    }
}

/// `xmllint --schema junit-10.xsd` on `xml`: Ok, or its complaint.
fn validate(xml: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.xml");
    std::fs::write(&path, xml).unwrap();
    let out = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(fixture("junit-schema/junit-10.xsd"))
        .arg(&path)
        .output()
        .unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn the_junit_report_validates_against_the_junit_schema() {
    if !tool_support::tool_available("xmllint", &["--version"], "Debian: libxml2-utils") {
        return;
    }
    let report = sample_report();
    let xml = report_junit(&report, &[]).unwrap();
    validate(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    assert!(xml.contains(r#"<testsuite name="smoke.jsonl" id="019a3c5e-batch" tests="5" failures="2" errors="0" skipped="2" time="0.300""#), "{xml}");
    assert!(
        xml.contains(
            r#"<testcase name="passed on attempt 3" classname="smoke.jsonl" time="0.300">"#
        ),
        "{xml}"
    );
    assert!(
        xml.contains("attempt 1: 503 (503 is in retry_on.status); waited 100 ms"),
        "{xml}"
    );
    assert!(xml.contains(r#"<failure type="assertion" message="assertion --expect-status 200-299 failed: status 404, expected one of 200-299">"#), "{xml}");
    assert!(
        xml.contains("reason: stopped: 404 is not retryable, body said"),
        "the reason, once, in the failure's text: {xml}"
    );
    assert!(
        xml.contains(r#"<failure type="reset" message="gave up after 4 attempts (reset)">"#),
        "{xml}"
    );
    assert!(xml.contains(r#"<skipped message="cancelled"/>"#), "{xml}");
    assert!(
        xml.contains(r#"<skipped message="not finished (pending)"/>"#),
        "{xml}"
    );
    assert!(
        xml.contains("cancelled \u{fffd} control"),
        "a control character is replaced"
    );
    // Each sentence once: the message is not repeated in the failure's text or system-out.
    assert_eq!(xml.matches("expected one of 200-299").count(), 1, "{xml}");
    assert_eq!(
        xml.matches("gave up after 4 attempts (reset)").count(),
        1,
        "{xml}"
    );
    assert!(
        xml.contains(
            r#"message="gave up after 4 attempts (reset)">attempt 1: reset; waited 50 ms</failure>"#
        ),
        "a failure's attempts are its text: {xml}"
    );
    // The check can fail: a report without the suite's required counts is refused.
    let broken = xml.replacen(" failures=\"2\" errors=\"0\" skipped", " skipped", 1);
    assert!(
        validate(&broken).is_err(),
        "the schema must refuse a suite without counts"
    );
    // An empty batch is a valid report too.
    let empty = report_junit(
        &BatchReport {
            batch_id: "e".into(),
            title: "empty".into(),
            rows: vec![],
        },
        &[],
    )
    .unwrap();
    validate(&empty).unwrap_or_else(|e| panic!("{e}\n{empty}"));
}

fn state() -> impl Strategy<Value = BatchItemState> {
    prop::sample::select(BatchItemState::ALL.to_vec())
}

proptest! {
    #![proptest_config(cases(200))]

    /// Any labels and reasons: the CSV parses back to the same cells (formula-safe) and the JUnit XML is
    /// well-formed with one test case per item, named by its label (XML-illegal characters as
    /// U+FFFD).
    #[test]
    fn reports_of_any_text_open(
        rows in prop::collection::vec((any::<String>(), any::<String>(), state(), 0..5u32, prop::option::of(100..600u16)), 0..8),
    ) {
        let rows: Vec<BatchReportRow> = rows.iter().enumerate().map(|(i, (label, reason, state, attempts, status))| {
            let item = BatchRequest { name: Some(label.clone()), request: RequestSpec::get("http://127.0.0.1:8080/x"), profile: None, source_line: None };
            let mut row = BatchReportRow::new(&item, i as u64 + 1, *state);
            row.reason.clone_from(reason);
            row.attempts = *attempts;
            row.final_status = *status;
            row
        }).collect();
        for r in &rows {
            prop_assume!(!r.label.contains("://") && !r.reason.contains("://"));
        }
        let report = BatchReport { batch_id: "b".into(), title: "t".into(), rows: rows.clone() };
        let text = report_csv(&report, &[]);
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let records: Vec<csv::StringRecord> = reader.records().collect::<Result<_, _>>().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(records.len(), rows.len());
        // The same cells, a formula-like one behind the `'` that keeps it text.
        let safe = |text: &str| retryscope::interop::csv_cell::formula_safe(text).into_owned();
        for (record, row) in records.iter().zip(&rows) {
            prop_assert_eq!(&record[1], safe(&row.label));
            prop_assert_eq!(&record[9], safe(&row.reason));
        }
        let xml = report_junit(&report, &[]).unwrap();
        let mut reader = quick_xml::Reader::from_str(&xml);
        let mut names = Vec::new();
        loop {
            match reader.read_event() {
                Ok(quick_xml::events::Event::Eof) => break,
                Ok(quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e)) if e.name().as_ref() == b"testcase" => {
                    let name = e.try_get_attribute("name").unwrap().unwrap();
                    names.push(name.normalized_value(quick_xml::XmlVersion::Implicit1_0).unwrap().into_owned());
                }
                Ok(_) => {}
                Err(e) => return Err(TestCaseError::fail(format!("{e} in\n{xml}"))),
            }
        }
        let want: Vec<String> = rows.iter().map(|r| xml_safe(&r.label).into_owned()).collect();
        prop_assert_eq!(names, want);
    }
}

/// A HAR written by `retryscope run --har` (one entry per attempt) is one item per run: the
/// retries (attempt n + 1 after attempt n) fold into the run's first entry, a note says how
/// many; a second run in the same file (attempt 1 again) is a second item.
#[test]
fn retry_entries_of_a_retryscope_har_fold_into_one_item() {
    let entry = |path: &str, attempt: u32| {
        format!(
            r#"{{"request": {{"method": "GET", "url": "http://127.0.0.1:9{path}"}},
                "_retryscope": {{"attempt": {attempt}}}}}"#
        )
    };
    let text = format!(
        r#"{{"log": {{"version": "1.2", "entries": [{}, {}, {}, {}, {}]}}}}"#,
        entry("/a", 1),
        entry("/a", 2),
        entry("/a", 3),
        entry("/b", 1),
        entry("/b", 2)
    );
    let list = parse_batch_list(&text, BatchListFormat::Har);
    assert!(list.problems.is_empty(), "{:?}", list.problems);
    let urls: Vec<&str> = list.items.iter().map(|i| i.request.url.as_str()).collect();
    assert_eq!(urls, ["http://127.0.0.1:9/a", "http://127.0.0.1:9/b"]);
    assert_eq!(list.items[1].source_line, Some(4), "named by its entry");
    let notes: Vec<String> = list
        .notes
        .iter()
        .map(|n| format!("{}: {}", n.place, n.message))
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[0].starts_with("entries[0]: 2 retries of this run"),
        "{notes:?}"
    );
    assert!(
        notes[1].starts_with("entries[3]: 1 retry of this run"),
        "{notes:?}"
    );

    // A browser's HAR (no `_retryscope`) keeps every entry.
    let plain = r#"{"log": {"entries": [
        {"request": {"method": "GET", "url": "http://127.0.0.1:9/a"}},
        {"request": {"method": "GET", "url": "http://127.0.0.1:9/a"}}]}}"#;
    assert_eq!(parse_batch_list(plain, BatchListFormat::Har).items.len(), 2);
}
