//! Bad input never crashes: property tests over what users paste and load — curl
//! commands, HAR files, URLs and headers, custom scripts. Each property also states what must
//! hold, not only that nothing panics. Cases per property: `PROPTEST_CASES` (default below, a
//! CI-sized run); `PROPTEST_CASES=100000 cargo test --release --test input_props` is the longer
//! run documented in README.

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use retryscope::engine::check_spec;
use retryscope::interop::{HarFile, draft_to_curl, parse_curl};
use retryscope::model::{
    AttemptOutcome, Backoff, KeyValue, RequestSpec, ResponseSummary, RetryProfile, Strategy,
    Variables,
};
use retryscope::policy::{Policy, WaitContext, WaitDecision, rng_from_seed};
use retryscope::ui::url_check::url_problem;

fn cases(default: u32) -> ProptestConfig {
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig::with_cases(n)
}

/// Words a curl command is made of, including quoting and options that take values.
fn curl_word() -> impl proptest::strategy::Strategy<Value = String> {
    prop_oneof![
        Just("-X".to_owned()),
        Just("-H".to_owned()),
        Just("-d".to_owned()),
        Just("--data-raw".to_owned()),
        Just("--json".to_owned()),
        Just("-F".to_owned()),
        Just("-u".to_owned()),
        Just("-G".to_owned()),
        Just("-L".to_owned()),
        Just("-k".to_owned()),
        Just("--url".to_owned()),
        Just("-m".to_owned()),
        Just("\\\n".to_owned()),
        Just("'".to_owned()),
        Just("\"".to_owned()),
        Just("$'\\x41'".to_owned()),
        Just("^".to_owned()),
        "[a-zA-Z0-9:/?&=._ -]{0,12}",
        "http://127\\.0\\.0\\.1:[0-9]{1,5}/[a-z]{0,5}",
        any::<String>(),
    ]
}

proptest! {
    #![proptest_config(cases(600))]

    /// Any text: an import or an error naming the problem, never a panic.
    #[test]
    fn curl_import_never_panics(words in proptest::collection::vec(curl_word(), 0..12)) {
        let command = format!("curl {}", words.join(" "));
        match parse_curl(&command) {
            Ok(import) => {
                // What came in is a request the composer can show and send again as curl.
                let again = draft_to_curl(&import.draft, true);
                prop_assert!(again.starts_with("curl "), "{again}");
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    /// A command built from parts reads back as those parts, and its export reads back the same.
    #[test]
    fn curl_round_trips(
        method in prop_oneof![Just("GET"), Just("POST"), Just("PUT"), Just("DELETE"), Just("PATCH")],
        path in "[a-z0-9]{0,8}",
        query in proptest::option::of("[a-z]{1,5}=[a-z0-9]{0,5}"),
        headers in proptest::collection::vec(("X-[A-Za-z]{1,8}", "[ -~]{0,16}"), 0..4),
        body in proptest::option::of("[ -~]{0,40}"),
    ) {
        let mut url = format!("http://127.0.0.1:8080/{path}");
        if let Some(q) = &query {
            url.push('?');
            url.push_str(q);
        }
        let mut spec = RequestSpec::get(url.clone());
        spec.method = method.to_owned();
        spec.headers = headers
            .iter()
            .map(|(n, v)| KeyValue::new(n.clone(), v.trim().to_owned()))
            .collect();
        if let Some(text) = &body {
            spec.body = retryscope::model::Body::Text { text: text.clone(), content_type: Some("text/plain".into()) };
        }
        let command = retryscope::interop::spec_to_curl(&spec, true);
        let first = parse_curl(&command).map_err(|e| TestCaseError::fail(format!("{command}: {e}")))?;
        prop_assert_eq!(&first.draft.method, method);
        prop_assert_eq!(&first.draft.url, &url);
        for (n, v) in &headers {
            prop_assert!(
                first.draft.headers.iter().any(|h| h.name == *n && h.value == v.trim()),
                "{n}: {v} lost in {command}"
            );
        }
        if let Some(text) = &body {
            prop_assert_eq!(&first.draft.body.text, text, "{}", command);
        }
        let second = parse_curl(&draft_to_curl(&first.draft, true)).unwrap();
        prop_assert_eq!(second.draft.method, first.draft.method);
        prop_assert_eq!(second.draft.url, first.draft.url);
        prop_assert_eq!(second.draft.headers, first.draft.headers);
        prop_assert_eq!(second.draft.body.text, first.draft.body.text);
    }

    /// Any text as a HAR file: a file whose every entry gives a draft (or says why not), or an
    /// error; never a panic, and an index past the end is an error.
    #[test]
    fn har_import_never_panics(
        text in prop_oneof![
            any::<String>(),
            "\\{\"log\":\\{\"entries\":\\[[ -~]{0,80}\\]\\}\\}",
            Just(r#"{"log":{"version":"1.2","entries":[{"request":{"method":"GET","url":"http://127.0.0.1/","headers":[{"name":"A","value":"b"}]}}]}}"#.to_owned()),
            Just(r#"{"log":{"entries":[{"request":{"method":7,"url":null}}]}}"#.to_owned()),
        ]
    ) {
        if let Ok(file) = HarFile::parse(&text) {
            let n = file.summaries().len();
            for i in 0..n {
                let _ = file.draft(i);
            }
            prop_assert!(file.draft(n).is_err());
        }
    }

    /// The composer's URL check and the engine agree: a URL the composer accepts is one the
    /// engine accepts; one it refuses, the engine refuses too.
    #[test]
    fn url_check_and_engine_agree(
        url in prop_oneof![
            any::<String>(),
            "(http|https|ftp|)://[a-z0-9.\\[\\]:@%-]{0,20}(/[ -~]{0,10})?",
            "http://127\\.0\\.0\\.1:[0-9]{1,6}/[a-z]{0,4}",
        ]
    ) {
        prop_assume!(!url.contains("{{"));
        let composer_ok = url_problem(&url).is_none();
        let spec = RequestSpec::get(url.trim().to_owned());
        let engine = check_spec(&spec);
        prop_assert_eq!(composer_ok, engine.is_ok(), "{:?}: composer {:?}, engine {:?}", url, url_problem(&url), engine);
    }

    /// Header names and values: the engine accepts exactly the tokens and the values HTTP
    /// allows, and names the row it refuses.
    #[test]
    fn header_rows_are_accepted_or_named(name in any::<String>(), value in any::<String>()) {
        let mut spec = RequestSpec::get("http://127.0.0.1:9/");
        spec.headers = vec![KeyValue::new(name.clone(), value.clone())];
        let token = !name.trim().is_empty()
            && name.trim().bytes().all(|b| b"!#$%&'*+-.^_`|~".contains(&b) || b.is_ascii_alphanumeric());
        match check_spec(&spec) {
            Ok(()) => prop_assert!(token, "{name:?} accepted"),
            Err(e) => {
                let text = e.to_string();
                prop_assert!(text.contains("headers[0]"), "{text}");
            }
        }
    }

    /// Any script: compiled or refused with a position; a compiled one ends every call with a
    /// wait, a stop or a script error (never a panic or an endless loop: operations are bounded).
    #[test]
    fn custom_scripts_end(
        body in prop_oneof![
            any::<String>(),
            "[ -~]{0,40}",
            Just("loop { }".to_owned()),
            Just("let x = 0; while true { x += 1; }".to_owned()),
            Just("fn f(n) { f(n + 1) } f(0)".to_owned()),
            Just("let s = \"a\"; loop { s += s; }".to_owned()),
            Just("1.0 / 0.0".to_owned()),
            Just("ctx.retry * 1000".to_owned()),
        ]
    ) {
        let script = format!("fn get_delay(ctx) {{ {body} }}");
        let mut backoff = Backoff::new(Strategy::Custom);
        backoff.script = Some(script);
        let mut profile: RetryProfile = serde_json::from_value(serde_json::json!({
            "format": "retryscope-profile/1", "name": "p", "backoff": { "strategy": "fixed" }
        })).unwrap();
        profile.backoff = backoff;
        let Ok(policy) = Policy::new(profile) else { return Ok(()); };
        let outcome = AttemptOutcome::Response(ResponseSummary {
            status: 503, reason: String::new(), version: "HTTP/1.1".into(),
            headers: Vec::new(), body: retryscope::model::BodyPreview::default(),
        });
        let ctx = WaitContext { retry: 1, outcome: &outcome, elapsed_ms: 0, prev_wait_ms: None,
                                time_left_ms: None, now_unix_ms: 0 };
        match policy.next_wait(&ctx, &mut rng_from_seed(1)) {
            WaitDecision::Wait(e) => prop_assert!(e.wait_ms <= retryscope::policy::MAX_WAIT_MS),
            WaitDecision::Stop { reason } => prop_assert!(!reason.is_empty()),
            WaitDecision::ScriptError { message } => prop_assert!(!message.is_empty()),
        }
    }
}

#[test]
fn variables_in_a_url_are_left_to_send_time() {
    // The one exception of url_check_and_engine_agree: `{{name}}` is judged after resolution.
    assert_eq!(url_problem("http://{{host}}/x"), None);
    let _ = Variables::new();
}
