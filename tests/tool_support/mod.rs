//! Tests that run an outside tool (curl, Python, xmllint, Chromium): skip with a message when
//! it is missing, unless CI must run them.

#![allow(dead_code)]

use std::io::Write as _;
use std::process::Command;

/// Whether `program args` runs. When not: a failure if `RETRYSCOPE_REQUIRE_TOOLS=1` or `CI` is
/// set (as .ci/run does), else `false` after a `skipped:` line on stderr naming `install`
/// (e.g. `Debian: libxml2-utils`).
pub fn tool_available(program: &str, args: &[&str], install: &str) -> bool {
    let ok = Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        let strict = std::env::var("RETRYSCOPE_REQUIRE_TOOLS").is_ok_and(|v| v == "1")
            || std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false");
        let command = format!("{program} {}", args.join(" "));
        assert!(
            !strict,
            "`{command}` failed, and CI must run this test: install {install} (see .ci/run)"
        );
        // Straight to stderr (not eprintln!, which the test harness captures): a skip is seen.
        let _ = writeln!(
            std::io::stderr(),
            "skipped: `{command}` is not available here ({install}; CI installs it; \
             RETRYSCOPE_REQUIRE_TOOLS=1 turns this skip into a failure)"
        );
    }
    ok
}
