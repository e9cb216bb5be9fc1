//! The preview strip: for retry 1…R, the sampled min–max band and p50 of each wait (from
//! `policy::simulate`, pure) and the true cumulative worst case (the sum of the formula's
//! `bound_max` of waits 1..=n, not sampled). Recomputed only when the profile changes.

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

    /// The true worst cumulative waiting up to each retry, ms: entry n−1 is the sum of
    /// [`RetryStats::bound_max`] of waits 1..=n (the formula's maxima, not sampled).
    pub fn worst_cumulative(&self) -> Vec<f64> {
        worst_cumulative(&self.stats)
    }

    /// How many times the simulation ran (tests check the cache).
    pub fn computations(&self) -> u64 {
        self.computations
    }

    /// Draws the strip: one row per retry with a band (min–max), a p50 tick, and the numbers
    /// as an accessible label (see [`row_label`]).
    pub fn ui(&self, ui: &mut Ui) {
        ui.strong("Preview (sampled waits per retry)")
            .on_hover_text(format!(
                "{PREVIEW_SAMPLES} simulated runs where every attempt fails with 503 and no delay header; \
                 band = sampled min–max, tick = sampled p50; worst cumulative = sum of the formula's \
                 maximum waits (not sampled)"
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
        let worst = worst_cumulative(&self.stats);
        let deadline = self.key.as_ref().and_then(|p| p.deadline_ms);
        // `reached` never grows with n: rows past the first unreached retry would all be empty.
        let reached = self.stats.iter().take_while(|s| s.reached > 0).count();
        for (s, &worst) in self.stats.iter().zip(&worst).take(reached) {
            // The formula's worst case cannot outlast the deadline: the run ends there.
            let worst = deadline.map_or(worst, |d| worst.min(d as f64));
            ui.horizontal(|ui| {
                let (rect, _) = ui.allocate_exact_size(vec2(bar_width, 12.0), Sense::hover());
                paint_band(ui, rect, s, scale);
                ui.add(
                    egui::Label::new(egui::RichText::new(row_label(s, worst)).small())
                    .wrap(),
                )
                .on_hover_text(format!(
                    "sampled: p95 {} ms, cumulative p50 {} ms, cumulative max {} ms ({} of \
                     {PREVIEW_SAMPLES} runs reached this retry); formula maximum of this wait {} ms",
                    ms(s.wait.p95),
                    ms(s.cumulative.p50),
                    ms(s.cumulative.max),
                    s.reached,
                    ms(s.bound_max)
                ));
            });
        }
        if let (Some(first), Some(last)) = (self.stats.get(reached), self.stats.last()) {
            let why = self
                .key
                .as_ref()
                .map(crate::policy::unreached_reason)
                .unwrap_or_default();
            ui.weak(format!(
                "retries {}–{}: not reached in any sampled run ({why})",
                first.retry, last.retry
            ));
        }
    }
}

/// Running sums of `bound_max`: entry n−1 is the worst cumulative waiting up to retry n, ms.
fn worst_cumulative(stats: &[RetryStats]) -> Vec<f64> {
    stats
        .iter()
        .scan(0.0_f64, |sum, s| {
            *sum += s.bound_max;
            Some(*sum)
        })
        .collect()
}

/// `retry n: wait MIN–MAX ms, p50 P ms (sampled); worst cumulative W ms (formula)`: the sampled
/// numbers are labelled as such; `worst` is the formula's worst cumulative waiting up to retry n.
pub fn row_label(s: &RetryStats, worst: f64) -> String {
    format!(
        "retry {}: wait {}–{} ms, p50 {} ms (sampled); worst cumulative {} ms (formula)",
        s.retry,
        ms(s.wait.min),
        ms(s.wait.max),
        ms(s.wait.p50),
        ms(worst)
    )
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Backoff, Strategy};

    #[test]
    fn worst_cumulative_is_the_sum_of_formula_maxima_not_a_sample() {
        // exponential b = 1000, c = 10 000, window 1500: bounds 2500, 4500, 8500, 11 500 (b·(2^n − 1) capped, plus the window).
        let mut backoff = Backoff::new(Strategy::Exponential);
        backoff.max_delay_ms = Some(10_000);
        backoff.jitter_window_ms = 1500;
        let mut profile: RetryProfile = serde_json::from_value(serde_json::json!({
            "format": crate::model::PROFILE_FORMAT, "name": "x",
            "backoff": serde_json::to_value(&backoff).expect("serializes")
        }))
        .expect("profile");
        profile.max_retries = 4;
        let mut cache = PreviewCache::default();
        cache.refresh(&profile);
        let worst = cache.worst_cumulative();
        assert_eq!(worst, vec![2500.0, 7000.0, 15_500.0, 27_000.0]);
        // The sampled maximum never reaches the true worst case with jitter.
        assert!(cache.stats()[3].cumulative.max < worst[3]);
        let label = row_label(&cache.stats()[1], worst[1]);
        assert!(
            label.ends_with("(sampled); worst cumulative 7000 ms (formula)"),
            "{label}"
        );
        assert!(label.starts_with("retry 2: wait "), "{label}");
    }
}
