//! Contention over a range of client counts: the lab's "calls vs N" and "completion time vs N".

use super::contender::Contender;
use super::contention::{ContentionResult, ContentionSetup, contention};
use std::ops::RangeInclusive;

/// Every contender's result at one client count.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SweepPoint {
    /// Clients N.
    pub clients: u32,
    /// One result per contender, in the contenders' order.
    pub results: Vec<ContentionResult>,
}

/// Runs [`contention`] for every N in `clients` (clamped to 1…1000) and every contender, with
/// the rest of `setup` (its `keep_load` is ignored: a sweep keeps no load series).
/// `control(done, total)` is called after each (N, contender) pair with the pairs done so far;
/// returning `false` cancels (`None`).
///
/// ```
/// use retryscope::sim::{Contender, ContentionSetup, sweep};
/// let mut setup = ContentionSetup::post();
/// setup.runs = 2;
/// let points = sweep(&setup, &Contender::standard(5, 2000), 1..=3, &mut |_, _| true).unwrap();
/// assert_eq!(points.len(), 3);
/// assert_eq!(points[2].results.len(), 6);
/// assert!(sweep(&setup, &Contender::standard(5, 2000), 1..=3, &mut |_, _| false).is_none());
/// ```
pub fn sweep(
    setup: &ContentionSetup,
    contenders: &[Contender],
    clients: RangeInclusive<u32>,
    control: &mut dyn FnMut(u64, u64) -> bool,
) -> Option<Vec<SweepPoint>> {
    let low = (*clients.start()).clamp(1, MAX_CLIENTS);
    let high = (*clients.end()).clamp(low, MAX_CLIENTS);
    let total = u64::from(high - low + 1) * contenders.len() as u64;
    let mut done = 0;
    let mut points = Vec::with_capacity((high - low + 1) as usize);
    for n in low..=high {
        let mut at = *setup;
        at.clients = n;
        at.keep_load = false;
        let mut results = Vec::with_capacity(contenders.len());
        for c in contenders {
            results.push(contention(&at, c));
            done += 1;
            if !control(done, total) {
                return None;
            }
        }
        points.push(SweepPoint {
            clients: n,
            results,
        });
    }
    Some(points)
}

/// The most clients the lab simulates.
pub const MAX_CLIENTS: u32 = 1000;
