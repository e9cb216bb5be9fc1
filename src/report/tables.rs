//! The report's tables, built once from the figures; the HTML and the Markdown renderings
//! only lay them out, so the two always show the same numbers.

use super::figures::Figures;
use super::observed::ObservedRun;
use super::stats::Percentiles;
use super::text::{duration_text, percent_text, time_text};

/// One cell: its text, and the figure it shows (JSON path, raw value) when it shows one.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cell {
    /// The text shown.
    pub text: String,
    /// `(path into the JSON figures, value)`: `("success_rate.value", 0.93)`.
    pub figure: Option<(String, f64)>,
    /// Shown as code (ids, statuses, header names and values).
    pub code: bool,
}

impl Cell {
    /// Plain text.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }

    /// Text shown as code.
    pub fn code(text: impl Into<String>) -> Self {
        Self {
            code: true,
            ..Self::text(text)
        }
    }

    /// A figure: `text` showing `value`, found at `path` in the JSON.
    pub fn figure(path: impl Into<String>, value: f64, text: impl Into<String>) -> Self {
        Self {
            figure: Some((path.into(), value)),
            ..Self::text(text)
        }
    }

    fn count(path: impl Into<String>, n: u64) -> Self {
        Self::figure(path, n as f64, n.to_string())
    }

    fn ms(path: impl Into<String>, ms: f64) -> Self {
        Self::figure(path, ms, duration_text(ms))
    }

    /// A percentile of `p` (picked by `ms`) at `path`, or `—` when `p` has no values (its JSON
    /// figure is `null` then).
    fn percentile(path: impl Into<String>, p: &Percentiles, ms: fn(&Percentiles) -> f64) -> Self {
        if p.count == 0 {
            Self::text("—")
        } else {
            Self::ms(path, ms(p))
        }
    }
}

/// A titled table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// Anchor id (`failures`).
    pub id: &'static str,
    /// Heading.
    pub title: String,
    /// A sentence under the heading (how to read it).
    pub note: String,
    /// Column headings.
    pub head: Vec<&'static str>,
    /// Rows of cells, as many as `head`.
    pub rows: Vec<Vec<Cell>>,
    /// Said instead of an empty table.
    pub empty: &'static str,
}

/// The summary (figure, value, detail) and every table of the figures, in reading order.
pub fn tables(f: &Figures) -> Vec<Table> {
    vec![
        summary(f),
        failures(f),
        time_to_success(f),
        attempts(f),
        delay_headers(f),
        buckets(f),
    ]
}

fn summary(f: &Figures) -> Table {
    let s = &f.success_rate;
    let t = &f.time_to_success;
    let a = &f.attempts_per_run;
    let outage = f.longest_outage.as_ref().map_or_else(
        || {
            vec![
                Cell::text("longest outage"),
                Cell::text("none"),
                Cell::text("no failed run"),
            ]
        },
        |o| {
            vec![
                Cell::text("longest outage"),
                Cell::ms("longest_outage.duration_ms", o.duration_ms),
                Cell::text(format!(
                    "{} in a row from {} (run {}) to {} (run {})",
                    crate::model::counted(o.runs, "failed run", "failed runs"),
                    time_text(&o.from),
                    o.first_run_id,
                    time_text(&o.until),
                    o.last_run_id
                )),
            ]
        },
    );
    let mut rows = vec![
        vec![
            Cell::text("success rate"),
            if s.trials == 0 {
                Cell::text("n/a")
            } else {
                Cell::figure("success_rate.value", s.value, percent_text(s.value))
            },
            Cell::text(format!(
                "95 % Wilson interval {} – {}; {} of {} runs (cancelled and unfinished runs left out)",
                percent_text(s.low),
                percent_text(s.high),
                s.successes,
                s.trials
            )),
        ],
        vec![
            Cell::text("time to success, median"),
            Cell::percentile("time_to_success.p50_ms", t, |p| p.p50_ms),
            Cell::text(if t.count == 0 {
                "no run succeeded".to_owned()
            } else {
                format!(
                    "p95 {}, p99 {}",
                    duration_text(t.p95_ms),
                    duration_text(t.p99_ms)
                )
            }),
        ],
        vec![
            Cell::text("attempts per run"),
            Cell::figure("attempts_per_run.mean", a.mean, format!("{:.2}", a.mean)),
            Cell::text(format!(
                "{} in all; at most {:.0} in a run",
                crate::model::counted(a.total, "attempt", "attempts"),
                a.percentiles.max_ms
            )),
        ],
        vec![
            Cell::text("runs"),
            Cell::count("runs.total", f.runs.total),
            Cell::text(format!(
                "{} succeeded, {} failed, {} cancelled, {} unfinished",
                f.runs.succeeded, f.runs.failed, f.runs.cancelled, f.runs.unfinished
            )),
        ],
        outage,
    ];
    if let Some(w) = &f.watch {
        let m = &w.missed;
        rows.push(vec![
            Cell::text("schedule"),
            Cell::text(&w.schedule_text),
            Cell::text(format!("watch {}, {}", w.id, w.state)),
        ]);
        rows.push(vec![
            Cell::text("missed slots"),
            Cell::count("watch.missed.total", m.total),
            Cell::text(format!(
                "of {} ({} sent): {} busy (the previous run was still going), {} late \
                 (nothing could send: the machine slept?), {} down (the watch was not running); \
                 nothing was sampled at a missed slot's time{}",
                crate::model::counted(w.slots, "slot", "slots"),
                w.sent,
                m.busy,
                m.late,
                m.down,
                if f.selection.contains_key("since") || f.selection.contains_key("until") {
                    "; these count the whole watch, not only the runs of the time selected"
                } else {
                    ""
                }
            )),
        ]);
    }
    Table {
        id: "summary",
        title: "Summary".to_owned(),
        head: vec!["figure", "value", "detail"],
        rows,
        ..Table::default()
    }
}

fn failures(f: &Figures) -> Table {
    Table {
        id: "failures",
        title: "Failures by status and error kind".to_owned(),
        note: "Failed attempts: every attempt but the successful last one of a run that succeeded."
            .to_owned(),
        head: vec![
            "status or error",
            "kind",
            "failed attempts",
            "runs it ended",
        ],
        rows: f
            .failures
            .iter()
            .enumerate()
            .map(|(i, c)| {
                vec![
                    Cell::code(&c.label),
                    Cell::text(&c.kind),
                    Cell::count(format!("failures.{i}.attempts"), c.attempts),
                    Cell::count(format!("failures.{i}.runs_ended"), c.runs_ended),
                ]
            })
            .collect(),
        empty: "No attempt failed.",
    }
}

fn time_to_success(f: &Figures) -> Table {
    let t = &f.time_to_success;
    Table {
        id: "time-to-success",
        title: "Time to success".to_owned(),
        note: format!(
            "From a run's start to the end of its successful attempt, over {} successful runs (nearest-rank percentiles).",
            t.count
        ),
        head: vec!["p50", "p95", "p99", "max"],
        rows: vec![vec![
            Cell::percentile("time_to_success.p50_ms", t, |p| p.p50_ms),
            Cell::percentile("time_to_success.p95_ms", t, |p| p.p95_ms),
            Cell::percentile("time_to_success.p99_ms", t, |p| p.p99_ms),
            Cell::percentile("time_to_success.max_ms", t, |p| p.max_ms),
        ]],
        ..Table::default()
    }
}

fn attempts(f: &Figures) -> Table {
    Table {
        id: "attempts",
        title: "Attempts per run".to_owned(),
        head: vec!["attempts", "runs"],
        rows: f
            .attempts_per_run
            .histogram
            .iter()
            .map(|(n, runs)| {
                vec![
                    Cell::text(n.to_string()),
                    Cell::count(format!("attempts_per_run.histogram.{n}"), *runs),
                ]
            })
            .collect(),
        ..Table::default()
    }
}

fn delay_headers(f: &Figures) -> Table {
    Table {
        id: "delay-headers",
        title: "Retry-After and other delay headers".to_owned(),
        note:
            "Asked: the delay the value asks for. Honoured: of the responses followed by another \
               attempt, how many waited at least that long."
                .to_owned(),
        head: vec![
            "header",
            "responses",
            "statuses",
            "unusable",
            "asked p50",
            "asked max",
            "honoured",
            "waited p50",
        ],
        rows: f
            .delay_headers
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let statuses: Vec<String> = d
                    .statuses
                    .iter()
                    .map(|(s, n)| format!("{s} ×{n}"))
                    .collect();
                vec![
                    Cell::code(&d.name),
                    Cell::count(format!("delay_headers.{i}.responses"), d.responses),
                    Cell::text(statuses.join(", ")),
                    Cell::text(d.unusable.to_string()),
                    Cell::percentile(format!("delay_headers.{i}.asked.p50_ms"), &d.asked, |p| {
                        p.p50_ms
                    }),
                    Cell::percentile(format!("delay_headers.{i}.asked.max_ms"), &d.asked, |p| {
                        p.max_ms
                    }),
                    Cell::figure(
                        format!("delay_headers.{i}.waited_at_least_asked"),
                        d.waited_at_least_asked as f64,
                        format!("{} of {}", d.waited_at_least_asked, d.retried),
                    ),
                    Cell::percentile(format!("delay_headers.{i}.waited.p50_ms"), &d.waited, |p| {
                        p.p50_ms
                    }),
                ]
            })
            .collect(),
        empty: "The server sent no delay header (Retry-After, RateLimit, x-ms-retry-after-ms, …).",
    }
}

fn buckets(f: &Figures) -> Table {
    Table {
        id: "buckets",
        title: format!("Runs per {}", duration_text(f.buckets.width_ms as f64)),
        head: vec![
            "from",
            "runs",
            "succeeded",
            "success",
            "failed attempts",
            "time to success p50",
        ],
        rows: f
            .buckets
            .items
            .iter()
            .enumerate()
            .filter(|(_, b)| b.runs > 0)
            .map(|(i, b)| {
                let failed: Vec<String> = b
                    .failed_attempts
                    .iter()
                    .map(|(label, n)| format!("{label} ×{n}"))
                    .collect();
                vec![
                    Cell::text(b.start.as_ref().map(time_text).unwrap_or_default()),
                    Cell::count(format!("buckets.items.{i}.runs"), b.runs),
                    Cell::count(format!("buckets.items.{i}.succeeded"), b.succeeded),
                    Cell::text(
                        b.success_share()
                            .map_or_else(|| "—".to_owned(), percent_text),
                    ),
                    Cell::text(failed.join(", ")),
                    Cell::percentile(
                        format!("buckets.items.{i}.time_to_success.p50_ms"),
                        &b.time_to_success,
                        |p| p.p50_ms,
                    ),
                ]
            })
            .collect(),
        ..Table::default()
    }
}

/// One run's attempts: start offset, duration, result, the wait before the next one, and its
/// delay headers; an attempt it made that has no record (cut off) is a row saying so.
pub fn attempts_table(r: &ObservedRun) -> Table {
    Table {
        head: vec![
            "#",
            "start",
            "duration",
            "result",
            "wait after",
            "delay headers",
        ],
        rows: r
            .attempts
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let wait = r.attempts.get(i + 1).map(|next| {
                    duration_text((next.offset_ms - a.offset_ms - a.duration_ms).max(0.0))
                });
                let headers: Vec<String> = a
                    .delay_headers
                    .iter()
                    .map(|(n, v)| format!("{n}: {v}"))
                    .collect();
                vec![
                    Cell::text((i + 1).to_string()),
                    Cell::text(format!("+{}", duration_text(a.offset_ms))),
                    Cell::text(duration_text(a.duration_ms)),
                    Cell::code(a.result.label()),
                    Cell::text(wait.unwrap_or_default()),
                    Cell::code(headers.join("; ")),
                ]
            })
            .chain(unanswered_rows(r))
            .collect(),
        ..Table::default()
    }
}

/// A row for each attempt `r` made that has no record (started, then cut off by a cancel or
/// by the process ending): nothing is known of its answer.
fn unanswered_rows(r: &ObservedRun) -> impl Iterator<Item = Vec<Cell>> + '_ {
    let recorded = r.attempts.len() + 1;
    let made = usize::try_from(r.attempts_made).unwrap_or(usize::MAX);
    let why = if r.outcome == Some(crate::model::OutcomeKind::Cancelled) {
        "no answer: cut off by the cancel"
    } else {
        "no answer recorded: the run did not finish"
    };
    (recorded..=made).map(move |n| {
        vec![
            Cell::text(n.to_string()),
            Cell::text("—"),
            Cell::text("—"),
            Cell::text(why),
            Cell::default(),
            Cell::default(),
        ]
    })
}

/// `succeeded after 3 attempts in 2.4 s`.
pub fn outcome_text(r: &ObservedRun) -> String {
    format!(
        "{} after {} in {}",
        super::observed::outcome_id(r.outcome),
        crate::model::counted(u64::from(r.attempts_made), "attempt", "attempts"),
        duration_text(r.last_attempt_end_ms())
    )
}

/// `12 runs from … to …`, the span of the runs (`None` without runs).
pub fn runs_span(f: &Figures) -> Option<String> {
    let (a, b) = (f.first_run_at.as_ref()?, f.last_run_at.as_ref()?);
    let runs = crate::model::counted(f.runs.total, "run", "runs");
    Some(format!("{runs} from {} to {}", time_text(a), time_text(b)))
}

/// The profiles the runs used, `NAME (3 runs)` each, comma-separated, each name as `code`
/// writes it.
pub fn profiles_used(f: &Figures, code: impl Fn(&str) -> String) -> String {
    let used: Vec<String> = f
        .profiles
        .iter()
        .map(|p| {
            let runs = crate::model::counted(p.runs, "run", "runs");
            format!("{} ({runs})", code(&p.name))
        })
        .collect();
    used.join(", ")
}
