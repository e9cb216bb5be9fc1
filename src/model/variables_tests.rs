//! Tests of `variables`: templates, filling, the masking of secret values.

use super::*;
use crate::model::Variable;

fn vars() -> Variables {
    let mut env = Environment::new("local");
    env.variables = vec![
        Variable::new("host", "127.0.0.1:9"),
        Variable::secret("token", "s3cr3t-value"),
        Variable::new("host", "ignored: first wins"),
        Variable::new("uuid", "not the built-in"),
    ];
    Variables::from_environment(&env)
}

#[test]
fn resolves_every_place_and_spaces_inside_braces() {
    let mut spec = RequestSpec::get("http://{{host}}/a?id={{ uuid }}");
    spec.query.push(KeyValue::new("q", "{{host}}"));
    spec.headers
        .push(KeyValue::new("X-Token", "Bearer {{token}}"));
    spec.headers.push(KeyValue::new("Accept", "*/*"));
    spec.body = Body::Json {
        text: r#"{"h":"{{host}}","n":{"a":1}}"#.into(),
    };
    let out = resolve_spec(&spec, &vars(), "U").expect("all defined");
    assert_eq!(out.url, "http://127.0.0.1:9/a?id=U");
    assert_eq!(out.query[0].value, "127.0.0.1:9");
    assert_eq!(out.headers[0].value, "Bearer s3cr3t-value");
    assert!(
        out.headers[0].secret,
        "a row holding a secret becomes secret"
    );
    assert!(!out.headers[1].secret);
    assert_eq!(
        out.body,
        Body::Json {
            text: r#"{"h":"127.0.0.1:9","n":{"a":1}}"#.into()
        }
    );
}

#[test]
fn unknown_variables_are_named_with_their_place() {
    let mut spec = RequestSpec::get("http://127.0.0.1:9/");
    spec.headers
        .push(KeyValue::new("Authorization", "Bearer {{x}}"));
    let err = resolve_spec(&spec, &vars(), "U").expect_err("x is unknown");
    assert_eq!(
        err.to_string(),
        "unknown variable {{x}} in header Authorization"
    );
    let err = resolve_text("{{a}}/{{b}}/{{a}}", &vars(), "U", "URL").expect_err("unknown");
    assert_eq!(err.to_string(), "unknown variables {{a}}, {{b}} in URL");
    // Disabled rows are not sent, so they may hold anything.
    spec.headers[0].enabled = false;
    assert!(resolve_spec(&spec, &vars(), "U").is_ok());
}

#[test]
fn uuid_is_built_in_and_the_same_everywhere_in_one_send() {
    let r = resolve_text("{{uuid}}-{{uuid}}", &vars(), "U1", "URL").expect("built in");
    assert_eq!(r.text, "U1-U1");
    assert!(!r.used_secret);
}

#[test]
fn non_variables_are_kept_as_typed() {
    for text in ["{{}}", "{{ a b }}", "a {{ b", "}}{{", r#"{"a":{"b":{}}}"#] {
        let r = resolve_text(text, &Variables::new(), "U", "body").expect("literal");
        assert_eq!(r.text, text);
    }
    let r = resolve_text("{{{host}}}", &vars(), "U", "body").expect("inner var");
    assert_eq!(r.text, "{127.0.0.1:9}");
}

#[test]
fn no_recursion() {
    let mut v = Variables::new();
    v.set("a", "{{b}}", false);
    let r = resolve_text("{{a}}", &v, "U", "URL").expect("value not resolved again");
    assert_eq!(r.text, "{{b}}");
}

#[test]
fn masked_display_hides_secrets_and_keeps_unknowns() {
    let shown = resolve_text_masked("http://{{host}}/?t={{token}}&u={{nope}}", &vars(), "U");
    assert_eq!(shown, "http://127.0.0.1:9/?t=***&u={{nope}}");
}

#[test]
fn overrides_keep_the_secret_flag() {
    let mut v = vars();
    v.override_value("token", "other");
    v.override_value("new", "n");
    assert!(v.is_secret("token"));
    assert_eq!(v.get("token"), Some("other"));
    assert!(!v.is_secret("new"));
    assert_eq!(v.secret_values(), ["other"]);
}

#[test]
fn secret_values_are_masked_in_events() {
    let secrets = vec!["s3cr3t-value".to_owned(), "s3cr3t".to_owned()];
    assert_eq!(
        mask_secret_values("a s3cr3t-value b s3cr3t c", &secrets),
        "a *** b *** c"
    );
    let event = RunEvent::RunStarted {
        run_id: 1,
        seed: 1,
        profile: "p".into(),
        method: "GET".into(),
        url: "http://h/?t=s3cr3t-value".into(),
        started_at: chrono::DateTime::parse_from_rfc3339("2026-12-01T10:00:00+01:00")
            .expect("valid date"),
        tls_unverified: false,
    };
    let masked = mask_event_secrets(event.clone(), &secrets);
    let RunEvent::RunStarted { url, .. } = masked else {
        panic!("same variant");
    };
    assert_eq!(url, "http://h/?t=***");
    assert_eq!(mask_event_secrets(event.clone(), &[]), event);
}

#[test]
fn every_string_of_a_finished_attempt_is_masked_and_the_rest_kept() {
    use crate::model::{BodyPreview, Timings};
    let secrets = vec!["tok-123456".to_owned()];
    let response = |body: Vec<u8>, value: &str| RunEvent::AttemptFinished {
        run_id: 1,
        attempt: 1,
        outcome: AttemptOutcome::Response(ResponseSummary {
            status: 503,
            reason: "no tok-123456".into(),
            version: "HTTP/1.1".into(),
            headers: vec![("x-tok-123456".into(), value.into())],
            body: BodyPreview {
                total_bytes: body.len() as u64,
                bytes: body,
                truncated: false,
            },
        }),
        hops: vec![Hop {
            method: "GET".into(),
            url: "http://h/a?k=tok-123456".into(),
            status: 302,
            location: "/b?k=tok-123456".into(),
            dropped_headers: Vec::new(),
        }],
        timings: Timings::default(),
        verdict: Verdict::retry("503 for tok-123456"),
    };
    let mut binary = vec![0xff, 0xfe];
    binary.extend_from_slice(b"tok-123456");
    let masked = mask_event_secrets(response(binary, "v tok-123456"), &secrets);
    let mut want = vec![0xff, 0xfe];
    want.extend_from_slice(SECRET_MASK.as_bytes());
    let wanted = |body: Vec<u8>| {
        let RunEvent::AttemptFinished {
            outcome: AttemptOutcome::Response(mut r),
            hops,
            verdict,
            ..
        } = response(body, "v ***")
        else {
            unreachable!("built as a response")
        };
        r.reason = "no ***".into();
        r.headers[0].0 = "x-***".into();
        let hops = hops
            .into_iter()
            .map(|h| Hop {
                url: "http://h/a?k=***".into(),
                location: "/b?k=***".into(),
                ..h
            })
            .collect::<Vec<_>>();
        let Verdict::Retry { .. } = verdict else {
            unreachable!("built as a retry")
        };
        RunEvent::AttemptFinished {
            run_id: 1,
            attempt: 1,
            outcome: AttemptOutcome::Response(r),
            hops,
            timings: Timings::default(),
            verdict: Verdict::retry("503 for ***"),
        }
    };
    let mut want_event = wanted(want.clone());
    if let RunEvent::AttemptFinished {
        outcome: AttemptOutcome::Response(r),
        ..
    } = &mut want_event
    {
        r.body.total_bytes = 12;
    }
    assert_eq!(masked, want_event, "non-UTF-8 body masked byte for byte");
    let text = mask_event_secrets(response(b"ok tok-123456".to_vec(), "v"), &secrets);
    let RunEvent::AttemptFinished {
        outcome: AttemptOutcome::Response(r),
        ..
    } = text
    else {
        panic!("same variant");
    };
    assert_eq!(r.body.bytes, b"ok ***");
    assert_eq!(r.body.total_bytes, 13, "sizes are what arrived");
    assert_eq!(r.version, "HTTP/1.1");
    assert_eq!(r.headers[0].1, "v");
    // A secret inside the mask itself: the mask left is not searched again (no endless loop).
    let mut body = vec![0xff];
    body.extend_from_slice(b"a**b");
    let RunEvent::AttemptFinished {
        outcome: AttemptOutcome::Response(r),
        ..
    } = mask_event_secrets(response(body, "v"), &["**".to_owned()])
    else {
        panic!("same variant");
    };
    assert_eq!(r.body.bytes, [&[0xff][..], b"a***b"].concat());
    // A preview cut inside a secret: the half that arrived is masked, but only when cut.
    let mut cut = response(b"echo: tok-12".to_vec(), "v");
    if let RunEvent::AttemptFinished {
        outcome: AttemptOutcome::Response(r),
        ..
    } = &mut cut
    {
        r.body.truncated = true;
    }
    let bodies =
        [cut, response(b"echo: tok-12".to_vec(), "v")].map(|event| {
            match mask_event_secrets(event, &secrets) {
                RunEvent::AttemptFinished {
                    outcome: AttemptOutcome::Response(r),
                    ..
                } => r.body.bytes,
                _ => panic!("same variant"),
            }
        });
    assert_eq!(bodies[0], b"echo: ***");
    assert_eq!(
        bodies[1], b"echo: tok-12",
        "a whole body is not a cut secret"
    );
}
