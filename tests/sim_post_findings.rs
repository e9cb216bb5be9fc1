//! The contention simulator reproduces the published findings of the AWS Architecture Blog post
//! "Exponential Backoff And Jitter" (Marc Brooker, 2015) for its own setup: an OCC server, base
//! 5 ms, cap 2000 ms, network delay N(10 ms, 2 ms), 100 clients, each figure the mean of 100
//! seeded runs. docs/DECISIONS.md ("Strategy lab") says how the model follows the post and what
//! "about the same" and "slightly" are taken to mean here.

#![allow(
    clippy::float_cmp,
    reason = "means of whole counts and exact bounds of whole ms; the tests compare them exactly"
)]

use retryscope::sim::{
    Contender, ContentionResult, ContentionSetup, POST_BASE_MS, POST_CAP_MS, contention,
};

fn results() -> Vec<ContentionResult> {
    let setup = ContentionSetup::post();
    assert_eq!((setup.clients, setup.runs), (100, 100));
    Contender::standard(POST_BASE_MS, POST_CAP_MS)
        .iter()
        .filter(|c| {
            [
                "no_jitter",
                "full_jitter",
                "equal_jitter",
                "decorrelated_jitter",
            ]
            .contains(&c.id.as_str())
        })
        .map(|c| contention(&setup, c))
        .collect()
}

fn table(all: &[ContentionResult]) -> String {
    all.iter()
        .map(|r| {
            format!(
                "{:<20} calls {:>8.1}  completion {:>8.1} ms  gave up {}",
                r.strategy, r.total_calls, r.completion_ms, r.gave_up
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_posts_orderings_hold_for_100_clients() {
    let all = results();
    let t = table(&all);
    let [none, full, equal, decorr] = [
        "no_jitter",
        "full_jitter",
        "equal_jitter",
        "decorrelated_jitter",
    ]
    .map(|id| {
        all.iter()
            .find(|r| r.strategy == id)
            .expect("simulated")
            .clone()
    });
    for r in &all {
        assert_eq!(r.gave_up, 0.0, "every client completes\n{t}");
    }
    // "we've reduced our call count by more than half"
    assert!(
        full.total_calls < none.total_calls / 2.0,
        "full jitter makes less than half the calls of un-jittered exponential\n{t}"
    );
    // "The no-jitter exponential backoff approach is the clear loser": more work and more time.
    for j in [&full, &equal, &decorr] {
        assert!(
            none.total_calls > j.total_calls,
            "no jitter does more work than {}\n{t}",
            j.strategy
        );
        assert!(
            none.completion_ms > j.completion_ms,
            "no jitter takes longer than {}\n{t}",
            j.strategy
        );
    }
    // Full and equal do about the same work (within 15 %), decorrelated somewhat more.
    let (lo, hi) = (
        full.total_calls.min(equal.total_calls),
        full.total_calls.max(equal.total_calls),
    );
    assert!(hi <= lo * 1.15, "full and equal: about the same work\n{t}");
    assert!(
        decorr.total_calls > hi,
        "decorrelated does more work than full and equal\n{t}"
    );
    // Equal jitter takes the longest of the jittered ones.
    assert!(
        equal.completion_ms > full.completion_ms && equal.completion_ms > decorr.completion_ms,
        "equal jitter takes the longest of the jittered\n{t}"
    );
    // Full jitter takes slightly longer than decorrelated (longer, by less than half).
    assert!(
        full.completion_ms > decorr.completion_ms
            && full.completion_ms < decorr.completion_ms * 1.5,
        "full jitter slightly longer than decorrelated\n{t}"
    );
}

#[test]
fn the_same_seed_gives_the_same_figures() {
    let mut setup = ContentionSetup::post();
    (setup.clients, setup.runs) = (30, 5);
    let full = &Contender::standard(POST_BASE_MS, POST_CAP_MS)[1];
    assert_eq!(contention(&setup, full), contention(&setup, full));
    let mut other = setup;
    other.seed = 2;
    assert_ne!(contention(&setup, full), contention(&other, full));
}
