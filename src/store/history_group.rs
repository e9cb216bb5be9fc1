//! Merging the writes of one group commit ([`super::HistoryWriter`]) so a run that starts and
//! ends inside the same group is one row insert, not an insert and two updates.

use super::history_records::HistoryWrite;

/// `writes` with every [`HistoryWrite::RunFinished`] and [`HistoryWrite::AttemptStarted`] (and
/// the attempt count of every [`HistoryWrite::AttemptFinished`]) of a run whose [`HistoryWrite::RunStarted`] comes earlier
/// in the list folded into that run's record; the other writes keep their order. Applying the
/// result in order leaves the database exactly as applying `writes` would.
pub(crate) fn merge_group<T>(writes: Vec<(HistoryWrite, T)>) -> Vec<(HistoryWrite, T)> {
    let starts = writes
        .iter()
        .filter(|(w, _)| matches!(w, HistoryWrite::RunStarted(_)))
        .count();
    if starts == 0 || writes.len() < 2 {
        return writes;
    }
    let mut out: Vec<(HistoryWrite, T)> = Vec::with_capacity(writes.len());
    // Index in `out` of each run started in this group (few: a linear scan is fastest).
    let mut started: Vec<(String, usize)> = Vec::with_capacity(starts);
    for (write, extra) in writes {
        let run_at = |id: &str| started.iter().find(|(s, _)| s == id).map(|(_, i)| *i);
        match write {
            HistoryWrite::RunStarted(run) => {
                started.push((run.id.clone(), out.len()));
                out.push((HistoryWrite::RunStarted(run), extra));
            }
            HistoryWrite::AttemptStarted { run_id, start } => {
                if let Some(i) = run_at(&run_id)
                    && let Some((HistoryWrite::RunStarted(run), _)) = out.get_mut(i)
                {
                    run.attempt_started = Some(*start);
                    continue;
                }
                out.push((HistoryWrite::AttemptStarted { run_id, start }, extra));
            }
            HistoryWrite::AttemptFinished(a) => {
                if let Some(i) = run_at(&a.run_id)
                    && let Some((HistoryWrite::RunStarted(run), _)) = out.get_mut(i)
                {
                    run.attempts = run.attempts.max(a.number);
                }
                out.push((HistoryWrite::AttemptFinished(a), extra));
            }
            HistoryWrite::RunFinished(end) => {
                if let Some(i) = run_at(&end.run_id)
                    && let Some((HistoryWrite::RunStarted(run), _)) = out.get_mut(i)
                {
                    run.finish(end);
                    continue;
                }
                out.push((HistoryWrite::RunFinished(end), extra));
            }
            other => out.push((other, extra)),
        }
    }
    out
}
