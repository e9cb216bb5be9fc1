//! The thin eframe wrapper around [`WorkbenchState`]: the services it asks the process's core
//! for, the engine waker, persistence, and the smoke-run automation.

use super::file_dialogs::RfdDialogs;
use super::fonts::install_fallback_fonts;
use super::frame_stats::FrameStats;
use super::persistence::STORAGE_KEY;
use super::profile_library::default_library_dir;
use super::smoke_run::{SmokeResult, SmokeRun};
use super::workbench::{WorkbenchSetup, WorkbenchState};
use super::workspace_file::{self, WorkspaceSaver};
use super::{AppOptions, MIN_WINDOW};
use crate::service::{BatchSetup, Core, CoreLink, LinkSetup};
use std::sync::Arc;
use std::time::Duration;

/// How soon after an engine event the UI repaints, ms (bursts coalesce into one frame).
const EVENT_REPAINT_MS: u64 = 10;

/// The eframe app.
pub struct RetryscopeApp {
    workbench: WorkbenchState,
    smoke: Option<SmokeRun>,
    frame_stats: Option<FrameStats>,
    persist: bool,
    /// Writes the workspace file after each change, at close and on a stop signal.
    saver: WorkspaceSaver,
    /// Set by SIGTERM, SIGHUP or Ctrl-C: save, then close without asking.
    stop: workspace_file::StopSignal,
    /// The run log's writer (flushed when the app closes).
    _log: Option<crate::store::RunLog>,
    // Declared last: dropped after the workbench (its services run on the core).
    _core: Arc<Core>,
}

impl RetryscopeApp {
    fn new(
        cc: &eframe::CreationContext<'_>,
        options: &AppOptions,
        core: Arc<Core>,
        launched: std::time::Instant,
    ) -> Self {
        let ctx = cc.egui_ctx.clone();
        install_fallback_fonts(&ctx);
        let smoke_mode = options.screenshot.is_some() || options.exit_after_ms.is_some();
        // The data folder of the history and the run log: smoke runs only read and log where
        // RETRYSCOPE_DATA_DIR points, as they store nothing else either.
        let record_dir = if smoke_mode {
            explicit_data_dir()
        } else {
            crate::store::data_dir()
        };
        let waker_ctx = ctx.clone();
        // One link to the core: the composer's runs (recorded, except a smoke run's own demo
        // request, which would fill the list an operator is looking at), the History panel's
        // queries (smoke runs read the folder's history) and the Batch tab (not in smoke runs),
        // whose runs are recorded by the same store actor and draw from the same budgets.
        let link = CoreLink::start(
            &core,
            LinkSetup {
                waker: Arc::new(move || {
                    waker_ctx.request_repaint_after(Duration::from_millis(EVENT_REPAINT_MS));
                }),
                data_dir: record_dir.clone(),
                record_runs: !smoke_mode,
                body_cap: crate::store::DEFAULT_BODY_CAP,
                batches: (!smoke_mode).then(|| BatchSetup {
                    importer: super::batch::list_importer(),
                    secrets: core.secret_store().store,
                    // Items may name a built-in or a profile of the user's library.
                    profiles: crate::service::library_lookup(default_library_dir()),
                }),
                // A watch's request with secrets is kept in the keyring, for `--resume`.
                secrets: (!smoke_mode).then(|| core.secret_store().store),
            },
        );
        let offer = link.offer().clone();
        // The workspace file (smoke runs neither read nor write it).
        let workspace_path = (!smoke_mode)
            .then(crate::store::data_dir)
            .flatten()
            .map(|d| workspace_file::path_in(&d));
        let restored = workspace_path
            .as_ref()
            .map(|p| workspace_file::load(p, cc.storage));
        let (persisted, restore_problem) = match restored {
            Some(Ok(p)) => (p, None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
        let library_dir = default_library_dir();
        let dialog_ctx = ctx.clone();
        let dialogs = RfdDialogs::new(
            core.handle().clone(),
            Arc::new(move || dialog_ctx.request_repaint()),
            library_dir.clone(),
        );
        let mut workbench = WorkbenchState::new(WorkbenchSetup {
            link,
            dialogs: Box::new(dialogs),
            demo_base_url: core.demo_base_url(),
            library_dir,
            persisted: persisted.clone(),
        });
        let saver = WorkspaceSaver::spawn(workspace_path, persisted);
        if let Some(problem) = restore_problem {
            workbench.set_status(true, problem);
        }
        if let Some((w, h)) = options.window_size {
            // A size given on the command line wins over the one eframe remembered.
            ctx.send_viewport_cmd(egui::ViewportCommand::InnerSize(egui::vec2(w, h)));
        }
        let analysis_ctx = ctx.clone();
        workbench.analyse_in_background(Arc::new(move || analysis_ctx.request_repaint()));
        if smoke_mode {
            // Smoke runs touch neither the user's data folder nor the keyring (an explicit
            // RETRYSCOPE_DATA_DIR is used, so screenshots can show saved requests).
            workbench.attach_store(
                explicit_data_dir().as_deref(),
                crate::store::memory_secret_store("smoke run"),
            );
        } else {
            // Every keyring call goes through the core's keyring worker: "Remember secrets",
            // saved with the app's state, never waits for the keyring on the frame.
            workbench.attach_store(crate::store::data_dir().as_deref(), core.secret_store());
        }
        if let Some(problem) = core.demo_problem() {
            workbench.set_status(true, format!("{problem}; the default request will fail"));
        }
        if let Some(problem) = offer.history_problem {
            workbench
                .history
                .set_unavailable(format!("No history: {problem}"));
            workbench.set_status(true, problem);
        } else if !offer.history {
            workbench.history.set_unavailable(
                "No history: runs are not recorded (no data folder; smoke runs read the history only where RETRYSCOPE_DATA_DIR points).".into(),
            );
        }
        if !offer.batches {
            workbench.batch.set_unavailable(
                "No batches: runs are not recorded (no data folder, or a smoke run).".into(),
            );
        }
        // The run log: daily files in the data folder.
        let log = record_dir.and_then(|dir| {
            let target = crate::store::LogTarget::DataDir(&dir);
            let queue = Some(crate::store::LOG_QUEUE_LINES);
            crate::store::install_run_log(target, None, queue).unwrap_or_else(|e| {
                workbench.set_status(true, format!("{e}; runs are not logged"));
                None
            })
        });
        if let Some(theme) = options.theme {
            workbench.set_theme(theme);
        }
        if options.show_history {
            workbench.show_history(true);
        }
        if options.show_lab {
            workbench.show_lab();
        }
        if let Some(path) = &options.profile {
            workbench.repaint_on_file_replies(&ctx);
            workbench.open_profile_path(path.clone());
        }
        Self {
            workbench,
            smoke: smoke_mode
                .then(|| SmokeRun::new(options.screenshot.clone(), options.exit_after_ms)),
            frame_stats: FrameStats::from_env(launched),
            persist: !smoke_mode,
            saver,
            stop: workspace_file::watch_stop_signals(core.handle(), &ctx),
            _log: log,
            _core: core,
        }
    }

    fn smoke_result(&self) -> Option<SmokeResult> {
        self.smoke.as_ref().map(|s| Arc::clone(&s.result))
    }
}

/// `RETRYSCOPE_DATA_DIR` when set and not empty (smoke runs use nothing else).
fn explicit_data_dir() -> Option<std::path::PathBuf> {
    std::env::var_os(crate::store::DATA_DIR_ENV)
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
}

impl eframe::App for RetryscopeApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.workbench.logic(ctx);
        if self.stop.is_set() && !self.workbench.quit.is_closing() {
            self.saver.save_now(self.workbench.to_persisted());
            self.workbench.quit.close_now(ctx);
        } else if self.persist {
            let now = ctx.input(|i| i.time);
            self.saver.tick(ctx, now, || self.workbench.to_persisted());
            if let Some(problem) = self.saver.take_problem() {
                self.workbench.set_status(true, problem);
            }
        }
        if let Some(smoke) = &mut self.smoke {
            smoke.tick(ctx, &mut self.workbench);
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.workbench.ui(ui);
        if let Some(stats) = &mut self.frame_stats {
            stats.frame();
        }
    }

    /// egui's memory holds scroll offsets (a composer scrolled sideways by a long URL would hide
    /// Send after a restart); what should survive is persisted in [`super::persistence::PersistedWorkbench`].
    fn persist_egui_memory(&self) -> bool {
        false
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if self.persist {
            self.workbench.remember_secrets_now();
            self.saver.submit(self.workbench.to_persisted());
            // The workspace lives in its own file; an older version kept it here.
            if storage.get_string(STORAGE_KEY).is_some() {
                storage.remove_string(STORAGE_KEY);
            }
        }
    }

    /// Closing pauses the batch being worked, not as the Pause button does (the next start
    /// resumes it), and cancels the runs; waits briefly so the batch's runs in flight are back
    /// to `pending` (a window that exits sooner leaves them `running`, which the next start puts
    /// back all the same).
    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        self.saver.flush();
        let _ = self.workbench.stop_core(CORE_STOP_WAIT);
    }
}

/// Longest wait at exit for the link to the core to pause its batch and end its runs.
const CORE_STOP_WAIT: Duration = Duration::from_secs(2);

/// Opens the window (glow renderer, 1280×800) and runs until it closes.
///
/// # Errors
/// A message when the window cannot be created (no display, no OpenGL), the runtime or engine
/// cannot start, or the smoke-run screenshot could not be written.
pub fn run(options: AppOptions, core: Arc<Core>) -> Result<(), String> {
    let launched = std::time::Instant::now();
    let smoke_mode = options.screenshot.is_some() || options.exit_after_ms.is_some();
    let mut viewport = egui::ViewportBuilder::default()
        .with_title("Retryscope")
        .with_app_id("retryscope")
        .with_inner_size(options.window_size.map_or([1280.0, 800.0], |(w, h)| [w, h]))
        .with_min_inner_size([MIN_WINDOW.0, MIN_WINDOW.1])
        .with_drag_and_drop(true);
    if let Some(icon) = super::window_icon::window_icon() {
        viewport = viewport.with_icon(icon);
    }
    let native = eframe::NativeOptions {
        renderer: eframe::Renderer::Glow,
        persist_window: !smoke_mode && options.window_size.is_none(),
        // Smoke runs neither read nor touch the user's saved workspace.
        // Else `app.ron` in the data folder (`directories`' convention on every platform, and
        // where eframe's own default already put it on Linux).
        persistence_path: if smoke_mode {
            Some(std::env::temp_dir().join(format!("retryscope-smoke-{}", std::process::id())))
        } else {
            crate::store::data_dir().map(|d| {
                let path = d.join("app.ron");
                // eframe writes it with `File::create`, which keeps the mode made here; an
                // empty RON map reads as nothing saved yet.
                let _ = crate::store::prepare_private_file(&path, "{}");
                path
            })
        },
        viewport,
        ..Default::default()
    };
    let result_slot: Arc<std::sync::Mutex<Option<SmokeResult>>> = Arc::default();
    let slot = Arc::clone(&result_slot);
    eframe::run_native(
        "Retryscope",
        native,
        Box::new(move |cc| {
            let app = RetryscopeApp::new(cc, &options, Arc::clone(&core), launched);
            if let Ok(mut s) = slot.lock() {
                *s = app.smoke_result();
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| super::start_error::window_start_error(&e, |name| std::env::var_os(name)))?;
    let smoke = result_slot.lock().ok().and_then(|s| s.clone());
    match smoke {
        Some(result) => match result.lock().ok().and_then(|r| r.clone()) {
            Some(outcome) => outcome,
            None => Err("the window closed before the screenshot was taken".into()),
        },
        None => Ok(()),
    }
}
