//! curl import and "Copy as curl": browser and Postman copies (tests/fixtures/curl/), and
//! round trips parse(export(draft)) == draft.

use retryscope::interop::{CurlImport, draft_to_curl, parse_curl};
use retryscope::model::{AuthKind, BodyKind, KeyValue, RequestDraft};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/curl/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).expect("fixture exists")
}

fn import(name: &str) -> CurlImport {
    parse_curl(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn header<'a>(draft: &'a RequestDraft, name: &str) -> Option<&'a str> {
    draft
        .headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str())
}

#[test]
fn chrome_json_post_fills_every_part() {
    let i = import("chrome_post_json.txt");
    let d = &i.draft;
    assert_eq!(d.method, "POST");
    assert_eq!(d.url, "http://127.0.0.1:8080/echo?source=devtools");
    assert_eq!(d.body.kind, BodyKind::Json);
    assert!(d.body.json.starts_with(r#"{"order":42"#), "{}", d.body.json);
    assert_eq!(header(d, "content-type"), None, "taken by the JSON body");
    assert_eq!(
        header(d, "authorization"),
        Some("Bearer example-token-not-real")
    );
    assert_eq!(
        header(d, "cookie"),
        Some("session_id=example-session; theme=dark")
    );
    assert_eq!(
        header(d, "sec-ch-ua"),
        Some(r#""Chromium";v="131", "Not_A Brand";v="24""#)
    );
    assert!(!d.follow_redirects, "curl without -L does not follow");
    assert!(i.unsupported.is_empty(), "{:?}", i.unsupported);
}

#[test]
fn chrome_ansi_c_body_is_decoded() {
    let i = import("chrome_ansi_c.txt");
    assert_eq!(i.draft.body.kind, BodyKind::Text);
    assert_eq!(i.draft.body.text, "line one\nit's line two !\ttabbed\r\n");
    assert_eq!(i.draft.body.content_type, "text/plain;charset=UTF-8");
    assert_eq!(
        i.unsupported,
        ["--compressed (ignored: Retryscope asks for uncompressed answers)"]
    );
}

#[test]
fn chrome_cmd_copy_is_read_like_bash() {
    let i = import("chrome_cmd.txt");
    assert_eq!(
        i.draft.url,
        "http://127.0.0.1:8080/status/503?times=2&key=cmd-copy"
    );
    assert_eq!(i.draft.body.kind, BodyKind::Json);
    assert_eq!(i.draft.body.json, r#"{"name":"Ada"}"#);
    assert_eq!(header(&i.draft, "accept"), Some("application/json"));
}

#[test]
fn firefox_copy_keeps_its_form_text_and_notes_compression() {
    let i = import("firefox_post.txt");
    let d = &i.draft;
    assert_eq!(d.method, "POST");
    assert_eq!(d.body.kind, BodyKind::Text);
    assert_eq!(d.body.text, "query=retry+budget&page=2");
    assert_eq!(
        d.body.content_type,
        "application/x-www-form-urlencoded; charset=UTF-8"
    );
    assert_eq!(header(d, "cookie"), Some("csrftoken=example-csrf"));
    assert_eq!(i.unsupported.len(), 2, "{:?}", i.unsupported);
    assert!(i.unsupported[1].starts_with("Accept-Encoding kept"));
}

#[test]
fn postman_copies() {
    let i = import("postman_json.txt");
    assert!(i.draft.follow_redirects, "--location");
    assert_eq!(i.draft.body.kind, BodyKind::Json);
    assert!(
        i.draft
            .body
            .json
            .contains("\"tags\": [\"flaky\", \"retry\"]")
    );
    assert_eq!(header(&i.draft, "x-api-key"), Some("example-key-not-real"));

    let i = import("postman_urlencoded.txt");
    assert_eq!(i.draft.method, "PUT");
    assert_eq!(i.draft.body.kind, BodyKind::Form);
    assert_eq!(
        i.draft.body.form,
        [
            KeyValue::new("grant_type", "client_credentials"),
            KeyValue::new("scope", "read write")
        ]
    );
    assert!(i.draft.headers.is_empty(), "{:?}", i.draft.headers);
}

#[test]
fn handwritten_command_with_get_timeouts_auth_and_a_proxy() {
    let i = import("handwritten.txt");
    let d = &i.draft;
    assert_eq!(d.method, "GET");
    assert_eq!(d.url, "http://127.0.0.1:8080/status/200");
    assert_eq!(
        d.query,
        [KeyValue::new("q", "two words"), KeyValue::new("page", "3")]
    );
    assert_eq!(d.body.kind, BodyKind::None);
    assert_eq!(d.auth.kind, AuthKind::Basic);
    assert_eq!(
        (d.auth.basic_user.as_str(), d.auth.basic_password.as_str()),
        ("admin", "example-password")
    );
    assert_eq!(d.timeouts.total_ms, Some(2500));
    assert_eq!(d.timeouts.connect_ms, Some(750));
    assert!(!d.verify_tls && d.follow_redirects);
    assert_eq!(d.max_redirects, 3);
    assert_eq!(header(d, "user-agent"), Some("my-script/1.0"));
    assert_eq!(header(d, "referer"), Some("http://127.0.0.1:8080/"));
    assert_eq!(i.unsupported, ["--proxy (ignored: not supported)"]);
    // `retryscope curl` honours -s; the window and batch lists name it with the notes.
    assert_eq!(i.output_notes(), ["-s (ignored: output option)"]);
}

#[test]
fn every_fixture_survives_export_and_import() {
    for name in [
        "chrome_post_json.txt",
        "chrome_ansi_c.txt",
        "chrome_cmd.txt",
        "firefox_post.txt",
        "postman_json.txt",
        "postman_urlencoded.txt",
        "handwritten.txt",
    ] {
        let first = import(name).draft;
        let command = draft_to_curl(&first, true);
        let again = parse_curl(&command)
            .unwrap_or_else(|e| panic!("{name}: {e}\n{command}"))
            .draft;
        assert_eq!(again, first, "{name}:\n{command}");
    }
}

/// Drafts in the form the importer produces, together covering every feature curl can carry.
fn feature_drafts() -> Vec<RequestDraft> {
    let base = || RequestDraft {
        url: "http://127.0.0.1:8080/a b?x='1'&sig=S".into(),
        follow_redirects: false,
        ..RequestDraft::default()
    };
    let mut all = Vec::new();
    let mut d = base();
    d.method = "DELETE".into();
    d.headers
        .push(KeyValue::new("X-Quote", "it's \"quoted\" $HOME `x` \\"));
    d.headers.push(KeyValue::new("X-Empty", ""));
    d.headers.push(KeyValue::new("Authorization", "Bearer tok"));
    d.query.push(KeyValue::new("q", "a&b=c d"));
    d.idempotency_enabled = true;
    d.idempotency_key = "key-1".into();
    d.verify_tls = false;
    d.follow_redirects = true;
    d.max_redirects = 4;
    d.timeouts.total_ms = Some(1250);
    d.timeouts.connect_ms = Some(1);
    all.push(d);

    let mut d = base();
    d.method = "POST".into();
    d.body.kind = BodyKind::Json;
    d.body.json = "{\n  \"a\": \"multi\\nline\",\n  \"b\": 'x'\n}".into();
    d.auth.kind = AuthKind::Bearer;
    d.auth.bearer_token = "tok'en".into();
    all.push(d);

    let mut d = base();
    d.method = "PUT".into();
    d.body.kind = BodyKind::Text;
    d.body.text = "plain\ttext\n".into();
    d.auth.kind = AuthKind::Basic;
    d.auth.basic_user = "user".into();
    d.auth.basic_password = "p:w'd".into();
    all.push(d);

    let mut d = base();
    d.method = "POST".into();
    d.body.kind = BodyKind::Text;
    d.body.text = "a,b\n1,2".into();
    d.body.content_type = "text/csv".into();
    all.push(d);

    let mut d = base();
    d.method = "PATCH".into();
    d.body.kind = BodyKind::Form;
    d.body.form = vec![
        KeyValue::new("name", "Ada Lovelace"),
        KeyValue::new("password", "s3cret&="),
    ];
    all.push(d);

    let mut d = base();
    d.method = "POST".into();
    d.body.kind = BodyKind::File;
    d.body.file_path = "/tmp/some dir/body.bin".into();
    all.push(d);

    let mut d = base();
    d.method = "POST".into();
    d.body.kind = BodyKind::Multipart;
    d.body.multipart = vec![
        KeyValue::new("greeting", "hello world"),
        KeyValue::new("doc", "@/tmp/some dir/notes.txt;type=text/plain"),
        KeyValue::new("raw", "@data.bin"),
    ];
    all.push(d);

    let mut d = base();
    d.method = "POST".into();
    d.body.kind = BodyKind::File;
    d.body.file_path = "body.json".into();
    d.body.content_type = "application/json".into();
    all.push(d);

    all.push(RequestDraft {
        method: "HEAD".into(),
        ..base()
    });
    all.push(RequestDraft {
        method: "PURGE".into(),
        ..base()
    });
    all.push(RequestDraft {
        method: "POST".into(),
        ..base()
    });
    all
}

#[test]
fn drafts_round_trip_through_curl() {
    for draft in feature_drafts() {
        let command = draft_to_curl(&draft, true);
        let back = parse_curl(&command).unwrap_or_else(|e| panic!("{e}\n{command}"));
        assert_eq!(back.draft, draft, "{command}");
        assert!(back.unsupported.is_empty(), "{:?}", back.unsupported);
    }
}

#[test]
fn exports_are_one_option_per_line_and_masked_by_default() {
    let draft = &feature_drafts()[0];
    let masked = draft_to_curl(draft, false);
    assert_eq!(
        masked,
        "curl 'http://127.0.0.1:8080/a b?x='\\''1'\\''&sig=***' \\\n  \
         -X 'DELETE' \\\n  \
         --url-query 'q=a&b=c d' \\\n  \
         -H 'X-Quote: it'\\''s \"quoted\" $HOME `x` \\' \\\n  \
         -H 'X-Empty;' \\\n  \
         -H 'Authorization: ***' \\\n  \
         -H 'Idempotency-Key: key-1' \\\n  \
         -k \\\n  \
         -L \\\n  \
         --max-redirs 4 \\\n  \
         --connect-timeout 0.001 \\\n  \
         --max-time 1.25"
    );
    let form = draft_to_curl(&feature_drafts()[4], false);
    assert!(form.contains("--data-urlencode 'password=***'"), "{form}");
    assert!(!form.contains("s3cret"), "{form}");
}

#[test]
fn multipart_form_parts_become_a_multipart_body() {
    let i = parse_curl(
        "curl -F 'name=Ada' -F 'file=@notes.txt;type=text/plain' --form-string 'note=x y' \\\n         -H 'Content-Type: multipart/form-data' http://127.0.0.1:8080/echo",
    )
    .expect("parses");
    let d = &i.draft;
    assert_eq!(d.method, "POST", "-F implies POST, as in curl");
    assert_eq!(d.body.kind, BodyKind::Multipart);
    assert_eq!(
        d.body.multipart,
        [
            KeyValue::new("name", "Ada"),
            KeyValue::new("file", "@notes.txt;type=text/plain"),
            KeyValue::new("note", "x y"),
        ]
    );
    assert_eq!(
        header(d, "content-type"),
        None,
        "the engine sets the boundary"
    );
    assert!(i.unsupported.is_empty(), "{:?}", i.unsupported);
    let spec_body = d.body.to_body();
    let retryscope::model::Body::Multipart { parts } = spec_body else {
        panic!("a multipart body: {spec_body:?}");
    };
    assert_eq!(
        parts[1].source,
        retryscope::model::PartSource::File {
            path: "notes.txt".into(),
            content_type: Some("text/plain".into())
        }
    );
    // Listed, not dropped: a text part read from a file, and -F with -d.
    let i =
        parse_curl("curl -F 'a=<in.txt' -F b=1 -d x=1 http://127.0.0.1:8080/echo").expect("parses");
    assert_eq!(i.draft.body.multipart, [KeyValue::new("b", "1")]);
    assert_eq!(i.unsupported.len(), 2, "{:?}", i.unsupported);
    assert!(parse_curl("curl -F novalue http://127.0.0.1:8080/").is_err());
    // Exported back as -F, secret-named text parts masked.
    let mut d = RequestDraft {
        url: "http://127.0.0.1:8080/echo".into(),
        method: "POST".into(),
        ..RequestDraft::default()
    };
    d.body.kind = BodyKind::Multipart;
    d.body.multipart = vec![
        KeyValue::new("password", "hunter2"),
        KeyValue::new("doc", "@a.txt"),
    ];
    let command = draft_to_curl(&d, false);
    assert!(command.contains("-F 'password=***'"), "{command}");
    assert!(command.contains("-F 'doc=@a.txt'"), "{command}");
}

#[test]
fn no_body_is_curls_long_name_for_head() {
    for flag in ["-I", "--head", "--no-body"] {
        let got = parse_curl(&format!("curl {flag} http://127.0.0.1:9/x"))
            .unwrap_or_else(|e| panic!("{flag}: {e}"));
        assert_eq!(got.draft.method, "HEAD", "{flag}");
        assert!(got.unsupported.is_empty(), "{flag}: {:?}", got.unsupported);
    }
}
