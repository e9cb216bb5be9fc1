//! The preview strip: for retry 1…R, the sampled min–max band and p50 of each wait and the
//! cumulative worst case, from `policy::simulate` (pure). Recomputed only when the profile changes.

use crate::model::RetryProfile;
use crate::policy::{Policy, PolicyError, RetryStats, simulate};
use egui::{Color32, Rect, Sense, Stroke, Ui, vec2};

/// Samples per preview (runs of the profile's waits).
pub const PREVIEW_SAMPLES: u32 = 2000;
/// Fixed seed so the preview does not flicker between frames.
pub const PREVIEW_SEED: u64 = 1;

/// Cached simulation of one profile value.
#[derive(Debug, Default)]
pub struct PreviewCache {
    key: Option<RetryProfile>,
    stats: Vec<RetryStats>,
    error: Option<PolicyError>,
    computations: u64,
}

impl PreviewCache {
    /// Recomputes when `profile` differs from the cached one (compile check + simulation).
    pub fn refresh(&mut self, profile: &RetryProfile) {
        if self.key.as_ref() == Some(profile) {
            return;
        }
        self.computations += 1;
        self.key = Some(profile.clone());
        self.error = Policy::new(profile.clone()).err();
        match simulate(profile, PREVIEW_SAMPLES, PREVIEW_SEED) {
            Ok(stats) => self.stats = stats,
            Err(e) => {
                self.stats.clear();
                self.error.get_or_insert(e);
            }
        }
    }

    /// The compile or simulation error of the cached profile.
    pub fn error(&self) -> Option<&PolicyError> {
        self.error.as_ref()
    }

    /// The cached statistics, retry 1 first.
    pub fn stats(&self) -> &[RetryStats] {
        &self.stats
    }

    /// How many times the simulation ran (tests check the cache).
    pub fn computations(&self) -> u64 {
        self.computations
    }

    /// Draws the strip: one row per retry with a band (min–max), a p50 tick, and the numbers
    /// as an accessible label `retry n: wait MIN–MAX ms, p50 P ms; cumulative worst W ms`.
    pub fn ui(&self, ui: &mut Ui) {
        ui.strong("Preview (sampled waits per retry)")
            .on_hover_text(format!(
                "{PREVIEW_SAMPLES} simulated runs where every attempt fails with 503 and no delay header; \
                 band = min–max, tick = p50, right = cumulative worst case"
            ));
        match &self.error {
            Some(PolicyError::Script { .. }) => {
                ui.colored_label(
                    ui.visuals().error_fg_color,
                    "no preview: the script does not compile (error under the editor)",
                );
                return;
            }
            Some(e) => {
                ui.colored_label(ui.visuals().error_fg_color, format!("no preview: {e}"));
                return;
            }
            None => {}
        }
        if self.stats.is_empty() {
            ui.weak("no preview: no retries to simulate");
            return;
        }
        let scale = self
            .stats
            .iter()
            .map(|s| s.wait.max.max(s.bound_max))
            .fold(1.0_f64, f64::max);
        let bound = self
            .stats
            .iter()
            .map(|s| s.bound_max)
            .fold(0.0_f64, f64::max);
        ui.label(format!("largest possible wait: {} ms", ms(bound)))
            .on_hover_text("the formula's true maximum over all retries, after cap, jitter and window (not sampled)");
        let bar_width = (ui.available_width() * 0.3).clamp(60.0, 140.0);
        for s in &self.stats {
            ui.horizontal(|ui| {
                let (rect, _) = ui.allocate_exact_size(vec2(bar_width, 12.0), Sense::hover());
                paint_band(ui, rect, s, scale);
                ui.add(
                    egui::Label::new(
                        egui::RichText::new(format!(
                            "retry {}: wait {}–{} ms, p50 {} ms; cumulative worst {} ms",
                            s.retry,
                            ms(s.wait.min),
                            ms(s.wait.max),
                            ms(s.wait.p50),
                            ms(s.cumulative.max)
                        ))
                        .small(),
                    )
                    .wrap(),
                )
                .on_hover_text(format!(
                    "p95 {} ms; formula maximum {} ms; cumulative p50 {} ms",
                    ms(s.wait.p95),
                    ms(s.bound_max),
                    ms(s.cumulative.p50)
                ));
            });
        }
    }
}

fn paint_band(ui: &Ui, rect: Rect, s: &RetryStats, scale: f64) {
    let painter = ui.painter_at(rect);
    let x = |v: f64| rect.left() + rect.width() * ((v / scale).clamp(0.0, 1.0) as f32);
    painter.rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
    let band = Rect::from_x_y_ranges(
        x(s.wait.min)..=x(s.wait.max).max(x(s.wait.min) + 1.0),
        rect.y_range(),
    );
    painter.rect_filled(
        band,
        2.0,
        Color32::from_rgb(0x4a, 0x90, 0xd9).gamma_multiply(0.6),
    );
    let p = x(s.wait.p50);
    painter.line_segment(
        [egui::pos2(p, rect.top()), egui::pos2(p, rect.bottom())],
        Stroke::new(2.0, ui.visuals().strong_text_color()),
    );
}

fn ms(v: f64) -> String {
    format!("{:.0}", v.max(0.0).ceil())
}
