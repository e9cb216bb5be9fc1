//! An attempt's measured phases as a HAR 1.2 `timings` object.
//!
//! Built from the same spans as the waterfall ([`phase_spans`]), each phase running from the
//! end of the one before, so the fields (without the -1s) add up to the entry's `time`.
//! - `dns`: the engine's own lookup; -1 for an IP address.
//! - `connect`: a new connection's set-up; -1 for a reused connection ("does not apply").
//!   For `https` it includes the TLS handshake, which is also given as `ssl` (HAR: `ssl` is
//!   part of `connect`); when the handshake could not be split, `ssl` is -1 and `comment`
//!   says so.
//! - `send`: until the request body was handed over; 0 for a request without a body (its
//!   send is not split from `wait`, said in `comment`).
//! - `wait`: to the first response byte; `receive`: to the end of the body.
//! - `blocked`: the redirect hops before the final one, when there were any; else -1.

use crate::model::{ConnectionUse, ErrorKind, PhaseKind, Timings, phase_spans};
use serde_json::{Value, json};

/// The `timings` object of an attempt that finished with `timings` (and `error` when failed).
pub(crate) fn har_timings(timings: &Timings, error: Option<ErrorKind>) -> Value {
    let mut dns = None;
    let mut connect = None;
    let mut ssl = None;
    let mut blocked = None;
    let mut send = 0.0;
    let mut wait = 0.0;
    let mut receive = 0.0;
    let mut send_split = false;
    let mut previous_end = 0.0_f64;
    for span in phase_spans(timings, error) {
        let length = micros_apart(previous_end, span.end_ms);
        previous_end = previous_end.max(span.end_ms);
        match span.kind {
            PhaseKind::Redirects => blocked = Some(length),
            PhaseKind::Dns => dns = Some(length),
            PhaseKind::Connect | PhaseKind::ConnectTls => connect = Some(length),
            // HAR: `ssl` is also counted in `connect`.
            PhaseKind::Tls => {
                ssl = Some(length);
                connect = Some(connect.unwrap_or(0.0) + length);
            }
            PhaseKind::Send => {
                send = length;
                send_split = true;
            }
            PhaseKind::Wait | PhaseKind::SendWait => wait = length,
            PhaseKind::Download => receive = length,
        }
    }
    let mut notes = Vec::new();
    if blocked.is_some() {
        notes.push("blocked holds the redirect hops before the final one");
    }
    match timings.connection {
        ConnectionUse::Reused => notes.push("connection reused: no connect, no tls handshake"),
        ConnectionUse::New if timings.tls_in_connect => {
            notes.push("connect includes the tls handshake (not measured apart)");
        }
        ConnectionUse::New => {}
        ConnectionUse::Unknown => notes.push("connect was not measured"),
    }
    if !send_split && error.is_none() {
        notes.push("no request body: send is not split from wait");
    }
    // -1 (an integer, as HAR writers put it) where a phase does not apply or was not measured.
    let or_absent = |ms: Option<f64>| ms.map_or_else(|| json!(-1), Value::from);
    let mut value = json!({
        "blocked": or_absent(blocked), "dns": or_absent(dns), "connect": or_absent(connect),
        "ssl": or_absent(ssl),
        "send": send, "wait": wait, "receive": receive,
    });
    if !notes.is_empty() {
        value["comment"] = Value::from(notes.join("; "));
    }
    value
}

/// Milliseconds from `from` to `to` (0 when `to` is earlier), at whole microseconds, as the
/// shortest decimal (`0.036`, not `0.036003999999999925`): the clock's noise below a
/// microsecond is not a measurement.
fn micros_apart(from: f64, to: f64) -> f64 {
    #[allow(clippy::cast_possible_truncation)] // ms of one attempt: far inside i64 µs
    let us = (to * 1000.0).round() as i64 - (from * 1000.0).round() as i64;
    #[allow(clippy::cast_precision_loss)]
    let ms = us.max(0) as f64 / 1000.0;
    ms
}

/// `ms` at whole microseconds, as the shortest decimal (see [`micros_apart`]).
pub(crate) fn ms_to_micros(ms: f64) -> f64 {
    micros_apart(0.0, ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timings_are_whole_microseconds_without_float_noise() {
        let t = Timings {
            connection: ConnectionUse::Reused,
            headers_ms: Some(0.113_277),
            total_ms: 0.122_000_000_000_000_03,
            ..Timings::default()
        };
        let v = har_timings(&t, None);
        assert_eq!(v["wait"].to_string(), "0.113");
        assert_eq!(v["receive"].to_string(), "0.009");
        assert_eq!(
            ms_to_micros(1_090.005_461_999_999_9).to_string(),
            "1090.005"
        );
    }

    #[test]
    fn a_new_connection_fills_connect_and_the_fields_add_up_to_the_total() {
        let t = Timings {
            resolve_ms: Some(1.0),
            connection: ConnectionUse::New,
            connect_start_ms: Some(1.25),
            connect_ms: Some(2.0),
            sent_ms: Some(4.0),
            headers_ms: Some(10.0),
            total_ms: 12.0,
            ..Timings::default()
        };
        let v = har_timings(&t, None);
        assert_eq!(v["dns"], 1.0);
        assert_eq!(v["connect"], 2.25, "the gap after dns goes to connect");
        assert_eq!(
            (v["ssl"].clone(), v["blocked"].clone()),
            (json!(-1), json!(-1))
        );
        assert_eq!(v["send"], 0.75);
        assert_eq!(v["wait"], 6.0);
        assert_eq!(v["receive"], 2.0);
        assert!(v.get("comment").is_none(), "{v}");
    }

    #[test]
    fn a_split_handshake_is_ssl_and_counted_in_connect() {
        let t = Timings {
            connection: ConnectionUse::New,
            connect_start_ms: Some(0.0),
            connect_ms: Some(5.0),
            tls_ms: Some(3.0),
            headers_ms: Some(8.0),
            total_ms: 9.0,
            ..Timings::default()
        };
        let v = har_timings(&t, None);
        assert_eq!(
            (v["connect"].clone(), v["ssl"].clone()),
            (json!(5.0), json!(3.0))
        );
    }

    #[test]
    fn reuse_and_tls_are_said_not_zeroed() {
        let reused = Timings {
            connection: ConnectionUse::Reused,
            headers_ms: Some(3.0),
            total_ms: 4.0,
            ..Timings::default()
        };
        let v = har_timings(&reused, None);
        assert_eq!(v["connect"], -1);
        assert_eq!(v["wait"], 3.0);
        assert!(
            v["comment"].as_str().unwrap_or_default().contains("reused"),
            "{v}"
        );

        let tls = Timings {
            connection: ConnectionUse::New,
            connect_start_ms: Some(0.0),
            connect_ms: Some(5.0),
            tls_in_connect: true,
            headers_ms: Some(8.0),
            total_ms: 9.0,
            ..Timings::default()
        };
        let v = har_timings(&tls, None);
        assert_eq!(
            (v["connect"].clone(), v["ssl"].clone()),
            (json!(5.0), json!(-1))
        );
        assert!(
            v["comment"]
                .as_str()
                .unwrap_or_default()
                .contains("tls handshake"),
            "{v}"
        );
    }
}
