//! The exported retry settings run by the real tools against the demo server on 127.0.0.1:
//! curl's flags, urllib3's `Retry(...)` and tenacity's `retry(...)` make the attempt count and
//! wait bounds the profile predicts (urllib3's documented difference before retry 1 included).
//!
//! Without curl or Python's urllib3 + tenacity the tests skip with a message, unless
//! `RETRYSCOPE_REQUIRE_TOOLS=1` or `CI` is set (as .ci/run does): then they fail.

mod demo_support;
mod tool_support;

use demo_support::Demo;
use retryscope::interop::retry_formats::{RetryFormat, export};
use retryscope::model::{Backoff, RetryProfile, StatusRange, StatusSet, Strategy};
use retryscope::policy::{max_wait_bound, min_wait_bound};
use std::process::Command;
use tool_support::tool_available;

/// Scheduling slack above a predicted maximum on a loaded 2-core machine, ms.
const SLACK_MS: f64 = 400.0;
/// Timer granularity below a predicted minimum, ms.
const EARLY_MS: f64 = 5.0;

fn python_ready() -> bool {
    tool_available(
        "python3",
        &["-c", "import urllib3, tenacity"],
        "Python urllib3 and tenacity",
    )
}

fn profile(max_retries: u32, statuses: &[u16], backoff: Backoff) -> RetryProfile {
    let mut p = retryscope::profile::builtin("servicenow-exponential").expect("builtin");
    p.name = "tools test".into();
    p.max_retries = Some(max_retries);
    p.retry_on.status = StatusSet(statuses.iter().map(|c| StatusRange::single(*c)).collect());
    p.backoff = backoff;
    p
}

/// Arrival times (ms) of the requests with scenario key `key`.
fn arrivals(demo: &Demo, key: &str) -> Vec<f64> {
    demo.server
        .log()
        .into_iter()
        .filter(|e| e.key == key)
        .map(|e| e.at_ms)
        .collect()
}

/// Asserts `R + 1` attempts and that gap n lies in the profile's bounds for wait n (or in
/// `override_n(n)` when given, for a documented difference of the tool).
fn assert_schedule(
    tool: &str,
    p: &RetryProfile,
    times: &[f64],
    override_n: impl Fn(u32) -> Option<(f64, f64)>,
) {
    assert_eq!(
        times.len(),
        p.max_retries.expect("a count") as usize + 1,
        "{tool}: attempts seen by the demo server at {times:?}"
    );
    for (i, pair) in times.windows(2).enumerate() {
        let n = u32::try_from(i + 1).expect("small");
        let gap = pair[1] - pair[0];
        let (lo, hi) = override_n(n).unwrap_or_else(|| {
            (
                min_wait_bound(&p.backoff, n).expect("computed strategy"),
                max_wait_bound(&p.backoff, n).expect("computed strategy"),
            )
        });
        assert!(
            gap >= lo - EARLY_MS && gap <= hi + SLACK_MS,
            "{tool}: wait {n} was {gap:.0} ms, the profile predicts [{lo}, {hi}] ms (all arrivals {times:?})"
        );
    }
}

fn run_python(dir: &tempfile::TempDir, module: &str, driver: &str, url: &str) -> String {
    let module_path = dir.path().join("exported.py");
    std::fs::write(&module_path, module).expect("write module");
    let driver_path = dir.path().join("driver.py");
    std::fs::write(&driver_path, driver).expect("write driver");
    let out = Command::new("python3")
        .arg(&driver_path)
        .arg(&module_path)
        .arg(url)
        .env_remove("http_proxy")
        .env_remove("HTTP_PROXY")
        .env_remove("all_proxy")
        .env_remove("ALL_PROXY")
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "python failed: {}\n{stdout}\nmodule:\n{module}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

const LOAD: &str = "import importlib.util, sys\n\
    spec = importlib.util.spec_from_file_location(\"exported\", sys.argv[1])\n\
    m = importlib.util.module_from_spec(spec)\n\
    spec.loader.exec_module(m)\n";

#[test]
fn urllib3_retry_makes_the_predicted_attempts_and_waits() {
    if !python_ready() {
        return;
    }
    let demo = Demo::start();
    let mut b = Backoff::new(Strategy::ExponentialProportional);
    b.base_delay_ms = 200;
    b.max_delay_ms = Some(1000);
    b.jitter_ratio = 0.0;
    let p = profile(3, &[503], b);
    let exported = export(&p, RetryFormat::Urllib3);
    assert!(
        exported
            .not_expressed
            .iter()
            .any(|g| g.starts_with("wait before retry 1: urllib3 retries at once")),
        "{:?}",
        exported.not_expressed
    );
    let driver = format!(
        "{LOAD}import urllib3\n\
         http = urllib3.PoolManager(retries=m.retry, timeout=m.timeout)\n\
         try:\n    r = http.request(\"GET\", sys.argv[2])\n    print(\"status\", r.status)\n\
         except urllib3.exceptions.MaxRetryError as e:\n    print(\"gave up:\", e.reason)\n"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let out = run_python(
        &dir,
        &exported.text,
        &driver,
        &demo.url("/status/503?key=u3"),
    );
    assert!(out.contains("gave up"), "{out}");
    // urllib3 waits 0 before retry 1 (listed in the export's gaps), the profile's numbers after.
    assert_schedule("urllib3", &p, &arrivals(&demo, "u3"), |n| {
        (n == 1).then_some((0.0, 0.0))
    });
}

#[test]
fn urllib3_stops_at_the_first_success() {
    if !python_ready() {
        return;
    }
    let demo = Demo::start();
    let mut b = Backoff::new(Strategy::Fixed);
    b.base_delay_ms = 50;
    let p = profile(5, &[503], b);
    let exported = export(&p, RetryFormat::Urllib3);
    let driver = format!(
        "{LOAD}import urllib3\n\
         http = urllib3.PoolManager(retries=m.retry, timeout=m.timeout)\n\
         r = http.request(\"GET\", sys.argv[2])\nprint(\"status\", r.status)\n"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let out = run_python(
        &dir,
        &exported.text,
        &driver,
        &demo.url("/status/503?times=2&key=ok"),
    );
    assert!(out.contains("status 200"), "{out}");
    assert_eq!(
        arrivals(&demo, "ok").len(),
        3,
        "two failures, then the success"
    );
}

fn run_tenacity(p: &RetryProfile, key: &str) -> (Demo, String) {
    let demo = Demo::start();
    let exported = export(p, RetryFormat::Tenacity);
    let driver = format!(
        "{LOAD}import urllib3\n\
         http = urllib3.PoolManager(retries=False)\n\
         @m.profile_retry\n\
         def call():\n    return http.request(\"GET\", sys.argv[2], retries=False)\n\
         r = call()\nprint(\"status\", r.status)\n"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let out = run_python(
        &dir,
        &exported.text,
        &driver,
        &demo.url(&format!("/status/503?key={key}")),
    );
    (demo, out)
}

#[test]
fn tenacity_fixed_wait_with_window_keeps_the_bounds() {
    if !python_ready() {
        return;
    }
    let mut b = Backoff::new(Strategy::Fixed);
    b.base_delay_ms = 150;
    b.jitter_window_ms = 100;
    let p = profile(3, &[503], b);
    let (demo, out) = run_tenacity(&p, "tf");
    // Gave up: the last response is returned.
    assert!(out.contains("status 503"), "{out}");
    assert_schedule("tenacity", &p, &arrivals(&demo, "tf"), |_| None);
}

#[test]
fn tenacity_seed_001_exponential_runs_as_a_wait_function() {
    if !python_ready() {
        return;
    }
    let mut b = Backoff::new(Strategy::Exponential);
    b.base_delay_ms = 100;
    b.max_delay_ms = Some(500);
    b.jitter_window_ms = 50;
    let p = profile(3, &[503], b);
    assert!(
        export(&p, RetryFormat::Tenacity)
            .text
            .contains("def _profile_wait(")
    );
    let (demo, out) = run_tenacity(&p, "te");
    assert!(out.contains("status 503"), "{out}");
    assert_schedule("tenacity", &p, &arrivals(&demo, "te"), |_| None);
}

#[test]
fn tenacity_full_jitter_is_wait_random_exponential() {
    if !python_ready() {
        return;
    }
    let mut b = Backoff::new(Strategy::FullJitter);
    b.base_delay_ms = 100;
    b.max_delay_ms = Some(300);
    let p = profile(3, &[503], b);
    assert!(
        export(&p, RetryFormat::Tenacity)
            .text
            .contains("wait_random_exponential(multiplier=0.1, max=0.3)")
    );
    let (demo, _) = run_tenacity(&p, "tj");
    assert_schedule("tenacity", &p, &arrivals(&demo, "tj"), |_| None);
}

fn run_curl(p: &RetryProfile, demo: &Demo, path: &str) -> String {
    let exported = export(p, RetryFormat::CurlFlags);
    let flags_line = exported
        .text
        .lines()
        .rfind(|l| !l.starts_with('#'))
        .expect("a flags line");
    let flags = shell_words::split(flags_line).expect("shell words");
    // A real file: curl 7.88 cannot truncate /dev/null before a retry (exit 23).
    let body = tempfile::NamedTempFile::new().expect("temp file");
    let out = Command::new("curl")
        .args(["-s", "-w", "%{http_code}", "--noproxy", "*", "-o"])
        .arg(body.path())
        .args(&flags)
        .arg(demo.url(path))
        .env_remove("http_proxy")
        .env_remove("HTTP_PROXY")
        .env_remove("all_proxy")
        .env_remove("ALL_PROXY")
        .output()
        .expect("curl runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn curl_retry_delay_makes_the_predicted_attempts_and_waits() {
    if !tool_available("curl", &["--version"], "curl") {
        return;
    }
    let demo = Demo::start();
    let mut b = Backoff::new(Strategy::Fixed);
    b.base_delay_ms = 1000;
    let p = profile(2, &[503], b);
    let code = run_curl(&p, &demo, "/status/503?key=cf");
    assert_eq!(code, "503");
    assert_schedule("curl", &p, &arrivals(&demo, "cf"), |_| None);
}

#[test]
fn curl_default_backoff_doubles_from_one_second() {
    if !tool_available("curl", &["--version"], "curl") {
        return;
    }
    let demo = Demo::start();
    let mut p = retryscope::profile::builtin("curl-retry").expect("builtin");
    p.max_retries = Some(2);
    let exported = export(&p, RetryFormat::CurlFlags);
    assert!(exported.text.ends_with("--retry 2\n"), "{}", exported.text);
    let code = run_curl(&p, &demo, "/status/503?key=cd");
    assert_eq!(code, "503");
    assert_schedule("curl", &p, &arrivals(&demo, "cd"), |_| None);
}
