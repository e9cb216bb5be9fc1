//! The delay headers the server sent (Retry-After, RateLimit, x-ms-retry-after-ms, …), what
//! delays they asked for, and whether the wait that followed was at least that long.

use super::observed::ObservedRun;
use super::stats::Percentiles;
use crate::model::HeaderUnit;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A wait this much shorter than the asked delay still counts as honouring it, ms (the asked
/// delay is rounded up to whole ms, the measured gap is not).
pub const HONOUR_SLACK_MS: f64 = 1.0;

/// One delay header and what the runs did with it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DelayHeaderSeen {
    /// Header name, lowercase (`retry-after`).
    pub name: String,
    /// Responses that carried it.
    pub responses: u64,
    /// Their statuses, with how many responses had each (`{"429": 12}`).
    pub statuses: BTreeMap<String, u64>,
    /// Values that gave no delay (garbage, negative, a quota with requests left).
    pub unusable: u64,
    /// The asked delays of the usable values, ms.
    pub asked: Percentiles,
    /// Responses with a usable value that were followed by another attempt of the run.
    pub retried: u64,
    /// Of those, how many waited at least the asked delay (less [`HONOUR_SLACK_MS`]) before it.
    pub waited_at_least_asked: u64,
    /// The gaps from the end of those responses to the next attempt's start, ms.
    pub waited: Percentiles,
}

/// The encoding a delay header is read in (DESIGN.md §3): `Retry-After` in seconds or an
/// HTTP-date; `*-ms` headers and `x-amz-retry-after` in ms; `RateLimit` / `RateLimit-Reset` by
/// the draft's `t=`; `X-RateLimit-Reset` as a Unix timestamp when it is past 10⁹, else seconds;
/// `grpc-retry-pushback-ms` as gRPC pushback.
pub fn unit_of(name: &str, value: &str) -> HeaderUnit {
    match name.to_ascii_lowercase().as_str() {
        "retry-after-ms" | "x-ms-retry-after-ms" | "x-amz-retry-after" => HeaderUnit::Milliseconds,
        "ratelimit" | "ratelimit-reset" => HeaderUnit::RatelimitT,
        "grpc-retry-pushback-ms" => HeaderUnit::GrpcPushbackMs,
        "x-ratelimit-reset" if value.trim().parse::<f64>().is_ok_and(|v| v > 1e9) => {
            HeaderUnit::UnixTimestamp
        }
        _ => HeaderUnit::Seconds,
    }
}

/// The delay `value` of header `name` asks for, ms, a date read against `at_unix_ms` (the
/// attempt's start); `None` when unusable.
pub fn asked_ms(name: &str, value: &str, at_unix_ms: i64) -> Option<u64> {
    crate::policy::parse_delay(value, unit_of(name, value), at_unix_ms).map(|d| d.ms)
}

/// Every delay header of `runs`, by name.
pub fn delay_headers(runs: &[ObservedRun]) -> Vec<DelayHeaderSeen> {
    #[derive(Default)]
    struct Acc {
        seen: DelayHeaderSeen,
        asked: Vec<f64>,
        waited: Vec<f64>,
    }
    let mut by_name: BTreeMap<String, Acc> = BTreeMap::new();
    for run in runs {
        for (i, a) in run.attempts.iter().enumerate() {
            let next = run.attempts.get(i + 1);
            #[allow(
                clippy::cast_possible_truncation,
                reason = "ms offsets far below i64::MAX"
            )]
            let at = run.start_unix_ms() + a.offset_ms as i64;
            for (name, value) in &a.delay_headers {
                let acc = by_name.entry(name.to_ascii_lowercase()).or_default();
                acc.seen.responses += 1;
                *acc.seen.statuses.entry(a.result.label()).or_default() += 1;
                let Some(ms) = asked_ms(name, value, at) else {
                    acc.seen.unusable += 1;
                    continue;
                };
                acc.asked.push(ms as f64);
                if let Some(next) = next {
                    let gap = next.offset_ms - (a.offset_ms + a.duration_ms);
                    acc.seen.retried += 1;
                    acc.seen.waited_at_least_asked += u64::from(gap + HONOUR_SLACK_MS >= ms as f64);
                    acc.waited.push(gap);
                }
            }
        }
    }
    by_name
        .into_iter()
        .map(|(name, acc)| DelayHeaderSeen {
            name,
            asked: Percentiles::of(acc.asked),
            waited: Percentiles::of(acc.waited),
            ..acc.seen
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_follow_the_header_names() {
        assert_eq!(asked_ms("Retry-After", "2", 0), Some(2000));
        assert_eq!(asked_ms("x-ms-retry-after-ms", "150", 0), Some(150));
        assert_eq!(asked_ms("RateLimit", "\"default\";r=0;t=3", 0), Some(3000));
        assert_eq!(asked_ms("X-RateLimit-Reset", "7", 0), Some(7000));
        assert_eq!(
            asked_ms("X-RateLimit-Reset", "1700000010", 1_700_000_000_000),
            Some(10_000)
        );
        assert_eq!(asked_ms("Retry-After", "soon", 0), None);
    }
}
