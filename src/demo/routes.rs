//! The demo server's endpoints (see the module docs of [`crate::demo`] for the list).

use super::byte_stream::ByteStream;
use super::redirect_target::check_redirect_target;
use super::state::{DemoState, scenario_key};
use axum::Json;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

type Params = Query<HashMap<String, String>>;
type Shared = State<Arc<DemoState>>;

/// Longest `/slow` delay honoured, ms (10 min), so a typo cannot pin a task for days.
const MAX_SLOW_MS: u64 = 600_000;

/// Every endpoint, listed by the 404 answer and by `retryscope demo-server --help`.
pub const ENDPOINTS: [&str; 19] = [
    "/status/{code}?times=N&key=K",
    "/flaky?fail=503&times=2",
    "/retry-after?value=RAW&status=429&times=N",
    "/retry-after-ms?value=MS&status=429&times=N",
    "/header?name=NAME&value=V&status=429&times=N",
    "/sequence?codes=429,503&name=NAME&value=V",
    "/slow?ms=1000",
    "/hang",
    "/reset",
    "/bytes?n=1024&per_s=B",
    "/echo",
    "/redirect?to=URL&status=302&times=N",
    "/job?ready_after=N&key=K",
    "/soft-limit?times=N",
    "/outage?down_min=5&period_min=60&status=503&retry_after=S (or down_s=2&period_s=10)",
    "/log",
    "/log/clear",
    "(every endpoint counts hits per scenario: case=NAME or key=NAME, else path+query)",
    "(times absent = always)",
];

/// The router; `/reset` never reaches it (the connection layer drops those connections).
pub(crate) fn router(state: Arc<DemoState>) -> Router {
    Router::new()
        .route("/status/{code}", any(status))
        .route("/flaky", any(flaky))
        .route("/retry-after", any(retry_after))
        .route("/retry-after-ms", any(retry_after_ms))
        .route("/header", any(generic_header))
        .route("/sequence", any(sequence))
        .route("/slow", any(slow))
        .route("/hang", any(hang))
        .route("/bytes", any(bytes))
        .route("/echo", any(echo))
        .route("/redirect", any(redirect))
        .route("/job", any(job))
        .route("/soft-limit", any(soft_limit))
        .route("/outage", any(outage))
        .route("/log", get(log))
        .route("/log/clear", any(clear_log))
        .fallback(not_found)
        .with_state(state)
}

/// A bad query: answered 400 with `{"error": message}` naming the parameter.
struct Reject(String);

impl IntoResponse for Reject {
    fn into_response(self) -> Response {
        (StatusCode::BAD_REQUEST, Json(json!({ "error": self.0 }))).into_response()
    }
}

type Answer = Result<Response, Reject>;

/// Parses optional numeric parameter `name`.
fn number(params: &HashMap<String, String>, name: &str) -> Result<Option<u64>, Reject> {
    match params.get(name) {
        None => Ok(None),
        Some(raw) => raw.trim().parse::<u64>().map(Some).map_err(|_| {
            Reject(format!(
                "query parameter `{name}` must be a whole number ≥ 0, got `{raw}`"
            ))
        }),
    }
}

/// Parses a status parameter in 200–599.
fn status_code(raw: u64, name: &str) -> Result<StatusCode, Reject> {
    u16::try_from(raw)
        .ok()
        .filter(|c| (200..=599).contains(c))
        .and_then(|c| StatusCode::from_u16(c).ok())
        .ok_or_else(|| {
            Reject(format!(
                "`{name}` must be a status code in 200-599, got {raw}"
            ))
        })
}

/// Where a request stands in its scenario.
struct Scenario {
    key: String,
    attempt: u64,
    failing: bool,
}

/// Counts this request under its key; the first `times` hits (all when absent) are failures.
fn scenario(
    state: &DemoState,
    uri: &Uri,
    params: &HashMap<String, String>,
) -> Result<Scenario, Reject> {
    let times = number(params, "times")?.unwrap_or(u64::MAX);
    let key = scenario_key(uri.path(), uri.query());
    let attempt = state.hit(&key);
    Ok(Scenario {
        key,
        attempt,
        failing: attempt <= times,
    })
}

/// The JSON body every scenario answer carries.
fn scenario_body(status: StatusCode, s: &Scenario) -> Json<serde_json::Value> {
    Json(json!({ "status": status.as_u16(), "attempt": s.attempt, "key": s.key }))
}

/// Answers `status` with `headers` while failing, else 200.
fn scenario_answer(s: &Scenario, status: StatusCode, headers: HeaderMap) -> Response {
    if s.failing {
        (status, headers, scenario_body(status, s)).into_response()
    } else {
        (StatusCode::OK, scenario_body(StatusCode::OK, s)).into_response()
    }
}

async fn status(State(state): Shared, Path(code): Path<u64>, uri: Uri, Query(p): Params) -> Answer {
    let code = status_code(code, "{code}")?;
    let s = scenario(&state, &uri, &p)?;
    Ok(scenario_answer(&s, code, HeaderMap::new()))
}

async fn flaky(State(state): Shared, uri: Uri, Query(mut p): Params) -> Answer {
    p.entry("times".into()).or_insert_with(|| "2".into());
    let fail = status_code(number(&p, "fail")?.unwrap_or(503), "fail")?;
    let s = scenario(&state, &uri, &p)?;
    Ok(scenario_answer(&s, fail, HeaderMap::new()))
}

/// A map holding `name: value`, the value from the `value` query parameter (empty when absent).
fn named_header(name: &str, p: &HashMap<String, String>) -> Result<HeaderMap, Reject> {
    let header_name = HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| Reject(format!("`{name}` is not a valid header name")))?;
    let raw = p.get("value").map_or("", String::as_str);
    let value = HeaderValue::from_bytes(raw.as_bytes())
        .map_err(|_| Reject(format!("`{raw}` cannot be sent as a header value")))?;
    Ok(HeaderMap::from_iter([(header_name, value)]))
}

/// Shared by the three header endpoints: `name: value` with `status` while failing.
fn header_answer(state: &DemoState, uri: &Uri, p: &HashMap<String, String>, name: &str) -> Answer {
    let status = status_code(number(p, "status")?.unwrap_or(429), "status")?;
    let headers = named_header(name, p)?;
    let s = scenario(state, uri, p)?;
    Ok(scenario_answer(&s, status, headers))
}

async fn retry_after(State(state): Shared, uri: Uri, Query(p): Params) -> Answer {
    header_answer(&state, &uri, &p, "retry-after")
}

async fn retry_after_ms(State(state): Shared, uri: Uri, Query(p): Params) -> Answer {
    header_answer(&state, &uri, &p, "retry-after-ms")
}

async fn generic_header(State(state): Shared, uri: Uri, Query(p): Params) -> Answer {
    let name = p
        .get("name")
        .cloned()
        .ok_or_else(|| Reject("query parameter `name` (the header name) is required".into()))?;
    header_answer(&state, &uri, &p, &name)
}

/// Hit n of a key answers the n-th of `codes` (comma-separated), then 200; a non-2xx answer
/// carries `name: value` when `name` is given (e.g. a 429 with `x-amz-retry-after`).
async fn sequence(State(state): Shared, uri: Uri, Query(p): Params) -> Answer {
    let raw = p.get("codes").map_or("", String::as_str);
    let codes = raw
        .split(',')
        .filter(|c| !c.trim().is_empty())
        .map(|c| {
            let n = c.trim().parse::<u64>().map_err(|_| {
                Reject(format!(
                    "`codes` must be status codes separated by commas, got `{raw}`"
                ))
            })?;
            status_code(n, "codes")
        })
        .collect::<Result<Vec<_>, _>>()?;
    let headers = match p.get("name") {
        Some(name) => named_header(name, &p)?,
        None => HeaderMap::new(),
    };
    let key = scenario_key(uri.path(), uri.query());
    let attempt = state.hit(&key);
    let status = usize::try_from(attempt.saturating_sub(1))
        .ok()
        .and_then(|i| codes.get(i).copied())
        .unwrap_or(StatusCode::OK);
    let s = Scenario {
        key,
        attempt,
        failing: !status.is_success(),
    };
    Ok(scenario_answer(&s, status, headers))
}

async fn slow(Query(p): Params) -> Answer {
    let ms = number(&p, "ms")?.unwrap_or(1000).min(MAX_SLOW_MS);
    tokio::time::sleep(Duration::from_millis(ms)).await;
    Ok((StatusCode::OK, Json(json!({ "slept_ms": ms }))).into_response())
}

async fn hang() -> Response {
    std::future::pending::<()>().await;
    StatusCode::OK.into_response()
}

/// `n` bytes (1024 by default), as fast as the connection takes them, or trickled at `per_s`
/// bytes per second (a tenth every 100 ms) to try idle timeouts and the download progress line.
async fn bytes(Query(p): Params) -> Answer {
    let n = number(&p, "n")?.unwrap_or(1024);
    let body = match number(&p, "per_s")? {
        None => Body::new(ByteStream::new(n)),
        Some(per_s) => {
            let step = (per_s / 10).clamp(1, 1 << 20);
            Body::from_stream(futures_util::stream::unfold(n, move |left| async move {
                if left == 0 {
                    return None;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
                let k = left.min(step);
                let chunk = Bytes::from(vec![b'x'; usize::try_from(k).unwrap_or(1)]);
                Some((Ok::<_, std::convert::Infallible>(chunk), left - k))
            }))
        }
    };
    Ok(([(header::CONTENT_TYPE, "application/octet-stream")], body).into_response())
}

async fn echo(method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let headers: Vec<(String, String)> = headers
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    Json(json!({
        "method": method.as_str(),
        "path": uri.path_and_query().map_or("/", |p| p.as_str()),
        "headers": headers,
        "body": String::from_utf8_lossy(&body),
        "body_len": body.len(),
    }))
    .into_response()
}

async fn redirect(State(state): Shared, uri: Uri, Query(p): Params) -> Answer {
    let status = number(&p, "status")?.unwrap_or(302);
    let code = u16::try_from(status)
        .ok()
        .filter(|c| (300..=399).contains(c))
        .and_then(|c| StatusCode::from_u16(c).ok())
        .ok_or_else(|| Reject(format!("`status` must be a 3xx code, got {status}")))?;
    let to = p.get("to").map_or("/status/200", String::as_str);
    // Never a way off this machine for a client following redirects.
    check_redirect_target(to).map_err(Reject)?;
    let location = HeaderValue::from_str(to)
        .map_err(|_| Reject(format!("`to` cannot be sent as a Location header: `{to}`")))?;
    let mut headers = HeaderMap::new();
    headers.insert(header::LOCATION, location);
    let s = scenario(&state, &uri, &p)?;
    Ok(scenario_answer(&s, code, headers))
}

/// A polled job: `{"state": "pending"}` for the first `ready_after` hits of its key, then
/// `{"state": "done"}`, always 200, with the state also in `x-job-state`.
async fn job(State(state): Shared, uri: Uri, Query(p): Params) -> Answer {
    let ready_after = number(&p, "ready_after")?.unwrap_or(2);
    let key = scenario_key(uri.path(), uri.query());
    let attempt = state.hit(&key);
    let job_state = if attempt <= ready_after {
        "pending"
    } else {
        "done"
    };
    Ok((
        StatusCode::OK,
        [("x-job-state", job_state)],
        Json(json!({ "state": job_state, "attempt": attempt, "ready_after": ready_after, "key": key })),
    )
        .into_response())
}

/// A throttle the status hides: 200 with `{"error": "rate limit exceeded"}` for the first
/// `times` hits (default 1), then 200 with the usual scenario body.
async fn soft_limit(State(state): Shared, uri: Uri, Query(mut p): Params) -> Answer {
    p.entry("times".into()).or_insert_with(|| "1".into());
    let s = scenario(&state, &uri, &p)?;
    if s.failing {
        let body = json!({ "error": "rate limit exceeded", "attempt": s.attempt, "key": s.key });
        Ok((StatusCode::OK, Json(body)).into_response())
    } else {
        Ok((StatusCode::OK, scenario_body(StatusCode::OK, &s)).into_response())
    }
}

/// A scheduled outage by the wall clock: `status` (default 503, with `Retry-After: S` when
/// `retry_after` is given) during the first `down` of every `period` since the Unix epoch —
/// `down_min` of every `period_min` minutes (default: the first 5 minutes of each hour), or
/// `down_s` / `period_s` seconds (short periods for tests) — and 200 otherwise. The JSON body
/// says which and how many ms into the period the request came.
async fn outage(Query(p): Params) -> Answer {
    let seconds = p.contains_key("down_s") || p.contains_key("period_s");
    let (down, period, unit) = if seconds {
        (
            number(&p, "down_s")?.unwrap_or(2),
            number(&p, "period_s")?.unwrap_or(10),
            1000,
        )
    } else {
        (
            number(&p, "down_min")?.unwrap_or(5),
            number(&p, "period_min")?.unwrap_or(60),
            60_000,
        )
    };
    if period == 0 || down > period {
        return Err(Reject(format!(
            "the outage must fit its period (0 ≤ down ≤ period, period > 0), got down {down}, period {period}"
        )));
    }
    let status = status_code(number(&p, "status")?.unwrap_or(503), "status")?;
    let now_ms = u64::try_from(chrono::Utc::now().timestamp_millis()).unwrap_or(0);
    let (down, into) = outage_at(
        now_ms,
        down.saturating_mul(unit),
        period.saturating_mul(unit),
    );
    let body = Json(json!({ "down": down, "ms_into_period": into }));
    if !down {
        return Ok((StatusCode::OK, body).into_response());
    }
    let mut headers = HeaderMap::new();
    if let Some(raw) = p.get("retry_after") {
        let value = HeaderValue::from_str(raw)
            .map_err(|_| Reject(format!("`{raw}` cannot be sent as a header value")))?;
        headers.insert(header::RETRY_AFTER, value);
    }
    Ok((status, headers, body).into_response())
}

/// Whether the scheduled outage is on at `now_ms` (Unix ms) — the first `down_ms` of every
/// `period_ms` since the epoch — and how many ms into its period `now_ms` is.
fn outage_at(now_ms: u64, down_ms: u64, period_ms: u64) -> (bool, u64) {
    let into = now_ms % period_ms.max(1);
    (into < down_ms, into)
}

async fn log(State(state): Shared) -> Response {
    Json(state.log()).into_response()
}

async fn clear_log(State(state): Shared) -> Response {
    state.clear();
    Json(json!({ "cleared": true })).into_response()
}

async fn not_found(uri: Uri) -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(json!({
            "error": format!("no demo endpoint at {}", uri.path()),
            "endpoints": ENDPOINTS,
        })),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_outage_is_on_for_the_first_minutes_of_each_period_only() {
        let hour = 3_600_000;
        let down = 5 * 60_000;
        // 10:00:00 to 10:04:59.999 of any hour fail, 10:05 on answer 200.
        let ten = 10 * hour;
        assert_eq!(super::outage_at(ten, down, hour), (true, 0));
        assert_eq!(
            super::outage_at(ten + down - 1, down, hour),
            (true, down - 1)
        );
        assert_eq!(super::outage_at(ten + down, down, hour), (false, down));
        assert!(!super::outage_at(ten + hour - 1, down, hour).0);
        assert!(super::outage_at(ten + hour, down, hour).0);
        // Down for the whole period: always; for none of it: never.
        assert!((0..50).all(|t| super::outage_at(t * 7_919, hour, hour).0));
        assert!((0..50).all(|t| !super::outage_at(t * 7_919, 0, hour).0));
    }
}
