//! The three most informative runs of a report, each with why it was picked.

use super::delays::asked_ms;
use super::observed::ObservedRun;
use serde::{Deserialize, Serialize};

/// Why a run is among the informative ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pick {
    /// The first failed run of the longest outage: how the outage began.
    OutageStart,
    /// The successful run with the longest time to success: what retrying cost at worst.
    SlowestSuccess,
    /// The run whose server asked for the longest delay in a header: how the profile answered.
    DelayHeader,
    /// The run with the most attempts not picked yet (fills a place the others leave empty).
    MostAttempts,
}

impl Pick {
    /// Short title, e.g. `first failure of the longest outage`.
    pub fn title(self) -> &'static str {
        match self {
            Self::OutageStart => "first failure of the longest outage",
            Self::SlowestSuccess => "slowest success",
            Self::DelayHeader => "longest delay asked by a header",
            Self::MostAttempts => "most attempts",
        }
    }
}

/// One informative run with its timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InformativeRun {
    /// Why it was picked.
    pub pick: Pick,
    /// The run, with every attempt (its timeline).
    pub run: ObservedRun,
}

/// At most three distinct runs of `runs`: the first failed run of the longest outage (index
/// `outage_start`), the slowest success, the run with the longest usable header delay; a place
/// left empty (no outage, no success, no header) goes to the run with the most attempts not yet
/// picked (the earliest on a tie).
pub fn informative_runs(runs: &[ObservedRun], outage_start: Option<usize>) -> Vec<InformativeRun> {
    let slowest = runs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.succeeded())
        .max_by(|(_, a), (_, b)| a.last_attempt_end_ms().total_cmp(&b.last_attempt_end_ms()))
        .map(|(i, _)| i);
    let longest_ask = runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let asks = r.attempts.iter().flat_map(|a| {
                #[allow(clippy::cast_possible_truncation, reason = "ms offsets")]
                let at = r.start_unix_ms() + a.offset_ms as i64;
                a.delay_headers
                    .iter()
                    .filter_map(move |(n, v)| asked_ms(n, v, at))
            });
            asks.max().map(|ms| (i, ms))
        })
        .max_by_key(|&(i, ms)| (ms, std::cmp::Reverse(i)))
        .map(|(i, _)| i);
    let mut picked: Vec<(Pick, usize)> = Vec::new();
    for (pick, index) in [
        (Pick::OutageStart, outage_start),
        (Pick::SlowestSuccess, slowest),
        (Pick::DelayHeader, longest_ask),
    ] {
        if let Some(i) = index.filter(|i| !picked.iter().any(|(_, p)| p == i)) {
            picked.push((pick, i));
        }
    }
    while picked.len() < 3 {
        let most = runs
            .iter()
            .enumerate()
            .filter(|(i, _)| !picked.iter().any(|(_, p)| p == i))
            .max_by_key(|&(i, r)| (r.attempts_made, std::cmp::Reverse(i)));
        let Some((i, _)) = most else { break };
        picked.push((Pick::MostAttempts, i));
    }
    picked
        .into_iter()
        .map(|(pick, i)| InformativeRun {
            pick,
            run: runs[i].clone(),
        })
        .collect()
}
