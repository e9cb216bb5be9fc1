//! The figures of small hand-made run sets, counted by hand.

use super::*;
use crate::model::{ErrorKind, OutcomeKind};

const T0: i64 = 1_796_464_800_000; // 2026-12-05T10:00:00Z

fn attempt(offset_ms: f64, result: AttemptResult) -> ObservedAttempt {
    ObservedAttempt {
        offset_ms,
        duration_ms: 100.0,
        result,
        delay_headers: Vec::new(),
    }
}

fn run(i: i64, outcome: Option<OutcomeKind>, attempts: Vec<ObservedAttempt>) -> ObservedRun {
    ObservedRun {
        id: format!("run-{i:03}"),
        started_at: chrono::DateTime::from_timestamp_millis(T0 + i * 60_000)
            .expect("time")
            .fixed_offset(),
        outcome,
        profile_name: "p".into(),
        method: "GET".into(),
        idempotency_key: false,
        attempts_made: u32::try_from(attempts.len()).unwrap_or(u32::MAX),
        attempts,
        message: None,
    }
}

const OK: AttemptResult = AttemptResult::Status(200);
const DOWN: AttemptResult = AttemptResult::Status(503);
const RESET: AttemptResult = AttemptResult::Error(ErrorKind::Reset);

/// Ten runs a minute apart: 0–2 fine, 3–5 give up (an outage of three), 6 cancelled,
/// 7 succeeds after a 429 with Retry-After 2, 8 fails after a reset, 9 succeeds after two 503s.
fn runs() -> Vec<ObservedRun> {
    use OutcomeKind::{Cancelled, GaveUp, Succeeded};
    let mut limited = attempt(0.0, AttemptResult::Status(429));
    limited.delay_headers = vec![("Retry-After".into(), "2".into())];
    vec![
        run(0, Some(Succeeded), vec![attempt(0.0, OK)]),
        run(1, Some(Succeeded), vec![attempt(0.0, OK)]),
        run(2, Some(Succeeded), vec![attempt(0.0, OK)]),
        run(
            3,
            Some(GaveUp),
            vec![attempt(0.0, DOWN), attempt(1100.0, DOWN)],
        ),
        run(
            4,
            Some(GaveUp),
            vec![attempt(0.0, DOWN), attempt(1100.0, DOWN)],
        ),
        run(
            5,
            Some(GaveUp),
            vec![attempt(0.0, DOWN), attempt(1100.0, DOWN)],
        ),
        run(6, Some(Cancelled), vec![attempt(0.0, DOWN)]),
        run(7, Some(Succeeded), vec![limited, attempt(2150.0, OK)]),
        run(8, Some(OutcomeKind::Stopped), vec![attempt(0.0, RESET)]),
        run(
            9,
            Some(Succeeded),
            vec![
                attempt(0.0, DOWN),
                attempt(600.0, DOWN),
                attempt(1700.0, OK),
            ],
        ),
    ]
}

#[test]
fn counts_rate_and_outage_match_a_hand_count() {
    let mut shuffled = runs();
    shuffled.reverse();
    let f = figures(&shuffled, &ReportContext::default());
    assert_eq!(f.format, REPORT_FORMAT);
    assert_eq!(
        (
            f.runs.total,
            f.runs.succeeded,
            f.runs.failed,
            f.runs.cancelled,
            f.runs.unfinished
        ),
        (10, 5, 4, 1, 0)
    );
    assert_eq!(f.runs.failed_by_outcome.get("gave_up"), Some(&3));
    assert_eq!((f.success_rate.successes, f.success_rate.trials), (5, 9));
    assert!(f.success_rate.low < 5.0 / 9.0 && f.success_rate.high > 5.0 / 9.0);
    let o = f.longest_outage.expect("an outage");
    assert_eq!(
        (o.runs, o.first_run_id.as_str(), o.last_run_id.as_str()),
        (3, "run-003", "run-005")
    );
    // From run 3's start to the end of run 5's last attempt: 2 min + 1.2 s.
    assert_eq!(o.duration_ms, 121_200.0);
}

#[test]
fn time_to_success_attempts_and_failures_are_counted_per_attempt() {
    let f = figures(&runs(), &ReportContext::default());
    // Successes end at 100, 100, 100, 2250 and 1800 ms.
    assert_eq!(f.time_to_success.count, 5);
    assert_eq!(
        (f.time_to_success.p50_ms, f.time_to_success.max_ms),
        (100.0, 2250.0)
    );
    assert_eq!(f.attempts_per_run.total, 16);
    assert_eq!(f.attempts_per_run.histogram.get(&2), Some(&4));
    let failures: Vec<(&str, &str, u64, u64)> = f
        .failures
        .iter()
        .map(|c| (c.label.as_str(), c.kind.as_str(), c.attempts, c.runs_ended))
        .collect();
    assert_eq!(
        failures,
        [
            ("503", "status", 9, 3),
            ("429", "status", 1, 0),
            ("reset", "error", 1, 1)
        ]
    );
}

#[test]
fn retry_after_is_seen_and_the_wait_after_it_is_checked() {
    let f = figures(&runs(), &ReportContext::default());
    let [d] = f.delay_headers.as_slice() else {
        panic!("one header: {:?}", f.delay_headers)
    };
    assert_eq!(
        (
            d.name.as_str(),
            d.responses,
            d.retried,
            d.waited_at_least_asked
        ),
        ("retry-after", 1, 1, 1)
    );
    assert_eq!((d.asked.p50_ms, d.waited.p50_ms), (2000.0, 2050.0));
    assert_eq!(d.statuses.get("429"), Some(&1));
}

#[test]
fn the_informative_runs_are_the_outage_start_the_slowest_success_and_the_delay_header() {
    let f = figures(&runs(), &ReportContext::default());
    let picked: Vec<(Pick, &str)> = f
        .informative_runs
        .iter()
        .map(|r| (r.pick, r.run.id.as_str()))
        .collect();
    // Run 7 is both the slowest success and the one with the header: the third place goes
    // to the run with the most attempts left (run 9).
    assert_eq!(
        picked,
        [
            (Pick::OutageStart, "run-003"),
            (Pick::SlowestSuccess, "run-007"),
            (Pick::MostAttempts, "run-009")
        ]
    );
}

#[test]
fn buckets_hold_every_run_once() {
    let f = figures(&runs(), &ReportContext::default());
    // Nine minutes of runs: 30-second buckets (at most 48).
    assert_eq!(f.buckets.width_ms, 30_000);
    assert_eq!(f.buckets.items.iter().map(|b| b.runs).sum::<u64>(), 10);
    let run_3 = &f.buckets.items[6];
    assert_eq!((run_3.runs, run_3.failed), (1, 1));
    assert_eq!(run_3.failed_attempts.get("503"), Some(&2));
}

#[test]
fn no_runs_give_empty_figures() {
    let f = figures(&[], &ReportContext::default());
    assert_eq!(f.runs.total, 0);
    assert!(f.longest_outage.is_none() && f.informative_runs.is_empty());
    assert_eq!((f.success_rate.low, f.success_rate.high), (0.0, 1.0));
    assert!(f.buckets.items.is_empty());
}

#[test]
fn with_nothing_finished_the_rate_and_percentiles_are_null_and_the_page_says_n_a() {
    let unfinished = vec![
        run(0, None, vec![attempt(0.0, DOWN)]),
        run(1, Some(OutcomeKind::Cancelled), vec![attempt(0.0, DOWN)]),
    ];
    let f = figures(&unfinished, &ReportContext::default());
    let json = serde_json::to_value(&f).expect("json");
    assert_eq!(json["success_rate"]["value"], serde_json::Value::Null);
    assert_eq!(json["success_rate"]["trials"], 0);
    assert_eq!(json["time_to_success"]["p50_ms"], serde_json::Value::Null);
    let page = html(&f, &timelines(&f));
    assert!(
        !page.contains("data-figure=\"success_rate.value\""),
        "no value to show"
    );
    assert!(
        !page.contains("data-figure=\"time_to_success."),
        "no time to show"
    );
    assert!(page.contains("n/a"));
}

/// A two-attempt timeline for each informative run of `f`, as the CLI reads them back.
fn timelines(f: &Figures) -> Timelines {
    let started = chrono::DateTime::parse_from_rfc3339("2026-12-05T10:00:00+00:00").expect("time");
    f.informative_runs
        .iter()
        .map(|p| {
            let fold = crate::testkit::EventScript::new(1, "GET", "http://127.0.0.1/x", started)
                .attempt(
                    crate::testkit::response(503, &[], ""),
                    crate::testkit::retry("503"),
                    4.0,
                )
                .wait(100, 100.2)
                .attempt(
                    crate::testkit::response(200, &[], "ok"),
                    crate::model::Verdict::SUCCESS,
                    3.0,
                )
                .fold();
            (p.run.id.clone(), timeline_plot(&fold, "a run"))
        })
        .collect()
}

#[test]
fn the_html_shows_every_figure_with_its_json_value() {
    let f = figures(&runs(), &ReportContext::default());
    let page = html(&f, &timelines(&f));
    let json = serde_json::to_value(&f).expect("json");
    let re = regex::Regex::new(r#"data-figure="([^"]+)" data-value="([^"]+)""#).expect("regex");
    let mut checked = 0;
    for cap in re.captures_iter(&page) {
        let mut at = &json;
        for key in cap[1].split('.') {
            at = match at {
                serde_json::Value::Array(items) => &items[key.parse::<usize>().expect("index")],
                other => &other[key],
            };
        }
        let shown: f64 = cap[2].parse().expect("number");
        assert_eq!(at.as_f64(), Some(shown), "{}", &cap[1]);
        checked += 1;
    }
    assert!(checked > 30, "{checked} figures");
    assert!(page.contains("<svg") && page.contains("data:image/png;base64,"));
    assert!(!page.contains("<script"));
}

#[test]
fn the_markdown_links_every_image_it_lists() {
    let f = figures(&runs(), &ReportContext::default());
    let md = markdown(&f, "ticket", &timelines(&f));
    let names: Vec<&str> = md.images.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "ticket-over-time.png",
            "ticket-run-1.png",
            "ticket-run-2.png",
            "ticket-run-3.png"
        ]
    );
    for (name, png) in &md.images {
        assert!(md.text.contains(&format!("]({name})")), "{name}");
        assert_eq!(&png.as_ref().expect("drawn")[1..4], b"PNG");
    }
}

/// The series of `f`'s report chart titled `title…`.
fn chart(f: &Figures, title: &str) -> crate::interop::LabChart {
    let charts = report_charts(f);
    let found = charts.iter().find(|c| c.title.starts_with(title));
    found.cloned().expect("chart")
}

/// How many times `needle` occurs in the SVG of `chart` alone.
fn svg_count(chart: &crate::interop::LabChart, needle: &str) -> usize {
    let svg = crate::interop::render_lab_svg(std::slice::from_ref(chart), 800).expect("svg");
    svg.matches(needle).count()
}

#[test]
fn a_bucket_without_succeeded_or_failed_runs_has_no_success_rate() {
    let f = figures(&runs(), &ReportContext::default());
    // Run 6 (cancelled) is alone in bucket 12: no evidence, so no rate in the table …
    let table = tables(&f).pop().expect("buckets table");
    let rates: Vec<&str> = table.rows.iter().map(|r| r[3].text.as_str()).collect();
    assert_eq!(
        rates,
        [
            "100.0 %", "100.0 %", "100.0 %", "0.0 %", "0.0 %", "0.0 %", "—", "100.0 %", "0.0 %",
            "100.0 %"
        ]
    );
    // … and no point in the plot, as in the empty buckets between the runs.
    let rate = chart(&f, "success rate per");
    let points = &rate.series[0].points;
    assert_eq!(points.len(), f.buckets.items.len());
    let shown: Vec<usize> = (0..points.len())
        .filter(|&i| points[i][1].is_finite())
        .collect();
    assert_eq!(shown, [0, 2, 4, 6, 8, 10, 14, 16, 18]);
}

#[test]
fn a_line_breaks_where_a_value_is_missing() {
    let line = |ys: &[f64]| crate::interop::LabChart {
        title: "t".into(),
        x_label: "x".into(),
        y_label: "y".into(),
        series: vec![crate::interop::LabSeries {
            name: "a".into(),
            points: (ys.iter().enumerate())
                .map(|(i, &y)| [i as f64, y])
                .collect(),
            bar_width: None,
        }],
        ..crate::interop::LabChart::default()
    };
    let whole = svg_count(&line(&[1.0, 2.0, 2.5, 3.0, 4.0]), "<polyline");
    let broken = svg_count(&line(&[1.0, 2.0, f64::NAN, 3.0, 4.0]), "<polyline");
    assert_eq!(broken, whole + 1);
}

#[test]
fn a_value_alone_between_gaps_is_a_dot() {
    let f = figures(&runs(), &ReportContext::default());
    // Runs a minute apart in 30 s buckets: every value stands alone between empty buckets, so
    // each is a dot and no line joins them across the gaps.
    let rate = chart(&f, "success rate per");
    assert_eq!(svg_count(&rate, "<circle"), 9);
    let joined = chart(&f, "runs per"); // bars only: no dot
    assert_eq!(svg_count(&joined, "<circle"), 0);
    // A line over consecutive buckets stays one line: with the gaps filled it has no dot.
    let mut filled = rate.clone();
    for p in &mut filled.series[0].points {
        p[1] = if p[1].is_finite() { p[1] } else { 50.0 };
    }
    assert_eq!(svg_count(&filled, "<circle"), 0);
}

#[test]
fn time_to_success_in_one_bucket_only_is_drawn_as_a_dot() {
    use OutcomeKind::{GaveUp, Succeeded};
    let some = vec![
        run(0, Some(GaveUp), vec![attempt(0.0, DOWN)]),
        run(1, Some(Succeeded), vec![attempt(0.0, OK)]),
        run(2, Some(GaveUp), vec![attempt(0.0, DOWN)]),
    ];
    let f = figures(&some, &ReportContext::default());
    let tts = chart(&f, "time to success per");
    // p50, p95 and p99: one dot each.
    assert_eq!(svg_count(&tts, "<circle"), 3);
}

#[test]
fn the_plots_measure_x_from_the_origin_they_name_to_the_second() {
    // Two runs 12 s apart from 10:00:58: 1 s buckets, the first starting at 10:00:58.
    let mut late = runs();
    late.truncate(1);
    late[0].started_at += chrono::Duration::seconds(58);
    let mut second = late[0].clone();
    second.id = "run-b".into();
    second.started_at += chrono::Duration::seconds(12);
    late.push(second);
    let f = figures(&late, &ReportContext::default());
    assert_eq!(f.buckets.width_ms, 1_000);
    for c in report_charts(&f) {
        assert_eq!(c.x_label, "seconds since 2026-12-05 10:00:58 +00:00");
    }
    // The first run is in the first bucket: its bar's middle is half a second from the origin.
    let runs_chart = chart(&f, "runs per");
    let succeeded = &runs_chart.series[1];
    assert!(
        (succeeded.points[0][0] - 0.5).abs() < 0.25,
        "{:?}",
        succeeded.points[0]
    );
}

#[test]
fn a_request_without_headers_says_so() {
    let context = ReportContext {
        request: Some(SentRequest {
            method: "GET".into(),
            url: "http://127.0.0.1/x".into(),
            headers: Vec::new(),
            body: None,
        }),
        ..ReportContext::default()
    };
    let f = figures(&runs(), &context);
    let page = html(&f, &Timelines::new());
    assert!(page.contains("<p>No headers.</p>"), "an empty header table");
    assert!(!page.contains("<th>header</th><th>value</th>"));
    let md = markdown(&f, "t", &Timelines::new());
    assert!(md.text.contains("- no headers"));
}

#[test]
fn a_watch_report_shows_the_schedule_and_the_missed_slots_by_why() {
    let context = ReportContext {
        watch: Some(WatchFigures {
            id: "0193-watch".into(),
            state: "paused".into(),
            schedule: crate::policy::WatchSchedule {
                start_unix_ms: T0,
                every_ms: 30_000,
                jitter: 0.1,
                seed: 1,
                count: Some(240),
                until_unix_ms: None,
            },
            schedule_text: "every 30 s ± 10.0 %, 240 slots".into(),
            slots: 231,
            sent: 20,
            missed: MissedSlots {
                total: 211,
                busy: 1,
                late: 200,
                down: 10,
            },
        }),
        ..ReportContext::default()
    };
    let f = figures(&runs(), &context);
    let json = serde_json::to_value(&f).expect("json");
    assert_eq!(json["watch"]["missed"]["late"], 200);
    assert_eq!(json["watch"]["schedule"]["every_ms"], 30_000);
    let page = html(&f, &Timelines::new());
    for text in [
        "every 30 s ± 10.0 %, 240 slots",
        "watch 0193-watch, paused",
        "data-figure=\"watch.missed.total\" data-value=\"211\"",
        "1 busy",
        "200 late",
        "10 down",
    ] {
        assert!(page.contains(text), "{text} not in the page");
    }
    let md = markdown(&f, "t", &Timelines::new()).text;
    assert!(
        md.contains("| missed slots | 211 | of 231 slots (20 sent): 1 busy"),
        "{md}"
    );
    assert!(
        !md.contains("these count the whole watch"),
        "no time selected"
    );
    // Narrowed by time, the slots still count the whole watch, and the page says so.
    let mut narrowed = context.clone();
    narrowed
        .selection
        .insert("since".into(), "2026-12-05T10:00:00+00:00".into());
    let md = markdown(&figures(&runs(), &narrowed), "t", &Timelines::new()).text;
    assert!(
        md.contains("these count the whole watch, not only the runs of the time selected"),
        "{md}"
    );
    // Without a watch the JSON has no `watch` member.
    let plain = serde_json::to_value(figures(&runs(), &ReportContext::default())).expect("json");
    assert!(plain.get("watch").is_none());
}

#[test]
fn a_failed_attempt_counts_in_the_bucket_it_was_sent_in() {
    use OutcomeKind::{GaveUp, Succeeded};
    // Runs a minute apart; run 1's second attempt goes 70 s after its start, after run 2's.
    let some = vec![
        run(0, Some(Succeeded), vec![attempt(0.0, OK)]),
        run(
            1,
            Some(GaveUp),
            vec![attempt(0.0, DOWN), attempt(70_000.0, RESET)],
        ),
        run(2, Some(Succeeded), vec![attempt(0.0, OK)]),
    ];
    let f = figures(&some, &ReportContext::default());
    let bucket = |ms: u64| usize::try_from(ms / f.buckets.width_ms).expect("index");
    let failed_in = |label: &str| -> Vec<usize> {
        (f.buckets.items.iter().enumerate())
            .filter(|(_, b)| b.failed_attempts.contains_key(label))
            .map(|(i, _)| i)
            .collect()
    };
    assert_eq!(
        failed_in("503"),
        [bucket(60_000)],
        "sent with its run's start"
    );
    assert_eq!(failed_in("reset"), [bucket(130_000)], "sent 70 s later");
    assert_eq!(f.buckets.items[bucket(60_000)].runs, 1);
    assert_eq!(
        f.buckets.items[bucket(130_000)].runs,
        0,
        "no run started then"
    );
    assert_eq!(
        f.buckets.items.len(),
        bucket(130_000) + 1,
        "up to the last attempt"
    );
}

#[test]
fn the_report_charts_line_up_count_whole_numbers_and_leave_out_empty_ones() {
    let f = figures(&runs(), &ReportContext::default());
    let charts = report_charts(&f);
    let span = f.buckets.width_ms as f64 / 1_000.0 * f.buckets.items.len() as f64;
    for c in &charts {
        let (from, to) = c.x_range.expect("a shared x range");
        assert_eq!(from, 0.0, "{}", c.title);
        // 30 s buckets of ten minutes' runs: the x axis is in minutes.
        assert!((to - span / 60.0).abs() < 1e-9, "{}: {to}", c.title);
    }
    let whole: Vec<bool> = charts.iter().map(|c| c.whole_y).collect();
    assert_eq!(
        whole,
        [true, true, false, false],
        "runs and attempts are counts"
    );

    // Nothing failed: the failures chart is a sentence, the other three are drawn.
    let fine = vec![
        run(0, Some(OutcomeKind::Succeeded), vec![attempt(0.0, OK)]),
        run(1, Some(OutcomeKind::Succeeded), vec![attempt(0.0, OK)]),
    ];
    let f = figures(&fine, &ReportContext::default());
    let (drawn, notes) = drawable_report_charts(&f);
    assert_eq!(drawn.len(), 3);
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].starts_with("nothing to plot in \"failed attempts per"),
        "{notes:?}"
    );
    let page = html(&f, &timelines(&f));
    assert!(page.contains("nothing to plot in &quot;failed attempts per"));
    let md = markdown(&f, "r", &timelines(&f));
    assert!(md.text.contains("nothing to plot in \"failed attempts per"));
}

#[test]
fn a_cut_off_attempt_is_a_row_of_its_run_saying_so() {
    let mut cancelled = run(0, Some(OutcomeKind::Cancelled), vec![attempt(0.0, DOWN)]);
    cancelled.attempts_made = 2;
    let rows = attempts_table(&cancelled).rows;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1][0].text, "2");
    assert_eq!(rows[1][3].text, "no answer: cut off by the cancel");
    let mut unfinished = run(1, None, Vec::new());
    unfinished.attempts_made = 1;
    let rows = attempts_table(&unfinished).rows;
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0][3].text,
        "no answer recorded: the run did not finish"
    );
}

#[test]
fn a_warning_of_the_context_heads_every_format() {
    let context = ReportContext {
        warning: Some("the 3 runs were recorded under 2 profiles".into()),
        ..ReportContext::default()
    };
    let f = figures(&runs(), &context);
    let json = serde_json::to_value(&f).expect("json");
    assert_eq!(json["warning"], "the 3 runs were recorded under 2 profiles");
    let page = html(&f, &Timelines::new());
    assert!(page.contains("<strong>warning:</strong> the 3 runs were recorded under 2 profiles"));
    let md = markdown(&f, "t", &Timelines::new());
    assert!(
        md.text
            .contains("**Warning:** the 3 runs were recorded under 2 profiles")
    );
    let plain = figures(&runs(), &ReportContext::default());
    assert!(
        serde_json::to_value(&plain)
            .expect("json")
            .get("warning")
            .is_none()
    );
}
