//! Bad profile files never crash the loader: valid profiles with mutated values,
//! types and keys, random bytes, truncations, deep nesting, byte-order marks and non-UTF-8
//! go through `load_bytes` / `load_str`. Each case states what must hold:
//!
//! - a refusal lists at least one problem, each with a message and a line:column inside the
//!   text; in a JSON object each names a field path, and a problem about a field that is in the
//!   file points at that field's key (or array element);
//! - what loads is valid for [`validate`] too, and loads again, equal, from its saved form;
//! - a valid profile built from parts round-trips through `save_atomic` + `load_file`.
//!
//! Cases per property: `PROPTEST_CASES` (default below, a CI-sized run);
//! `PROPTEST_CASES=20000 cargo test --release --test profile_props` is the longer run (README).

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use proptest::strategy::Strategy as _;
use retryscope::model::{
    Backoff, Combine, DelayHeader, HeaderUnit, OnExceedMax, OtherStatusAction, PROFILE_FORMAT,
    ProfileTimeouts, RetryOn, RetryProfile, StatusRange, StatusSet, Strategy,
};
use retryscope::profile::{
    BUILTIN_SOURCES, DAY_MS, ProfileErrors, load_bytes, load_file, load_str, save_atomic,
    to_json_pretty, validate,
};
use serde_json::Value;

fn cases(default: u32) -> ProptestConfig {
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    ProptestConfig::with_cases(n)
}

/// One step of a field path as the loader renders it (`backoff.headers[0].name`).
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The steps of `path` (`a.b[0]`, a key that is not a plain name as `["…"]`); `None` when it is
/// not of that form.
fn steps(path: &str) -> Option<Vec<Step>> {
    let mut out = Vec::new();
    let mut rest = path;
    let mut first = true;
    while !rest.is_empty() {
        if rest.starts_with("[\"") {
            let mut keys = serde_json::Deserializer::from_str(&rest[1..]).into_iter::<String>();
            let key = keys.next()?.ok()?;
            let after = &rest[1 + keys.byte_offset()..];
            if is_plain(&key) {
                return None; // a plain key is written bare
            }
            out.push(Step::Key(key));
            rest = after.strip_prefix(']')?;
        } else if let Some(inner) = rest.strip_prefix('[') {
            let (n, after) = inner.split_once(']')?;
            out.push(Step::Index(n.parse().ok()?));
            rest = after;
        } else {
            let bare = if first { rest } else { rest.strip_prefix('.')? };
            let end = bare.find(['.', '[']).unwrap_or(bare.len());
            let key = &bare[..end];
            if !is_plain(key) {
                return None;
            }
            out.push(Step::Key(key.to_owned()));
            rest = &bare[end..];
        }
        first = false;
    }
    Some(out)
}

/// A key written bare in a path: letters, digits, `_`, `-`.
fn is_plain(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Byte offset of 1-based `line:column` (columns count characters) when it lies inside `text`
/// (the end of a line, or of the text, included).
fn offset_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let start: usize = text
        .split('\n')
        .take(line.checked_sub(1)?)
        .map(|l| l.len() + 1)
        .sum();
    let this = text.split('\n').nth(line - 1)?;
    if column == 0 {
        return None;
    }
    let within = this
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(this.len()))
        .nth(column - 1)?;
    Some(start + within)
}

/// The deepest prefix of `path` present in `doc`, and whether it ends with an index.
fn deepest<'d>(doc: &'d Value, path: &[Step]) -> (usize, &'d Value) {
    let mut node = doc;
    for (n, step) in path.iter().enumerate() {
        let next = match (step, node) {
            (Step::Key(k), Value::Object(map)) => map.get(k),
            (Step::Index(i), Value::Array(items)) => items.get(*i),
            _ => None,
        };
        match next {
            Some(v) => node = v,
            None => return (n, node),
        }
    }
    (path.len(), node)
}

/// What every refusal of `text` must satisfy (see the file's doc).
fn check_refusal(text: &str, errors: &ProfileErrors) -> Result<(), TestCaseError> {
    prop_assert!(!errors.issues.is_empty());
    let doc = serde_json::from_str::<Value>(text).ok();
    let is_object = doc.as_ref().is_some_and(Value::is_object);
    for issue in &errors.issues {
        prop_assert!(!issue.message.is_empty(), "{issue}");
        let (Some(line), Some(column)) = (issue.line, issue.column) else {
            return Err(TestCaseError::fail(format!("no line:column: {issue}")));
        };
        let Some(at) = offset_of(text, line, column) else {
            return Err(TestCaseError::fail(format!(
                "{line}:{column} outside the text: {issue}"
            )));
        };
        let Some(path) = steps(&issue.path) else {
            return Err(TestCaseError::fail(format!(
                "malformed path {:?}: {issue}",
                issue.path
            )));
        };
        if is_object && !issue.message.starts_with("more problems are not listed") {
            prop_assert!(!path.is_empty(), "no field path in an object: {issue}");
        }
        let Some(doc) = &doc else { continue };
        let (found, _) = deepest(doc, &path);
        // The position of the deepest part of the path that is in the file.
        let rest = &text[at..];
        match found.checked_sub(1).map(|i| &path[i]) {
            Some(Step::Key(k)) if is_plain(k) => {
                prop_assert!(
                    rest.starts_with(&format!("\"{k}\"")),
                    "{issue} points at {:?}",
                    &rest[..rest.len().min(20)]
                );
            }
            Some(Step::Index(_)) => {
                prop_assert!(
                    rest.starts_with(['{', '[', '"', '-', 't', 'f', 'n'])
                        || rest.starts_with(|c: char| c.is_ascii_digit()),
                    "{issue} points at {:?}",
                    &rest[..rest.len().min(20)]
                );
            }
            _ => {}
        }
    }
    Ok(())
}

/// What every profile that loads must satisfy: valid for `validate`, and stable through a save.
fn check_loaded(profile: &RetryProfile) -> Result<(), TestCaseError> {
    let problems = validate(profile);
    prop_assert!(problems.is_empty(), "loaded but validate says {problems:?}");
    let again = load_str(&to_json_pretty(profile))
        .map_err(|e| TestCaseError::fail(format!("saved form does not load: {e}")))?;
    prop_assert_eq!(&again, profile);
    Ok(())
}

fn check(text: &str) -> Result<(), TestCaseError> {
    match load_str(text) {
        Ok(p) => check_loaded(&p),
        Err(e) => check_refusal(text, &e),
    }
}

/// Any JSON value, small.
fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        (0u64..2000).prop_map(Value::from),
        Just(Value::from(-1)),
        Just(Value::from(1e300)),
        "[a-z_]{0,12}".prop_map(Value::from),
        Just(Value::from("5xx")),
        Just(Value::from("500-599")),
        Just(Value::from("599-500")),
        Just(Value::from("exponential")),
        Just(Value::from("response_header")),
        Just(Value::from("custom")),
        Just(Value::from("seconds")),
        any::<String>().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 12, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec(("[a-z_]{1,12}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A change to one node of a document.
#[derive(Debug, Clone)]
enum Mutation {
    Replace(Value),
    Remove,
    AddKey(String, Value),
    Typo,
}

fn mutation() -> impl proptest::strategy::Strategy<Value = Mutation> {
    prop_oneof![
        4 => json_value().prop_map(Mutation::Replace),
        2 => Just(Mutation::Remove),
        1 => ("[a-z_]{1,14}", json_value()).prop_map(|(k, v)| Mutation::AddKey(k, v)),
        1 => Just(Mutation::Typo),
    ]
}

/// Every node's path in `doc`, the root first.
fn node_paths(doc: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(at.clone());
    match doc {
        Value::Object(map) => {
            for (k, v) in map {
                at.push(Step::Key(k.clone()));
                node_paths(v, at, out);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                at.push(Step::Index(i));
                node_paths(v, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn apply(doc: &mut Value, path: &[Step], m: Mutation) {
    let Some((last, parent_path)) = path.split_last() else {
        if let Mutation::Replace(v) = m {
            *doc = v;
        }
        return;
    };
    let mut parent = doc;
    for step in parent_path {
        parent = match (step, parent) {
            (Step::Key(k), Value::Object(map)) => map.get_mut(k).unwrap(),
            (Step::Index(i), Value::Array(items)) => &mut items[*i],
            _ => unreachable!("paths come from the document"),
        };
    }
    match (last, parent) {
        (Step::Key(k), Value::Object(map)) => match m {
            Mutation::Replace(v) => {
                map.insert(k.clone(), v);
            }
            Mutation::Remove => {
                map.remove(k);
            }
            Mutation::AddKey(new, v) => {
                map.insert(new, v);
            }
            Mutation::Typo => {
                if let Some(v) = map.remove(k) {
                    let mut typo = k.clone();
                    typo.pop();
                    map.insert(typo, v);
                }
            }
        },
        (Step::Index(i), Value::Array(items)) => match m {
            Mutation::Replace(v) | Mutation::AddKey(_, v) => items[*i] = v,
            Mutation::Remove | Mutation::Typo => {
                items.remove(*i);
            }
        },
        _ => unreachable!("paths come from the document"),
    }
}

/// A built-in's source with up to three mutations, written pretty or compact.
fn mutated_builtin() -> impl proptest::strategy::Strategy<Value = String> {
    (
        0..BUILTIN_SOURCES.len(),
        proptest::collection::vec((any::<prop::sample::Index>(), mutation()), 1..4),
        any::<bool>(),
    )
        .prop_map(|(which, mutations, pretty)| {
            let mut doc: Value = serde_json::from_str(BUILTIN_SOURCES[which].1).unwrap();
            for (index, m) in mutations {
                let mut paths = Vec::new();
                node_paths(&doc, &mut Vec::new(), &mut paths);
                let path = index.get(&paths).clone();
                apply(&mut doc, &path, m);
            }
            if pretty {
                serde_json::to_string_pretty(&doc).unwrap()
            } else {
                serde_json::to_string(&doc).unwrap()
            }
        })
}

/// A built-in's source cut at a character boundary.
fn truncated_builtin() -> impl proptest::strategy::Strategy<Value = String> {
    (0..BUILTIN_SOURCES.len(), any::<prop::sample::Index>()).prop_map(|(which, at)| {
        let text = BUILTIN_SOURCES[which].1;
        let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        text[..*at.get(&bounds)].to_owned()
    })
}

/// A profile whose `name` (or a new key) nests `depth` arrays or objects, closed or not.
fn deep_nesting() -> impl proptest::strategy::Strategy<Value = String> {
    (1usize..3000, any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(depth, objects, closed, at_name)| {
            let (open, close) = if objects {
                ("{\"a\":", "}")
            } else {
                ("[", "]")
            };
            let mut inner = open.repeat(depth);
            inner.push('1');
            if closed {
                inner.push_str(&close.repeat(depth));
            }
            let key = if at_name { "name" } else { "extra" };
            format!(
                "{{\"format\": \"{PROFILE_FORMAT}\", \"{key}\": {inner}, \"backoff\": {{\"strategy\": \"fixed\"}}}}"
            )
        },
    )
}

/// Bytes: random ones, a built-in with bytes overwritten (often not UTF-8), with a BOM.
fn profile_bytes() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..300),
        (
            0..BUILTIN_SOURCES.len(),
            proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4)
        )
            .prop_map(|(which, changes)| {
                let mut bytes = BUILTIN_SOURCES[which].1.as_bytes().to_vec();
                for (at, b) in changes {
                    let i = at.index(bytes.len());
                    bytes[i] = b;
                }
                bytes
            }),
        (
            0..BUILTIN_SOURCES.len(),
            prop_oneof![
                Just(vec![0xEF, 0xBB, 0xBF]),
                Just(vec![0xFF, 0xFE]),
                Just(vec![0xFE, 0xFF])
            ]
        )
            .prop_map(
                |(which, bom)| [bom.as_slice(), BUILTIN_SOURCES[which].1.as_bytes()].concat()
            ),
    ]
}

prop_compose! {
    fn computed_backoff()(
        strategy in prop_oneof![
            Just(Strategy::Exponential), Just(Strategy::ExponentialProportional),
            Just(Strategy::FullJitter), Just(Strategy::EqualJitter),
            Just(Strategy::DecorrelatedJitter), Just(Strategy::Fixed),
        ],
        base in prop_oneof![Just(0u64), 0u64..=DAY_MS],
        cap in proptest::option::of(0u64..=DAY_MS),
        window in 0u64..=DAY_MS,
        ratio in prop_oneof![0.0f64..=1.0, Just(0.0), Just(1.0), Just(0.2), Just(f64::MIN_POSITIVE)],
        hard_cap in any::<bool>(),
    ) -> Backoff {
        let mut b = Backoff::new(strategy);
        b.base_delay_ms = base;
        b.max_delay_ms = cap.map(|c| c.max(base));
        b.jitter_window_ms = window;
        b.jitter_ratio = ratio;
        b.hard_cap = hard_cap && b.max_delay_ms.is_some();
        b
    }
}

fn backoff() -> impl proptest::strategy::Strategy<Value = Backoff> {
    prop_oneof![
        3 => computed_backoff(),
        1 => (
            computed_backoff(),
            computed_backoff(),
            proptest::collection::vec(
                (
                    "[A-Za-z][A-Za-z0-9-]{0,20}",
                    prop_oneof![
                        Just(HeaderUnit::Seconds), Just(HeaderUnit::Milliseconds),
                        Just(HeaderUnit::UnixTimestamp), Just(HeaderUnit::HttpDate),
                        Just(HeaderUnit::RatelimitT)
                    ]
                ),
                1..3
            ),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(outer, fallback, headers, max, cap)| {
                let mut b = outer;
                b.strategy = Strategy::ResponseHeader;
                b.headers = headers
                    .into_iter()
                    .map(|(name, unit)| DelayHeader { name, unit })
                    .collect();
                b.fallback = Some(Box::new(fallback));
                b.combine = if max { Combine::Max } else { Combine::Replace };
                b.on_exceed_max = if cap { OnExceedMax::Cap } else { OnExceedMax::Stop };
                b
            }),
        1 => (computed_backoff(), 0u64..100_000).prop_map(|(mut b, ms)| {
            b.strategy = Strategy::Custom;
            b.script = Some(format!("fn get_delay(ctx) {{ ctx.retry * {ms} }}"));
            b
        }),
    ]
}

fn status_set(low: u16, high: u16) -> impl proptest::strategy::Strategy<Value = StatusSet> {
    proptest::collection::vec((low..=high, 0u16..20), 0..4).prop_map(move |ranges| {
        StatusSet(
            ranges
                .into_iter()
                .map(|(a, len)| StatusRange::new(a, (a + len).min(high)))
                .collect(),
        )
    })
}

prop_compose! {
    fn valid_profile()(
        name in prop_oneof!["[a-zA-Z0-9 ]{0,10}[a-z]", "\\PC{1,20}"],
        provider in any::<String>(),
        description in any::<String>(),
        max_retries in proptest::option::weighted(0.9, any::<u32>()),
        success in status_set(200, 299),
        retry in status_set(400, 599),
        errors in proptest::sample::subsequence(retryscope::model::ErrorKind::default_retryable(), 0..=4),
        non_idempotent in any::<bool>(),
        other in any::<bool>(),
        backoff in backoff(),
        deadline in proptest::option::of(1u64..u64::MAX),
        timeouts in proptest::collection::vec(proptest::option::of(1u64..10_000_000), 4),
        seed in proptest::option::of(any::<u64>()),
    ) -> RetryProfile {
        RetryProfile {
            format: PROFILE_FORMAT.to_owned(),
            name,
            provider,
            description,
            // Unlimited retries need a deadline.
            max_retries: if deadline.is_none() { Some(max_retries.unwrap_or(3)) } else { max_retries },
            success_status: if success.0.is_empty() { StatusSet::default_success() } else { success },
            success_when: Vec::new(),
            retry_on: RetryOn { status: retry, errors, non_idempotent, response: Vec::new() },
            on_other_status: if other { OtherStatusAction::Retry } else { OtherStatusAction::Stop },
            backoff,
            deadline_ms: deadline,
            timeouts: ProfileTimeouts {
                resolve_ms: timeouts[0],
                connect_ms: timeouts[1],
                read_ms: timeouts[2],
                total_ms: timeouts[3],
            },
            seed,
            throttling: retryscope::model::Throttling::default(),
            retry_budget: None,
        }
    }
}

proptest! {
    #![proptest_config(cases(300))]

    /// A built-in with mutated values, types and keys: refused with placed problems, or loaded
    /// and valid.
    #[test]
    fn mutated_profiles_load_or_are_refused_with_positions(text in mutated_builtin()) {
        check(&text)?;
    }

    /// A built-in cut anywhere: refused at a position inside the text (or, cut after the last
    /// brace, loaded).
    #[test]
    fn truncated_profiles_are_refused_inside_the_text(text in truncated_builtin()) {
        check(&text)?;
    }

    /// Deep nesting, closed or not: refused with a position, never a stack overflow.
    #[test]
    fn deep_nesting_is_refused(text in deep_nesting()) {
        let e = load_str(&text).expect_err("a nested name or an unknown key is wrong");
        check_refusal(&text, &e)?;
    }

    /// Any bytes: refused with a position inside the (valid part of the) text, or loaded. A
    /// UTF-16 byte-order mark is named; a UTF-8 one is passed over.
    #[test]
    fn any_bytes_load_or_are_refused(bytes in profile_bytes()) {
        match load_bytes(&bytes) {
            Ok(p) => check_loaded(&p)?,
            Err(e) => {
                // A UTF-8 byte-order mark is passed over: positions count after it.
                let unmarked = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
                match std::str::from_utf8(unmarked) {
                    Ok(text) => check_refusal(text, &e)?,
                    Err(bad) => {
                        // One problem, at the first byte that is not UTF-8.
                        let good = std::str::from_utf8(&unmarked[..bad.valid_up_to()]).unwrap();
                        let line = good.split('\n').count();
                        let column = good.split('\n').next_back().unwrap().chars().count() + 1;
                        prop_assert_eq!(e.issues.len(), 1, "{}", e);
                        prop_assert_eq!((e.issues[0].line, e.issues[0].column), (Some(line), Some(column)), "{}", e);
                        prop_assert!(e.issues[0].message.contains("UTF-8"), "{}", e);
                    }
                }
                if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
                    prop_assert!(e.to_string().contains("byte-order mark"), "{e}");
                }
            }
        }
    }

    /// Any text at all: the same.
    #[test]
    fn any_text_loads_or_is_refused(text in any::<String>()) {
        check(&text)?;
    }
}

proptest! {
    #![proptest_config(cases(150))]

    /// A valid profile built from parts is saved atomically and loads back equal.
    #[test]
    fn valid_profiles_round_trip_through_a_file(profile in valid_profile()) {
        let problems = validate(&profile);
        prop_assume!(problems.is_empty(), "{:?}", problems);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.json");
        save_atomic(&path, &profile).unwrap();
        let loaded = load_file(&path).map_err(|e| TestCaseError::fail(format!("{e}\n{}", to_json_pretty(&profile))))?;
        prop_assert_eq!(&loaded, &profile);
        prop_assert_eq!(load_str(&to_json_pretty(&profile)).unwrap(), profile);
    }
}

#[test]
fn the_path_reader_reads_what_the_loader_writes() {
    assert_eq!(steps(""), Some(vec![]));
    assert_eq!(
        steps("backoff.headers[0].name"),
        Some(vec![
            Step::Key("backoff".into()),
            Step::Key("headers".into()),
            Step::Index(0),
            Step::Key("name".into())
        ])
    );
    assert_eq!(steps("a[x]"), None);
    assert_eq!(steps("retry_on.[tatus"), None);
    assert_eq!(
        steps("retry_on[\"[tatus\"]"),
        Some(vec![
            Step::Key("retry_on".into()),
            Step::Key("[tatus".into())
        ])
    );
    assert_eq!(steps("[\"\"]"), Some(vec![Step::Key(String::new())]));
    assert_eq!(offset_of("ab\ncd", 2, 3), Some(5));
    assert_eq!(offset_of("ab\ncd", 2, 4), None);
    assert_eq!(offset_of("", 1, 1), Some(0));
}
