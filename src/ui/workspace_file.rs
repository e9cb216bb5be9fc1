//! The workspace file, `workspace.json` in the data folder: the [`PersistedWorkbench`] the
//! window comes back to. Read once before the window opens; written atomically
//! ([`crate::store::write_atomic`]) by a worker thread at most [`SAVE_EVERY_MS`] after a change,
//! at close, and when SIGTERM, SIGHUP or Ctrl-C stops the window process. The file holds no
//! secret value (see [`super::persistence`]).

use super::persistence::{PersistedWorkbench, STORAGE_KEY};
use super::request_draft::RequestDraft;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The workspace file's name in the data folder.
pub const FILE_NAME: &str = "workspace.json";
/// Longest time a change waits before it is written, ms (typing writes once per pause).
pub const SAVE_EVERY_MS: u64 = 400;
/// Longest wait at close for the last write to reach the disk.
const CLOSE_WAIT: Duration = Duration::from_secs(3);
/// After a stop signal, how long the window has to save and close before the process ends
/// without it.
const SIGNAL_GRACE: Duration = Duration::from_secs(5);
/// Stands for the demo server's base URL in stored requests (its port changes per start).
pub const DEMO_PLACEHOLDER: &str = "{{demo}}";

/// The embedded demo server's address (`http://127.0.0.1:PORT`), if it runs: a request's URL
/// that starts with it is stored with [`DEMO_PLACEHOLDER`] in its place, and a stored URL that
/// starts with the placeholder gets this start's address. Only the start of the URL: a
/// `{{demo}}` typed anywhere else is the user's text and comes back as typed.
#[derive(Debug, Clone, Copy)]
pub struct DemoAddress<'a>(pub Option<&'a str>);

impl DemoAddress<'_> {
    /// `draft` as stored.
    pub fn stored(self, draft: &RequestDraft) -> RequestDraft {
        let mut out = draft.clone();
        if let Some(rest) = self.0.and_then(|base| draft.url.strip_prefix(base))
            && (rest.is_empty() || rest.starts_with(['/', '?', '#']))
        {
            out.url = format!("{DEMO_PLACEHOLDER}{rest}");
        }
        out
    }

    /// `draft` as read back.
    pub fn restored(self, draft: &RequestDraft) -> RequestDraft {
        let mut out = draft.clone();
        if let (Some(base), Some(rest)) = (self.0, draft.url.strip_prefix(DEMO_PLACEHOLDER)) {
            out.url = format!("{base}{rest}");
        }
        out
    }
}

/// Where the workspace file is: `workspace.json` in `data_dir`.
pub fn path_in(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE_NAME)
}

/// The workspace saved at `path`; else the one an older version kept in eframe's storage
/// (`legacy`, the value of its [`STORAGE_KEY`]); `None` for a first start.
///
/// # Errors
/// What is wrong with the file (unreadable, not a workspace), with its path; the caller starts
/// from defaults and says so, and the file is only replaced at the next change.
pub fn load(
    path: &Path,
    legacy: Option<&dyn eframe::Storage>,
) -> Result<Option<PersistedWorkbench>, String> {
    let fail = |e: &dyn std::fmt::Display| {
        format!("cannot restore the workspace from {}: {e}", path.display())
    };
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| fail(&e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Ok(legacy.and_then(|s| eframe::get_value(s, STORAGE_KEY)))
        }
        Err(e) => Err(fail(&e)),
    }
}

enum Job {
    Write(Vec<u8>),
    /// Answers once every write before it is on disk.
    Flush(Sender<()>),
}

/// Writes the workspace off the frame: [`Self::tick`] every frame, [`Self::save_now`] at close.
pub struct WorkspaceSaver {
    jobs: Option<Sender<Job>>,
    /// The workspace last handed to the writer.
    last: Option<PersistedWorkbench>,
    /// Frame time (s) of the last comparison.
    checked_at: f64,
    /// The last write's error, shown once in the status line.
    problem: Arc<Mutex<Option<String>>>,
}

impl WorkspaceSaver {
    /// A saver writing to `path` from the thread `workspace-save`; `None` writes nothing (smoke
    /// runs, no data folder). `restored` is what the window started from (not written again
    /// until it changes).
    pub fn spawn(path: Option<PathBuf>, restored: Option<PersistedWorkbench>) -> Self {
        let problem = Arc::new(Mutex::new(None));
        let thread_problem = Arc::clone(&problem);
        let jobs = path.and_then(|path| {
            let (tx, rx) = channel::<Job>();
            std::thread::Builder::new()
                .name("workspace-save".into())
                .spawn(move || {
                    for job in rx {
                        match job {
                            Job::Write(bytes) => {
                                let result = crate::store::write_atomic(&path, &bytes)
                                    .err()
                                    .map(|e| format!("cannot save the workspace: {e}"));
                                if let (Some(e), Ok(mut slot)) = (result, thread_problem.lock()) {
                                    *slot = Some(e);
                                }
                            }
                            Job::Flush(done) => {
                                let _ = done.send(());
                            }
                        }
                    }
                })
                .ok()
                .map(|_| tx)
        });
        Self {
            jobs,
            last: restored,
            checked_at: f64::NEG_INFINITY,
            problem,
        }
    }

    /// Compares the workspace with the one last written at most every [`SAVE_EVERY_MS`] (frame
    /// time `now_s`, seconds) and hands a changed one to the writer; between comparisons asks
    /// `ctx` for one more frame at the end of the pause, so the last change is written.
    pub fn tick(
        &mut self,
        ctx: &egui::Context,
        now_s: f64,
        workspace: impl FnOnce() -> PersistedWorkbench,
    ) {
        let period = SAVE_EVERY_MS as f64 / 1000.0;
        let since = now_s - self.checked_at;
        if since < period {
            ctx.request_repaint_after(Duration::from_secs_f64(period - since));
            return;
        }
        self.checked_at = now_s;
        self.submit(workspace());
    }

    /// Writes `workspace` now (when changed) and waits for it to reach the disk (at most
    /// `CLOSE_WAIT`): at close and on a stop signal.
    pub fn save_now(&mut self, workspace: PersistedWorkbench) {
        self.submit(workspace);
        self.flush();
    }

    /// Waits until every write handed over is on disk (at most `CLOSE_WAIT`).
    pub fn flush(&self) {
        if let Some(jobs) = &self.jobs {
            let (tx, rx) = channel();
            if jobs.send(Job::Flush(tx)).is_ok() {
                let _ = rx.recv_timeout(CLOSE_WAIT);
            }
        }
    }

    /// The last write's error, once.
    pub fn take_problem(&self) -> Option<String> {
        self.problem.lock().ok().and_then(|mut p| p.take())
    }

    /// Hands `workspace` to the writer when it differs from the one last handed over.
    pub fn submit(&mut self, workspace: PersistedWorkbench) {
        if self.last.as_ref() == Some(&workspace) {
            return;
        }
        if let (Some(jobs), Ok(bytes)) = (&self.jobs, serde_json::to_vec_pretty(&workspace)) {
            let _ = jobs.send(Job::Write(bytes));
        }
        self.last = Some(workspace);
    }
}

/// Set when SIGTERM, SIGHUP or Ctrl-C asked the window process to stop: the window saves its
/// workspace and closes without asking (see [`watch_stop_signals`]).
#[derive(Debug, Clone, Default)]
pub struct StopSignal(Arc<AtomicBool>);

impl StopSignal {
    /// True once a stop signal arrived.
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Catches SIGTERM, SIGHUP and Ctrl-C on `runtime` (Unix): each sets the returned flag and
/// repaints `ctx`, so the next frame saves and closes; a window that has not closed
/// `SIGNAL_GRACE` later is ended with exit code 128 + the signal's number.
pub fn watch_stop_signals(runtime: &tokio::runtime::Handle, ctx: &egui::Context) -> StopSignal {
    let flag = StopSignal::default();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let _entered = runtime.enter();
        let kinds = [
            (SignalKind::terminate(), 15),
            (SignalKind::hangup(), 1),
            (SignalKind::interrupt(), 2),
        ];
        for (kind, number) in kinds {
            let Ok(mut stream) = signal(kind) else {
                continue;
            };
            let (flag, ctx) = (flag.clone(), ctx.clone());
            runtime.spawn(async move {
                if stream.recv().await.is_some() {
                    flag.0.store(true, Ordering::SeqCst);
                    ctx.request_repaint();
                    tokio::time::sleep(SIGNAL_GRACE).await;
                    std::process::exit(128 + number);
                }
            });
        }
    }
    #[cfg(not(unix))]
    let _ = (runtime, ctx);
    flag
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_leading_demo_address_becomes_the_placeholder_and_back() {
        let demo = DemoAddress(Some("http://127.0.0.1:4000"));
        let draft = |url: &str| RequestDraft {
            url: url.into(),
            ..RequestDraft::default()
        };
        assert_eq!(
            demo.stored(&draft("http://127.0.0.1:4000/status/503")).url,
            "{{demo}}/status/503"
        );
        // Another port that merely starts the same is not the demo server.
        assert_eq!(
            demo.stored(&draft("http://127.0.0.1:40001/x")).url,
            "http://127.0.0.1:40001/x"
        );
        let next = DemoAddress(Some("http://127.0.0.1:5000"));
        assert_eq!(
            next.restored(&draft("{{demo}}/status/503")).url,
            "http://127.0.0.1:5000/status/503"
        );
        // A `{{demo}}` the user typed inside the URL is the user's text.
        for typed in ["http://{{demo}}/status/503", "http://h/{{demo}}"] {
            let back = next.restored(&demo.stored(&draft(typed)));
            assert_eq!(back.url, typed);
        }
    }

    #[test]
    fn a_change_is_written_atomically_and_a_bad_file_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = path_in(dir.path());
        assert_eq!(load(&path, None), Ok(None), "first start");
        let mut saver = WorkspaceSaver::spawn(Some(path.clone()), None);
        let mut workspace = PersistedWorkbench {
            environment: Some("staging".into()),
            ..PersistedWorkbench::default()
        };
        saver.save_now(workspace.clone());
        assert_eq!(load(&path, None), Ok(Some(workspace.clone())));
        let ctx = egui::Context::default();
        workspace.environment = Some("prod".into());
        saver.tick(&ctx, 10.0, || workspace.clone());
        saver.save_now(workspace.clone());
        assert_eq!(load(&path, None), Ok(Some(workspace)));
        std::fs::write(&path, "{not json").expect("write");
        let err = load(&path, None).expect_err("bad file");
        assert!(err.contains("workspace.json"), "{err}");
    }
}
