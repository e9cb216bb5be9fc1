//! Golden-text tests of the timeline fold: recorded event sequences in, plain text out.

use chrono::{DateTime, FixedOffset};
use retryscope::model::{ErrorKind, OutcomeKind, Verdict};
use retryscope::testkit::EventScript;
use retryscope::testkit::{net_error, response, retry, stop};
use retryscope::ui::timeline::{LIVE_REPAINT, Phase, RunsState, Timeline, live_status};
use std::time::{Duration, Instant};

fn start() -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339("2026-11-30T14:00:00.000+01:00").expect("valid rfc3339")
}

fn at(t0: Instant, ms: f64) -> Instant {
    t0 + Duration::from_secs_f64(ms / 1000.0)
}

/// Folds every event of `script` into a fresh timeline, received at `t0` + its offset.
fn fold(script: &EventScript, t0: Instant) -> Timeline {
    let mut timeline = Timeline::new(1, "");
    for (event, ms) in script.timed() {
        let shown = format!("{event:?}");
        assert!(
            timeline.apply(event, at(t0, ms)),
            "event not folded: {shown}"
        );
    }
    timeline
}

fn success_script() -> EventScript {
    EventScript::new(1, "GET", "http://127.0.0.1:8080/status/503", start())
        .attempt(
            response(503, &[("retry-after", "1")], "busy"),
            retry("503 is retryable"),
            12.4,
        )
        .wait(1000, 1003.4)
        .attempt(response(503, &[], "busy"), retry("503 is retryable"), 9.0)
        .wait(2000, 2001.2)
        .attempt(
            response(
                200,
                &[("content-type", "application/json")],
                r#"{"ok":true}"#,
            ),
            Verdict::SUCCESS,
            11.0,
        )
        .finish(
            OutcomeKind::Succeeded,
            "succeeded on attempt 3 after 3.0 s",
            Some(200),
        )
}

#[test]
fn success_after_two_503s() {
    let t0 = Instant::now();
    let timeline = fold(&success_script(), t0);
    let want = "\
Run 1 · GET /status/503
GET http://127.0.0.1:8080/status/503 · profile exponential · seed 7 · started 2026-11-30 14:00:00.000 +01:00
#1  14:00:00.000 +01:00  12 ms  503  4 B  retry: 503 is retryable
    wait 1: planned 1000 ms, actual 1003 ms · retry 1: fixed 1000 ms = 1000 ms
#2  14:00:01.015 +01:00  9 ms  503  4 B  retry: 503 is retryable
    wait 2: planned 2000 ms, actual 2001 ms · retry 2: fixed 2000 ms = 2000 ms
#3  14:00:03.026 +01:00  11 ms  200  11 B  success
Succeeded on attempt 3 after 3.0 s
";
    assert_eq!(timeline.to_text(), want);
    assert_eq!(timeline.phase(), Phase::Finished);
    assert!(!timeline.is_active());
}

#[test]
fn stop_on_404() {
    let script = EventScript::new(1, "GET", "http://127.0.0.1:8080/missing", start())
        .attempt(
            response(404, &[], "no such thing"),
            stop("404 is not retryable"),
            8.0,
        )
        .finish(OutcomeKind::Stopped, "404 is not retryable", Some(404));
    let want = "\
Run 1 · GET /missing
GET http://127.0.0.1:8080/missing · profile exponential · seed 7 · started 2026-11-30 14:00:00.000 +01:00
#1  14:00:00.000 +01:00  8 ms  404  13 B  stop: 404 is not retryable
Stopped: 404 is not retryable
";
    assert_eq!(fold(&script, Instant::now()).to_text(), want);
}

#[test]
fn network_error_then_gave_up() {
    let refused = || net_error(ErrorKind::Connect, "connection refused");
    let script = EventScript::new(1, "GET", "http://127.0.0.1:9/", start())
        .attempt(refused(), retry("connect is retryable"), 2.0)
        .wait(500, 501.0)
        .attempt(refused(), retry("connect is retryable"), 1.5)
        .finish(OutcomeKind::GaveUp, "gave up after 2 attempts", None);
    let want = "\
Run 1 · GET /
GET http://127.0.0.1:9/ · profile exponential · seed 7 · started 2026-11-30 14:00:00.000 +01:00
#1  14:00:00.000 +01:00  2 ms  error: connect  retry: connect is retryable
    wait 1: planned 500 ms, actual 501 ms · retry 1: fixed 500 ms = 500 ms
#2  14:00:00.503 +01:00  2 ms  error: connect  retry: connect is retryable
Gave up after 2 attempts
";
    assert_eq!(fold(&script, Instant::now()).to_text(), want);
}

#[test]
fn cancel_mid_wait_shows_countdown_then_measured_part() {
    let t0 = Instant::now();
    let waiting = EventScript::new(1, "GET", "http://127.0.0.1:8080/status/503", start())
        .attempt(response(503, &[], ""), retry("503 is retryable"), 10.0)
        .schedule_wait(5000);
    let mut timeline = fold(&waiting, t0);
    assert_eq!(timeline.phase(), Phase::Waiting(1));
    // 1.2 s into the 5 s wait (received at 10 ms): 3.8 s left.
    let now = at(t0, 1210.0);
    assert_eq!(
        live_status(&timeline, Some(now)).as_deref(),
        Some("Next attempt in 3.8 s")
    );
    let wait = timeline.current_wait().expect("a wait is running");
    assert_eq!(
        timeline.remaining_ms(wait, now).map(f64::round),
        Some(3800.0)
    );
    assert!(timeline.to_text().contains(
        "    wait 1: planned 5000 ms, in progress · retry 1: fixed 5000 ms = 5000 ms\nWaiting 5000 ms before attempt 2\n"
    ));

    // The engine reports cancel with RunFinished only; the wait is closed at the run's end.
    let cancelled = waiting
        .idle(1200.0)
        .finish(OutcomeKind::Cancelled, "cancelled", Some(503));
    let (last, ms) = cancelled.timed().pop().expect("events");
    timeline.apply(last, at(t0, ms));
    let want = "\
Run 1 · GET /status/503
GET http://127.0.0.1:8080/status/503 · profile exponential · seed 7 · started 2026-11-30 14:00:00.000 +01:00
#1  14:00:00.000 +01:00  10 ms  503  0 B  retry: 503 is retryable
    wait 1: planned 5000 ms, actual 1200 ms (run ended) · retry 1: fixed 5000 ms = 5000 ms
Cancelled
";
    assert_eq!(timeline.to_text(), want);
}

#[test]
fn cancel_with_wait_finished_event_keeps_measured_wait() {
    let script = EventScript::new(1, "GET", "http://127.0.0.1:8080/status/503", start())
        .attempt(response(503, &[], ""), retry("503 is retryable"), 10.0)
        .schedule_wait(5000)
        .end_wait(5000, 750.0, false)
        .finish(OutcomeKind::Cancelled, "", Some(503));
    let text = fold(&script, Instant::now()).to_text();
    assert!(text.contains("planned 5000 ms, actual 750 ms · "), "{text}");
    assert!(text.ends_with("\nCancelled\n"), "{text}");
}

#[test]
fn deadline_reached() {
    let script = EventScript::new(1, "POST", "http://127.0.0.1:8080/status/503?n=2", start())
        .attempt(response(503, &[], ""), retry("503 is retryable"), 20.0)
        .wait(1000, 1000.8)
        .attempt(response(503, &[], ""), retry("503 is retryable"), 20.0)
        .finish(
            OutcomeKind::Deadline,
            "deadline reached: the next wait (2000 ms) would pass the 2500 ms deadline",
            Some(503),
        );
    let want = "\
Run 1 · POST /status/503?n=2
POST http://127.0.0.1:8080/status/503?n=2 · profile exponential · seed 7 · started 2026-11-30 14:00:00.000 +01:00
#1  14:00:00.000 +01:00  20 ms  503  0 B  retry: 503 is retryable
    wait 1: planned 1000 ms, actual 1001 ms · retry 1: fixed 1000 ms = 1000 ms
#2  14:00:01.020 +01:00  20 ms  503  0 B  retry: 503 is retryable
Deadline reached: the next wait (2000 ms) would pass the 2500 ms deadline
";
    assert_eq!(fold(&script, Instant::now()).to_text(), want);
}

#[test]
fn deadline_abort_in_flight_marks_attempt_aborted() {
    let script = EventScript::new(1, "GET", "http://127.0.0.1:8080/slow", start())
        .start_attempt()
        .idle(2500.0)
        .finish(OutcomeKind::Deadline, "deadline reached", None);
    let timeline = fold(&script, Instant::now());
    assert!(
        timeline
            .to_text()
            .contains("#1  14:00:00.000 +01:00  2500 ms  aborted\nDeadline reached\n")
    );
}

#[test]
fn skipped_wait_is_marked() {
    let script = EventScript::new(1, "GET", "http://127.0.0.1:8080/status/503", start())
        .attempt(response(503, &[], ""), retry("503 is retryable"), 10.0)
        .schedule_wait(4000)
        .end_wait(4000, 640.2, true);
    let timeline = fold(&script, Instant::now());
    assert!(
        timeline
            .to_text()
            .contains("planned 4000 ms, actual 640 ms (skipped) · ")
    );
    assert_eq!(timeline.phase(), Phase::Starting);
}

#[test]
fn events_of_other_runs_are_ignored() {
    let mut timeline = Timeline::new(2, "other");
    let script = success_script();
    let (event, _) = script.timed().swap_remove(0);
    assert!(!timeline.apply(event, Instant::now()));
    assert_eq!(timeline.to_text(), "Run 2 · other\nStarting…\n");
}

#[test]
fn in_flight_attempt_and_live_status() {
    let t0 = Instant::now();
    let script = EventScript::new(1, "GET", "http://127.0.0.1:8080/status/503", start())
        .attempt(response(503, &[], ""), retry("503 is retryable"), 10.0)
        .wait(100, 100.0)
        .start_attempt();
    let timeline = fold(&script, t0);
    assert_eq!(timeline.phase(), Phase::InFlight(2));
    assert_eq!(
        live_status(&timeline, Some(at(t0, 200.0))).as_deref(),
        Some("Attempt 2 in flight…")
    );
    assert!(
        timeline
            .to_text()
            .ends_with("#2  14:00:00.110 +01:00  in flight\nAttempt 2 in flight…\n")
    );
    // The now offset follows the monotonic clock from the latest event: 110 ms + 50 ms.
    assert_eq!(
        timeline.offset_at(at(t0, 160.0)).map(f64::round),
        Some(160.0)
    );
}

/// Merges scripts by receipt time: `(script, when its run started, ms after t0)`.
fn interleave(
    scripts: &[(&EventScript, f64)],
) -> Vec<(
    retryscope::model::secrets::Masked<retryscope::model::RunEvent>,
    f64,
)> {
    let mut all: Vec<_> = scripts
        .iter()
        .flat_map(|(s, offset)| s.timed().into_iter().map(move |(e, ms)| (e, ms + offset)))
        .collect();
    all.sort_by(|a, b| a.1.total_cmp(&b.1));
    all
}

#[test]
fn two_interleaved_runs_keep_separate_timelines() {
    let t0 = Instant::now();
    let first = success_script();
    let second = EventScript::new(2, "GET", "http://127.0.0.1:8080/missing", start())
        .attempt(response(503, &[], ""), retry("503 is retryable"), 5.0)
        .wait(400, 401.0)
        .attempt(
            response(404, &[], "gone"),
            stop("404 is not retryable"),
            6.0,
        )
        .finish(OutcomeKind::Stopped, "404 is not retryable", Some(404));
    // Run 2 starts 300 ms after run 1, while run 1 waits.
    let events = interleave(&[(&first, 0.0), (&second, 300.0)]);

    let mut runs = RunsState::default();
    assert_eq!(runs.repaint_after(t0), None, "no runs: idle");
    runs.add_run(1, "GET /status/503".to_owned());
    let mut saw_both_active = false;
    for (event, ms) in events {
        if event.run_id() == 2 && matches!(*event, retryscope::model::RunEvent::RunStarted { .. }) {
            runs.add_run(2, "GET /missing".to_owned());
        }
        runs.apply(event, at(t0, ms));
        if runs.active_runs() == vec![1, 2] {
            saw_both_active = true;
            let due = runs.repaint_after(at(t0, ms)).expect("live runs repaint");
            assert!(due <= LIVE_REPAINT, "{due:?}");
        }
    }
    assert!(saw_both_active);
    assert_eq!(runs.selected(), Some(2), "the newest run is selected");
    assert!(runs.active_runs().is_empty());
    assert_eq!(
        runs.repaint_after(at(t0, 5000.0)),
        None,
        "all finished: idle"
    );

    // Each run folds exactly as it would alone.
    let alone_1 = fold(&first, t0)
        .to_text()
        .replace("Run 1 · GET /status/503", "");
    let in_state_1 = runs
        .timeline(1)
        .expect("run 1")
        .to_text()
        .replace("Run 1 · GET /status/503", "");
    assert_eq!(in_state_1, alone_1);
    let want_2 = "\
Run 2 · GET /missing
GET http://127.0.0.1:8080/missing · profile exponential · seed 7 · started 2026-11-30 14:00:00.000 +01:00
#1  14:00:00.000 +01:00  5 ms  503  0 B  retry: 503 is retryable
    wait 1: planned 400 ms, actual 401 ms · retry 1: fixed 400 ms = 400 ms
#2  14:00:00.406 +01:00  6 ms  404  4 B  stop: 404 is not retryable
Stopped: 404 is not retryable
";
    assert_eq!(runs.timeline(2).expect("run 2").to_text(), want_2);
}

#[test]
fn repaint_is_due_sooner_when_a_countdown_ends_first() {
    let t0 = Instant::now();
    let script = EventScript::new(1, "GET", "http://127.0.0.1:8080/status/503", start())
        .attempt(response(503, &[], ""), retry("503 is retryable"), 10.0)
        .schedule_wait(50);
    let mut runs = RunsState::default();
    for (event, ms) in script.timed() {
        runs.apply(event, at(t0, ms));
    }
    // Wait received at 10 ms, planned 50 ms: at 40 ms, 20 ms are left.
    let due = runs.repaint_after(at(t0, 40.0)).expect("waiting");
    assert_eq!(due.as_millis(), 20);
    assert_eq!(
        runs.repaint_after(at(t0, 20.0)),
        Some(Duration::from_millis(40))
    );
}

#[test]
fn add_run_after_early_events_keeps_them() {
    let t0 = Instant::now();
    let script = success_script();
    let mut runs = RunsState::default();
    let mut events = script.timed().into_iter();
    let (first, ms) = events.next().expect("events");
    runs.apply(first, at(t0, ms));
    assert_eq!(
        runs.timeline(1).map(Timeline::title),
        Some("GET /status/503")
    );
    runs.add_run(1, "my title".to_owned());
    for (event, ms) in events {
        runs.apply(event, at(t0, ms));
    }
    let text = runs.timeline(1).expect("run 1").to_text();
    assert!(
        text.starts_with("Run 1 · my title\nGET http://127.0.0.1:8080/status/503 · "),
        "{text}"
    );
    assert!(
        text.ends_with("Succeeded on attempt 3 after 3.0 s\n"),
        "{text}"
    );
}
