//! The what-if replay against endpoints whose true state is known: recorded runs are made by
//! replaying a profile against the truth, then the what-if replays them from the record.

use super::whatif::{
    Comparison, RecordedWith, WhatIfCandidate, compare, endpoint, whatif, with_recorded,
};
use super::whatif_run::Replayer;
use crate::model::{
    AttemptOutcome, Backoff, BodyPreview, ErrorKind, NetError, OutcomeKind, ResponseSummary,
    RetryProfile, StatusRange, StatusSet, Strategy,
};
use crate::policy::rng_from_seed;
use crate::report::{AttemptResult, ObservedAttempt, ObservedRun};
use proptest::prelude::*;

/// A profile retrying 503 and `reset` up to `retries` times with `backoff`.
fn profile(name: &str, retries: u32, backoff: Backoff) -> RetryProfile {
    let mut p = crate::profile::builtin("servicenow-exponential").expect("builtin");
    p.name = name.to_owned();
    p.max_retries = Some(retries);
    p.retry_on.status = StatusSet(vec![StatusRange::single(503), StatusRange::single(429)]);
    p.retry_on.errors = vec![ErrorKind::Reset];
    p.backoff = backoff;
    p
}

fn backoff(strategy: Strategy, base_ms: u64, window_ms: u64) -> Backoff {
    let mut b = Backoff::new(strategy);
    b.base_delay_ms = base_ms;
    b.max_delay_ms = Some(60_000);
    b.jitter_window_ms = window_ms;
    b
}

fn status(code: u16) -> AttemptOutcome {
    AttemptOutcome::Response(ResponseSummary {
        status: code,
        reason: String::new(),
        version: "HTTP/1.1".into(),
        headers: Vec::new(),
        body: BodyPreview::default(),
    })
}

/// An endpoint down for `down_ms` of every `period_ms` (from Unix ms 0), with a connection reset
/// in every 37th 100-ms slot of the rest.
fn truth(period_ms: f64, down_ms: f64) -> impl Fn(f64) -> AttemptOutcome {
    move |t: f64| {
        if t.rem_euclid(period_ms) < down_ms {
            status(503)
        } else if (t / 100.0).floor().rem_euclid(37.0) == 0.0 {
            AttemptOutcome::Error(NetError::new(ErrorKind::Reset, "reset"))
        } else {
            status(200)
        }
    }
}

/// `n` runs every `every_ms` from `t0`, recorded by replaying `p` against `endpoint`, each
/// attempt taking `attempt_ms`.
fn record(
    p: &RetryProfile,
    endpoint: &dyn Fn(f64) -> AttemptOutcome,
    t0: i64,
    every_ms: i64,
    n: usize,
    attempt_ms: f64,
    seed: u64,
) -> Vec<ObservedRun> {
    let replayer = Replayer::new(p).expect("policy");
    (0..n)
        .map(|i| {
            let start = t0 + every_ms * i64::try_from(i).expect("small");
            let mut attempts = Vec::new();
            let mut at = |t: f64| {
                let outcome = endpoint(t);
                attempts.push(ObservedAttempt {
                    offset_ms: t - start as f64,
                    duration_ms: attempt_ms,
                    result: match &outcome {
                        AttemptOutcome::Response(r) => AttemptResult::Status(r.status),
                        AttemptOutcome::Error(e) => AttemptResult::Error(e.kind),
                    },
                    delay_headers: Vec::new(),
                });
                Some((outcome, attempt_ms))
            };
            let mut rng = rng_from_seed(seed.wrapping_add(i as u64));
            let e = replayer.replay("GET", false, start as f64, &mut at, &mut rng, None);
            ObservedRun {
                id: format!("run-{i:05}"),
                started_at: chrono::DateTime::from_timestamp_millis(start)
                    .expect("time")
                    .fixed_offset(),
                outcome: Some(e.outcome),
                profile_name: p.name.clone(),
                method: "GET".into(),
                idempotency_key: false,
                attempts_made: u32::try_from(attempts.len()).unwrap_or(u32::MAX),
                attempts,
                message: None,
            }
        })
        .collect()
}

fn candidate(id: &str, profile: RetryProfile, current: bool) -> WhatIfCandidate {
    WhatIfCandidate {
        id: id.to_owned(),
        profile,
        current,
    }
}

#[test]
fn without_jitter_the_own_profile_replays_the_record_exactly() {
    let p = profile("fixed", 3, backoff(Strategy::Fixed, 2000, 0));
    let runs = record(
        &p,
        &truth(600_000.0, 120_000.0),
        1_800_000_000_000,
        10_000,
        360,
        30.0,
        1,
    );
    let result = whatif(&runs, &[candidate("fixed", p, true)], 9).expect("whatif");
    let own = &result.candidates[0];
    assert_eq!(own.success.value, result.recorded.value);
    assert_eq!(
        (own.band.low, own.band.high),
        (own.success.value, own.success.value)
    );
    let recorded_attempts: usize = runs.iter().map(|r| r.attempts.len()).sum();
    assert_eq!(own.attempts, recorded_attempts as u64);
    assert!(
        result.recorded.value > 0.5 && result.recorded.value < 1.0,
        "{:?}",
        result.recorded
    );
}

#[test]
fn a_patient_candidate_outranks_an_impatient_one_and_the_current_one_is_marked() {
    let p = profile("impatient", 1, backoff(Strategy::Fixed, 200, 0));
    let runs = record(
        &p,
        &truth(300_000.0, 20_000.0),
        1_800_000_000_000,
        5_000,
        240,
        20.0,
        2,
    );
    let patient = profile("patient", 6, backoff(Strategy::Exponential, 1000, 500));
    let result = whatif(
        &runs,
        &[
            candidate("impatient", p, true),
            candidate("patient", patient, false),
        ],
        3,
    )
    .expect("whatif");
    let names: Vec<(&str, u32, bool)> = result
        .candidates
        .iter()
        .map(|c| (c.id.as_str(), c.rank, c.current))
        .collect();
    assert_eq!(names, [("patient", 1, false), ("impatient", 2, true)]);
    let (best, current) = (&result.candidates[0], &result.candidates[1]);
    assert!(best.success.value > current.success.value, "{result:#?}");
    assert!(best.attempts_per_run > current.attempts_per_run);
}

#[test]
fn a_deadline_shorter_than_the_outage_is_counted_as_deadline_hits() {
    let p = profile("fixed", 3, backoff(Strategy::Fixed, 1000, 0));
    let runs = record(
        &p,
        &truth(120_000.0, 60_000.0),
        1_800_000_000_000,
        10_000,
        60,
        10.0,
        4,
    );
    let mut short = profile("deadline", 100, backoff(Strategy::Fixed, 1000, 0));
    short.deadline_ms = Some(5_000);
    let result = whatif(&runs, &[candidate("deadline", short, false)], 5).expect("whatif");
    let c = &result.candidates[0];
    let failed_runs = runs.iter().filter(|r| !r.succeeded()).count() as u64;
    assert!(failed_runs > 0);
    assert!(c.deadline_hits >= failed_runs, "{c:#?}");
    assert_eq!(
        c.outcomes.get("deadline").copied().unwrap_or(0),
        c.deadline_hits
    );
    assert!(c.time_to_success.max_ms <= 5_000.0);
}

#[test]
fn thinning_the_evidence_widens_the_band_and_lengthens_the_interval() {
    let p = profile("jitter", 3, backoff(Strategy::Exponential, 1000, 1500));
    let runs = record(
        &p,
        &truth(400_000.0, 90_000.0),
        1_800_000_000_000,
        10_000,
        400,
        25.0,
        6,
    );
    let result = whatif(&runs, &[candidate("jitter", p, true)], 7).expect("whatif");
    let rows = &result.candidates[0].resolution;
    assert_eq!(
        rows.iter().map(|r| r.every).collect::<Vec<_>>(),
        [1, 2, 4, 8]
    );
    assert_eq!(rows[0].sampling_interval_ms, 10_000.0);
    assert_eq!(rows[3].sampling_interval_ms, 80_000.0);
    let width = |r: &super::whatif::ResolutionRow| r.band.high - r.band.low;
    assert!(width(&rows[3]) > width(&rows[0]), "{rows:#?}");
}

#[test]
fn the_recorded_profile_is_marked_current_where_listed_and_put_first_where_not() {
    let own = profile("own", 1, backoff(Strategy::Fixed, 1000, 0));
    let other = profile("other", 3, backoff(Strategy::Fixed, 500, 0));
    let order = |c: &[WhatIfCandidate]| -> Vec<(String, bool)> {
        c.iter().map(|c| (c.id.clone(), c.current)).collect()
    };
    let listed = vec![("other".to_owned(), other.clone())];
    assert_eq!(
        order(&with_recorded(listed.clone(), Some(own.clone()))),
        [("recorded".into(), true), ("other".into(), false)]
    );
    assert_eq!(
        order(&with_recorded(listed, Some(other.clone()))),
        [("other".into(), true)]
    );

    let runs = recorded_runs();
    let json = serde_json::to_value(&own).expect("json");
    let lookup = |spec: &str| match spec {
        "own" => Ok(own.clone()),
        "other" => Ok(other.clone()),
        _ => Err(format!("unknown profile `{spec}`")),
    };
    let run = |recorded: Option<&serde_json::Value>, specs: &[&str]| {
        let specs: Vec<String> = specs.iter().map(|s| (*s).to_owned()).collect();
        compare(&runs, recorded, &RecordedWith::default(), &specs, lookup, 0)
    };
    let listed = run(Some(&json), &["other", " own ", ""]).expect("compare");
    assert_eq!(
        marked(&listed),
        [("other".into(), false), ("own".into(), true)],
        "listed: marked and replayed once; blank specs skipped"
    );
    let inserted = run(Some(&json), &["other"]).expect("compare");
    assert_eq!(
        marked(&inserted),
        [("other".into(), false), ("recorded".into(), true)]
    );
    assert!(!inserted.recorded_left_out);
    let unreadable =
        run(Some(&serde_json::json!({ "format": "nope" })), &["other"]).expect("compare");
    assert!(unreadable.recorded_left_out);
    assert_eq!(marked(&unreadable), [("other".into(), false)]);
    assert_eq!(
        run(None, &["other", "nope"]).expect_err("unknown"),
        "unknown profile `nope`"
    );
    let none =
        compare(&[], Some(&json), &RecordedWith::default(), &[], lookup, 0).expect_err("no runs");
    assert!(
        none.starts_with("nothing to replay: no run is selected"),
        "{none}"
    );
}

/// The (id, current) pairs of a comparison's candidates, sorted by id.
fn marked(c: &Comparison) -> Vec<(String, bool)> {
    let mut v: Vec<(String, bool)> = c
        .result
        .candidates
        .iter()
        .map(|e| (e.id.clone(), e.current))
        .collect();
    v.sort();
    v
}

/// `runs` compared with `specs` and `with`: `own` and `own.json` name the runs' own profile,
/// any other name another profile.
fn compare_named(runs: &[ObservedRun], specs: &[&str], with: &RecordedWith) -> Comparison {
    let own = profile("own", 1, backoff(Strategy::Fixed, 1000, 0));
    let other = profile("other", 3, backoff(Strategy::Fixed, 500, 0));
    let json = serde_json::to_value(&own).expect("json");
    let specs: Vec<String> = specs.iter().map(|s| (*s).to_owned()).collect();
    let lookup = |spec: &str| match spec {
        "own" | "own.json" => Ok(own.clone()),
        _ => Ok(other.clone()),
    };
    compare(runs, Some(&json), with, &specs, lookup, 0).expect("compare")
}

/// 12 runs of `own` (1 retry after 1 s) every 10 s against an endpoint down 30 s of every 2 min.
fn recorded_runs() -> Vec<ObservedRun> {
    let own = profile("own", 1, backoff(Strategy::Fixed, 1000, 0));
    record(
        &own,
        &truth(120_000.0, 30_000.0),
        1_800_000_000_000,
        10_000,
        12,
        10.0,
        1,
    )
}

#[test]
fn a_profile_named_twice_or_under_two_names_is_compared_once() {
    let runs = recorded_runs();
    let c = compare_named(
        &runs,
        &["other", "other", "own", "own.json"],
        &RecordedWith::default(),
    );
    assert_eq!(marked(&c), [("other".into(), false), ("own".into(), true)]);
}

#[test]
fn runs_of_several_profiles_or_endpoints_are_said_to_be_mixed() {
    let runs = recorded_runs();
    let own = std::sync::Arc::new(serde_json::json!({ "name": "own" }));
    let other = std::sync::Arc::new(serde_json::json!({ "name": "other" }));
    let mut one = RecordedWith::default();
    for _ in 0..3 {
        one.add(&own, "get", "http://Example.COM/outage?down_s=2#top");
        one.add(&own, "GET", "http://example.com:80/outage?down_s=2");
    }
    assert_eq!((one.profiles(), one.endpoints()), (1, 1));
    let plain = compare_named(&runs, &["other"], &one).result;
    assert_eq!(plain.warning, None);
    assert_eq!((plain.recorded_profiles, plain.recorded_endpoints), (1, 1));
    let table = super::whatif_text::table(&plain);
    assert!(!table.contains("warning:"), "{table}");
    assert!(table.contains("* the recorded runs' profile."), "{table}");

    // The query is part of the endpoint: /outage with another schedule is another one.
    let mut mixed = one.clone();
    mixed.add(&other, "GET", "http://example.com/outage?down_s=20");
    mixed.add(&own, "GET", "http://example.com/status/400");
    assert_eq!((mixed.profiles(), mixed.endpoints()), (2, 3));
    let r = compare_named(&runs, &["other"], &mixed).result;
    assert_eq!((r.recorded_profiles, r.recorded_endpoints), (2, 3));
    let warning = r.warning.clone().expect("a warning");
    assert!(
        warning.starts_with("the 12 runs selected (cancelled and unfinished ones included) were recorded under 2 profiles and sent to 3 endpoints (method and URL)"),
        "{warning}"
    );
    let table = super::whatif_text::table(&r);
    assert!(
        table.contains(&format!("\nwarning: {warning}\n")),
        "{table}"
    );
    assert!(
        table.contains(
            "* the newest run's profile (the runs were recorded under 2 profiles). Its band"
        ),
        "{table}"
    );
    let json = serde_json::to_value(&r).expect("json");
    assert_eq!(json["recorded_profiles"], 2);
    assert_eq!(json["recorded_endpoints"], 3);
    assert_eq!(json["warning"], warning.as_str());
    assert!(
        serde_json::to_value(&plain)
            .expect("json")
            .get("warning")
            .is_none()
    );
    assert_eq!(
        endpoint("post", "https://H.example/a?b=1#c"),
        "POST https://h.example/a?b=1"
    );
}

#[test]
fn cancelled_runs_with_finished_attempts_are_said_to_have_no_outcome() {
    let mut runs = recorded_runs();
    runs.truncate(3);
    assert!(runs.iter().all(|r| !r.attempts.is_empty()));
    let own = profile("own", 1, backoff(Strategy::Fixed, 1000, 0));
    let json = serde_json::to_value(&own).expect("json");
    let lookup = |_: &str| Ok(own.clone());
    for run in &mut runs {
        run.outcome = Some(OutcomeKind::Cancelled);
    }
    runs[2].outcome = None;
    let with = RecordedWith::default();
    let e = compare(&runs, Some(&json), &with, &[], lookup, 0).expect_err("nothing");
    assert_eq!(
        e,
        "nothing to replay: the 3 runs selected were all cancelled or unfinished, so no run has an outcome (succeeded or failed) to compare with"
    );
    let e = compare(&runs[..1], Some(&json), &with, &[], lookup, 0).expect_err("nothing");
    assert_eq!(
        e,
        "nothing to replay: the run selected was cancelled or did not finish, so no run has an outcome (succeeded or failed) to compare with"
    );
}

#[test]
fn a_long_profile_name_is_cut_with_an_ellipsis_in_the_table() {
    let runs = recorded_runs();
    let mut r = compare_named(&runs, &["other"], &RecordedWith::default()).result;
    r.candidates[0].id = "aws-standard".into();
    r.candidates[0].name = "AWS SDK standard retry mode, as the SDKs ship it".into();
    let table = super::whatif_text::table(&r);
    let row = table
        .lines()
        .find(|l| l.contains("aws-standard"))
        .expect("the row");
    // The column is 36 characters wide, the last one `…`; the next column follows.
    assert_eq!(
        row.chars().skip(6).take(37).collect::<String>(),
        "aws-standard (AWS SDK standard retr… "
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// The stated tolerance: replaying the recorded runs' own profile (another seed) gives a
    /// success share whose sampling band, widened by the 95 % Wilson half-width, holds the
    /// recorded success rate.
    #[test]
    fn replaying_the_own_profile_reproduces_the_recorded_success_rate(
        period_s in 60_u32..900,
        down_percent in 5_u32..60,
        every_s in 5_u32..60,
        window_ms in 0_u64..3000,
        retries in 0_u32..5,
        seed in any::<u64>(),
    ) {
        let period = f64::from(period_s) * 1000.0;
        let p = profile("own", retries, backoff(Strategy::Exponential, 1000, window_ms));
        let runs = record(
            &p,
            &truth(period, period * f64::from(down_percent) / 100.0),
            1_800_000_000_000,
            i64::from(every_s) * 1000,
            150,
            40.0,
            seed,
        );
        let result = whatif(&runs, &[candidate("own", p, true)], seed ^ 0x5eed).expect("whatif");
        let own = &result.candidates[0];
        let half = (own.success.high - own.success.low) / 2.0;
        let recorded = result.recorded.value;
        prop_assert!(
            recorded >= own.band.low - half && recorded <= own.band.high + half,
            "recorded {recorded}, estimate {} band {:?} ± {half}",
            own.success.value,
            own.band
        );
        prop_assert!(own.outcomes.values().sum::<u64>() == result.runs);
        prop_assert!(runs.iter().all(|r| r.outcome != Some(OutcomeKind::Cancelled)));
    }
}

/// docs/DESIGN.md §12's worked example, figure by figure.
#[test]
fn the_worked_example_of_design_12() {
    let t0: i64 = 1_800_000_000_000;
    let a = |offset_ms: f64, code: u16| ObservedAttempt {
        offset_ms,
        duration_ms: 50.0,
        result: AttemptResult::Status(code),
        delay_headers: Vec::new(),
    };
    let run = |i: i64, outcome, attempts: Vec<ObservedAttempt>| ObservedRun {
        id: format!("run-{i}"),
        started_at: chrono::DateTime::from_timestamp_millis(t0 + i * 10_000)
            .expect("time")
            .fixed_offset(),
        outcome: Some(outcome),
        profile_name: "A".into(),
        method: "GET".into(),
        idempotency_key: false,
        attempts_made: u32::try_from(attempts.len()).unwrap_or(u32::MAX),
        attempts,
        message: None,
    };
    let runs = vec![
        run(0, OutcomeKind::Succeeded, vec![a(0.0, 200)]),
        run(1, OutcomeKind::Succeeded, vec![a(0.0, 200)]),
        run(2, OutcomeKind::GaveUp, vec![a(0.0, 503), a(1050.0, 503)]),
        run(3, OutcomeKind::GaveUp, vec![a(0.0, 503), a(1050.0, 503)]),
        run(4, OutcomeKind::Succeeded, vec![a(0.0, 200)]),
    ];
    let mut b = backoff(Strategy::ExponentialProportional, 1000, 0);
    b.jitter_ratio = 0.0;
    let own = profile("A", 1, backoff(Strategy::Fixed, 1000, 0));
    let result = whatif(
        &runs,
        &[
            candidate("A", own, true),
            candidate("B", profile("B", 3, b), false),
        ],
        0,
    )
    .expect("whatif");
    assert_eq!(result.recorded.value, 0.6);
    assert_eq!(result.sampling_interval_ms, 10_000.0);
    let b = &result.candidates[0];
    assert_eq!((b.id.as_str(), b.rank), ("B", 1));
    assert_eq!(b.success.value, 0.8);
    assert_eq!((b.band.low, b.band.high), (0.6, 0.8));
    assert_eq!(b.attempts, 11);
    assert_eq!(b.time_to_success.max_ms, 7200.0);
    let a = &result.candidates[1];
    assert_eq!((a.success.value, a.attempts, a.current), (0.6, 7, true));
}
