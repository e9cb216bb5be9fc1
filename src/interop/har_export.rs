//! A run as HAR 1.2 (one entry per attempt, in order), for tickets and other tools.
//! An attempt that did not finish (cancelled or cut off) has `time` 0 with `send`/`wait`/
//! `receive` 0 (HAR 1.2 allows -1 only in `blocked`, `dns`, `connect`, `ssl`) and
//! `_retryscope.length_measured: false`: its length was not measured. Times are whole
//! microseconds.
//!
//! `timings` hold what was measured and -1 where nothing was (see [`super::har_timings`]:
//! `connect` for a new connection, -1 when reused; `ssl` -1 as it is inside `connect`; `send`
//! split from `wait` when the request had a body); `wait` runs to the response headers and
//! `receive` to the end of the body. Custom `_retryscope` fields carry the attempt number, verdict and reason,
//! the wait that followed (planned, measured, explanation) and, with a retry budget, the
//! budget changes the attempt caused (`budget`: kind, tokens before and after, capacity, scope,
//! text) with `tokens_before` / `tokens_after` (before the first, after the last). Secrets are masked unless the
//! caller includes them: secret header values, the URL's user name and password and secret
//! query values as `***`, and every value in `secrets` wherever it appears.

use super::har_timings::har_timings;
use super::secret_rule::{is_secret_header, is_secret_query, mask_url};
use crate::model::{AttemptOutcome, Body, KeyValue, RequestSpec, RunEvent, mask_secret_values};
use serde_json::{Value, json};

/// What the export needs besides the events.
#[derive(Debug, Clone, Copy)]
pub struct HarExport<'a> {
    /// The request the run sent (headers and body are not in the events); `None` writes no
    /// request headers or body.
    pub request: Option<&'a RequestSpec>,
    /// Secret values to mask wherever they appear (secret variables, auth fields).
    pub secrets: &'a [String],
    /// Write secrets as they are (an explicit user choice).
    pub include_secrets: bool,
}

#[derive(Default)]
struct AttemptParts<'a> {
    started: Option<&'a RunEvent>,
    finished: Option<&'a RunEvent>,
    planned: Option<(u64, String)>,
    measured: Option<(f64, bool)>,
    budget: Vec<&'a crate::model::BudgetChange>,
}

/// The HAR 1.2 document of one run's `events` (in order; other runs' events are ignored
/// after the first event's run id).
pub fn run_to_har(events: &[RunEvent], export: &HarExport<'_>) -> Value {
    let run_id = events.first().map(RunEvent::run_id);
    let mut attempts: Vec<AttemptParts<'_>> = Vec::new();
    let mut run_facts = serde_json::Map::new();
    for event in events.iter().filter(|e| Some(e.run_id()) == run_id) {
        match event {
            RunEvent::RunStarted { seed, profile, .. } => {
                run_facts.insert("seed".into(), json!(seed));
                run_facts.insert("profile".into(), json!(profile));
            }
            RunEvent::AttemptStarted { attempt, .. } => {
                let n = usize::try_from(*attempt).unwrap_or(usize::MAX);
                if attempts.len() < n {
                    attempts.resize_with(n, AttemptParts::default);
                }
                if let Some(a) = attempts.get_mut(n.wrapping_sub(1)) {
                    a.started = Some(event);
                }
            }
            RunEvent::AttemptFinished { attempt, .. } => {
                if let Some(a) = slot(&mut attempts, *attempt) {
                    a.finished = Some(event);
                }
            }
            RunEvent::WaitScheduled {
                retry,
                planned_ms,
                explanation,
                ..
            } => {
                if let Some(a) = slot(&mut attempts, *retry) {
                    a.planned = Some((*planned_ms, explanation.text.clone()));
                }
            }
            RunEvent::BudgetChanged {
                attempt, change, ..
            } => {
                if let Some(a) = slot(&mut attempts, *attempt) {
                    a.budget.push(change);
                }
            }
            RunEvent::WaitFinished {
                retry,
                actual_ms,
                skipped,
                ..
            } => {
                if let Some(a) = slot(&mut attempts, *retry) {
                    a.measured = Some((*actual_ms, *skipped));
                }
            }
            RunEvent::RunFinished {
                outcome,
                attempts,
                elapsed_ms,
                ..
            } => {
                run_facts.insert("outcome".into(), json!(outcome.kind));
                run_facts.insert("message".into(), json!(outcome.message));
                run_facts.insert("attempts".into(), json!(attempts));
                run_facts.insert("elapsed_ms".into(), json!(elapsed_ms));
            }
        }
    }
    let entries: Vec<Value> = attempts.iter().filter_map(|a| entry(a, export)).collect();
    let har = json!({
        "log": {
            "version": "1.2",
            "creator": { "name": "Retryscope", "version": env!("CARGO_PKG_VERSION") },
            "entries": entries,
            "_retryscope": Value::Object(run_facts),
        }
    });
    if export.include_secrets {
        return har;
    }
    // Secret values also hide wherever a server echoed them (a body quoting the query).
    let mut secrets = export.secrets.to_vec();
    let mut urls: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::AttemptStarted { url, .. } | RunEvent::RunStarted { url, .. } => {
                Some(url.as_str())
            }
            _ => None,
        })
        .collect();
    if let Some(spec) = export.request {
        urls.push(&spec.url);
        secrets.extend(
            spec.headers
                .iter()
                .chain(&spec.query)
                .filter(|h| is_secret_header(h) || is_secret_query(&h.name, h.secret))
                .map(|h| h.value.clone()),
        );
    }
    for url in urls {
        if let Some((_, query)) = url.split_once('?') {
            let query = query.split('#').next().unwrap_or("");
            secrets.extend(
                form_urlencoded::parse(query.as_bytes())
                    .filter(|(n, v)| is_secret_query(n, false) && v.len() > 2)
                    .map(|(_, v)| v.into_owned()),
            );
        }
    }
    secrets.retain(|s| s.len() > 2 && s != crate::model::SECRET_MASK);
    mask_strings(har, &secrets)
}

fn slot<'a, 'b>(attempts: &'b mut [AttemptParts<'a>], n: u32) -> Option<&'b mut AttemptParts<'a>> {
    let i = usize::try_from(n).ok()?.checked_sub(1)?;
    attempts.get_mut(i)
}

fn name_value(name: &str, value: &str) -> Value {
    json!({ "name": name, "value": value })
}

fn entry(a: &AttemptParts<'_>, export: &HarExport<'_>) -> Option<Value> {
    let Some(RunEvent::AttemptStarted {
        attempt,
        method,
        url,
        started_at,
        ..
    }) = a.started
    else {
        return None;
    };
    let masked = |row: &KeyValue| {
        if !export.include_secrets && is_secret_header(row) && !row.value.is_empty() {
            crate::model::SECRET_MASK.to_owned()
        } else {
            row.value.clone()
        }
    };
    let shown_url = if export.include_secrets {
        url.clone()
    } else {
        mask_url(url)
    };
    let query: Vec<Value> = shown_url
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
    if let Some(spec) = export.request {
        for row in spec.headers.iter().filter(|h| h.enabled) {
            headers.push(name_value(&row.name, &masked(row)));
        }
        if let Some(key) = &spec.idempotency_key {
            headers.push(name_value("Idempotency-Key", key));
        }
        post_data = post_data_of(&spec.body, export.include_secrets);
        if let Some(text) = post_data.as_ref().and_then(|p| p["text"].as_str()) {
            body_size = i64::try_from(text.len()).unwrap_or(i64::MAX);
        }
    }
    let mut request = json!({
        "method": method,
        "url": shown_url,
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
    // The redirect hops the engine followed before the response (one entry per attempt: the
    // request is the first hop, the response the last one's).
    let mut redirects: Vec<Value> = Vec::new();
    let (response, timings, time, verdict) = match a.finished {
        Some(RunEvent::AttemptFinished {
            outcome,
            timings,
            verdict,
            hops,
            ..
        }) => {
            redirects = hops
                .iter()
                .map(|h| {
                    json!({
                        "method": h.method, "url": mask_url(&h.url), "status": h.status,
                        "location": mask_url(&h.location),
                    })
                })
                .collect();
            let error = match outcome {
                AttemptOutcome::Error(e) => Some(e.kind),
                AttemptOutcome::Response(_) => None,
            };
            let timing = har_timings(timings, error);
            (
                response_of(outcome, export),
                timing,
                crate::interop::har_timings::ms_to_micros(timings.total_ms),
                Some(verdict),
            )
        }
        _ => (
            json!({
                "status": 0, "statusText": "", "httpVersion": "", "cookies": [], "headers": [],
                "content": { "size": 0, "mimeType": "" }, "redirectURL": "",
                "headersSize": -1, "bodySize": -1, "_error": "the attempt did not finish",
            }),
            // HAR 1.2 allows -1 only in blocked, dns, connect and ssl; send, wait and receive
            // are numbers and `time` is their sum: 0, with the comment and `_retryscope` saying
            // the length was not measured (not that it took no time).
            json!({
                "blocked": -1, "dns": -1, "connect": -1, "ssl": -1,
                "send": 0, "wait": 0, "receive": 0,
                "comment": "the attempt did not finish: its length was not measured (0 here is not a measurement)",
            }),
            0.0,
            None,
        ),
    };
    let mut ours = serde_json::Map::new();
    ours.insert("attempt".into(), json!(attempt));
    if a.finished.is_none() {
        ours.insert("length_measured".into(), json!(false));
    }
    let comment = (!redirects.is_empty()).then(|| {
        format!(
            "the request is the first hop; the response is the final one's, after {} redirect{} (_retryscope.redirects)",
            redirects.len(),
            if redirects.len() == 1 { "" } else { "s" }
        )
    });
    if !redirects.is_empty() {
        ours.insert("redirects".into(), Value::Array(redirects));
    }
    if let Some(v) = verdict {
        // A success's reason is the `success_when` condition that held, if any.
        let (name, reason) = v.name_and_reason();
        ours.insert("verdict".into(), json!(name));
        if let Some(r) = reason {
            ours.insert("reason".into(), json!(r));
        }
    }
    if let Some((planned, text)) = &a.planned {
        ours.insert("planned_wait_ms".into(), json!(planned));
        ours.insert("explanation".into(), json!(text));
    }
    if let Some((measured, skipped)) = a.measured {
        ours.insert(
            "measured_wait_ms".into(),
            json!(crate::interop::har_timings::ms_to_micros(measured)),
        );
        ours.insert("wait_skipped".into(), json!(skipped));
    }
    if let (Some(first), Some(last)) = (a.budget.first(), a.budget.last()) {
        ours.insert("tokens_before".into(), json!(first.before));
        ours.insert("tokens_after".into(), json!(last.after));
        ours.insert("budget".into(), json!(a.budget));
    }
    let mut entry = json!({
        "startedDateTime": started_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, false),
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
    Some(entry)
}

fn post_data_of(body: &Body, include_secrets: bool) -> Option<Value> {
    match body {
        Body::None => None,
        Body::Text { text, content_type } => Some(json!({
            "mimeType": content_type.as_deref().unwrap_or("text/plain; charset=utf-8"),
            "text": text,
        })),
        Body::Json { text } => Some(json!({ "mimeType": "application/json", "text": text })),
        Body::Form { fields } => {
            let fields: Vec<(String, String)> = fields
                .iter()
                .filter(|f| f.enabled)
                .map(|f| {
                    let secret = is_secret_query(&f.name, f.secret)
                        || is_secret_header(&KeyValue::new(f.name.clone(), String::new()));
                    let value = if secret && !include_secrets && !f.value.is_empty() {
                        crate::model::SECRET_MASK.to_owned()
                    } else {
                        f.value.clone()
                    };
                    (f.name.clone(), value)
                })
                .collect();
            let text = form_urlencoded::Serializer::new(String::new())
                .extend_pairs(fields.iter().map(|(n, v)| (n.as_str(), v.as_str())))
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
                    crate::model::PartSource::Text { value } => {
                        let secret = is_secret_query(&p.name, false);
                        let shown = if secret && !include_secrets {
                            crate::model::SECRET_MASK
                        } else {
                            value.as_str()
                        };
                        name_value(&p.name, shown)
                    }
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

fn response_of(outcome: &AttemptOutcome, export: &HarExport<'_>) -> Value {
    match outcome {
        AttemptOutcome::Response(r) => {
            let headers: Vec<Value> = r
                .headers
                .iter()
                .map(|(n, v)| {
                    let row = KeyValue::new(n.clone(), v.clone());
                    let value = if !export.include_secrets && is_secret_header(&row) {
                        crate::model::SECRET_MASK.to_owned()
                    } else {
                        v.clone()
                    };
                    name_value(n, &value)
                })
                .collect();
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

/// Every string in `value` with the `secrets` masked.
fn mask_strings(value: Value, secrets: &[String]) -> Value {
    if secrets.iter().all(String::is_empty) {
        return value;
    }
    match value {
        Value::String(s) => Value::String(mask_secret_values(&s, secrets)),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|v| mask_strings(v, secrets))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, mask_strings(v, secrets)))
                .collect(),
        ),
        other => other,
    }
}
