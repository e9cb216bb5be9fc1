//! `--screenshot PATH --exit-after-ms N`: press Send once at start, after N ms select attempt 1
//! (so the detail pane and its phase waterfall are in the picture), save a PNG of the window,
//! then close. Used by CI under Xvfb.

use super::workbench::WorkbenchState;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Default delay before the screenshot, ms.
pub const DEFAULT_EXIT_AFTER_MS: u64 = 1500;
/// How long to wait for the screenshot to arrive before giving up, ms.
const SCREENSHOT_TIMEOUT_MS: u64 = 5000;

/// Shared result of the screenshot: `None` until it is written.
pub type SmokeResult = Arc<Mutex<Option<Result<(), String>>>>;

/// The smoke-run driver.
pub struct SmokeRun {
    screenshot: Option<PathBuf>,
    exit_after: Duration,
    started: Option<Instant>,
    sent: bool,
    requested_at: Option<Instant>,
    closing: bool,
    /// Set when the PNG is written (or failed).
    pub result: SmokeResult,
}

impl SmokeRun {
    /// A driver saving to `screenshot` (if any) after `exit_after_ms` (default 1500 ms).
    pub fn new(screenshot: Option<PathBuf>, exit_after_ms: Option<u64>) -> Self {
        Self {
            screenshot,
            exit_after: Duration::from_millis(exit_after_ms.unwrap_or(DEFAULT_EXIT_AFTER_MS)),
            started: None,
            sent: false,
            requested_at: None,
            closing: false,
            result: Arc::new(Mutex::new(None)),
        }
    }

    /// Advances the smoke run; call once per frame from `App::logic`.
    pub fn tick(&mut self, ctx: &egui::Context, workbench: &mut WorkbenchState) {
        let started = *self.started.get_or_insert_with(Instant::now);
        if !self.sent {
            workbench.send();
            self.sent = true;
        }
        if self.closing {
            return;
        }
        let elapsed = started.elapsed();
        if elapsed < self.exit_after {
            ctx.request_repaint_after(self.exit_after.saturating_sub(elapsed));
            return;
        }
        // Attempt 1 in the detail pane, so the picture shows its phase waterfall too.
        if workbench.runs.selected_attempt().is_none() {
            workbench.runs.select_attempt(1);
        }
        let Some(path) = self.screenshot.clone() else {
            if let Ok(mut slot) = self.result.lock() {
                *slot = Some(Ok(()));
            }
            self.close(ctx, workbench);
            return;
        };
        match self.requested_at {
            None => {
                self.requested_at = Some(Instant::now());
                let result = Arc::clone(&self.result);
                let waker = ctx.clone();
                ctx.send_viewport_cmd(egui::ViewportCommand::Screenshot(
                    egui::ScreenshotCallback::new(move |image| {
                        let outcome = save_png(&path, &image);
                        if let Ok(mut slot) = result.lock() {
                            *slot = Some(outcome);
                        }
                        waker.request_repaint();
                    }),
                ));
                ctx.request_repaint_after(Duration::from_millis(50));
            }
            Some(at) => {
                let done = self.result.lock().map_or(true, |r| r.is_some());
                if done {
                    self.close(ctx, workbench);
                } else if at.elapsed() > Duration::from_millis(SCREENSHOT_TIMEOUT_MS) {
                    if let Ok(mut slot) = self.result.lock() {
                        *slot = Some(Err(format!(
                            "no screenshot arrived within {SCREENSHOT_TIMEOUT_MS} ms; is the renderer running?"
                        )));
                    }
                    self.close(ctx, workbench);
                } else {
                    ctx.request_repaint_after(Duration::from_millis(50));
                }
            }
        }
    }

    /// Closes without the quit question (a smoke run's own demo request may still be live).
    fn close(&mut self, ctx: &egui::Context, workbench: &mut WorkbenchState) {
        self.closing = true;
        workbench.quit.close_now(ctx);
    }
}

fn save_png(path: &std::path::Path, image: &egui::ColorImage) -> Result<(), String> {
    let [w, h] = image.size;
    let bytes: Vec<u8> = image
        .pixels
        .iter()
        .flat_map(egui::Color32::to_array)
        .collect();
    let width = u32::try_from(w).map_err(|_| format!("screenshot too wide: {w} px"))?;
    let height = u32::try_from(h).map_err(|_| format!("screenshot too tall: {h} px"))?;
    let buffer = image::RgbaImage::from_raw(width, height, bytes)
        .ok_or_else(|| format!("screenshot buffer does not match {w}×{h}"))?;
    buffer
        .save_with_format(path, image::ImageFormat::Png)
        .map_err(|e| format!("cannot write the screenshot: {e} ({})", path.display()))
}
