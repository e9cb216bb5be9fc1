//! Property tests of the policy layer: for every strategy and any parameters (n up to `u32::MAX`,
//! zero and huge delays, any ratio) the wait lies within the documented bounds and nothing panics;
//! delay headers (Retry-After seconds and HTTP-dates, milliseconds, Unix timestamps, `RateLimit`
//! `t=`) read as exactly the generated value.

use proptest::prelude::*;
use proptest::strategy::Strategy as PropStrategy;
use retryscope::model::{
    AttemptOutcome, Backoff, Combine, DelayHeader, HeaderUnit, OnExceedMax, ResponseSummary,
    RetryProfile, Strategy,
};
use retryscope::policy::{
    DelayForm, MAX_WAIT_MS, Policy, WaitContext, WaitDecision, max_wait_bound, min_wait_bound,
    parse_delay, parse_http_date_ms, rng_from_seed,
};
use std::time::{Duration, UNIX_EPOCH};

const DAY: f64 = MAX_WAIT_MS as f64;

fn profile(backoff: Backoff) -> RetryProfile {
    let mut p: RetryProfile = serde_json::from_value(serde_json::json!({
        "format": "retryscope-profile/1",
        "name": "prop",
        "backoff": { "strategy": "fixed" }
    }))
    .expect("minimal profile parses");
    p.backoff = backoff;
    p
}

fn response(headers: Vec<(String, String)>) -> AttemptOutcome {
    AttemptOutcome::Response(ResponseSummary {
        status: 503,
        reason: String::new(),
        version: "HTTP/1.1".into(),
        headers,
        body: retryscope::model::BodyPreview::default(),
    })
}

fn ms() -> impl PropStrategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        1u64..5_000,
        1u64..=MAX_WAIT_MS,
        Just(MAX_WAIT_MS),
        any::<u64>(),
        Just(u64::MAX),
    ]
}

fn retry() -> impl PropStrategy<Value = u32> {
    prop_oneof![0u32..70, Just(u32::MAX), any::<u32>(), 1000u32..1100]
}

fn ratio() -> impl PropStrategy<Value = f64> {
    prop_oneof![
        0.0f64..=1.0,
        any::<f64>(),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(-1.0)
    ]
}

fn computed() -> impl PropStrategy<Value = Strategy> {
    prop_oneof![
        Just(Strategy::Exponential),
        Just(Strategy::ExponentialProportional),
        Just(Strategy::FullJitter),
        Just(Strategy::EqualJitter),
        Just(Strategy::DecorrelatedJitter),
        Just(Strategy::Fixed),
    ]
}

prop_compose! {
    fn backoff(strategy: Strategy)(
        b in ms(),
        c in proptest::option::of(ms()),
        w in ms(),
        p in ratio(),
        hard_cap in any::<bool>(),
    ) -> Backoff {
        let mut bo = Backoff::new(strategy);
        bo.base_delay_ms = b;
        bo.max_delay_ms = c;
        bo.jitter_window_ms = w;
        bo.jitter_ratio = p;
        bo.hard_cap = hard_cap;
        bo
    }
}

/// Independent statement of DESIGN.md §2's ranges (not the library's code): `[low, high]` of
/// wait n, before rounding to whole ms, with `prev` for decorrelated jitter.
fn oracle(bo: &Backoff, n: u32, prev: Option<u64>) -> (f64, f64) {
    let b = bo.base_delay_ms as f64;
    let c = bo.max_delay_ms.map_or(DAY, |c| (c as f64).min(DAY));
    let w = bo.jitter_window_ms as f64;
    let e = f64::from(n.min(900));
    let t = (b * 2f64.powf(e - 1.0)).ceil().min(c);
    let p = if bo.jitter_ratio.is_nan() {
        0.0
    } else {
        bo.jitter_ratio.clamp(0.0, 1.0)
    };
    let (low, high) = match bo.strategy {
        Strategy::Exponential => (0.0, (b * (2f64.powf(e) - 1.0)).ceil().min(c) + w),
        Strategy::ExponentialProportional => (t * (1.0 - p), t * (1.0 + p)),
        Strategy::FullJitter => (0.0, t),
        Strategy::EqualJitter => (t / 2.0, t),
        Strategy::DecorrelatedJitter => {
            let three = 3.0 * prev.unwrap_or(bo.base_delay_ms) as f64;
            (b.min(three).min(c), b.max(three).min(c))
        }
        Strategy::Fixed => (b.min(c), b.min(c) + w),
        Strategy::ResponseHeader | Strategy::Custom => unreachable!("not computed"),
    };
    let limit = if bo.hard_cap && bo.max_delay_ms.is_some() {
        c
    } else {
        DAY
    };
    (low.min(limit).ceil(), high.min(limit).ceil())
}

/// The last figure the explanation gives in ms (`… = 3182 ms`, `→ capped to 5000 ms (…)`).
fn final_figure(text: &str) -> Option<u64> {
    let at = text.rfind(" ms")?;
    let start = text[..at]
        .rfind(|ch: char| !ch.is_ascii_digit())
        .map_or(0, |i| i + 1);
    text[start..at].parse().ok()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn computed_waits_lie_within_documented_bounds(
        bo in computed().prop_flat_map(backoff),
        n in retry(),
        prev in proptest::option::of(ms()),
        seed in any::<u64>(),
    ) {
        let policy = Policy::new(profile(bo.clone())).expect("computed profiles always build");
        let outcome = response(Vec::new());
        let ctx = WaitContext { retry: n, outcome: &outcome, elapsed_ms: 0, prev_wait_ms: prev,
                                time_left_ms: None, now_unix_ms: 0 };
        let WaitDecision::Wait(e) = policy.next_wait(&ctx, &mut rng_from_seed(seed)) else {
            panic!("computed strategies always wait");
        };
        let v = e.wait_ms as f64;
        prop_assert!(e.wait_ms <= MAX_WAIT_MS, "{}", e.text);
        if bo.hard_cap && let Some(c) = bo.max_delay_ms {
            prop_assert!(e.wait_ms <= c, "hard_cap {c}: {}", e.text);
        }
        let (low, high) = oracle(&bo, n, prev);
        prop_assert!(low <= v && v <= high, "{v} not in [{low}, {high}]: {}", e.text);
        prop_assert!(e.text.starts_with(&format!("retry {n}: {}", bo.strategy.id())), "{}", e.text);
        prop_assert_eq!(final_figure(&e.text), Some(e.wait_ms), "{}", e.text);
        if bo.strategy != Strategy::DecorrelatedJitter || (prev.is_none() && n <= 1) {
            // The library's own bounds (decorrelated: only for its own schedule, tested below).
            let hi = max_wait_bound(&bo, n).expect("computed");
            let lo = min_wait_bound(&bo, n).expect("computed");
            prop_assert!(lo <= v && v <= hi, "{v} not in bounds [{lo}, {hi}]: {}", e.text);
            prop_assert!(hi <= high && lo >= low, "bounds [{lo}, {hi}] outside oracle [{low}, {high}]");
        }
    }

    #[test]
    fn decorrelated_schedules_lie_within_library_bounds(
        bo in backoff(Strategy::DecorrelatedJitter),
        seed in any::<u64>(),
    ) {
        let policy = Policy::new(profile(bo.clone())).expect("builds");
        let outcome = response(Vec::new());
        let mut rng = rng_from_seed(seed);
        let mut prev = None;
        for n in 1..=25u32 {
            let ctx = WaitContext { retry: n, outcome: &outcome, elapsed_ms: 0, prev_wait_ms: prev,
                                    time_left_ms: None, now_unix_ms: 0 };
            let WaitDecision::Wait(e) = policy.next_wait(&ctx, &mut rng) else { panic!("waits") };
            let lo = min_wait_bound(&bo, n).expect("computed");
            let hi = max_wait_bound(&bo, n).expect("computed");
            let v = e.wait_ms as f64;
            prop_assert!(lo <= v && v <= hi, "n={n}: {v} not in [{lo}, {hi}]: {}", e.text);
            prev = Some(e.wait_ms);
        }
    }

    #[test]
    fn response_header_never_panics_and_respects_limits(
        fallback in computed().prop_flat_map(backoff),
        outer in backoff(Strategy::ResponseHeader),
        raw in prop_oneof![any::<String>(), "[0-9]{1,25}(\\.[0-9]{1,6})?", Just("-1".to_owned())],
        unit in prop_oneof![
            Just(HeaderUnit::Seconds), Just(HeaderUnit::Milliseconds), Just(HeaderUnit::UnixTimestamp),
            Just(HeaderUnit::HttpDate), Just(HeaderUnit::RatelimitT)
        ],
        max in any::<bool>(),
        cap in any::<bool>(),
        time_left in proptest::option::of(ms()),
        n in retry(),
        now in any::<i64>(),
    ) {
        let mut bo = outer;
        bo.headers = vec![DelayHeader { name: "Retry-After".into(), unit }];
        bo.fallback = Some(Box::new(fallback));
        bo.combine = if max { Combine::Max } else { Combine::Replace };
        bo.on_exceed_max = if cap { OnExceedMax::Cap } else { OnExceedMax::Stop };
        let policy = Policy::new(profile(bo.clone())).expect("computed fallback builds");
        let outcome = response(vec![("retry-after".into(), raw.clone())]);
        let ctx = WaitContext { retry: n, outcome: &outcome, elapsed_ms: 0, prev_wait_ms: None,
                                time_left_ms: time_left, now_unix_ms: now };
        match policy.next_wait(&ctx, &mut rng_from_seed(1)) {
            WaitDecision::Wait(e) => {
                prop_assert!(e.wait_ms <= MAX_WAIT_MS);
                prop_assert_eq!(final_figure(&e.text), Some(e.wait_ms), "{}", e.text);
                if bo.hard_cap && let Some(c) = bo.max_delay_ms {
                    prop_assert!(e.wait_ms <= c);
                }
                if let Some(delay) = parse_delay(&raw, unit, now) {
                    let c = bo.max_delay_ms.map_or(MAX_WAIT_MS, |c| c.min(MAX_WAIT_MS));
                    if delay.ms <= c.min(time_left.unwrap_or(u64::MAX)) && !bo.hard_cap {
                        // The server's delay is honoured: never earlier than asked.
                        prop_assert!(e.wait_ms >= delay.ms.min(MAX_WAIT_MS), "{}", e.text);
                    }
                } else {
                    prop_assert!(e.text.contains("fallback: "), "{}", e.text);
                }
            }
            WaitDecision::Stop { reason } => {
                prop_assert!(!cap && reason.starts_with("server asked for "), "{reason}");
            }
            WaitDecision::ScriptError { message } => prop_assert!(false, "{message}"),
        }
    }

    #[test]
    fn delay_parsing_accepts_only_its_forms(
        raw in prop_oneof![
            any::<String>(),
            "[ ]?[0-9]{1,22}(\\.[0-9]{0,4})?[ ]?",
            "[+-]?[0-9]{1,5}(e[0-9])?",
        ],
        now in 0i64..4_102_444_800_000,
    ) {
        let value = raw.trim();
        let decimal = !value.is_empty()
            && value.chars().all(|c| c.is_ascii_digit() || c == '.')
            && value.matches('.').count() <= 1
            && !value.starts_with('.')
            && !value.ends_with('.');
        let date = httpdate::parse_http_date(value).is_ok();
        // Milliseconds: a plain decimal and nothing else, whole ms exactly.
        let ms = parse_delay(&raw, HeaderUnit::Milliseconds, now);
        prop_assert_eq!(ms.is_some(), decimal, "{:?} as ms: {:?}", raw, ms);
        if let (Some(d), Ok(whole)) = (ms, value.parse::<u64>()) {
            prop_assert_eq!(d.ms, whole);
        }
        // Seconds: a decimal (×1000) or, per RFC 9110, an HTTP-date.
        let secs = parse_delay(&raw, HeaderUnit::Seconds, now);
        prop_assert_eq!(secs.is_some(), decimal || date, "{:?} as seconds: {:?}", raw, secs);
        if let (Some(d), Ok(whole)) = (secs, value.parse::<u64>()) {
            prop_assert_eq!(d.ms, whole.saturating_mul(1000));
        }
        // HTTP-date only: never a bare number.
        let at = parse_delay(&raw, HeaderUnit::HttpDate, now);
        prop_assert_eq!(at.is_some(), date, "{:?} as a date: {:?}", raw, at);
        // A Unix timestamp: the same decimals, as an instant minus the reference, never negative.
        let ts = parse_delay(&raw, HeaderUnit::UnixTimestamp, now);
        prop_assert_eq!(ts.is_some(), decimal, "{:?} as a timestamp: {:?}", raw, ts);
        if let (Some(d), Ok(whole)) = (ts, value.parse::<u64>()) {
            let want = (i128::from(whole) * 1000 - i128::from(now)).max(0);
            prop_assert_eq!(i128::from(d.ms), want.min(i128::from(u64::MAX)));
        }
        // A RateLimit value: only with a `t=` or `reset=` parameter.
        let t = parse_delay(&raw, HeaderUnit::RatelimitT, now);
        let has_param = value.split([',', ';']).any(|p| {
            p.split_once('=').is_some_and(|(k, _)| ["t", "reset"].contains(&k.trim().to_ascii_lowercase().as_str()))
        });
        // (A bare number is `RateLimit-Reset: 30`, read as seconds.)
        prop_assert!(t.is_none() || has_param || decimal, "{:?} as RateLimit: {:?}", raw, t);
    }

    /// A well-formed `RateLimit` value (the structured draft's `"name";r=R;t=T` or the older
    /// `limit=L, remaining=R, reset=T`, in any parameter order and case) gives exactly T seconds
    /// when the quota is exhausted (R = 0), and no delay while requests are left.
    #[test]
    fn ratelimit_values_give_their_t_seconds(
        t in prop_oneof![0u64..100_000, any::<u32>().prop_map(u64::from)],
        frac in proptest::option::of(0u32..1000),
        r in prop_oneof![3 => Just(0u64), 1 => 1u64..10_000],
        limit in 1u64..100_000,
        structured in any::<bool>(),
        upper in any::<bool>(),
        t_first in any::<bool>(),
        quoted in any::<bool>(),
    ) {
        let t_text = match frac { Some(f) => format!("{t}.{f:03}"), None => t.to_string() };
        let want = t * 1000 + u64::from(frac.unwrap_or(0));
        let (t_param, others, sep) = if structured {
            let key = if upper { "T" } else { "t" };
            let value = if quoted { format!("\"{t_text}\"") } else { t_text.clone() };
            (format!("{key}={value}"), vec!["\"default\"".to_owned(), format!("r={r}")], ";")
        } else {
            let key = if upper { "Reset" } else { "reset" };
            (format!("{key}={t_text}"), vec![format!("limit={limit}"), format!("remaining={r}")], ", ")
        };
        let mut parts = others.clone();
        parts.insert(if t_first { usize::from(structured) } else { parts.len() }, t_param);
        let raw = parts.join(sep);
        let got = parse_delay(&raw, HeaderUnit::RatelimitT, 0);
        // Only an exhausted quota (r / remaining = 0) asks for a delay; with requests left the
        // fallback decides (DECISIONS "RateLimit").
        if r == 0 {
            prop_assert_eq!(got.map(|d| d.ms), Some(want), "{}", raw);
            prop_assert_eq!(got.map(|d| d.form), Some(DelayForm::RatelimitT));
        } else {
            prop_assert_eq!(got, None, "{}", raw);
        }
        // Without its t/reset parameter the same value says nothing about when.
        let without = others.join(sep);
        prop_assert_eq!(parse_delay(&without, HeaderUnit::RatelimitT, 0), None, "{}", without);
    }

    /// Delay-seconds `n` is exactly `n × 1000` ms (saturating), delay-ms `n` exactly `n`.
    #[test]
    fn delay_seconds_are_n_thousand_ms(n in prop_oneof![0u64..1_000_000, any::<u64>()], now in any::<i64>()) {
        let secs = parse_delay(&n.to_string(), HeaderUnit::Seconds, now);
        prop_assert_eq!(secs.map(|d| d.ms), Some(n.saturating_mul(1000)));
        prop_assert_eq!(secs.map(|d| d.form), Some(DelayForm::Seconds));
        let ms = parse_delay(&format!(" {n} "), HeaderUnit::Milliseconds, now);
        prop_assert_eq!(ms.map(|d| d.ms), Some(n));
    }

    /// An HTTP-date written in IMF-fixdate or asctime form reads back as the same second, and
    /// as a delay it is that instant minus the reference (0 once past).
    #[test]
    fn http_dates_round_trip(secs in 0i64..253_402_300_800, reference in 0i64..253_402_300_800_000) {
        let at = UNIX_EPOCH + Duration::from_secs(secs.unsigned_abs());
        let fixdate = httpdate::fmt_http_date(at);
        let when = chrono::DateTime::from_timestamp(secs, 0).expect("in range");
        let asctime = when.format("%a %b %e %H:%M:%S %Y").to_string();
        let want = u64::try_from((secs * 1000 - reference).max(0)).expect("non-negative");
        for text in [&fixdate, &asctime] {
            prop_assert_eq!(parse_http_date_ms(text), Some(secs * 1000), "{}", text);
            for unit in [HeaderUnit::HttpDate, HeaderUnit::Seconds] {
                let d = parse_delay(text, unit, reference);
                prop_assert_eq!(d.map(|d| d.ms), Some(want), "{} as {:?}", text, unit);
                prop_assert_eq!(d.map(|d| d.form), Some(DelayForm::HttpDate));
            }
        }
    }

    #[test]
    fn whole_seconds_parse_exactly(s in 0u64..10_000_000_000, frac in proptest::option::of(0u32..1000)) {
        let raw = match frac { Some(f) => format!("{s}.{f:03}"), None => s.to_string() };
        let want = s * 1000 + u64::from(frac.unwrap_or(0));
        prop_assert_eq!(parse_delay(&raw, HeaderUnit::Seconds, 0).map(|d| d.ms), Some(want));
    }

    #[test]
    fn custom_results_are_capped_or_rejected(value in any::<f64>(), c in proptest::option::of(ms())) {
        let mut bo = Backoff::new(Strategy::Custom);
        bo.max_delay_ms = c;
        // `rand()` is drawn and ignored, so the explanation carries a draw note too.
        bo.script = Some(
            "fn get_delay(ctx) { let r = rand(); ctx.headers[\"x-v\"].parse_float() }".into(),
        );
        let policy = Policy::new(profile(bo)).expect("compiles");
        let outcome = response(vec![("x-v".into(), format!("{value:?}"))]);
        let ctx = WaitContext { retry: 1, outcome: &outcome, elapsed_ms: 0, prev_wait_ms: None,
                                time_left_ms: None, now_unix_ms: 0 };
        match policy.next_wait(&ctx, &mut rng_from_seed(1)) {
            WaitDecision::Wait(e) => {
                prop_assert!(value.is_finite() && value >= 0.0, "{value} accepted");
                let cap = c.map_or(MAX_WAIT_MS, |c| c.min(MAX_WAIT_MS));
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "finite, ≥ 0 and at most the cap")]
                let want = value.ceil().min(cap as f64) as u64;
                prop_assert_eq!(e.wait_ms, want);
                prop_assert_eq!(final_figure(&e.text), Some(e.wait_ms), "{}", e.text);
            }
            WaitDecision::ScriptError { message } => {
                prop_assert!(!(value.is_finite() && value >= 0.0), "{value} rejected: {message}");
            }
            WaitDecision::Stop { reason } => prop_assert!(false, "{reason}"),
        }
    }
}
