//! Tests of the curl command reader and writer (`interop::curl`).

use super::*;

#[test]
fn curl_exe_and_paths_to_curl_are_the_program_and_urls_are_not() {
    for program in [
        "curl",
        "CURL",
        "curl.exe",
        "Curl.Exe",
        "/usr/bin/curl",
        "./curl",
        "~/bin/curl",
        r"C:\Windows\System32\curl.exe",
        "C:/tools/curl.exe",
    ] {
        assert!(is_curl_program(program), "{program}");
    }
    for word in [
        "http://127.0.0.1:8080/curl",
        "127.0.0.1:8080/curl",
        "example.com/curl.exe",
        "curly",
        "xcurl",
        "curl.exe.txt",
        "",
    ] {
        assert!(!is_curl_program(word), "{word}");
    }
    // Windows' "Copy as cURL (cmd)" / PowerShell copies start with `curl.exe`.
    let i = parse_curl("curl.exe \"http://127.0.0.1:8080/echo\" -H \"X: 1\"").expect("curl.exe");
    assert_eq!(i.draft.url, "http://127.0.0.1:8080/echo");
    assert_eq!(i.draft.headers[0].value, "1");
    assert!(i.unsupported.is_empty(), "{:?}", i.unsupported);
    assert!(starts_with_curl_program(
        "  'curl.exe' http://127.0.0.1:8080/"
    ));
    assert!(
        !starts_with_curl_program("curl.exe"),
        "the program alone is no command"
    );
    assert!(!starts_with_curl_program("http://127.0.0.1:8080/curl -v"));
}

#[test]
fn a_copied_command_with_masked_secrets_says_where_the_mask_is() {
    let i = parse_curl("curl -u alice:*** -H 'X-Api-Key: ***' 'http://127.0.0.1:8080/x?token=***'")
        .unwrap();
    let masked: Vec<&String> = i
        .unsupported
        .iter()
        .filter(|n| n.contains("`***`"))
        .collect();
    assert_eq!(masked.len(), 3, "{:?}", i.unsupported);
    // `-u alice:***` is found in the Basic credentials it becomes.
    for place in [
        "header X-Api-Key is",
        "header Authorization is",
        "query parameter token is",
    ] {
        assert!(
            masked.iter().any(|n| n.starts_with(place)),
            "{place}: {masked:?}"
        );
    }
}

#[test]
fn an_authorization_header_wins_over_u_as_in_curl() {
    let i = parse_curl("curl -u u:pw9secret -H 'Authorization: Bearer TOK9' http://127.0.0.1:9/x")
        .unwrap();
    assert_ne!(i.draft.auth.kind, AuthKind::Basic, "-u is not applied");
    assert!(
        i.draft
            .headers
            .iter()
            .any(|h| h.name == "Authorization" && h.value == "Bearer TOK9"),
        "{:?}",
        i.draft.headers
    );
    assert!(
        i.unsupported
            .iter()
            .any(|n| n.starts_with("-u and -H 'Authorization: …' both given")),
        "{:?}",
        i.unsupported
    );
}

#[test]
fn seconds_are_read_exactly() {
    assert_eq!(seconds_to_ms("2.5"), Some(2500));
    assert_eq!(seconds_to_ms("0.001"), Some(1));
    assert_eq!(seconds_to_ms("0.0001"), Some(1));
    assert_eq!(seconds_to_ms(".25"), Some(250));
    assert_eq!(seconds_to_ms("30"), Some(30_000));
    for bad in ["0", "-1", "abc", "", ".", "1e3"] {
        assert_eq!(seconds_to_ms(bad), None, "{bad}");
    }
}

#[test]
fn errors_name_option_and_position() {
    let e = parse_curl("curl http://h/ -H").expect_err("no value");
    assert_eq!(e.to_string(), "`-H` (word 2) needs a value");
    let e = parse_curl("curl http://h/ --max-time soon").expect_err("bad");
    assert_eq!(
        e.to_string(),
        "`--max-time` (word 2): give seconds greater than 0, e.g. 2.5"
    );
    let e = parse_curl("curl -H 'NoColon' http://h/").expect_err("bad header");
    assert!(e.to_string().starts_with("`-H` (word 1): "), "{e}");
    assert_eq!(parse_curl("wget http://h/"), Err(CurlError::NotCurl));
    assert_eq!(parse_curl("curl -s"), Err(CurlError::NoUrl));
    assert_eq!(
        parse_curl("curl ''"),
        Err(CurlError::EmptyUrl { position: 1 })
    );
    assert!(matches!(
        parse_curl("curl http://a/ --next http://b/"),
        Err(CurlError::Next { position: 2, .. })
    ));
}

/// stdin is never read: `-d @-` and `-T -` say so and what to give instead; `-T FILE` is the
/// body of a PUT (or of `-X`'s method), sent as is with no Content-Type of its own.
#[test]
fn stdin_bodies_are_refused_and_upload_file_is_a_put_of_the_file() {
    for (command, word, give) in [
        ("curl http://h/ -d @-", "`-d` (word 2)", "`-d @FILE`"),
        (
            "curl --data-binary @- http://h/",
            "`--data-binary` (word 1)",
            "`--data-binary @FILE`",
        ),
        ("curl -T - http://h/", "`-T` (word 1)", "`-T FILE`"),
    ] {
        let e = parse_curl(command).expect_err(command);
        assert_eq!(
            e.to_string(),
            format!(
                "{word}: stdin is not read by `retryscope curl` or an import; save the body to a file and give {give}"
            )
        );
    }
    let i = parse_curl("curl -T notes.txt http://h/up").expect("parses");
    assert_eq!(i.draft.method, "PUT");
    assert_eq!(i.draft.body.kind, BodyKind::File);
    assert_eq!(i.draft.body.file_path, "notes.txt");
    assert_eq!(i.draft.body.content_type, "");
    assert!(i.unsupported.is_empty(), "{:?}", i.unsupported);
    let i = parse_curl("curl -X POST --upload-file dir/notes.txt http://h/up/").expect("parses");
    assert_eq!(i.draft.method, "POST");
    assert_eq!(
        i.draft.url, "http://h/up/notes.txt",
        "a URL naming no file gets the file's"
    );
    for (command, url) in [
        ("curl -T notes.txt http://h:8080", "http://h:8080/notes.txt"),
        ("curl -T notes.txt h", "http://h/notes.txt"),
        ("curl -T notes.txt 'http://h?x=1'", "http://h/notes.txt?x=1"),
        (
            "curl -T notes.txt 'http://h/up/?x=1'",
            "http://h/up/notes.txt?x=1",
        ),
        ("curl -T notes.txt 'http://h/up?x=1'", "http://h/up?x=1"),
    ] {
        let i = parse_curl(command).expect(command);
        assert_eq!(i.draft.url, url, "{command}");
    }
}

#[test]
fn cacert_becomes_the_trusted_ca_file_and_is_exported_back() {
    let i = parse_curl("curl --cacert /etc/ssl/ca.pem https://h/").expect("parses");
    assert_eq!(i.draft.ca_cert, "/etc/ssl/ca.pem");
    assert!(i.draft.verify_tls);
    assert!(i.unsupported.is_empty(), "{:?}", i.unsupported);
    let text = crate::interop::draft_to_curl(&i.draft, false);
    assert!(text.contains("--cacert '/etc/ssl/ca.pem'"), "{text}");
    let again = parse_curl(&text).expect("parses back");
    assert_eq!(again.draft.ca_cert, "/etc/ssl/ca.pem");
}

#[test]
fn location_trusted_follows_keeps_secrets_and_is_exported_back() {
    let plain = parse_curl("curl -L https://h/").expect("parses");
    assert!(plain.draft.follow_redirects && !plain.draft.location_trusted);
    let i = parse_curl("curl --location-trusted https://h/").expect("parses");
    assert!(i.draft.follow_redirects && i.draft.location_trusted);
    let spec = i
        .draft
        .to_spec(&crate::model::Variables::new(), "")
        .expect("resolves");
    assert!(spec.location_trusted);
    let text = crate::interop::draft_to_curl(&i.draft, false);
    assert!(text.contains("--location-trusted"), "{text}");
    let again = parse_curl(&text).expect("parses back");
    assert!(again.draft.location_trusted);
}

#[test]
fn combined_short_flags() {
    let i = parse_curl("curl -sSLkXPATCH http://h/").expect("parses");
    assert_eq!(i.draft.method, "PATCH");
    assert!(i.draft.follow_redirects && !i.draft.verify_tls);
    assert_eq!(
        i.unsupported,
        Vec::<String>::new(),
        "-S is accepted silently"
    );
    assert_eq!(i.silent.as_deref(), Some("-s"));
    let i = parse_curl("curl -si --show-error http://h/").expect("parses");
    assert_eq!(i.include.as_deref(), Some("-i"));
    assert!(i.unsupported.is_empty(), "{:?}", i.unsupported);
    assert_eq!(
        i.output_notes(),
        ["-s (ignored: output option)", "-i (ignored: output option)"]
    );
}

#[test]
fn continuations_flattened_by_a_one_line_field_still_parse() {
    let i = parse_curl("curl 'http://h/' \\   -H 'A: b' \\  --data-raw 'x'").expect("parses");
    assert_eq!(i.draft.url, "http://h/");
    assert_eq!(i.draft.body.text, "x");
    assert!(i.unsupported.is_empty(), "{:?}", i.unsupported);
}

#[test]
fn a_lone_backslash_word_is_a_lost_continuation_not_a_url() {
    let words: Vec<String> = ["curl", "http://h/", "\\", "-H", "A: b"]
        .map(String::from)
        .to_vec();
    let i = parse_curl_words(&words).expect("parses");
    assert_eq!(i.draft.url, "http://h/");
    assert_eq!(
        i.unsupported,
        ["a lone `\\` (word 2) ignored: a line continuation without its line break"]
    );
}

#[test]
fn output_is_kept_for_the_cli_and_named_for_the_other_importers() {
    let i = parse_curl("curl -o out.json http://127.0.0.1:9/a").expect("parses");
    assert_eq!(i.output.as_deref(), Some("out.json"));
    assert!(i.unsupported.is_empty(), "{:?}", i.unsupported);
    let notes = i.output_notes();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].starts_with("-o FILE (ignored: "), "{notes:?}");
    assert!(!notes[0].contains("out.json"), "{notes:?}");
    let long = parse_curl("curl --output - --silent http://127.0.0.1:9/a").expect("parses");
    assert_eq!(long.output.as_deref(), Some("-"), "-o - is stdout");
    assert_eq!(long.silent.as_deref(), Some("--silent"));
    assert!(long.unsupported.is_empty(), "{:?}", long.unsupported);
    assert_eq!(
        long.output_notes(),
        ["--silent (ignored: output option)"],
        "the window shows the body anyway: no note for -o -"
    );
}

#[test]
fn a_variable_a_shell_would_expand_is_noted_without_showing_it() {
    let noted = |command: &str| {
        let i = parse_curl(command).expect(command);
        assert!(
            i.unsupported.iter().all(|n| !n.contains("TOKEN")),
            "{command}"
        );
        i.unsupported
            .iter()
            .filter(|n| n.contains("shell variable"))
            .count()
    };
    assert_eq!(
        noted(r#"curl http://h/ -H "Authorization: Bearer $TOKEN""#),
        1
    );
    assert_eq!(noted(r#"curl http://h/ -u "${USER}:x""#), 1);
    assert_eq!(noted("curl http://h/ -H X:$TOKEN"), 1);
    // Single quotes and a backslash keep `$` literal in a shell too.
    assert_eq!(noted("curl http://h/ -H 'Authorization: Bearer $TOKEN'"), 0);
    assert_eq!(noted(r#"curl http://h/ -H "X: \$TOKEN""#), 0);
    // OData's query options and a lone `$` are not variables.
    assert_eq!(noted("curl http://h/People?$filter=x -d 'cost: 5$'"), 0);
    // Words a shell already split: what is left of `$` was quoted on purpose.
    let words: Vec<String> = ["curl", "http://h/", "-H", "X: $TOKEN"]
        .map(String::from)
        .to_vec();
    let i = parse_curl_words(&words).expect("parses");
    assert!(i.unsupported.is_empty(), "{:?}", i.unsupported);
}

#[test]
fn a_url_missing_the_slashes_after_http_is_read_as_curl_reads_it() {
    for (command, url) in [
        (
            "curl http:/127.0.0.1:8080/echo",
            "http://127.0.0.1:8080/echo",
        ),
        ("curl HTTPS:h/x", "HTTPS://h/x"),
    ] {
        let i = parse_curl(command).expect(command);
        assert_eq!(i.draft.url, url, "{command}");
        assert!(
            i.unsupported.iter().any(|n| n.contains("without `//`")),
            "{command}: {:?}",
            i.unsupported
        );
    }
}
