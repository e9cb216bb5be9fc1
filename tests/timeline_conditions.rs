//! The window's timeline shows which condition decided (DESIGN.md §8): a polling run against the
//! demo server on 127.0.0.1, folded into the timeline the table and detail pane draw from.

#![allow(clippy::unwrap_used)]

mod engine_support;

use engine_support::*;
use retryscope::demo::DemoServer;
use retryscope::model::RequestSpec;
use retryscope::ui::timeline::Timeline;
use std::time::Instant;

#[tokio::test]
async fn not_ready_and_matched_retries_are_named_on_the_timeline() {
    let server = DemoServer::start(0).await.unwrap();
    let p = profile(serde_json::json!({
        "max_retries": 5,
        "retry_on": {"response": [{"status": [200], "body_contains": "rate limit"}]},
        "success_when": [{"json_pointer": "/state", "equals": "done"}],
        "backoff": { "strategy": "fixed", "base_delay_ms": 5 },
    }));
    let mut events = run(
        RequestSpec::get(server.url("/soft-limit?times=1&key=tl-soft")),
        p.clone(),
    )
    .await;
    events.extend(
        run(
            RequestSpec::get(server.url("/job?ready_after=1&key=tl-job")),
            p,
        )
        .await,
    );
    let (soft, job) = events.split_at(
        events
            .iter()
            .position(|e| matches!(e, retryscope::model::RunEvent::RunFinished { .. }))
            .unwrap()
            + 1,
    );
    let text = |events: &[retryscope::model::RunEvent]| {
        let mut timeline = Timeline::new(1, "");
        for e in events {
            timeline.apply(
                retryscope::model::secrets::mask_event(e.clone(), &[]),
                Instant::now(),
            );
        }
        timeline.to_text()
    };
    let soft = text(soft);
    assert!(
        soft.contains(r#"retry: status 200 and body contains "rate limit""#),
        "{soft}"
    );
    let job = text(job);
    let lines: Vec<&str> = job.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(lines.len(), 2, "{job}");
    assert!(
        lines[0].ends_with(r#"retry: not ready: /state is "pending", want "done""#),
        "{job}"
    );
    assert!(
        lines[1].ends_with(r#"success: /state is "done""#),
        "the success names the condition that held: {job}"
    );
}
