//! A run as HAR 1.2 (one entry per attempt, in order), for tickets and other tools, from the
//! run's [`RunFold`] and the request it sent, both masked by the one secrets rule (DESIGN.md §9).
//! An attempt that did not finish (cancelled or cut off) has `time` 0 with `send`/`wait`/
//! `receive` 0 (HAR 1.2 allows -1 only in `blocked`, `dns`, `connect`, `ssl`), `_error` "no
//! answer recorded (OUTCOME)" once the run ended, and `_retryscope.length_measured: false`: its
//! length was not measured. Times are whole microseconds.
//!
//! `timings` hold what was measured and -1 where nothing was (see [`super::har_timings`]:
//! `connect` for a new connection, -1 when reused; `ssl` -1 as it is inside `connect`; `send`
//! split from `wait` when the request had a body); `wait` runs to the response headers and
//! `receive` to the end of the body. Custom `_retryscope` fields carry the attempt number,
//! verdict and reason, the wait that followed (planned, measured, explanation) and, with a retry
//! budget, the budget changes the attempt caused (`budget`: kind, tokens before and after,
//! capacity, scope, text) with `tokens_before` / `tokens_after` (before the first, after the
//! last). The log's `_retryscope` holds the seed, profile and outcome; for a run whose process
//! ended (`interrupted`) `elapsed_ms` is null and `recorded_until_ms` says how far its records
//! reach.

use super::har_timings::{har_timings, ms_to_micros};
use crate::model::secrets::Masked;
use crate::model::{AttemptOutcome, AttemptRow, Body, RequestSpec, RunFold};
use serde_json::{Value, json};

/// The HAR 1.2 document of the run `fold`; `request` (its headers and body are not in the
/// fold) gives each entry's request headers and body, `None` writes none.
pub fn run_to_har(fold: &RunFold, request: Option<&Masked<RequestSpec>>) -> Value {
    let mut run_facts = serde_json::Map::new();
    if let Some(h) = &fold.header {
        run_facts.insert("seed".into(), json!(h.seed));
        run_facts.insert("profile".into(), json!(h.profile));
    }
    if let Some(f) = &fold.finish {
        run_facts.insert("outcome".into(), json!(f.outcome.kind));
        run_facts.insert("message".into(), json!(f.outcome.message));
        run_facts.insert("attempts".into(), json!(f.attempts));
        if f.measured() {
            run_facts.insert("elapsed_ms".into(), json!(f.elapsed_ms));
        } else {
            // Never measured: how far the records reach is a lower bound, not the length.
            run_facts.insert("elapsed_ms".into(), Value::Null);
            run_facts.insert("recorded_until_ms".into(), json!(f.elapsed_ms));
        }
    }
    let unanswered = match &fold.finish {
        Some(f) => format!("no answer recorded ({})", f.outcome.kind.id()),
        None => "the attempt did not finish".to_owned(),
    };
    let entries: Vec<Value> = fold
        .attempts
        .iter()
        .map(|a| entry(a, request.map(|r| &**r), &unanswered))
        .collect();
    json!({
        "log": {
            "version": "1.2",
            "creator": { "name": "Retryscope", "version": env!("CARGO_PKG_VERSION") },
            "entries": entries,
            "_retryscope": Value::Object(run_facts),
        }
    })
}

fn name_value(name: &str, value: &str) -> Value {
    json!({ "name": name, "value": value })
}

fn entry(a: &AttemptRow, spec: Option<&RequestSpec>, unanswered: &str) -> Value {
    let query: Vec<Value> = a
        .url
        .split_once('?')
        .map(|(_, q)| q.split('#').next().unwrap_or(""))
        .map(|q| {
            form_urlencoded::parse(q.as_bytes())
                .map(|(n, v)| name_value(&n, &v))
                .collect()
        })
        .unwrap_or_default();
    let mut headers: Vec<Value> = Vec::new();
    let mut post_data = None;
    let mut body_size: i64 = 0;
    if let Some(spec) = spec {
        for row in spec.headers.iter().filter(|h| h.enabled) {
            headers.push(name_value(&row.name, &row.value));
        }
        if let Some(key) = &spec.idempotency_key {
            headers.push(name_value("Idempotency-Key", key));
        }
        post_data = post_data_of(&spec.body);
        if let Some(text) = post_data.as_ref().and_then(|p| p["text"].as_str()) {
            body_size = i64::try_from(text.len()).unwrap_or(i64::MAX);
        }
    }
    let mut request = json!({
        "method": a.method,
        "url": a.url,
        "httpVersion": "HTTP/1.1",
        "cookies": [],
        "headers": headers,
        "queryString": query,
        "headersSize": -1,
        "bodySize": body_size,
    });
    if let Some(p) = post_data {
        request["postData"] = p;
    }
    let mut ours = serde_json::Map::new();
    ours.insert("attempt".into(), json!(a.number));
    let mut comment = None;
    let (response, timings, time) = if let Some(r) = &a.result {
        // The redirect hops the engine followed before the response (one entry per
        // attempt: the request is the first hop, the response the last one's).
        if !r.hops.is_empty() {
            let hops: Vec<Value> = r
                .hops
                .iter()
                .map(|h| {
                    json!({
                        "method": h.method, "url": h.url, "status": h.status,
                        "location": h.location,
                    })
                })
                .collect();
            comment = Some(format!(
                "the request is the first hop; the response is the final one's, after {} (_retryscope.redirects)",
                crate::model::counted(hops.len() as u64, "redirect", "redirects")
            ));
            ours.insert("redirects".into(), Value::Array(hops));
        }
        // A success's reason is the `success_when` condition that held, if any.
        let (name, reason) = r.verdict.name_and_reason();
        ours.insert("verdict".into(), json!(name));
        if let Some(reason) = reason {
            ours.insert("reason".into(), json!(reason));
        }
        let error = r.outcome.error_kind();
        (
            response_of(&r.outcome),
            har_timings(&r.timings, error),
            ms_to_micros(r.timings.total_ms),
        )
    } else {
        ours.insert("length_measured".into(), json!(false));
        (
            json!({
                "status": 0, "statusText": "", "httpVersion": "", "cookies": [], "headers": [],
                "content": { "size": 0, "mimeType": "" }, "redirectURL": "",
                "headersSize": -1, "bodySize": -1, "_error": unanswered,
            }),
            // HAR 1.2 allows -1 only in blocked, dns, connect and ssl; send, wait and
            // receive are numbers and `time` is their sum: 0, with the comment and
            // `_retryscope` saying the length was not measured (not that it took no time).
            json!({
                "blocked": -1, "dns": -1, "connect": -1, "ssl": -1,
                "send": 0, "wait": 0, "receive": 0,
                "comment": "the attempt did not finish: its length was not measured (0 here is not a measurement)",
            }),
            0.0,
        )
    };
    if let Some(w) = &a.wait {
        ours.insert("planned_wait_ms".into(), json!(w.planned_ms));
        ours.insert("explanation".into(), json!(w.explanation.text));
        if let (Some(measured), false) = (w.actual_ms, w.interrupted) {
            ours.insert("measured_wait_ms".into(), json!(ms_to_micros(measured)));
            ours.insert("wait_skipped".into(), json!(w.skipped));
        }
    }
    if let Some((before, after)) = a.budget_span() {
        ours.insert("tokens_before".into(), json!(before));
        ours.insert("tokens_after".into(), json!(after));
        ours.insert("budget".into(), json!(a.budget));
    }
    let mut entry = json!({
        "startedDateTime": a.started_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, false),
        "time": time,
        "request": request,
        "response": response,
        "cache": {},
        "timings": timings,
        "_retryscope": Value::Object(ours),
    });
    if let Some(c) = comment {
        entry["comment"] = Value::from(c);
    }
    entry
}

fn post_data_of(body: &Body) -> Option<Value> {
    match body {
        Body::None => None,
        Body::Text { text, content_type } => Some(json!({
            "mimeType": content_type.as_deref().unwrap_or("text/plain; charset=utf-8"),
            "text": text,
        })),
        Body::Json { text } => Some(json!({ "mimeType": "application/json", "text": text })),
        Body::Form { fields } => {
            let fields: Vec<(&str, &str)> = fields
                .iter()
                .filter(|f| f.enabled)
                .map(|f| (f.name.as_str(), f.value.as_str()))
                .collect();
            let text = form_urlencoded::Serializer::new(String::new())
                .extend_pairs(fields.iter().copied())
                .finish();
            let params: Vec<Value> = fields.iter().map(|(n, v)| name_value(n, v)).collect();
            Some(json!({
                "mimeType": "application/x-www-form-urlencoded",
                "params": params,
                "text": text,
            }))
        }
        Body::Multipart { parts } => {
            let params: Vec<Value> = parts
                .iter()
                .map(|p| match &p.source {
                    crate::model::PartSource::Text { value } => name_value(&p.name, value),
                    crate::model::PartSource::File { path, .. } => {
                        json!({ "name": p.name, "fileName": path })
                    }
                })
                .collect();
            Some(json!({ "mimeType": "multipart/form-data", "params": params, "text": "" }))
        }
        Body::File { path, content_type } => Some(json!({
            "mimeType": content_type.as_deref().unwrap_or("application/octet-stream"),
            "text": "",
            "comment": format!("body read from the file {path}"),
        })),
    }
}

fn response_of(outcome: &AttemptOutcome) -> Value {
    match outcome {
        AttemptOutcome::Response(r) => {
            let headers: Vec<Value> = r.headers.iter().map(|(n, v)| name_value(n, v)).collect();
            let mut content = json!({
                "size": r.body.total_bytes,
                "mimeType": r.header("content-type").unwrap_or(""),
            });
            if let Ok(text) = std::str::from_utf8(&r.body.bytes) {
                content["text"] = json!(text);
            } else {
                use base64::Engine as _;
                content["text"] =
                    json!(base64::engine::general_purpose::STANDARD.encode(&r.body.bytes));
                content["encoding"] = json!("base64");
            }
            if r.body.truncated {
                content["comment"] = json!(format!(
                    "preview of the first {} of {} bytes",
                    r.body.bytes.len(),
                    r.body.total_bytes
                ));
            }
            json!({
                "status": r.status,
                "statusText": r.reason,
                "httpVersion": r.version,
                "cookies": [],
                "headers": headers,
                "content": content,
                "redirectURL": r.header("location").unwrap_or(""),
                "headersSize": -1,
                "bodySize": r.body.total_bytes,
            })
        }
        AttemptOutcome::Error(e) => json!({
            "status": 0, "statusText": "", "httpVersion": "", "cookies": [], "headers": [],
            "content": { "size": 0, "mimeType": "" }, "redirectURL": "",
            "headersSize": -1, "bodySize": -1,
            "_error": format!("{}: {}", e.kind, e.message),
        }),
    }
}
