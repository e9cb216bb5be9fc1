//! `retryscope report` and `retryscope whatif` over runs recorded against the demo server on
//! 127.0.0.1; the HTML report is opened in headless Chromium: it renders, logs nothing to the
//! console, and every figure it shows (`data-figure` / `data-value`) equals the JSON report's.
//!
//! Without Chromium the browser test skips with a message, unless `RETRYSCOPE_REQUIRE_TOOLS=1`
//! or `CI` is set (as .ci/run does): then it fails.

mod demo_support;
mod tool_support;

use demo_support::{Demo, retryscope};
use std::path::Path;

/// The secret the runs send; no report may contain it.
const SECRET: &str = "Bearer tops3cret-report-value";

/// A profile retrying 429 and 503 twice after 20 ms, honouring Retry-After.
const PROFILE: &str = r#"{
  "format": "retryscope-profile/2",
  "name": "report test",
  "max_retries": 2,
  "retry_on": { "status": [429, 503] },
  "backoff": { "strategy": "response_header", "headers": [{ "name": "Retry-After", "unit": "seconds" }],
               "max_delay_ms": 2000,
               "fallback": { "strategy": "fixed", "base_delay_ms": 20 } }
}"#;

/// Six runs: three succeed at once, one after a 429 with `Retry-After: 0.2`, one after a 503,
/// one gives up after three 503s.
fn record(demo: &Demo, dir: &Path) -> std::path::PathBuf {
    let profile = dir.join("profile.json");
    std::fs::write(&profile, PROFILE).expect("profile");
    let paths = [
        ("/status/200", 0),
        ("/retry-after?value=0.2&status=429&times=1&key=ra", 0),
        ("/status/503?times=1&key=once", 0),
        ("/status/503", 1),
        ("/status/200", 0),
        ("/status/200", 0),
    ];
    for (path, code) in paths {
        retryscope(dir)
            .args(["run", "--no-body", "--seed", "1", "-H"])
            .arg(format!("Authorization: {SECRET}"))
            .arg("--profile")
            .arg(&profile)
            .arg(demo.url(path))
            .assert()
            .code(code);
    }
    profile
}

fn json_report(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let out = retryscope(dir)
        .args([
            "report",
            "--url",
            "127.0.0.1",
            "--since",
            "1h",
            "--format",
            "json",
        ])
        .args(extra)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).expect("JSON figures")
}

#[test]
fn the_json_figures_match_a_hand_count_of_the_runs() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    record(&demo, dir.path());
    let f = json_report(dir.path(), &[]);
    assert_eq!(f["format"], "retryscope-report/1");
    assert_eq!(f["runs"]["total"], 6);
    assert_eq!(f["runs"]["succeeded"], 5);
    assert_eq!(f["runs"]["failed_by_outcome"]["gave_up"], 1);
    assert_eq!(f["attempts_per_run"]["total"], 1 + 2 + 2 + 3 + 1 + 1);
    assert_eq!(f["failures"][0]["label"], "503");
    assert_eq!(f["failures"][0]["attempts"], 4);
    let header = &f["delay_headers"][0];
    assert_eq!(header["name"], "retry-after");
    assert_eq!(
        (
            header["retried"].as_u64(),
            header["waited_at_least_asked"].as_u64()
        ),
        (Some(1), Some(1))
    );
    assert_eq!(f["longest_outage"]["runs"], 1);
    assert_eq!(f["informative_runs"].as_array().map(Vec::len), Some(3));
    let text = f.to_string();
    assert!(
        !text.contains("tops3cret"),
        "the secret leaked into the JSON"
    );
    assert!(
        text.contains("\"Authorization\",\"***\""),
        "{}",
        f["request"]
    );
    // --until before every run selects none.
    retryscope(dir.path())
        .args([
            "report", "--since", "2h", "--until", "1h", "--format", "json",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no recorded run matches"));
}

#[test]
fn markdown_is_written_with_its_png_plots_beside_it() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    record(&demo, dir.path());
    let md = dir.path().join("ticket.md");
    retryscope(dir.path())
        .args(["report", "--since", "1h", "--format", "md", "-o"])
        .arg(&md)
        .assert()
        .success();
    let text = std::fs::read_to_string(&md).expect("markdown");
    for name in [
        "ticket-over-time.png",
        "ticket-run-1.png",
        "ticket-run-3.png",
    ] {
        assert!(text.contains(&format!("]({name})")), "{name} not linked");
        let png = std::fs::read(dir.path().join(name)).expect("png written");
        assert_eq!(&png[1..4], b"PNG", "{name}");
    }
    assert!(!text.contains("tops3cret"));

    // Without --format, -o's extension picks it.
    for (file, starts) in [("guess.md", "# Flakiness report"), ("guess.json", "{")] {
        let path = dir.path().join(file);
        retryscope(dir.path())
            .args(["report", "--since", "1h", "-o"])
            .arg(&path)
            .assert()
            .success();
        let text = std::fs::read_to_string(&path).expect("written");
        assert!(
            text.starts_with(starts),
            "{file}: {}",
            &text[..40.min(text.len())]
        );
    }
}

#[test]
fn whatif_ranks_the_profiles_and_marks_the_recorded_one() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let profile = record(&demo, dir.path());
    let out = retryscope(dir.path())
        .args(["whatif", "--since", "1h", "--json", "--profiles"])
        .arg(format!("{},envoy-route", profile.display()))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let r: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
    assert_eq!(r["format"], "retryscope-whatif/1");
    assert_eq!(r["runs"], 6);
    let candidates = r["candidates"].as_array().expect("candidates");
    assert_eq!(candidates.len(), 2, "the recorded profile is listed once");
    let current: Vec<&serde_json::Value> =
        candidates.iter().filter(|c| c["current"] == true).collect();
    assert_eq!(current.len(), 1);
    assert_eq!(current[0]["name"], "report test");
    // Its own replay (no jitter) sends when the recorded attempts were sent, so it meets the
    // recorded answers: the same share.
    assert_eq!(current[0]["success"]["value"], r["recorded"]["value"]);
    // The what-if's recorded share is the report's success rate.
    let report = json_report(dir.path(), &[]);
    assert_eq!(r["recorded"]["value"], report["success_rate"]["value"]);
    assert_eq!(r["recorded"]["trials"], report["success_rate"]["trials"]);
    let ranks: Vec<u64> = candidates
        .iter()
        .filter_map(|c| c["rank"].as_u64())
        .collect();
    assert_eq!(ranks, [1, 2]);
    let table = retryscope(dir.path())
        .args(["whatif", "--since", "1h", "--profiles", "envoy-route"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8(table).expect("utf-8");
    assert!(
        table.contains("* ") && table.contains("assumptions:"),
        "{table}"
    );
}

/// Headless Chromium on `page` with `args`: (stdout, stderr).
fn chromium(page: &Path, args: &[&str]) -> (String, String) {
    let profile = tempfile::tempdir().expect("browser profile");
    let out = assert_cmd::Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .timeout(std::time::Duration::from_secs(90))
        .output()
        .expect("chromium runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The browser's console lines (`…:CONSOLE:…] "message"`).
fn console_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

#[test]
fn the_html_report_renders_in_chromium_without_console_errors_and_shows_the_json_figures() {
    if !tool_support::tool_available("chromium", &["--version"], "Debian: chromium") {
        return;
    }
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    record(&demo, dir.path());
    let page = dir.path().join("report.html");
    retryscope(dir.path())
        .args(["report", "--url", "127.0.0.1", "--since", "1h", "-o"])
        .arg(&page)
        .assert()
        .success();
    let html = std::fs::read_to_string(&page).expect("html");
    assert!(
        !html.contains("tops3cret"),
        "the secret leaked into the page"
    );
    let json = json_report(dir.path(), &[]);

    // The detector sees console messages: a page that breaks its own policy logs them.
    let control = dir.path().join("control.html");
    std::fs::write(
        &control,
        "<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\">\
         <script>console.error('boom')</script>",
    )
    .expect("control page");
    let (_, stderr) = chromium(&control, &["--dump-dom"]);
    assert!(
        !console_lines(&stderr).is_empty(),
        "no console line seen:\n{stderr}"
    );

    let (dom, stderr) = chromium(&page, &["--dump-dom"]);
    assert_eq!(console_lines(&stderr), Vec::<&str>::new());
    assert!(
        dom.contains("id=\"report\"") && dom.contains("<svg"),
        "not rendered:\n{dom}"
    );
    let re = regex::Regex::new(r#"data-figure="([^"]+)" data-value="([^"]+)""#).expect("regex");
    let mut checked = 0;
    for cap in re.captures_iter(&dom) {
        let mut at = &json;
        for key in cap[1].split('.') {
            at = match at {
                serde_json::Value::Array(items) => &items[key.parse::<usize>().expect("index")],
                other => &other[key],
            };
        }
        let shown: f64 = cap[2].parse().expect("a number");
        assert_eq!(
            at.as_f64(),
            Some(shown),
            "{} in the page differs from the JSON",
            &cap[1]
        );
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} figures in the DOM");

    let shot = dir.path().join("shot.png");
    let (_, stderr) = chromium(
        &page,
        &[
            "--window-size=1000,2400",
            &format!("--screenshot={}", shot.display()),
        ],
    );
    assert_eq!(console_lines(&stderr), Vec::<&str>::new());
    let png = std::fs::read(&shot).expect("screenshot written");
    assert!(
        png.len() > 20_000 && &png[1..4] == b"PNG",
        "{} bytes",
        png.len()
    );
}

#[test]
fn dash_is_stdout_and_empty_profile_lists_are_refused() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    record(&demo, dir.path());
    // `-o -` is stdout, as in `run`: JSON and HTML, never a file named `-`.
    let json = json_report(dir.path(), &["-o", "-"]);
    assert_eq!(json["runs"]["total"], 6, "{json}");
    let html = retryscope(dir.path())
        .args(["report", "-o", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&html).starts_with("<!DOCTYPE html>"));
    assert!(!dir.path().join("-").exists(), "no file named -");
    // Markdown writes PNGs beside its file: it needs one.
    retryscope(dir.path())
        .args(["report", "--format", "md", "-o", "-"])
        .assert()
        .code(2);
    for profiles in ["", ",,"] {
        let out = retryscope(dir.path())
            .args(["whatif", "--profiles", profiles])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{profiles:?}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--profiles names no profile"),
            "{out:?}"
        );
    }
}

#[test]
fn a_watch_report_names_the_schedule_and_the_slots_missed_while_a_run_went_on() {
    let demo = Demo::start();
    let dir = tempfile::tempdir().expect("tempdir");
    // Each run takes 700 ms: the slots due while it goes on are missed (busy).
    let out = retryscope(dir.path())
        .args(["watch", "--every", "200ms", "--count", "5"])
        .arg(demo.url("/slow?ms=700"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).expect("UTF-8");
    let id = out
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("watch "))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("`watch ID of …`")
        .to_owned();
    let out = retryscope(dir.path())
        .args(["report", "--watch", &id, "--format", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let f: serde_json::Value = serde_json::from_slice(&out).expect("JSON figures");
    let w = &f["watch"];
    assert_eq!(w["id"], id.as_str(), "{f}");
    assert_eq!(w["state"], "finished");
    assert_eq!(w["schedule"]["every_ms"], 200);
    assert_eq!(w["schedule"]["count"], 5);
    assert_eq!(w["schedule_text"], "every 200 ms, 5 slots");
    assert_eq!(w["slots"], 5);
    assert_eq!(w["sent"], f["runs"]["total"]);
    let missed = &w["missed"];
    let by_kind: Vec<u64> = ["busy", "late", "down"]
        .iter()
        .filter_map(|k| missed[k].as_u64())
        .collect();
    assert!(missed["busy"].as_u64() >= Some(1), "{w}");
    assert_eq!(missed["total"].as_u64(), Some(by_kind.iter().sum()));
    assert_eq!(
        w["sent"]
            .as_u64()
            .zip(missed["total"].as_u64())
            .map(|(a, b)| a + b),
        Some(5)
    );
    // The HTML summary says it too.
    let page = dir.path().join("watch.html");
    retryscope(dir.path())
        .args(["report", "--watch", &id, "-o"])
        .arg(&page)
        .assert()
        .success();
    let html = std::fs::read_to_string(&page).expect("html");
    assert!(
        html.contains("every 200 ms, 5 slots"),
        "no schedule in the page"
    );
    assert!(
        html.contains(&format!(
            "data-figure=\"watch.missed.total\" data-value=\"{}\"",
            missed["total"]
        )),
        "no missed slots in the page"
    );
    // A report of other runs has no watch.
    assert!(json_report(dir.path(), &[]).get("watch").is_none());
}
