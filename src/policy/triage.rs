//! Triage of one attempt's outcome (DESIGN.md §4): success, retryable status, other status,
//! network error kinds, and the non-idempotent method gate.
//!
//! Retries left and the deadline are the engine's business; this only says whether the outcome
//! itself is eligible for a retry.

use super::conditions::ResponseConditions;
use crate::model::{
    AttemptOutcome, DnsFailure, ErrorKind, NetError, OtherStatusAction, RetryCause, RetryProfile,
    Verdict,
};

/// The text of the non-idempotent stop, after `not retried: ` and the method.
const NOT_IDEMPOTENT: &str = "is not idempotent (set non_idempotent or send an Idempotency-Key)";

/// Whether `method` is idempotent per RFC 9110 §9.2.2: GET, HEAD, OPTIONS, TRACE, PUT, DELETE
/// (case-sensitive, as on the wire). Everything else (POST, PATCH, CONNECT, `get`, custom tokens)
/// is not.
pub fn is_idempotent(method: &str) -> bool {
    // Case-sensitive, as methods are on the wire (RFC 9110 §9.1): `get` is another method.
    ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"].contains(&method)
}

/// Triage per DESIGN.md §4 and §8.
///
/// 0. A response matching one of `retry_on.response` is a retry trigger whatever its status
///    (reason `body contains "rate limit"`, shown as `retryable: body contains "rate limit"`);
///    the method gate (4.) still applies.
/// 1. A response whose status is in `success_status` → [`Verdict::Success`] (naming the
///    `success_when` condition that held, if the profile has any), unless
///    `success_when` is not empty and none of its matchers holds: then it is "not ready", a retry
///    trigger (`not ready: /state is "pending", want "done"`; several matchers' reasons are
///    joined by `; `), under the method gate like any other trigger.
/// 2. A status in `retry_on.status` is a retry trigger (`503 is retryable`); any other status
///    stops (`404 is not retryable`; a 3xx with a `Location`, a redirect the engine did not
///    follow: `302 redirect not followed (Location: /next)`) unless `on_other_status` is
///    `retry`.
/// 3. A network error whose kind is in `retry_on.errors` is a trigger, else it stops.
///    **Decision on `dns`:** DESIGN.md says a name that does not exist is "reported as such and
///    not retried by default". We implement that as: a `dns` error is retried only when `dns` is in
///    `retry_on.errors` *and* the resolver's error code did not say the name does not exist
///    (`EAI_NONAME`, [`DnsFailure::NoSuchName`]) or has no addresses ([`DnsFailure::NoAddresses`]);
///    such an error stops with the reason `host name does not exist` / `host name has no
///    addresses`, whatever the profile says, because retrying cannot make a missing name appear
///    within a retry budget. The message (which names the host) is never read.
/// 4. The method gate: a non-idempotent method (anything but GET HEAD OPTIONS TRACE PUT DELETE)
///    is retried without opt-in only when the request provably was not processed — an error kind
///    with [`ErrorKind::before_request_sent`] or status 429. Otherwise it needs
///    `retry_on.non_idempotent` or an `Idempotency-Key` header, else it stops with
///    `not retried: POST is not idempotent (set non_idempotent or send an Idempotency-Key)`.
pub fn triage(
    profile: &RetryProfile,
    conditions: &ResponseConditions,
    method: &str,
    has_idempotency_key: bool,
    outcome: &AttemptOutcome,
) -> Verdict {
    let mut cause = RetryCause::Retryable;
    let (trigger, unsent) = match outcome {
        AttemptOutcome::Response(r) => {
            let status = r.status;
            let by_matcher = if conditions.retry_on.is_empty() {
                None
            } else {
                conditions.retry_on.check(r).ok()
            };
            if let Some(held) = by_matcher {
                // The display layers say "retryable: " / "retry: " before a retry's reason.
                (held, status == 429)
            } else if profile.success_status.contains(status) {
                if conditions.success_when.is_empty() {
                    return Verdict::SUCCESS;
                }
                match conditions.success_when.check(r) {
                    Ok(held) => {
                        return Verdict::Success {
                            condition: Some(held),
                        };
                    }
                    Err(why) => {
                        cause = RetryCause::NotReady;
                        (format!("not ready: {}", why.join("; ")), false)
                    }
                }
            } else if profile.retry_on.status.contains(status) {
                (format!("{status} is retryable"), status == 429)
            } else if profile.on_other_status == OtherStatusAction::Retry {
                (
                    format!(
                        "{status} is not in retry_on.status; retried because on_other_status is retry"
                    ),
                    false,
                )
            } else {
                return stop(other_status_reason(r));
            }
        }
        AttemptOutcome::Error(e) => match error_trigger(profile, e) {
            Ok(reason) => (reason, e.kind.before_request_sent()),
            Err(verdict) => return verdict,
        },
    };
    if is_idempotent(method) {
        return Verdict::Retry {
            reason: trigger,
            cause,
        };
    }
    let reason = if unsent {
        format!("{trigger} ({method} retried: the request was provably not processed)")
    } else if profile.retry_on.non_idempotent {
        format!("{trigger} ({method} retried: non_idempotent is on)")
    } else if has_idempotency_key {
        format!("{trigger} ({method} retried: an Idempotency-Key is sent)")
    } else {
        return stop(format!("not retried: {method} {NOT_IDEMPOTENT}"));
    };
    Verdict::Retry { reason, cause }
}

/// Why a status that is neither success nor retryable stops the run: `404 is not retryable`;
/// a 3xx with a `Location` is a redirect the engine did not follow (following is off, or a
/// 3xx it never follows such as 300), said with where it points, secrets masked:
/// `302 redirect not followed (Location: /status/200)`.
fn other_status_reason(r: &crate::model::ResponseSummary) -> String {
    let status = r.status;
    match redirect_location(r) {
        Some(to) => format!(
            "{status} redirect not followed (Location: {})",
            crate::model::secrets::mask_url(to)
        ),
        None => format!("{status} is not retryable"),
    }
}

/// Where `r` redirects to, when it is a redirect: a 3xx with a non-empty `Location`, except
/// 304 Not Modified, which answers a conditional request and never redirects (a `Location` on
/// it is not followed by anyone).
pub fn redirect_location(r: &crate::model::ResponseSummary) -> Option<&str> {
    if !(300..400).contains(&r.status) || r.status == 304 {
        return None;
    }
    r.headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("location"))
        .map(|(_, value)| value.trim())
        .filter(|value| !value.is_empty())
}

/// The retry reason for a network error, or the stop verdict.
fn error_trigger(profile: &RetryProfile, e: &NetError) -> Result<String, Verdict> {
    if !profile.retry_on.errors.contains(&e.kind) {
        return Err(stop(format!("{} error is not retryable", e.kind)));
    }
    match e.dns {
        Some(DnsFailure::NoSuchName) if e.kind == ErrorKind::Dns => {
            return Err(stop("host name does not exist".to_owned()));
        }
        Some(DnsFailure::NoAddresses) if e.kind == ErrorKind::Dns => {
            return Err(stop("host name has no addresses".to_owned()));
        }
        _ => {}
    }
    Ok(format!("{} error is retryable", e.kind))
}

fn stop(reason: String) -> Verdict {
    Verdict::Stop { reason }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Backoff, StatusSet, Strategy};

    fn profile() -> RetryProfile {
        RetryProfile::new("t", Backoff::new(Strategy::Fixed))
    }

    fn status(code: u16) -> AttemptOutcome {
        json_response(code, "")
    }

    fn error(kind: ErrorKind, message: &str) -> AttemptOutcome {
        crate::testkit::net_error(kind, message)
    }

    fn dns_error(cause: DnsFailure, message: &str) -> AttemptOutcome {
        AttemptOutcome::Error(NetError {
            dns: Some(cause),
            ..NetError::new(ErrorKind::Dns, message)
        })
    }

    fn retry(r: &str) -> Verdict {
        let cause = if r.starts_with("not ready: ") {
            RetryCause::NotReady
        } else {
            RetryCause::Retryable
        };
        Verdict::Retry {
            reason: r.into(),
            cause,
        }
    }

    fn stopped(r: &str) -> Verdict {
        Verdict::Stop { reason: r.into() }
    }

    #[test]
    fn table() {
        use DnsFailure::{NoAddresses, NoSuchName, Temporary};
        use ErrorKind::{Connect, ConnectTimeout, Other, Reset, Timeout, Tls};
        let p = profile();
        let post_stop =
            "not retried: POST is not idempotent (set non_idempotent or send an Idempotency-Key)";
        let cases: Vec<(&str, bool, AttemptOutcome, Verdict)> = vec![
            ("GET", false, status(200), Verdict::SUCCESS),
            ("GET", false, status(204), Verdict::SUCCESS),
            ("POST", false, status(201), Verdict::SUCCESS),
            ("GET", false, status(503), retry("503 is retryable")),
            ("GET", false, status(408), retry("408 is retryable")),
            // Methods are case-sensitive: `get` is not GET, so it is not known to be idempotent.
            (
                "get",
                false,
                status(500),
                stopped(&format!("not retried: get {NOT_IDEMPOTENT}")),
            ),
            ("GET", false, status(404), stopped("404 is not retryable")),
            ("GET", false, status(302), stopped("302 is not retryable")),
            ("GET", false, status(101), stopped("101 is not retryable")),
            ("PUT", false, status(503), retry("503 is retryable")),
            ("DELETE", false, status(502), retry("502 is retryable")),
            ("POST", false, status(503), stopped(post_stop)),
            (
                "PATCH",
                false,
                status(503),
                stopped(
                    "not retried: PATCH is not idempotent (set non_idempotent or send an Idempotency-Key)",
                ),
            ),
            (
                "PURGE",
                false,
                status(500),
                stopped(
                    "not retried: PURGE is not idempotent (set non_idempotent or send an Idempotency-Key)",
                ),
            ),
            (
                "POST",
                false,
                status(429),
                retry("429 is retryable (POST retried: the request was provably not processed)"),
            ),
            (
                "POST",
                true,
                status(503),
                retry("503 is retryable (POST retried: an Idempotency-Key is sent)"),
            ),
            (
                "GET",
                false,
                error(Connect, "refused"),
                retry("connect error is retryable"),
            ),
            (
                "GET",
                false,
                error(Timeout, "read"),
                retry("timeout error is retryable"),
            ),
            (
                "GET",
                false,
                error(Tls, "bad cert"),
                stopped("tls error is not retryable"),
            ),
            (
                "GET",
                false,
                error(Other, "?"),
                stopped("other error is not retryable"),
            ),
            (
                "POST",
                false,
                error(Connect, "refused"),
                retry(
                    "connect error is retryable (POST retried: the request was provably not processed)",
                ),
            ),
            (
                "POST",
                false,
                error(ConnectTimeout, "slow"),
                retry(
                    "connect_timeout error is retryable (POST retried: the request was provably not processed)",
                ),
            ),
            (
                "POST",
                false,
                error(Reset, "reset by peer"),
                stopped(post_stop),
            ),
            ("POST", false, error(Timeout, "read"), stopped(post_stop)),
            (
                "GET",
                false,
                dns_error(Temporary, "temporary failure in name resolution"),
                retry("dns error is retryable"),
            ),
            (
                "GET",
                false,
                dns_error(
                    NoSuchName,
                    "failed to lookup address information: Name or service not known",
                ),
                stopped("host name does not exist"),
            ),
            (
                "GET",
                false,
                dns_error(NoAddresses, "the name has no addresses"),
                stopped("host name has no addresses"),
            ),
            // The review's case: the message names a host that reads like a verdict; only the
            // resolver's code counts, so a temporary failure is retried.
            (
                "GET",
                false,
                dns_error(
                    Temporary,
                    "dns lookup of nxdomain-api.example failed: temporary failure in name resolution",
                ),
                retry("dns error is retryable"),
            ),
            (
                "GET",
                false,
                dns_error(
                    DnsFailure::Timeout,
                    "dns lookup of no-such-host.does-not-exist.example failed: no answer",
                ),
                retry("dns error is retryable"),
            ),
        ];
        let none = ResponseConditions::default();
        for (method, key, outcome, want) in cases {
            assert_eq!(
                triage(&p, &none, method, key, &outcome),
                want,
                "{method} {outcome:?}"
            );
        }
    }

    #[test]
    fn options_change_the_verdict() {
        let mut p = profile();
        p.retry_on.non_idempotent = true;
        p.on_other_status = OtherStatusAction::Retry;
        p.retry_on.errors = vec![ErrorKind::Tls];
        p.retry_on.status = StatusSet(vec![crate::model::StatusRange::single(429)]);
        let none = ResponseConditions::default();
        let t =
            |p: &RetryProfile, method: &str, o: AttemptOutcome| triage(p, &none, method, false, &o);
        assert_eq!(
            t(&p, "POST", status(503)),
            retry(
                "503 is not in retry_on.status; retried because on_other_status is retry (POST retried: non_idempotent is on)"
            )
        );
        assert_eq!(
            t(&p, "GET", error(ErrorKind::Tls, "x")),
            retry("tls error is retryable")
        );
        assert_eq!(
            t(&p, "GET", error(ErrorKind::Dns, "temporary")),
            stopped("dns error is not retryable")
        );
        p.success_status = StatusSet(vec![crate::model::StatusRange::single(404)]);
        assert_eq!(t(&p, "GET", status(404)), Verdict::SUCCESS);
        assert_eq!(
            t(&p, "GET", status(200)),
            retry("200 is not in retry_on.status; retried because on_other_status is retry")
        );
    }

    #[test]
    fn a_redirect_not_followed_says_where_it_points() {
        let p = profile();
        let redirect = |code: u16, location: &str| {
            let AttemptOutcome::Response(mut r) = status(code) else {
                unreachable!("status() is a response")
            };
            r.headers.push(("location".into(), location.into()));
            AttemptOutcome::Response(r)
        };
        let t = |o: &AttemptOutcome| triage(&p, &ResponseConditions::default(), "GET", false, o);
        assert_eq!(
            t(&redirect(302, "/status/200")),
            stopped("302 redirect not followed (Location: /status/200)")
        );
        // Secrets in the Location are masked by the one rule (DESIGN.md §9).
        assert_eq!(
            t(&redirect(307, "http://u:p@127.0.0.1:9/next?token=t-1")),
            stopped(
                "307 redirect not followed (Location: http://***:***@127.0.0.1:9/next?token=***)"
            )
        );
        // Without a Location (304) or outside 3xx it is the plain stop.
        assert_eq!(t(&redirect(304, " ")), stopped("304 is not retryable"));
        // 304 Not Modified is no redirect, even with a Location.
        assert_eq!(t(&redirect(304, "/x")), stopped("304 is not retryable"));
        assert_eq!(t(&redirect(404, "/x")), stopped("404 is not retryable"));
    }

    fn json_response(code: u16, body: &str) -> AttemptOutcome {
        crate::testkit::response(code, &[], body)
    }

    #[allow(clippy::needless_pass_by_value, reason = "tests pass json! literals")]
    fn with_conditions(v: serde_json::Value) -> (RetryProfile, ResponseConditions) {
        let mut p = profile();
        if let Some(list) = v.get("retry_on") {
            p.retry_on.response = serde_json::from_value(list.clone()).expect("matchers");
        }
        if let Some(list) = v.get("success_when") {
            p.success_when = serde_json::from_value(list.clone()).expect("matchers");
        }
        let c = ResponseConditions::compile(&p).expect("compiles");
        (p, c)
    }

    #[test]
    fn conditions_decide_and_are_named() {
        let (p, c) = with_conditions(serde_json::json!({
            "retry_on": [{"body_contains": "rate limit"}],
            "success_when": [{"json_pointer": "/state", "equals": "done"}]
        }));
        let t = |method: &str, key: bool, o: &AttemptOutcome| triage(&p, &c, method, key, o);
        assert_eq!(
            t("GET", false, &json_response(200, "rate limit exceeded")),
            retry(r#"body contains "rate limit""#)
        );
        // Whatever the status: a 404 that says so is retried too.
        assert_eq!(
            t("GET", false, &json_response(404, "rate limit exceeded")),
            retry(r#"body contains "rate limit""#)
        );
        assert_eq!(
            t("GET", false, &json_response(200, r#"{"state": "pending"}"#)),
            retry(r#"not ready: /state is "pending", want "done""#)
        );
        assert_eq!(
            t("GET", false, &json_response(200, r#"{"state": "done"}"#)),
            Verdict::Success {
                condition: Some(r#"/state is "done""#.into())
            }
        );
        // Only success statuses are polled; others keep their triage.
        assert_eq!(
            t("GET", false, &json_response(404, r#"{"state": "pending"}"#)),
            stopped("404 is not retryable")
        );
        assert_eq!(
            t("GET", false, &json_response(503, "{}")),
            retry("503 is retryable")
        );
        // The method gate still applies to both kinds of trigger.
        assert_eq!(
            t(
                "POST",
                false,
                &json_response(200, r#"{"state": "pending"}"#)
            ),
            stopped(&format!("not retried: POST {NOT_IDEMPOTENT}"))
        );
        assert_eq!(
            t("POST", true, &json_response(200, "rate limit exceeded")),
            retry(r#"body contains "rate limit" (POST retried: an Idempotency-Key is sent)"#)
        );
        assert_eq!(
            t("POST", false, &json_response(429, "rate limit exceeded")),
            retry(
                r#"body contains "rate limit" (POST retried: the request was provably not processed)"#
            )
        );
    }

    #[test]
    fn several_success_conditions_are_or_and_all_reasons_shown() {
        let (p, c) = with_conditions(serde_json::json!({
            "success_when": [
                {"json_pointer": "/state", "equals": "done"},
                {"json_pointer": "/result", "exists": true}
            ]
        }));
        let t = |body: &str| triage(&p, &c, "GET", false, &json_response(200, body));
        assert_eq!(
            t(r#"{"result": 1}"#),
            Verdict::Success {
                condition: Some("/result exists".into())
            }
        );
        assert_eq!(
            t(r#"{"state": "queued"}"#),
            retry(r#"not ready: /state is "queued", want "done"; /result is missing"#)
        );
    }
}
