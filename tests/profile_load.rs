//! Loading profiles: field paths, line:column, suggestions, and every semantic problem at once.

use retryscope::model::{PROFILE_FORMAT, Strategy};
use retryscope::profile::{ProfileErrors, ProfileIssue, load_file, load_str};
use std::path::Path;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new("tests/fixtures").join(name)).expect("fixture exists")
}

fn errors(name: &str) -> ProfileErrors {
    load_str(&fixture(name)).expect_err("fixture is invalid")
}

fn only(name: &str) -> ProfileIssue {
    let e = errors(name);
    assert_eq!(e.issues.len(), 1, "{e}");
    e.issues.into_iter().next().expect("one issue")
}

#[test]
fn good_fixture_loads_with_defaults_filled_in() {
    let p = load_file(Path::new("tests/fixtures/good.json")).expect("valid");
    assert_eq!(p.format, PROFILE_FORMAT);
    assert_eq!(p.max_retries, Some(4));
    assert_eq!(p.backoff.strategy, Strategy::Exponential);
    assert_eq!(p.backoff.max_delay_ms, Some(5000));
    assert!(p.retry_on.status.contains(503));
    assert!(p.success_status.contains(204), "default success set");
    assert_eq!(p.timeouts.connect_ms, Some(2000));
    assert_eq!(p.seed, Some(42));
}

#[test]
fn unknown_field_names_parent_and_suggests() {
    let i = only("unknown_field.json");
    assert_eq!(
        i.message,
        "unknown field `base_delay` at backoff; did you mean `base_delay_ms`?"
    );
    assert_eq!(i.path, "backoff.base_delay");
    assert_eq!((i.line, i.column), (Some(6), Some(5)));
    assert_eq!(
        i.to_string(),
        "6:5: backoff.base_delay: unknown field `base_delay` at backoff; did you mean `base_delay_ms`?"
    );
}

#[test]
fn unknown_top_level_field_suggests() {
    let i = only("top_level_typo.json");
    assert_eq!(
        i.message,
        "unknown field `max_retry` at the top level; did you mean `max_retries`?"
    );
    assert_eq!((i.line, i.column), (Some(4), Some(3)));
}

#[test]
fn unknown_field_without_close_match_lists_expected() {
    let text = r#"{"format": "retryscope-profile/1", "name": "x",
        "backoff": {"strategy": "fixed", "zzzzzz": 1}}"#;
    let e = load_str(text).expect_err("unknown field");
    let i = &e.issues[0];
    assert!(
        i.message
            .starts_with("unknown field `zzzzzz` at backoff; expected one of `base_delay_ms`,"),
        "{i}"
    );
    assert!(i.message.contains("`strategy`"), "{i}");
    assert_eq!(i.line, Some(2));
}

#[test]
fn every_unknown_field_is_reported_at_once() {
    let e = errors("several_unknown_fields.json");
    let got: Vec<String> = e.issues.iter().map(ToString::to_string).collect();
    assert_eq!(
        got,
        [
            "4:3: max_retry: unknown field `max_retry` at the top level; did you mean `max_retries`?",
            "5:17: retry_on.statuses: unknown field `statuses` at retry_on; did you mean `status`?",
            "9:32: backoff.headers[0].units: unknown field `units` at backoff.headers[0]; did you mean `unit`?",
            "11:40: backoff.fallback.base_delay: unknown field `base_delay` at backoff.fallback; did you mean `base_delay_ms`?",
        ]
    );
}

#[test]
fn unknown_strategy_suggests_the_right_one() {
    let i = only("bad_strategy.json");
    assert_eq!(i.path, "backoff.strategy");
    assert!(i.message.contains("did you mean `exponential`?"), "{i}");
    assert_eq!(i.line, Some(4));
}

#[test]
fn syntax_error_has_line_and_column() {
    let i = only("bad_syntax.json");
    assert!(i.message.starts_with("invalid JSON: "), "{i}");
    assert_eq!((i.line, i.column), (Some(4), Some(3)));
    // Plain words, not serde_json's ("expected `,` or `}`").
    assert_eq!(
        i.message,
        "invalid JSON: expected `,` before the next field or `}` to close the object"
    );
}

/// A field name without quotes: `serde_json` says "key must be a string"; the user reads what
/// was expected.
#[test]
fn an_unquoted_field_name_is_said_in_plain_words() {
    let e = retryscope::profile::load_str("{x: 1}").expect_err("not JSON");
    let i = &e.issues[0];
    assert_eq!(
        i.message,
        "invalid JSON: expected a field name in double quotes"
    );
    assert_eq!((i.line, i.column), (Some(1), Some(2)));
}

#[test]
fn wrong_type_has_path_and_position() {
    let i = only("wrong_type.json");
    assert_eq!(i.path, "backoff.base_delay_ms");
    assert_eq!(i.line, Some(6));
    assert!(i.message.contains("expected a whole number"), "{i}");
}

#[test]
fn other_format_version_is_a_clear_error() {
    let i = only("wrong_format.json");
    assert_eq!(i.path, "format");
    assert!(i.message.contains("retryscope-profile/3"), "{i}");
    assert!(
        i.message
            .contains("reads `retryscope-profile/2` and `retryscope-profile/1`"),
        "{i}"
    );
    assert_eq!(i.line, Some(2));
}

#[test]
fn missing_format_says_what_to_add() {
    let e = load_str(r#"{"name": "x", "backoff": {"strategy": "fixed"}}"#).expect_err("no format");
    assert!(
        e.issues[0]
            .message
            .contains("\"format\": \"retryscope-profile/2\""),
        "{e}"
    );
}

#[test]
fn non_object_document_is_rejected() {
    let e = load_str("[1, 2]").expect_err("not an object");
    assert!(e.issues[0].message.contains("JSON object"), "{e}");
}

#[test]
fn every_semantic_problem_is_reported_with_position() {
    let e = errors("many_problems.json");
    let paths: Vec<&str> = e.issues.iter().map(|i| i.path.as_str()).collect();
    // `max_retries: 5000` was a problem in format 1 (limit 1000); format 2 takes any u32.
    let expected = [
        "success_status[1]",
        "retry_on.status[1]",
        "backoff.max_delay_ms",
        "backoff.jitter_ratio",
        "backoff.headers",
        "backoff.fallback.strategy",
        "deadline_ms",
        "timeouts.connect_ms",
    ];
    for p in expected {
        assert!(paths.contains(&p), "missing issue at {p}: {e}");
    }
    assert_eq!(e.issues.len(), expected.len(), "{e}");
    for i in &e.issues {
        assert!(i.line.is_some() && i.column.is_some(), "no position: {i}");
    }
    let lines: Vec<usize> = e.issues.iter().filter_map(|i| i.line).collect();
    let mut sorted = lines.clone();
    sorted.sort_unstable();
    assert_eq!(lines, sorted, "document order");
    // Display: one issue per line.
    assert_eq!(e.to_string().lines().count(), e.issues.len());
    let status = e
        .issues
        .iter()
        .find(|i| i.path == "retry_on.status[1]")
        .expect("700");
    assert_eq!((status.line, status.column), (Some(6), Some(33)));
}

#[test]
fn response_header_needs_a_fallback() {
    let text = r#"{"format": "retryscope-profile/1", "name": "x",
        "backoff": {"strategy": "response_header"}}"#;
    let e = load_str(text).expect_err("no fallback");
    assert_eq!(e.issues.len(), 1, "{e}");
    assert_eq!(e.issues[0].path, "backoff.fallback");
    assert!(e.issues[0].message.contains("fallback"), "{e}");
}

#[test]
fn fallback_cannot_be_response_header() {
    let text = r#"{"format": "retryscope-profile/1", "name": "x",
        "backoff": {"strategy": "response_header",
                    "fallback": {"strategy": "response_header", "fallback": {"strategy": "fixed"}}}}"#;
    let e = load_str(text).expect_err("nested response_header");
    assert!(
        e.issues
            .iter()
            .any(|i| i.path == "backoff.fallback.strategy"),
        "{e}"
    );
}

#[test]
fn custom_needs_a_script() {
    let i = only("custom_without_script.json");
    assert_eq!(i.path, "backoff.script");
    assert!(i.message.contains("custom strategy needs a script"), "{i}");
    // `script` is absent, so the position is that of its parent, `backoff`.
    assert_eq!(i.line, Some(4));
}

#[test]
fn empty_name_and_hard_cap_without_max() {
    let text = r#"{"format": "retryscope-profile/1", "name": " ",
        "backoff": {"strategy": "fixed", "hard_cap": true}}"#;
    let e = load_str(text).expect_err("two problems");
    let paths: Vec<&str> = e.issues.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(paths, ["name", "backoff.hard_cap"], "{e}");
}

#[test]
fn a_name_with_control_characters_is_refused_where_it_stands() {
    let text = "{\"format\": \"retryscope-profile/1\",\n \"name\": \"tab\\there\\u0007bell\\u001b[31mred\",\n \"backoff\": {\"strategy\": \"fixed\"}}";
    let e = load_str(text).expect_err("refused");
    assert_eq!(e.issues.len(), 1, "{e}");
    let i = &e.issues[0];
    assert_eq!((i.path.as_str(), i.line), ("name", Some(2)), "{e}");
    assert_eq!(
        i.message,
        "name contains a control character (U+0009) at character 4; a name is one line of plain text"
    );
}

#[test]
fn unreadable_file_is_one_issue_at_the_root() {
    let e = load_file(Path::new("tests/fixtures/does-not-exist.json")).expect_err("missing");
    assert_eq!(e.issues.len(), 1, "{e}");
    assert!(
        e.issues[0]
            .message
            .starts_with("cannot read the profile file: "),
        "{e}"
    );
    assert_eq!((e.issues[0].path.as_str(), e.issues[0].line), ("", None));
}

#[test]
fn validate_works_on_profiles_built_in_code() {
    let mut p = load_str(&fixture("good.json")).expect("valid");
    assert!(retryscope::profile::validate(&p).is_empty());
    p.backoff.jitter_ratio = -0.5;
    p.max_retries = None; // unlimited…
    p.deadline_ms = None; // …without a deadline
    let issues = retryscope::profile::validate(&p);
    assert_eq!(issues.len(), 2, "{issues:?}");
    assert!(issues.iter().all(|i| i.line.is_none()));
}

#[test]
fn bad_status_entry_names_index_value_and_position() {
    for (entry, found) in [
        ("-5", "found -5"),
        ("429.5", "found 429.5"),
        ("[]", "found an array"),
        (r#""abc""#, r#"found the string "abc""#),
    ] {
        let text = format!(
            "{{\n  \"format\": \"{PROFILE_FORMAT}\",\n  \"name\": \"x\",\n  \"retry_on\": {{\n    \"status\": [429,\n               {entry}, 503]\n  }},\n  \"backoff\": {{ \"strategy\": \"fixed\" }}\n}}"
        );
        let e = load_str(&text).expect_err(entry);
        assert_eq!(e.issues.len(), 1, "{e}");
        let i = &e.issues[0];
        assert_eq!(i.path, "retry_on.status[1]", "{i}");
        assert_eq!((i.line, i.column), (Some(6), Some(16)), "{i}");
        assert_eq!(
            i.message,
            format!(r#"expected a status code (100–599) or a range like "500-599", {found}"#),
        );
    }
}

#[test]
fn several_wrong_types_are_reported_at_once() {
    let text = format!(
        r#"{{
  "format": "{PROFILE_FORMAT}",
  "name": 5,
  "max_retries": "3",
  "deadline_ms": -1,
  "backoff": {{
    "strategy": "exponential",
    "base_delay_ms": 1.5,
    "max_delay_ms": null,
    "jitter_ratio": "0.2",
    "hard_cap": "yes",
    "fallback": {{ "strategy": "fixed", "jitter_window_ms": -5 }}
  }},
  "retry_on": {{ "non_idempotent": 1 }},
  "timeouts": {{ "read_ms": [], "connect_ms": null }}
}}"#
    );
    let e = load_str(&text).expect_err("wrong types");
    let got: Vec<String> = e.issues.iter().map(ToString::to_string).collect();
    assert_eq!(
        got,
        [
            "3:3: name: expected a string, found 5",
            "4:3: max_retries: expected a whole number ≥ 0 or null, found the string \"3\"",
            "5:3: deadline_ms: expected a whole number ≥ 0 or null, found -1",
            "8:5: backoff.base_delay_ms: expected a whole number ≥ 0, found 1.5",
            "10:5: backoff.jitter_ratio: expected a number, found the string \"0.2\"",
            "11:5: backoff.hard_cap: expected true or false, found the string \"yes\"",
            "12:40: backoff.fallback.jitter_window_ms: expected a whole number ≥ 0, found -5",
            "14:17: retry_on.non_idempotent: expected true or false, found 1",
            "15:17: timeouts.read_ms: expected a whole number ≥ 0 or null, found an array",
        ]
    );
}

#[test]
fn several_shape_errors_are_reported_at_once() {
    let text = format!(
        r#"{{
  "format": "{PROFILE_FORMAT}",
  "name": "x",
  "retry_on": {{
    "status": [429, "5xx", 503, "abc"],
    "errors": ["connect", "tiemout"]
  }},
  "on_other_status": "retyr",
  "backoff": {{
    "strategy": "response_header",
    "headers": [{{ "name": "Retry-After", "unit": "minutes" }}],
    "combine": "maximum",
    "fallback": {{ "strategy": "expo" }}
  }}
}}"#
    );
    let e = load_str(&text).expect_err("shape errors");
    let paths: Vec<&str> = e.issues.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "retry_on.status[1]",
            "retry_on.status[3]",
            "retry_on.errors[1]",
            "on_other_status",
            "backoff.headers[0].unit",
            "backoff.combine",
            "backoff.fallback.strategy",
        ],
        "{e}"
    );
    // Each keeps its own position and wording.
    let lines: Vec<Option<usize>> = e.issues.iter().map(|i| i.line).collect();
    assert_eq!(
        lines,
        [
            Some(5),
            Some(5),
            Some(6),
            Some(8),
            Some(11),
            Some(12),
            Some(13)
        ]
    );
    assert!(
        e.issues[2].message.contains("did you mean `timeout`?"),
        "{e}"
    );
    assert!(e.issues[6].message.contains("unknown value `expo`"), "{e}");
}

#[test]
fn a_bad_required_enum_is_reported_once() {
    // Removing the bad `strategy` leaves it missing: that is not a second problem.
    let text = format!(
        r#"{{ "format": "{PROFILE_FORMAT}", "name": "x", "backoff": {{ "strategy": "nope" }} }}"#
    );
    let e = load_str(&text).expect_err("bad strategy");
    assert_eq!(e.issues.len(), 1, "{e}");
    assert_eq!(e.issues[0].path, "backoff.strategy");
}

#[test]
fn every_kind_of_problem_is_reported_in_one_pass() {
    let text = format!(
        r#"{{
  "format": "{PROFILE_FORMAT}",
  "name": 5,
  "extra": 1,
  "retry_on": {{
    "status": [429, "500-", 700, "abc", 99],
    "errors": ["connect", "bogus"]
  }},
  "backoff": {{
    "strategy": "response_header",
    "base_delay_ms": "1s",
    "jitter_ratio": 2.5,
    "headers": [{{ "nme": "Retry-After", "unit": "secs" }}, "Retry-After"],
    "fallback": {{ "strategy": "exponential", "base_delay_ms": 5000, "max_delay_ms": 1000 }}
  }}
}}"#
    );
    let e = load_str(&text).expect_err("many problems");
    let got: Vec<(String, Option<usize>)> =
        e.issues.iter().map(|i| (i.path.clone(), i.line)).collect();
    let want: Vec<(String, Option<usize>)> = [
        ("name", 3),                           // wrong type
        ("extra", 4),                          // unknown field
        ("retry_on.status[1]", 6),             // malformed entry
        ("retry_on.status[2]", 6),             // out of range (semantic), index as in the file
        ("retry_on.status[3]", 6),             // malformed entry after a removed one
        ("retry_on.status[4]", 6),             // out of range
        ("retry_on.errors[1]", 7),             // unknown enum value
        ("backoff.base_delay_ms", 11),         // wrong type
        ("backoff.jitter_ratio", 12),          // out of range (semantic)
        ("backoff.headers[0].nme", 13),        // unknown field inside an array element
        ("backoff.headers[0].unit", 13),       // unknown enum value
        ("backoff.headers[1]", 13),            // not an object
        ("backoff.fallback.max_delay_ms", 14), // max < base (semantic)
    ]
    .into_iter()
    .map(|(p, l)| (p.to_owned(), Some(l)))
    .collect();
    assert_eq!(got, want, "{e}");
    let not_object = &e.issues[11];
    assert!(
        not_object.message.starts_with("expected an object"),
        "{not_object}"
    );
}

/// A UTF-8 byte-order mark (Windows Notepad writes one) is passed over, as in every other
/// file Retryscope reads; positions count from the character after it.
#[test]
fn a_utf8_byte_order_mark_is_passed_over() {
    let source = retryscope::profile::BUILTIN_SOURCES[0].1;
    let with_bom = [b"\xEF\xBB\xBF".as_slice(), source.as_bytes()].concat();
    let loaded = retryscope::profile::load_bytes(&with_bom).expect("a BOM is passed over");
    assert_eq!(
        loaded,
        retryscope::profile::load_str(source).expect("built-in")
    );
    let e = retryscope::profile::load_bytes(b"\xEF\xBB\xBF{\"format\": 5}").expect_err("bad");
    assert_eq!(
        (e.issues[0].line, e.issues[0].column),
        (Some(1), Some(2)),
        "{e}"
    );
}

#[test]
fn an_unusable_strategy_does_not_hide_the_other_sections_problems() {
    let text = format!(
        r#"{{
  "format": "{PROFILE_FORMAT}",
  "name": "x",
  "max_retries": null,
  "backoff": {{ "strategy": "nope", "jitter_ratio": 7 }}
}}"#
    );
    let e = load_str(&text).expect_err("two problems");
    let paths: Vec<&str> = e.issues.iter().map(|i| i.path.as_str()).collect();
    // max_retries is semantic (unlimited without a deadline); the bad strategy is replaced in the checked copy, so
    // the backoff's other fields are still checked.
    assert_eq!(
        paths,
        ["max_retries", "backoff.strategy", "backoff.jitter_ratio"],
        "{e}"
    );
}

#[test]
fn success_and_retry_statuses_must_not_overlap_and_success_must_not_be_empty() {
    let text = format!(
        r#"{{ "format": "{PROFILE_FORMAT}", "name": "x", "success_status": ["200-299"],
  "retry_on": {{ "status": [429, "200-204"] }}, "backoff": {{ "strategy": "fixed" }} }}"#
    );
    let e = load_str(&text).expect_err("overlap");
    assert_eq!(e.issues.len(), 1, "{e}");
    assert_eq!(e.issues[0].path, "retry_on.status[1]");
    assert!(
        e.issues[0]
            .message
            .contains("status 200 is also in success_status"),
        "{e}"
    );

    let text = format!(
        r#"{{ "format": "{PROFILE_FORMAT}", "name": "x", "success_status": [], "backoff": {{ "strategy": "fixed" }} }}"#
    );
    let e = load_str(&text).expect_err("empty");
    assert_eq!(e.issues[0].path, "success_status", "{e}");
    assert!(
        e.issues[0]
            .message
            .contains("no answer would count as a success"),
        "{e}"
    );
}

#[test]
fn a_duplicate_key_is_reported_at_the_key() {
    let text = format!(
        "{{\n  \"format\": \"{PROFILE_FORMAT}\",\n  \"name\": \"x\",\n  \"name\": \"y\",\n  \"backoff\": {{ \"strategy\": \"fixed\" }}\n}}"
    );
    let e = load_str(&text).expect_err("duplicate");
    assert_eq!(e.issues[0].path, "name", "{e}");
    assert!(e.issues[0].line.is_some_and(|l| l >= 3), "{e}");
    assert!(
        e.issues[0].message.contains("appears more than once"),
        "{e}"
    );
}

#[test]
fn missing_fields_and_repeated_keys_are_reported_with_the_rest() {
    // No format, no name, a bad max_retries, two headers (the first with a bad unit, the second
    // without a name), and a key given twice.
    let text = r#"{
  "max_retries": -1,
  "backoff": {
    "strategy": "response_header",
    "headers": [ {"name": "x", "unit": "hours"}, {"unit": "seconds"} ],
    "fallback": {"strategy": "fixed"},
    "fallback": {"strategy": "fixed"}
  }
}"#;
    let e = load_str(text).expect_err("many problems");
    let paths: Vec<&str> = e.issues.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "format",
            "name",
            "max_retries",
            "backoff.headers[0].unit",
            "backoff.headers[1].name",
            "backoff.fallback",
        ],
        "{e}"
    );
    let repeated = &e.issues[5];
    assert_eq!(repeated.line, Some(7), "at the repetition: {repeated}");
    assert!(
        repeated.message.contains("appears more than once"),
        "{repeated}"
    );
}

#[test]
fn arrays_for_objects_repeats_and_defaults_are_handled_honestly() {
    // serde would read `"timeouts": [null, null, null, 1]` by position: refuse it.
    let text = format!(
        r#"{{"format": "{PROFILE_FORMAT}", "name": "x", "backoff": ["fixed", 50], "timeouts": [null, null, null, 1]}}"#
    );
    let e = load_str(&text).expect_err("arrays");
    let paths: Vec<&str> = e.issues.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(paths, ["backoff", "timeouts"], "{e}");
    assert!(e.issues[0].message.starts_with("expected an object"), "{e}");

    // The last occurrence of a repeated key is the one checked; a default standing in for a
    // wrong-typed field is not quoted as if it were in the file.
    let text = format!(
        "{{\n  \"format\": \"{PROFILE_FORMAT}\",\n  \"name\": \"x\",\n  \"retry_on\": {{\"status\": [503]}},\n  \"retry_on\": {{\"status\": [504, 1000]}},\n  \"backoff\": {{\"strategy\": \"fixed\", \"base_delay_ms\": \"100\", \"max_delay_ms\": 500}}\n}}"
    );
    let e = load_str(&text).expect_err("problems");
    let got: Vec<(String, Option<usize>)> =
        e.issues.iter().map(|i| (i.path.clone(), i.line)).collect();
    assert_eq!(
        got,
        [
            ("retry_on".to_owned(), Some(5)),
            ("retry_on.status[1]".to_owned(), Some(5)),
            ("backoff.base_delay_ms".to_owned(), Some(6)),
        ],
        "{e}"
    );
}

#[test]
fn devices_folders_and_huge_files_are_refused_without_reading_them_whole() {
    let dev = retryscope::profile::load_file(std::path::Path::new("/dev/zero"))
        .expect_err("a device is no profile");
    assert!(
        dev.issues[0].message.contains("not a regular file"),
        "{:?}",
        dev.issues
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = retryscope::profile::load_file(dir.path()).expect_err("a folder is no profile");
    assert!(folder.issues[0].message.contains("it is a directory"));
    let big = dir.path().join("big.json");
    let file = std::fs::File::create(&big).expect("create");
    file.set_len(retryscope::profile::MAX_PROFILE_FILE_BYTES + 1)
        .expect("sparse file");
    let huge = retryscope::profile::load_file(&big).expect_err("too large");
    assert!(
        huge.issues[0]
            .message
            .contains("more than the 16 MiB limit for a profile"),
        "{:?}",
        huge.issues
    );
}

/// Regression (found by `tests/profile_props.rs)`: a syntax error's column counted bytes, so after
/// a multi-byte character it pointed past the end of the line. Columns count characters.
#[test]
fn syntax_error_columns_count_characters() {
    let e = load_str("\"ೝ").expect_err("unterminated string");
    assert_eq!(
        (e.issues[0].line, e.issues[0].column),
        (Some(1), Some(2)),
        "{e}"
    );
    let e = load_str("{\"name\": \"é\" x}").expect_err("missing comma");
    // `x` is the 14th character (15th byte).
    assert_eq!(
        (e.issues[0].line, e.issues[0].column),
        (Some(1), Some(14)),
        "{e}"
    );
}

/// Regression (found by `tests/profile_props.rs)`: an unknown key that is not a plain name gave a
/// path that could not be read back (`retry_on.[tatus`) or none at all (`""` at the top level).
#[test]
fn odd_unknown_keys_get_bracketed_paths() {
    let text = format!(
        "{{\"format\": \"{PROFILE_FORMAT}\", \"name\": \"n\", \"\": 1,\n \"retry_on\": {{\"[tatus\": []}}, \"backoff\": {{\"strategy\": \"fixed\"}}}}"
    );
    let e = load_str(&text).expect_err("two unknown keys");
    let paths: Vec<&str> = e.issues.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(paths, ["[\"\"]", "retry_on[\"[tatus\"]"], "{e}");
    assert_eq!(
        (e.issues[1].line, e.issues[1].column),
        (Some(2), Some(15)),
        "{e}"
    );
}

/// Format 1 files keep loading: read as format 2, and the loader says it upgraded them.
#[test]
fn a_format_1_file_loads_as_format_2_with_a_note() {
    let loaded = retryscope::profile::load_file_noted(Path::new("tests/fixtures/good.json"))
        .expect("a /1 file loads");
    assert!(fixture("good.json").contains("retryscope-profile/1"));
    assert_eq!(loaded.profile.format, PROFILE_FORMAT);
    let upgrade = loaded.upgrade.expect("the upgrade is reported");
    assert_eq!(upgrade.from, "retryscope-profile/1");
    assert_eq!(
        upgrade.note(),
        "this profile is in the older format retryscope-profile/1; saving it writes retryscope-profile/2 (same settings; older retryscope versions cannot read that)"
    );
    // Saved, it is a format 2 file that loads without a note.
    let saved = retryscope::profile::to_json_pretty(&loaded.profile);
    assert!(
        saved.contains("\"format\": \"retryscope-profile/2\""),
        "{saved}"
    );
    let again = retryscope::profile::load_str_noted(&saved).expect("loads");
    assert_eq!(again.upgrade, None);
    assert_eq!(again.profile, loaded.profile);
}

/// Every profile has an idle (read) timeout unless it says otherwise: absent `read_ms` is
/// 30 s, `"read_ms": null` is none, and saving keeps whichever was chosen.
#[test]
fn read_ms_defaults_to_30_s_and_null_turns_it_off() {
    let base = r#"{"format": "retryscope-profile/2", "name": "p", "max_retries": 1,
        "backoff": {"strategy": "fixed", "base_delay_ms": 10}"#;
    let absent = retryscope::profile::load_str(&format!("{base}}}")).expect("loads");
    assert_eq!(
        absent.timeouts.read_ms,
        Some(retryscope::model::DEFAULT_READ_MS)
    );
    assert_eq!(retryscope::model::DEFAULT_READ_MS, 30_000);
    let off =
        retryscope::profile::load_str(&format!(r#"{base}, "timeouts": {{"read_ms": null}}}}"#))
            .expect("loads");
    assert_eq!(off.timeouts.read_ms, None);
    let saved = retryscope::profile::to_json_pretty(&off);
    assert!(saved.contains("\"read_ms\": null"), "{saved}");
    let again = retryscope::profile::load_str(&saved).expect("reloads");
    assert_eq!(again.timeouts.read_ms, None, "null survives a save");
    let builtin = retryscope::profile::builtin("aws-standard").expect("built in");
    assert_eq!(builtin.timeouts.read_ms, Some(30_000));
}
