//! The timeline plot as a PNG image, drawn without a display (plotters' bitmap backend, text
//! with a pure-Rust rasteriser and the Ubuntu Light font egui already ships), so the CLI, CI and
//! the window's "Export PNG…" all make the same picture.
//!
//! Two lanes like the window's plot: attempts as bars coloured by outcome (labelled with the
//! attempt number and its status or error kind), and waits below them: the measured wait as a
//! grey bar inside an outline of the planned wait, so a wait cut short or overrun shows as a
//! difference between the two. The x axis is time since the run started.

use crate::model::units::ms_or_seconds;
use crate::model::{AttemptClass, AttemptRow, RunFold, WaitRow};
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::fmt::Write as _;

/// Default image width, pixels.
pub const DEFAULT_WIDTH: u32 = 1200;
/// Default image height, pixels.
pub const DEFAULT_HEIGHT: u32 = 400;
/// Smallest width or height accepted, pixels (room for the axes and the legend).
pub const MIN_SIZE: u32 = 200;
/// Largest width or height accepted, pixels.
pub const MAX_SIZE: u32 = 8000;
/// The font family name the renderer registers its embedded font under.
pub(super) const FONT: &str = "sans-serif";

/// Fill colour of an attempt bar (RGB; the values of `ui::timeline::colors`): green success,
/// amber retryable, red stopped, purple network error, grey-blue unfinished (in flight,
/// aborted or interrupted).
fn class_color(class: AttemptClass) -> RGBColor {
    match class {
        AttemptClass::Success => RGBColor(46, 160, 67),
        AttemptClass::Retryable => RGBColor(219, 150, 20),
        AttemptClass::Stopped => RGBColor(207, 34, 46),
        AttemptClass::NetworkError => RGBColor(137, 87, 229),
        AttemptClass::InFlight | AttemptClass::Aborted => RGBColor(110, 118, 129),
    }
}

/// Legend name of an attempt class.
fn class_name(class: AttemptClass) -> &'static str {
    match class {
        AttemptClass::Success => "success",
        AttemptClass::Retryable => "retryable",
        AttemptClass::Stopped => "stopped",
        AttemptClass::NetworkError => "network error",
        AttemptClass::InFlight | AttemptClass::Aborted => "unfinished",
    }
}

/// What the plot shows: a run's attempts and waits, with a title line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimelinePlot {
    /// Title, e.g. `GET http://127.0.0.1:8080/status/503 — gave_up, 3 attempts, 1.2 s` (secrets
    /// already masked), then `; retry budget 500 → 486 of 500 tokens` when the run drew on one.
    pub title: String,
    /// The run's attempt rows in order, each with the wait after it: an attempt's bar is
    /// coloured by its [`AttemptRow::class`] (thin when it has no result), a wait's bar is its
    /// measured length inside an outline of its planned one.
    pub attempts: Vec<AttemptRow>,
}

impl TimelinePlot {
    /// The plot of the run `fold` (masked, so the title's URL is too).
    pub fn of_fold(fold: &RunFold) -> Self {
        let mut title = fold
            .header
            .as_ref()
            .map(|h| format!("{} {}", h.method, h.url))
            .unwrap_or_default();
        if let Some(f) = &fold.finish {
            let _ = write!(
                title,
                " — {}, {}, {}",
                f.outcome.kind.id(),
                crate::model::counted(u64::from(f.attempts), "attempt", "attempts"),
                ms_or_seconds(f.elapsed_ms)
            );
        }
        let budget = fold.attempts.iter().flat_map(|a| &a.budget);
        if let (Some(first), Some(last)) = (budget.clone().next(), budget.last()) {
            let t = crate::policy::tokens_text;
            let _ = write!(
                title,
                "; retry budget {} → {} of {} tokens",
                t(first.before),
                t(last.after),
                t(last.capacity)
            );
        }
        Self {
            title,
            attempts: fold.attempts.clone(),
        }
    }

    /// The plot as PNG bytes at [`DEFAULT_WIDTH`] × [`DEFAULT_HEIGHT`] pixels ([`render_png`]):
    /// `run --png`, `history export --format png` and the window's "Export PNG…".
    ///
    /// # Errors
    /// As [`render_png`].
    pub fn png(&self) -> Result<Vec<u8>, PlotError> {
        render_png(self, DEFAULT_WIDTH, DEFAULT_HEIGHT)
    }

    /// The latest time shown, ms (the end of the last attempt or wait; at least 1).
    pub fn extent_ms(&self) -> f64 {
        let attempts = self.attempts.iter().map(|a| a.offset_ms + bar_ms(a));
        let waits = self.waits().map(|(w, measured)| {
            #[allow(clippy::cast_precision_loss)] // planned waits are at most 24 h in ms
            let planned = w.planned_ms as f64;
            w.offset_ms + planned.max(measured.unwrap_or(0.0))
        });
        attempts.chain(waits).fold(1.0, f64::max)
    }

    /// The waits in order, each with its measured length (`None` when it did not end: the
    /// run ended in it).
    fn waits(&self) -> impl Iterator<Item = (&WaitRow, Option<f64>)> {
        self.attempts
            .iter()
            .filter_map(|a| a.wait.as_ref())
            .map(|w| (w, w.actual_ms.filter(|_| !w.interrupted)))
    }
}

/// Why no image came out.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum PlotError {
    /// Width or height outside `MIN_SIZE..=MAX_SIZE` (200..=8000).
    #[error("the image must be {MIN_SIZE} to {MAX_SIZE} pixels wide and high, not {0}×{1}")]
    Size(u32, u32),
    /// Drawing failed (the message says where).
    #[error("cannot draw the timeline plot: {0}")]
    Draw(String),
    /// PNG encoding failed.
    #[error("cannot encode the timeline plot as PNG: {0}")]
    Encode(String),
}

/// `plot` as PNG bytes, `width` × `height` pixels, white background.
///
/// # Errors
/// [`PlotError::Size`] for a size outside `MIN_SIZE..=MAX_SIZE` (200..=8000); [`PlotError::Draw`] /
/// [`PlotError::Encode`] when plotters or the encoder fail.
pub fn render_png(plot: &TimelinePlot, width: u32, height: u32) -> Result<Vec<u8>, PlotError> {
    render_with(width, height, &|root| draw(root, plot))
}

/// A `width` × `height` PNG drawn by `draw` on a white bitmap with the embedded font registered
/// (the timeline's and the lab's plots share it).
pub(super) fn render_with(
    width: u32,
    height: u32,
    draw: &dyn Fn(&Area<'_>) -> DrawResult,
) -> Result<Vec<u8>, PlotError> {
    if !(MIN_SIZE..=MAX_SIZE).contains(&width) || !(MIN_SIZE..=MAX_SIZE).contains(&height) {
        return Err(PlotError::Size(width, height));
    }
    register_font()?;
    let len = usize::try_from(u64::from(width) * u64::from(height) * 3)
        .map_err(|_| PlotError::Size(width, height))?;
    let mut pixels = vec![255_u8; len];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (width, height)).into_drawing_area();
        draw(&root).map_err(|e| PlotError::Draw(e.to_string()))?;
        root.present().map_err(|e| PlotError::Draw(e.to_string()))?;
    }
    encode(&pixels, width, height)
}

/// Registers the embedded font under [`FONT`] (plotters lays text out with it, in PNG and SVG
/// alike). Registering again replaces the same font, so no once-guard is needed.
pub(super) fn register_font() -> Result<(), PlotError> {
    plotters::style::register_font(FONT, FontStyle::Normal, epaint_default_fonts::HACK_REGULAR)
        .map_err(|_| PlotError::Draw("the embedded font does not load".to_owned()))
}

/// RGB `pixels` as PNG.
fn encode(pixels: &[u8], width: u32, height: u32) -> Result<Vec<u8>, PlotError> {
    use image::ImageEncoder;
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(pixels, width, height, image::ExtendedColorType::Rgb8)
        .map_err(|e| PlotError::Encode(e.to_string()))?;
    Ok(out)
}

pub(super) type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;
pub(super) type DrawResult = Result<(), Box<dyn std::error::Error + 'static>>;

/// Y of the attempts lane's centre.
const ATTEMPT_LANE: f64 = 1.0;
/// Y of the waits lane's centre.
const WAIT_LANE: f64 = 0.0;
/// Half the height of an attempt bar, lane units.
const ATTEMPT_HALF: f64 = 0.3;
/// Half the height of a wait bar, lane units.
const WAIT_HALF: f64 = 0.2;
/// Wait grey (measured).
const WAIT_FILL: RGBColor = RGBColor(140, 140, 140);
/// Outline of the planned wait.
const PLANNED_LINE: RGBColor = RGBColor(60, 60, 60);

/// The length of an attempt's bar, ms: its measured duration, 0 without a result.
fn bar_ms(a: &AttemptRow) -> f64 {
    a.result.as_ref().map_or(0.0, |r| r.timings.total_ms)
}

fn draw(root: &Area<'_>, plot: &TimelinePlot) -> DrawResult {
    root.fill(&WHITE)?;
    let (width, _) = root.dim_in_pixel();
    let (legend_area, chart_area) = root.split_vertically(28);
    draw_legend(&legend_area)?;
    let extent = plot.extent_ms() * 1.02;
    let title_size = if width < 600 { 14 } else { 18 };
    let mut chart = ChartBuilder::on(&chart_area)
        .caption(&plot.title, (FONT, title_size))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(72)
        .build_cartesian_2d(0.0..extent, -0.6..1.6)?;
    let seconds = extent >= 20_000.0;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(3)
        .y_label_formatter(&|y: &f64| {
            if (*y - ATTEMPT_LANE).abs() < 0.01 {
                "attempts".to_owned()
            } else if (*y - WAIT_LANE).abs() < 0.01 {
                "waits".to_owned()
            } else {
                String::new()
            }
        })
        .x_desc("time since run start")
        .x_label_formatter(&|x: &f64| {
            if seconds {
                format!("{:.0} s", x / 1000.0)
            } else {
                format!("{x:.0} ms")
            }
        })
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 13))
        .draw()?;
    // Pixels per ms, to skip labels that would not fit their bar.
    let plot_width = f64::from(chart.plotting_area().dim_in_pixel().0.max(1));
    let px_per_ms = plot_width / extent;
    for a in &plot.attempts {
        // A bar is at least ~2 px wide so a 0.3 ms attempt in a 10 s run still shows.
        let end = a.offset_ms + bar_ms(a).max(2.0 / px_per_ms);
        chart.draw_series(std::iter::once(Rectangle::new(
            [
                (a.offset_ms, ATTEMPT_LANE - ATTEMPT_HALF),
                (end, ATTEMPT_LANE + ATTEMPT_HALF),
            ],
            class_color(a.class()).filled(),
        )))?;
        let label = match a.short_label() {
            None => format!("#{}", a.number),
            Some(l) => format!("#{} {l}", a.number),
        };
        chart.draw_series(std::iter::once(Text::new(
            label,
            (a.offset_ms, ATTEMPT_LANE + ATTEMPT_HALF + 0.22),
            (FONT, 13).into_font().color(&BLACK),
        )))?;
    }
    for (w, measured) in plot.waits() {
        #[allow(clippy::cast_precision_loss)] // planned waits are at most 24 h in ms
        let planned = w.planned_ms as f64;
        // The wait's bar `ms` long (at least a pixel), filled when measured, outlined when planned.
        let bar = |ms: f64, style: ShapeStyle| {
            let end = w.offset_ms + ms.max(1.0 / px_per_ms);
            let corners = [
                (w.offset_ms, WAIT_LANE - WAIT_HALF),
                (end, WAIT_LANE + WAIT_HALF),
            ];
            std::iter::once(Rectangle::new(corners, style))
        };
        if let Some(measured) = measured {
            chart.draw_series(bar(measured, WAIT_FILL.filled()))?;
        }
        chart.draw_series(bar(
            planned,
            ShapeStyle::from(&PLANNED_LINE).stroke_width(1),
        ))?;
        let text = match measured {
            Some(m) => format!(
                "{} planned, {} measured",
                ms_or_seconds(planned),
                ms_or_seconds(m)
            ),
            None => format!("{} planned, did not end", ms_or_seconds(planned)),
        };
        let short = ms_or_seconds(measured.unwrap_or(planned));
        // About 7 px per character at 13 px text.
        #[allow(clippy::cast_precision_loss)]
        let fits =
            |s: &str| planned.max(measured.unwrap_or(0.0)) * px_per_ms >= 7.0 * s.len() as f64;
        let shown = if fits(&text) {
            Some(text)
        } else if fits(&short) {
            Some(short)
        } else {
            None
        };
        if let Some(t) = shown {
            chart.draw_series(std::iter::once(Text::new(
                t,
                (w.offset_ms, WAIT_LANE - WAIT_HALF - 0.08),
                (FONT, 13).into_font().color(&BLACK),
            )))?;
        }
    }
    Ok(())
}

/// The colour key along the top.
fn draw_legend(area: &Area<'_>) -> DrawResult {
    let mut x: i32 = 12;
    let font = (FONT, 13).into_font().color(&BLACK);
    let keys = [
        AttemptClass::Success,
        AttemptClass::Retryable,
        AttemptClass::Stopped,
        AttemptClass::NetworkError,
        AttemptClass::Aborted,
    ];
    for class in keys {
        area.draw(&Rectangle::new(
            [(x, 8), (x + 12, 20)],
            class_color(class).filled(),
        ))?;
        area.draw(&Text::new(class_name(class), (x + 16, 7), font.clone()))?;
        x += 24 + 8 * i32::try_from(class_name(class).len()).unwrap_or(10);
    }
    area.draw(&Rectangle::new([(x, 8), (x + 12, 20)], WAIT_FILL.filled()))?;
    area.draw(&Text::new("wait (measured)", (x + 16, 7), font.clone()))?;
    x += 24 + 8 * 15;
    area.draw(&Rectangle::new(
        [(x, 8), (x + 12, 20)],
        ShapeStyle::from(&PLANNED_LINE).stroke_width(1),
    ))?;
    area.draw(&Text::new("wait (planned)", (x + 16, 7), font))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_out_of_range_are_refused() {
        let plot = TimelinePlot::default();
        assert_eq!(render_png(&plot, 10, 400), Err(PlotError::Size(10, 400)));
        assert_eq!(
            render_png(&plot, 400, MAX_SIZE + 1),
            Err(PlotError::Size(400, MAX_SIZE + 1))
        );
    }

    #[test]
    fn extent_covers_the_longer_of_planned_and_measured() {
        let start = chrono::DateTime::parse_from_rfc3339("2026-12-01T10:00:00+00:00").unwrap();
        let fold = crate::testkit::EventScript::new(1, "GET", "http://127.0.0.1:9/", start)
            .attempt(
                crate::testkit::response(503, &[], ""),
                crate::testkit::retry("503"),
                10.0,
            )
            .wait(100, 120.0)
            .fold();
        assert!((TimelinePlot::of_fold(&fold).extent_ms() - 130.0).abs() < 1e-9);
    }
}
