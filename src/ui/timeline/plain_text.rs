//! The timeline as plain text: golden tests and the "Copy as text" button.

use super::live_status::live_status;
use super::run_timeline::Timeline;
use super::units::{format_bytes, format_clock, format_date_time, format_ms};
use std::fmt::Write as _;

impl Timeline {
    /// The run's facts on one line, once `RunStarted` arrived:
    /// `GET http://h/x · profile exponential · seed 7 · started 2026-11-30 14:00:00.000 +01:00`.
    pub fn header_line(&self) -> Option<String> {
        let h = self.fold().header.as_ref()?;
        Some(format!(
            "{} {} · profile {} · seed {} · started {}",
            h.method,
            h.url,
            h.profile,
            h.seed,
            format_date_time(&h.started_at)
        ))
    }

    /// Renders the run as plain text, one line per attempt and one per wait, e.g.
    ///
    /// ```text
    /// Run 1 · GET /status/503
    /// GET http://127.0.0.1:8080/status/503 · profile exponential · seed 7 · started 2026-11-30 14:00:00.000 +01:00
    /// #1  14:00:00.000 +01:00  12 ms  503  15 B  retry: 503 is retryable
    ///     wait 1: planned 1000 ms, actual 1003 ms · retry 1: exponential … = 1000 ms
    /// #2  14:00:01.015 +01:00  9 ms  200  2 B  success
    /// Succeeded on attempt 2 after 1.0 s
    /// ```
    ///
    /// A wait still running reads `planned 1000 ms, in progress`; an attempt in flight reads
    /// `in flight`; the last line is the banner or the live status (without countdown).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Run {} · {}", self.run_id(), self.title());
        if let Some(line) = self.header_line() {
            let _ = writeln!(out, "{line}");
        }
        if self.tls_unverified() {
            let _ = writeln!(out, "{}", crate::model::TLS_UNVERIFIED_NOTE);
        }
        for row in self.attempts() {
            let mut line = format!("#{}  {}", row.number, format_clock(&row.started_at));
            if let Some(d) = row.duration_ms() {
                let _ = write!(line, "  {}", format_ms(d));
            }
            let _ = write!(line, "  {}", row.result_label());
            if let Some(bytes) = row.response_bytes() {
                let _ = write!(line, "  {}", format_bytes(bytes));
            }
            let verdict = row.verdict_label();
            if !verdict.is_empty() {
                let _ = write!(line, "  {verdict}");
            }
            let _ = writeln!(out, "{line}");
            if let Some(wait) = &row.wait {
                let notes = [" (skipped)", " (run ended)"];
                let actual = super::detail_view::wait_actual(wait, notes)
                    .unwrap_or_else(|| "in progress".to_owned());
                let _ = writeln!(
                    out,
                    "    wait {}: planned {}, {actual} · {}",
                    wait.retry,
                    format_ms(wait.planned_ms as f64),
                    wait.explanation.text
                );
            }
        }
        match self.finished() {
            Some(f) => {
                let _ = writeln!(out, "{}", f.banner.text);
            }
            None => {
                if let Some(status) = live_status(self, None) {
                    let _ = writeln!(out, "{status}");
                }
            }
        }
        out
    }
}
