//! The timeline plot as PNG: drawn without a display, it decodes, has the size asked for, and
//! is not blank (attempt colours and the wait grey are in it). Also the CLI's `history export
//! --format png` and `run --png` against the demo server on 127.0.0.1.

mod demo_support;

use chrono::DateTime;
use retryscope::interop::{TimelinePlot, render_png};
use retryscope::model::{AttemptClass, ErrorKind, OutcomeKind, RunFold, Verdict};
use retryscope::testkit::EventScript;
use retryscope::testkit::{net_error, response, retry};

fn fold() -> RunFold {
    let start = DateTime::parse_from_rfc3339("2026-11-30T14:00:00.000+01:00").expect("valid");
    EventScript::new(1, "GET", "http://127.0.0.1:8080/status/503?times=2", start)
        .attempt(response(503, &[], "busy"), retry("503 is retryable"), 40.0)
        .wait(300, 301.5)
        .attempt(
            net_error(ErrorKind::Reset, "connection reset"),
            retry("reset is retryable"),
            30.0,
        )
        .wait(600, 600.25)
        .attempt(response(200, &[], "{}"), Verdict::SUCCESS, 50.0)
        .finish(OutcomeKind::Succeeded, "succeeded on attempt 3", Some(200))
        .fold()
}

/// Width, height and RGB(A) pixels of a PNG.
fn decode(bytes: &[u8]) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size().expect("size known")];
    let info = reader.next_frame(&mut buf).expect("a PNG frame");
    let channels = info.color_type.samples();
    let pixels = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width, info.height, pixels)
}

fn count(pixels: &[[u8; 3]], rgb: [u8; 3]) -> usize {
    pixels.iter().filter(|p| **p == rgb).count()
}

#[test]
fn the_plot_of_a_run_decodes_at_its_size_and_shows_its_bars() {
    let plot = TimelinePlot::of_fold(&fold());
    assert_eq!(plot.attempts.len(), 3);
    assert_eq!(
        plot.attempts
            .iter()
            .map(retryscope::model::AttemptRow::class)
            .collect::<Vec<_>>(),
        [
            AttemptClass::Retryable,
            AttemptClass::NetworkError,
            AttemptClass::Success
        ]
    );
    let waits: Vec<_> = plot
        .attempts
        .iter()
        .filter_map(|a| a.wait.as_ref())
        .collect();
    assert_eq!(waits.len(), 2);
    assert_eq!(waits[0].planned_ms, 300);
    assert_eq!(waits[0].actual_ms, Some(301.5));
    assert!(
        plot.title
            .starts_with("GET http://127.0.0.1:8080/status/503"),
        "{}",
        plot.title
    );
    assert!(
        plot.title.contains("succeeded, 3 attempts"),
        "{}",
        plot.title
    );

    let bytes = render_png(&plot, 900, 300).expect("renders");
    // `RETRYSCOPE_PNG_SAMPLE=/tmp/plot.png cargo test --test interop_png` keeps it for a look.
    if let Some(path) = std::env::var_os("RETRYSCOPE_PNG_SAMPLE") {
        std::fs::write(path, &bytes).expect("sample written");
    }
    let (w, h, pixels) = decode(&bytes);
    assert_eq!((w, h), (900, 300));
    let white = count(&pixels, [255, 255, 255]);
    assert!(white < pixels.len(), "not blank");
    // Each class colour and the wait grey fill a bar of many pixels (legend swatches are 13×13).
    for (name, rgb) in [
        ("retryable", [219, 150, 20]),
        ("network error", [137, 87, 229]),
        ("success", [46, 160, 67]),
        ("wait", [140, 140, 140]),
    ] {
        assert!(count(&pixels, rgb) > 400, "{name} bar missing");
    }
    // Text was drawn (dark anti-aliased pixels beyond the bars and axes).
    let dark = pixels.iter().filter(|p| p.iter().all(|c| *c < 100)).count();
    assert!(dark > 500, "no text or axes: {dark}");
}

#[test]
fn a_run_without_attempts_still_draws_axes() {
    let bytes = render_png(&TimelinePlot::default(), 400, 200).expect("renders");
    let (w, h, pixels) = decode(&bytes);
    assert_eq!((w, h), (400, 200));
    assert!(count(&pixels, [255, 255, 255]) < pixels.len());
}

#[test]
fn run_png_and_history_export_png_write_the_plot() {
    let demo = demo_support::Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let run_png = dir.path().join("run.png");
    let profile = dir.path().join("fast.json");
    std::fs::write(
        &profile,
        r#"{"format": "retryscope-profile/1", "name": "fast", "max_retries": 3,
            "retry_on": {"status": [503]},
            "backoff": {"strategy": "fixed", "base_delay_ms": 10}}"#,
    )
    .expect("profile written");
    demo_support::retryscope(dir.path())
        .args(["run", "--seed", "3", "--profile"])
        .arg(&profile)
        .arg("--png")
        .arg(&run_png)
        .arg(demo.url("/status/503?times=1&key=png"))
        .assert()
        .code(0);
    let (w, h, pixels) = decode(&std::fs::read(&run_png).expect("written"));
    assert_eq!((w, h), (1200, 400));
    assert!(count(&pixels, [46, 160, 67]) > 400, "the success bar");

    let out = demo_support::retryscope(dir.path())
        .args(["history", "list", "--json", "--limit", "1"])
        .assert()
        .code(0)
        .get_output()
        .clone();
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let id = listed["id"].as_str().expect("id");
    let exported = dir.path().join("exported.png");
    demo_support::retryscope(dir.path())
        .args(["history", "export", id, "--format", "png", "-o"])
        .arg(&exported)
        .assert()
        .code(0);
    let (w, h, again) = decode(&std::fs::read(&exported).expect("written"));
    assert_eq!((w, h), (1200, 400));
    assert_eq!(
        count(&again, [219, 150, 20]) > 400,
        count(&pixels, [219, 150, 20]) > 400,
        "the retryable attempt shows in both"
    );
    demo_support::retryscope(dir.path())
        .args(["history", "export", id, "--format", "png"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("give -o FILE.png"));
}
