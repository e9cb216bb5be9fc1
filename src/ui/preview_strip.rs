//! The preview strip: for retry 1…R, the sampled min–max band and p50 of each wait (from
//! `policy::simulate`, pure) and the true cumulative worst case (the sum of the formula's
//! `bound_max` of waits 1..=n, not sampled). The numbers come from [`AnalysisWorker`] (off the
//! frame thread); long previews show the first retries, the last one and the totals, with
//! "Show all" for the rest (drawn virtualised).

use super::controls::error_line;
use super::profile_analysis::{Analysis, AnalysisWorker, preview_samples};
pub use super::profile_analysis::{PREVIEW_SAMPLES, PREVIEW_SEED};
use crate::model::RetryProfile;
use crate::policy::{PolicyError, RetryStats};
use crate::profile::ProfileIssue;
use egui::{Color32, Rect, Sense, Stroke, Ui, vec2};
use std::sync::Arc;

/// Retries listed before the preview folds the middle away ("Show all" lists every one).
pub const PREVIEW_HEAD_ROWS: usize = 5;

/// The analysis of the profile being edited: asked for when the profile changes, shown when it
/// arrives (the last one stays on screen meanwhile, marked as updating).
pub struct PreviewCache {
    worker: AnalysisWorker,
    /// The profile value last submitted.
    key: Option<RetryProfile>,
    /// The newest finished analysis and the value it describes.
    shown: Option<(RetryProfile, Arc<Analysis>)>,
    computations: u64,
    show_all: bool,
}

impl Default for PreviewCache {
    fn default() -> Self {
        Self::new(AnalysisWorker::inline())
    }
}

impl PreviewCache {
    /// A cache fed by `worker` ([`AnalysisWorker::spawn`] in the app, inline in tests).
    pub fn new(worker: AnalysisWorker) -> Self {
        Self {
            worker,
            key: None,
            shown: None,
            computations: 0,
            show_all: false,
        }
    }

    /// Takes finished work and asks for a new analysis when `profile` differs from the last
    /// value asked for. Never waits.
    pub fn refresh(&mut self, profile: &RetryProfile) {
        if self.key.as_ref() != Some(profile) {
            self.computations += 1;
            self.key = Some(profile.clone());
            self.worker.submit(profile.clone());
        }
        if let Some(finished) = self.worker.poll() {
            self.shown = Some(finished);
        }
    }

    /// Whether the shown analysis is of the profile value last asked for.
    pub fn is_current(&self) -> bool {
        matches!((&self.shown, &self.key), (Some((p, _)), Some(k)) if p == k)
    }

    /// The problems of `profile` when the shown analysis is of exactly that value.
    pub fn issues_of(&self, profile: &RetryProfile) -> Option<&[ProfileIssue]> {
        match &self.shown {
            Some((p, a)) if p == profile => Some(&a.issues),
            _ => None,
        }
    }

    /// The problems in the shown analysis (possibly of an older value).
    pub fn issues(&self) -> &[ProfileIssue] {
        self.shown.as_ref().map_or(&[], |(_, a)| &a.issues)
    }

    /// The shown analysis's warnings (settings that never take effect).
    pub fn warnings(&self) -> &[ProfileIssue] {
        self.shown.as_ref().map_or(&[], |(_, a)| &a.warnings)
    }

    /// The compile or simulation error of the shown analysis.
    pub fn error(&self) -> Option<&PolicyError> {
        self.shown
            .as_ref()
            .and_then(|(_, a)| a.compile_error.as_ref())
    }

    /// The shown statistics, retry 1 first.
    pub fn stats(&self) -> &[RetryStats] {
        self.shown.as_ref().map_or(&[], |(_, a)| &a.stats)
    }

    /// The true worst cumulative waiting up to each retry, ms: entry n−1 is the sum of
    /// [`RetryStats::bound_max`] of waits 1..=n (the formula's maxima, not sampled).
    pub fn worst_cumulative(&self) -> Vec<f64> {
        worst_cumulative(self.stats())
    }

    /// How many analyses were asked for (tests check the cache).
    pub fn computations(&self) -> u64 {
        self.computations
    }

    /// Draws the strip: one row per retry with a band (min–max), a p50 tick, and the numbers
    /// as an accessible label (see [`row_label`]); past [`PREVIEW_HEAD_ROWS`] + 2 retries, the
    /// first ones, a "Show all" line, the last one and the totals.
    pub fn ui(&mut self, ui: &mut Ui) {
        let samples = self.key.as_ref().map_or(PREVIEW_SAMPLES, |p| {
            preview_samples(crate::policy::listed_retries(p))
        });
        ui.horizontal_wrapped(|ui| {
            ui.strong("Preview (sampled waits per retry)")
                .on_hover_text(format!(
                    "{samples} simulated runs where every attempt fails with 503 and no delay header; \
                     band = sampled min–max, tick = sampled p50; worst cumulative = sum of the formula's \
                     maximum waits (not sampled)"
                ));
            if !self.is_current() {
                ui.spinner();
                ui.weak("updating…");
            }
        });
        let Some((profile, analysis)) = self.shown.clone() else {
            return;
        };
        if let Some(e) = &analysis.compile_error {
            let problem = match e {
                PolicyError::Script { .. } => {
                    "no preview: the script does not compile (error under the editor)".to_owned()
                }
                e => format!("no preview: {e}"),
            };
            return error_line(ui, Some(&problem));
        }
        let stats = &analysis.stats;
        if stats.is_empty() {
            ui.weak("no preview: no retries to simulate");
            return;
        }
        let scale = stats
            .iter()
            .map(|s| s.wait.max.max(s.bound_max))
            .fold(1.0_f64, f64::max);
        let bound = stats.iter().map(|s| s.bound_max).fold(0.0_f64, f64::max);
        ui.label(format!("largest possible wait: {} ms", ms(bound)))
            .on_hover_text("the formula's true maximum over all retries, after cap, jitter and window (not sampled)");
        let rows = PreviewRows {
            stats,
            samples,
            worst: worst_cumulative(stats),
            deadline: profile.deadline_ms,
            bar_width: (ui.available_width() * 0.3).clamp(60.0, 140.0),
            scale,
        };
        // `reached` never grows with n: rows past the first unreached retry would all be empty.
        let reached = stats.iter().take_while(|s| s.reached > 0).count();
        if self.show_all || reached <= PREVIEW_HEAD_ROWS + 2 {
            let row_height = ui.spacing().interact_size.y;
            egui::ScrollArea::vertical()
                .id_salt("preview_rows")
                .max_height(row_height * 12.0)
                .auto_shrink([false, true])
                .show_rows(ui, row_height, reached, |ui, range| {
                    for i in range {
                        rows.row(ui, i);
                    }
                });
            if reached > PREVIEW_HEAD_ROWS + 2
                && ui
                    .small_button("Show fewer")
                    .on_hover_text("fold the middle retries away")
                    .clicked()
            {
                self.show_all = false;
            }
        } else {
            for i in 0..PREVIEW_HEAD_ROWS {
                rows.row(ui, i);
            }
            ui.horizontal(|ui| {
                ui.weak(format!(
                    "… retries {}–{} not listed",
                    PREVIEW_HEAD_ROWS + 1,
                    reached - 1
                ));
                if ui
                    .small_button("Show all")
                    .on_hover_text("list every retry of the preview")
                    .clicked()
                {
                    self.show_all = true;
                }
            });
            rows.row(ui, reached - 1);
        }
        if let Some(last) = stats.get(reached.wrapping_sub(1)) {
            let worst = rows.worst_at(reached - 1);
            ui.label(format!(
                "total over {} retries: worst case {} (formula), sampled p50 {} ms, sampled max {} ms",
                last.retry,
                human_ms(worst),
                ms(last.cumulative.p50),
                ms(last.cumulative.max)
            ))
            .on_hover_text("the cumulative waiting up to the last retry a sampled run reaches");
        }
        if let (Some(first), Some(last)) = (stats.get(reached), stats.last()) {
            let why = crate::policy::unreached_reason(&profile);
            ui.weak(format!(
                "retries {}–{}: not reached in any sampled run ({why})",
                first.retry, last.retry
            ));
        }
        // Counts beyond what is listed (up to u32::MAX, or unlimited) are summarised, never
        // enumerated.
        if let Some(note) = crate::policy::unlisted_retries_note(&profile) {
            ui.weak(note);
        }
    }
}

/// A block that keeps its height while a text field has the keyboard: the preview and the
/// profile's warnings above the policy's fields, which grow and shrink as the user types, so
/// the field being typed into never moves; the block takes its new height once the keyboard
/// is elsewhere (its content scrolls inside meanwhile).
#[derive(Debug, Default)]
pub struct HeldHeight(f32);

impl HeldHeight {
    /// Draws `add_contents` under `id`, at the held height while a field is focused.
    pub fn show(&mut self, ui: &mut Ui, id: &str, add_contents: impl FnOnce(&mut Ui)) {
        // A text field has the keyboard (a clicked button may hold the focus too: not typing).
        let typing = ui.ctx().egui_wants_keyboard_input();
        if typing && self.0 > 0.0 {
            egui::ScrollArea::vertical()
                .id_salt(id)
                .min_scrolled_height(self.0)
                .max_height(self.0)
                .auto_shrink([false, false])
                .show(ui, add_contents);
        } else {
            self.0 = ui.scope(add_contents).response.rect.height();
        }
    }
}

/// What every preview row needs.
struct PreviewRows<'a> {
    stats: &'a [RetryStats],
    samples: u32,
    worst: Vec<f64>,
    deadline: Option<u64>,
    bar_width: f32,
    scale: f64,
}

impl PreviewRows<'_> {
    /// The formula's worst cumulative wait up to retry `i + 1`, never past the deadline (the
    /// run ends there).
    fn worst_at(&self, i: usize) -> f64 {
        let worst = self.worst.get(i).copied().unwrap_or_default();
        self.deadline.map_or(worst, |d| worst.min(d as f64))
    }

    fn row(&self, ui: &mut Ui, i: usize) {
        let Some(s) = self.stats.get(i) else { return };
        let worst = self.worst_at(i);
        ui.horizontal(|ui| {
            let (rect, _) = ui.allocate_exact_size(vec2(self.bar_width, 12.0), Sense::hover());
            paint_band(ui, rect, s, self.scale);
            ui.add(egui::Label::new(egui::RichText::new(row_label(s, worst)).small()).truncate())
                .on_hover_text(format!(
                    "{}\nsampled: p95 {} ms, cumulative p50 {} ms, cumulative max {} ms ({} of \
                     {} runs reached this retry); formula maximum of this wait {} ms",
                    row_label(s, worst),
                    ms(s.wait.p95),
                    ms(s.cumulative.p50),
                    ms(s.cumulative.max),
                    s.reached,
                    self.samples,
                    ms(s.bound_max)
                ));
        });
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
    #[allow(clippy::cast_possible_truncation, reason = "a fraction in [0, 1]")]
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

/// `v` ms rounded up, in human units too once it is a minute or more.
fn human_ms(v: f64) -> String {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "clamped to 0 first; waits are far below u64::MAX ms"
    )]
    let whole = v.max(0.0).ceil() as u64;
    crate::model::units::format_ms_human(whole)
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
        profile.max_retries = Some(4);
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
