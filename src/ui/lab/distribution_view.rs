//! The distribution view: per retry, a box from p5 to p95 with whiskers at min and max and the
//! median, the exact bounds as lines, and the histogram of the retry last hovered.

use super::LabPanel;
use super::export::LabExportData;
use crate::interop::{distribution_csv, exact_bound, histogram_bars};
use crate::sim::{Distribution, RetryDistribution};
use egui_plot::{Bar, BarChart, BoxElem, BoxPlot, BoxSpread, Line};
use std::sync::Arc;

impl LabPanel {
    pub(super) fn distribution_ui(&mut self, ui: &mut egui::Ui, failure_status: u16) {
        let Some(result) = &self.distribution else {
            ui.label("sampling the profile's waits…");
            return;
        };
        let d = match result {
            Ok(d) => Arc::clone(d),
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, format!("cannot sample: {e}"));
                return;
            }
        };
        ui.horizontal_wrapped(|ui| {
            ui.checkbox(&mut self.cumulative, "Show cumulative elapsed time")
                .on_hover_text("the sum of waits 1…n instead of wait n");
            let (cumulative, histogram_retry) = (self.cumulative, self.histogram_retry);
            let copy_hover = "every retry's min, p5, p50, p95, max and exact bounds, as CSV";
            super::export_buttons(
                ui,
                &mut self.export,
                ("distribution", copy_hover),
                &|| distribution_csv(&d),
                &|| LabExportData::Distribution {
                    data: Arc::clone(&d),
                    cumulative,
                    histogram_retry,
                },
            );
        });
        if let Some(sentence) = plain_words(&d) {
            ui.strong(sentence);
        }
        let what = if d.retries.iter().any(|r| r.reached > 0) {
            " (a status this profile retries) and no delay header; boxes p5–p95, whiskers min–max, lines the exact bounds"
        } else {
            ": no run reaches a retry (this profile retries no status, or allows no retry), so there is no wait to plot"
        };
        let samples = d.samples;
        ui.label(format!(
            "{samples} sampled runs, every attempt failing with {failure_status}{what}"
        ));
        if let Some(hovered) = self.band_plot(ui, &d) {
            self.histogram_retry = hovered;
        }
        if let Some(r) = d.retries.iter().find(|r| r.retry == self.histogram_retry) {
            histogram_plot(ui, r);
        }
        for w in &d.warnings {
            ui.colored_label(ui.visuals().warn_fg_color, format!("⚠ {w}"));
        }
    }

    /// The band plot; returns the retry under the pointer.
    fn band_plot(&self, ui: &mut egui::Ui, d: &Distribution) -> Option<u32> {
        let cumulative = self.cumulative;
        let boxes: Vec<BoxElem> = d
            .retries
            .iter()
            .filter(|r| r.reached > 0)
            .map(|r| {
                let s = if cumulative { r.cumulative } else { r.wait };
                BoxElem::new(
                    f64::from(r.retry),
                    BoxSpread::new(s.min, s.p5, s.p50, s.p95, s.max),
                )
                .box_width(0.6)
                .name(format!("retry {}", r.retry))
            })
            .collect();
        let low = exact_bound(d, cumulative, false);
        let high = exact_bound(d, cumulative, true);
        let y = if cumulative { "elapsed ms" } else { "wait ms" };
        let names = ["sampled (min, p5, p50, p95, max)", "exact max", "exact min"];
        super::legend_row(ui, names);
        super::lab_plot(ui, "lab.distribution_plot", 220.0)
            .x_axis_label("retry n")
            .y_axis_label(y)
            .show(ui, |plot_ui| {
                plot_ui.box_plot(BoxPlot::new(names[0], boxes).color(super::series_color(0)));
                plot_ui.line(Line::new(names[1], high).color(super::series_color(1)));
                plot_ui.line(Line::new(names[2], low).color(super::series_color(2)));
                if plot_ui.response().hovered() {
                    plot_ui.pointer_coordinate().and_then(|p| retry_at(p.x))
                } else {
                    None
                }
            })
            .inner
    }
}

/// The result in one sentence for someone who never read about retries, e.g. "A request that
/// keeps failing has waited 7.7 s in all before its retry 3 in half of the runs, and never
/// more than 15.5 s."; `None` when no retry was reached.
fn plain_words(d: &Distribution) -> Option<String> {
    let last = d.retries.iter().rfind(|r| r.reached > 0)?;
    let most = last
        .cumulative_bounds
        .map_or(last.cumulative.max, |(_, high)| high);
    Some(format!(
        "A request that keeps failing has waited {} in all before its retry {} in half of the runs, and never more than {}.",
        super::spoken_ms(last.cumulative.p50),
        last.retry,
        super::spoken_ms(most),
    ))
}

/// The retry number nearest to plot coordinate `x`, if it is one.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "checked to lie in 1..=u32::MAX first"
)]
fn retry_at(x: f64) -> Option<u32> {
    let n = x.round();
    (n >= 1.0 && n <= f64::from(u32::MAX)).then_some(n as u32)
}

/// The histogram of wait n.
fn histogram_plot(ui: &mut egui::Ui, r: &RetryDistribution) {
    ui.label(format!(
        "histogram of wait {} ({} runs; hover the plot above to pick a retry)",
        r.retry, r.reached
    ));
    let width = r.histogram.bin_ms as f64;
    let bars: Vec<Bar> = histogram_bars(&r.histogram)
        .into_iter()
        .map(|[x, n]| Bar::new(x, n).width(width))
        .collect();
    super::lab_plot(ui, "lab.histogram_plot", 120.0)
        .x_axis_label("wait ms")
        .y_axis_label("runs")
        .show(ui, |plot_ui| {
            plot_ui.bar_chart(BarChart::new(format!("wait {}", r.retry), bars));
        });
}
