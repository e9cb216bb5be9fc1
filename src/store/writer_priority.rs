//! The history writer's thread runs a little below the engine's priority, so the scheduler
//! lets a waking engine, demo-server or window thread go first (BENCHMARKS.md "History").
//! Its work is only deferred, never starved: it keeps its fair, slightly smaller share of the
//! CPU, so the send → commit bound holds.

/// How many nice steps the history writer's thread sits below the rest of the process.
///
/// Chosen by `bench_history_store --only overhead` over a range of steps (BENCHMARKS.md
/// "History"): the fewest steps that bring the history on/off ratio down while keeping the send
/// → commit p99 within its bound; more steps starve the writer when every core is busy.
pub const WRITER_NICE_STEPS: i32 = 3;

/// Lowers the calling thread's CPU priority by `steps` nice steps (never above 19), leaving
/// the process's other threads as they are. Returns the thread's nice value after the change.
///
/// # Errors
/// The OS's refusal, as text (the caller logs it and runs at the priority it has).
/// Platforms other than Linux change nothing and return `Ok(None)`: their `setpriority` acts on
/// the whole process, and the gain was measured on Linux only.
#[cfg(target_os = "linux")]
pub fn lower_current_thread(steps: i32) -> Result<Option<i32>, String> {
    use rustix::process::{getpriority_process, setpriority_process};
    // On Linux, PRIO_PROCESS with a thread id names that thread alone (setpriority(2), BUGS).
    let tid = rustix::thread::gettid();
    let now = getpriority_process(Some(tid)).map_err(|e| format!("getpriority: {e}"))?;
    let wanted = (now + steps).min(19);
    setpriority_process(Some(tid), wanted).map_err(|e| format!("setpriority: {e}"))?;
    Ok(Some(wanted))
}

/// See the Linux version: other platforms keep the thread's priority.
///
/// # Errors
/// Never.
#[cfg(not(target_os = "linux"))]
pub fn lower_current_thread(_steps: i32) -> Result<Option<i32>, String> {
    Ok(None)
}

#[cfg(all(test, target_os = "linux"))]
#[allow(clippy::unwrap_used)]
mod tests {
    /// The nice value of thread `tid` of this process, from `/proc` (field 19 of `stat`).
    fn nice_of(tid: &str) -> i32 {
        let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).unwrap();
        // The command name (field 2) may hold spaces; fields after it follow its `)`.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        after.split(' ').nth(16).unwrap().parse().unwrap()
    }

    fn own_tid() -> String {
        let link = std::fs::read_link("/proc/thread-self").unwrap();
        link.file_name().unwrap().to_string_lossy().into_owned()
    }

    #[test]
    fn only_the_calling_thread_is_lowered() {
        let main_tid = own_tid();
        let before = nice_of(&main_tid);
        let (tid, result) = std::thread::spawn(|| (own_tid(), super::lower_current_thread(2)))
            .join()
            .unwrap();
        assert_eq!(result, Ok(Some((before + 2).min(19))));
        // The spawned thread has ended: its stat is gone; this thread is unchanged.
        assert_ne!(tid, main_tid);
        assert_eq!(nice_of(&main_tid), before);
    }

    #[test]
    fn the_lowered_thread_reads_its_new_nice_value() {
        let (before, after) = std::thread::spawn(|| {
            let tid = own_tid();
            let before = nice_of(&tid);
            super::lower_current_thread(3).unwrap();
            (before, nice_of(&tid))
        })
        .join()
        .unwrap();
        assert_eq!(after, (before + 3).min(19));
    }

    #[test]
    fn the_value_never_goes_past_19() {
        let got = std::thread::spawn(|| super::lower_current_thread(40))
            .join()
            .unwrap();
        assert_eq!(got, Ok(Some(19)));
    }

    #[test]
    fn the_history_writer_runs_its_steps_below_the_thread_that_started_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::HistoryStore::open_in(dir.path()).unwrap();
        let (starter, writers) = std::thread::spawn(move || {
            let starter = nice_of(&own_tid());
            let writer = crate::store::HistoryWriter::spawn(store).unwrap();
            // A flush returns once the writer's loop runs: its priority is set by then.
            writer.flush().unwrap();
            let writers: Vec<i32> = std::fs::read_dir("/proc/self/task")
                .unwrap()
                .filter_map(Result::ok)
                .filter(|t| {
                    std::fs::read_to_string(t.path().join("comm"))
                        .is_ok_and(|c| c.trim() == "history-writer")
                })
                .map(|t| nice_of(&t.file_name().to_string_lossy()))
                .collect();
            writer.close().unwrap();
            (starter, writers)
        })
        .join()
        .unwrap();
        // Other tests may run writers at the same time; every one sits the same steps down.
        assert!(!writers.is_empty());
        for nice in writers {
            assert_eq!(nice, (starter + super::WRITER_NICE_STEPS).min(19));
        }
    }
}
