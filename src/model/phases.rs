//! An attempt's phases as a waterfall: spans on the attempt's own clock, built from its
//! [`Timings`] alone, shared by the detail pane, the table's tooltip and the CLI.
//!
//! Where the HTTP stack cannot split two phases they are one span with a label that says so:
//! TCP connect and TLS handshake are `connect + TLS` when the handshake's start was not seen;
//! a request without a body has no "sent" moment of its own, so its send is folded into
//! `send + wait`.

use super::attempt::{ConnectionUse, ErrorKind, Timings};

/// What one span of the waterfall covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhaseKind {
    /// Redirect hops before the final one (each with its own DNS, connect, wait).
    Redirects,
    /// Name resolution by the engine.
    Dns,
    /// TCP connect of a new connection (plain `http`).
    Connect,
    /// TCP connect and TLS handshake of a new connection, measured as one (`https`).
    ConnectTls,
    /// TLS handshake of a new connection, measured apart from its TCP connect.
    Tls,
    /// Handing the request body to the connection.
    Send,
    /// From the request sent to the first response byte (time to first byte).
    Wait,
    /// From the connection ready to the first response byte, the request's sending included
    /// (no separate "sent" moment: no body).
    SendWait,
    /// The response body, from its headers to its last byte.
    Download,
}

impl PhaseKind {
    /// The label shown, e.g. `connect + TLS`.
    pub fn label(self) -> &'static str {
        match self {
            PhaseKind::Redirects => "redirects",
            PhaseKind::Dns => "DNS",
            PhaseKind::Connect => "connect",
            PhaseKind::ConnectTls => "connect + TLS",
            PhaseKind::Tls => "TLS",
            PhaseKind::Send => "send",
            PhaseKind::Wait => "wait (TTFB)",
            PhaseKind::SendWait => "send + wait (TTFB)",
            PhaseKind::Download => "download",
        }
    }
}

/// One span: `[start_ms, end_ms]` on the attempt's clock (ms from its start).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhaseSpan {
    /// What it covers.
    pub kind: PhaseKind,
    /// Offset of its start, ms.
    pub start_ms: f64,
    /// Offset of its end, ms (≥ `start_ms`).
    pub end_ms: f64,
    /// True for the span in which the attempt failed (it ends at the error).
    pub failed: bool,
}

impl PhaseSpan {
    /// Its length, ms.
    pub fn duration_ms(&self) -> f64 {
        self.end_ms - self.start_ms
    }
}

/// The waterfall of an attempt that finished with `timings` (and `error`, when it failed):
/// spans in order, each starting no earlier than the one before. A reused connection has no
/// connect span (see [`Timings::connection`]); an attempt cut off mid-phase ends with that
/// phase, marked `failed`.
pub fn phase_spans(timings: &Timings, error: Option<ErrorKind>) -> Vec<PhaseSpan> {
    let total = timings.total_ms.max(0.0);
    let mut spans = Vec::new();
    let mut cursor = 0.0_f64;
    let mut push = |kind, start: f64, end: f64, cursor: &mut f64| {
        let start = start.clamp(*cursor, total);
        let end = end.clamp(start, total);
        spans.push(PhaseSpan {
            kind,
            start_ms: start,
            end_ms: end,
            failed: false,
        });
        *cursor = end;
    };
    if let Some(hop) = timings.last_hop_start_ms {
        push(PhaseKind::Redirects, 0.0, hop, &mut cursor);
    } else if let Some(dns) = timings.resolve_ms {
        let end = if error == Some(ErrorKind::Dns) {
            total
        } else {
            dns
        };
        push(PhaseKind::Dns, 0.0, end, &mut cursor);
    }
    let stopped_in_dns = error == Some(ErrorKind::Dns);
    if !stopped_in_dns && let Some(start) = timings.connect_start_ms {
        let kind = if timings.tls_in_connect {
            PhaseKind::ConnectTls
        } else {
            PhaseKind::Connect
        };
        match (timings.connect_end_ms(), timings.tls_ms) {
            (Some(end), Some(tls)) => {
                push(PhaseKind::Connect, start, end - tls, &mut cursor);
                push(PhaseKind::Tls, end - tls, end, &mut cursor);
            }
            (Some(end), None) => push(kind, start, end, &mut cursor),
            (None, _) => push(kind, start, total, &mut cursor),
        }
    }
    let connect_unfinished = timings.connect_start_ms.is_some() && timings.connect_ms.is_none();
    let connect_failed = error.is_some_and(ErrorKind::before_request_sent);
    if !stopped_in_dns && !connect_unfinished && !connect_failed {
        let wait_kind = match timings.sent_ms {
            Some(sent) => {
                let sent = timings.headers_ms.map_or(sent, |h| sent.min(h));
                push(PhaseKind::Send, cursor, sent, &mut cursor);
                PhaseKind::Wait
            }
            None => PhaseKind::SendWait,
        };
        match timings.headers_ms {
            Some(first_byte) => {
                push(wait_kind, cursor, first_byte, &mut cursor);
                push(PhaseKind::Download, first_byte, total, &mut cursor);
            }
            None => push(wait_kind, cursor, total, &mut cursor),
        }
    }
    if error.is_some()
        && let Some(last) = spans.last_mut()
    {
        last.failed = true;
        last.end_ms = total.max(last.start_ms);
    }
    spans
}

/// `ms` for a phase: two decimals under 1 ms, one under 10 ms, none above (`0.35`, `2.4`, `85`).
fn phase_ms(ms: f64) -> String {
    if ms < 1.0 {
        format!("{ms:.2}")
    } else if ms < 10.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.0}")
    }
}

/// The phases of an attempt in order, each written by `part`, with `reused` (the words for a
/// pooled connection) once where its connect would stand; empty when nothing was measured. What
/// [`phases_line`] and the timeline's phase tooltip are made of.
pub fn phase_parts(
    timings: &Timings,
    error: Option<ErrorKind>,
    reused: &str,
    part: impl Fn(&PhaseSpan) -> String,
) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut reuse_said = timings.connection != ConnectionUse::Reused;
    for span in &phase_spans(timings, error) {
        if !reuse_said && !matches!(span.kind, PhaseKind::Redirects | PhaseKind::Dns) {
            parts.push(reused.to_owned());
            reuse_said = true;
        }
        parts.push(part(span));
    }
    if !reuse_said {
        parts.push(reused.to_owned());
    }
    parts
}

/// One line of phases for a tooltip or the CLI, e.g.
/// `DNS 0.21 · connect 0.35 · send + wait (TTFB) 2.1 · download 0.12 ms`, or with a pooled
/// connection `DNS 0.20 · connection reused · …`. Empty when nothing was measured.
pub fn phases_line(timings: &Timings, error: Option<ErrorKind>) -> String {
    let parts = phase_parts(timings, error, "connection reused", |span| {
        let failed = if span.failed { " (failed)" } else { "" };
        format!(
            "{} {}{failed}",
            span.kind.label(),
            phase_ms(span.duration_ms())
        )
    });
    if parts.is_empty() {
        return String::new();
    }
    format!("{} ms", parts.join(" · "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_conn() -> Timings {
        Timings {
            resolve_ms: Some(1.0),
            connection: ConnectionUse::New,
            connect_start_ms: Some(1.2),
            connect_ms: Some(2.0),
            headers_ms: Some(10.0),
            total_ms: 12.0,
            ..Timings::default()
        }
    }

    fn kinds(spans: &[PhaseSpan]) -> Vec<PhaseKind> {
        spans.iter().map(|s| s.kind).collect()
    }

    #[test]
    fn a_new_connection_without_body_folds_send_into_wait() {
        let spans = phase_spans(&new_conn(), None);
        assert_eq!(
            kinds(&spans),
            [
                PhaseKind::Dns,
                PhaseKind::Connect,
                PhaseKind::SendWait,
                PhaseKind::Download
            ]
        );
        assert_eq!((spans[1].start_ms, spans[1].end_ms), (1.2, 3.2));
        assert_eq!((spans[2].start_ms, spans[2].end_ms), (3.2, 10.0));
        assert_eq!((spans[3].start_ms, spans[3].end_ms), (10.0, 12.0));
        assert!(spans.iter().all(|s| !s.failed));
    }

    #[test]
    fn a_body_splits_send_from_wait_and_tls_is_labelled_with_connect() {
        let mut t = new_conn();
        t.sent_ms = Some(4.0);
        t.tls_in_connect = true;
        let spans = phase_spans(&t, None);
        assert_eq!(
            kinds(&spans),
            [
                PhaseKind::Dns,
                PhaseKind::ConnectTls,
                PhaseKind::Send,
                PhaseKind::Wait,
                PhaseKind::Download
            ]
        );
        assert_eq!(spans[1].kind.label(), "connect + TLS");
        assert_eq!((spans[2].start_ms, spans[2].end_ms), (3.2, 4.0));
    }

    #[test]
    fn a_split_handshake_is_its_own_span_at_the_end_of_connect() {
        let mut t = new_conn();
        t.tls_ms = Some(1.5);
        let spans = phase_spans(&t, None);
        assert_eq!(spans[1].kind, PhaseKind::Connect);
        assert_eq!(spans[2].kind, PhaseKind::Tls);
        assert!((spans[1].end_ms - 1.7).abs() < 1e-9 && (spans[2].end_ms - 3.2).abs() < 1e-9);
    }

    #[test]
    fn a_reused_connection_has_no_connect_span_and_says_so() {
        let t = Timings {
            resolve_ms: Some(0.5),
            connection: ConnectionUse::Reused,
            headers_ms: Some(3.0),
            total_ms: 3.5,
            ..Timings::default()
        };
        let spans = phase_spans(&t, None);
        assert_eq!(
            kinds(&spans),
            [PhaseKind::Dns, PhaseKind::SendWait, PhaseKind::Download]
        );
        assert_eq!(
            phases_line(&t, None),
            "DNS 0.50 · connection reused · send + wait (TTFB) 2.5 · download 0.50 ms"
        );
    }

    #[test]
    fn failures_end_in_the_phase_that_failed() {
        let dns = Timings {
            resolve_ms: Some(4.0),
            total_ms: 4.1,
            ..Timings::default()
        };
        let spans = phase_spans(&dns, Some(ErrorKind::Dns));
        assert_eq!(kinds(&spans), [PhaseKind::Dns]);
        assert!(spans[0].failed && (spans[0].end_ms - 4.1).abs() < 1e-9);

        let timed_out = Timings {
            resolve_ms: Some(1.0),
            connection: ConnectionUse::New,
            connect_start_ms: Some(1.0),
            total_ms: 50.0,
            ..Timings::default()
        };
        let spans = phase_spans(&timed_out, Some(ErrorKind::ConnectTimeout));
        assert_eq!(kinds(&spans), [PhaseKind::Dns, PhaseKind::Connect]);
        assert!(spans[1].failed && (spans[1].end_ms - 50.0).abs() < 1e-9);

        let mut reset = new_conn();
        reset.headers_ms = None;
        let spans = phase_spans(&reset, Some(ErrorKind::Reset));
        assert_eq!(
            spans.last().map(|s| (s.kind, s.failed)),
            Some((PhaseKind::SendWait, true))
        );
    }

    #[test]
    fn spans_never_run_backwards_even_when_the_server_answers_before_the_body_is_sent() {
        let mut t = new_conn();
        t.sent_ms = Some(11.0);
        let spans = phase_spans(&t, None);
        for pair in spans.windows(2) {
            assert!(pair[0].end_ms <= pair[1].start_ms + 1e-9, "{spans:?}");
        }
        assert!(spans.iter().all(|s| s.end_ms >= s.start_ms));
    }

    #[test]
    fn redirects_come_first_and_old_records_give_what_they_have() {
        let mut t = new_conn();
        t.last_hop_start_ms = Some(5.0);
        t.connect_start_ms = Some(5.5);
        let spans = phase_spans(&t, None);
        assert_eq!(spans[0].kind, PhaseKind::Redirects);
        assert_eq!(spans[1].kind, PhaseKind::Connect);

        let old: Timings =
            serde_json::from_str(r#"{"resolve_ms":null,"headers_ms":2.0,"total_ms":3.0}"#)
                .expect("old timings load");
        assert_eq!(old.connection, ConnectionUse::Unknown);
        assert_eq!(
            phases_line(&old, None),
            "send + wait (TTFB) 2.0 · download 1.0 ms"
        );
    }
}
