//! The strategy lab's plots as PNG images, drawn without a display by the timeline's renderer
//! ([`super::plot_png`]: plotters' bitmap backend, the embedded font, the same PNG encoder), so
//! the Lab's "Export … PNG…" buttons and tests make the same picture. A figure is one or more
//! charts stacked top to bottom, each a set of named line or bar series.

use super::plot_png::{
    DrawResult, FONT, MAX_SIZE, MIN_SIZE, PlotError, register_font, render_with,
};
use crate::sim::{ContentionResult, Distribution, Histogram, SweepPoint};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Default width of a lab PNG, pixels.
pub const LAB_PNG_WIDTH: u32 = 1200;
/// Height of one chart of a lab PNG, pixels.
pub const LAB_PNG_CHART_HEIGHT: u32 = 420;

/// One named series of a chart.
#[derive(Debug, Clone, PartialEq)]
pub struct LabSeries {
    /// Legend text, e.g. `full jitter` or `p95`.
    pub name: String,
    /// `[x, y]` points in x order; a line breaks at a point whose y is not finite (NaN: no
    /// value there).
    pub points: Vec<[f64; 2]>,
    /// Drawn as bars of this width (x units) instead of a line.
    pub bar_width: Option<f64>,
}

/// One chart: axes, title and series.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LabChart {
    /// Caption above the chart.
    pub title: String,
    /// X axis description, e.g. `clients N`.
    pub x_label: String,
    /// Y axis description, e.g. `calls`.
    pub y_label: String,
    /// The series, drawn in order (colours from plotters' 99-colour palette).
    pub series: Vec<LabSeries>,
    /// The x axis's span, when charts stacked together must line up (`None`: the series'
    /// own, bars' widths included).
    pub x_range: Option<(f64, f64)>,
    /// The y axis counts things: only whole-number ticks are labelled.
    pub whole_y: bool,
}

impl LabChart {
    /// Whether any series has a value to draw (a finite point; for bars, a nonzero one).
    pub fn has_data(&self) -> bool {
        self.series.iter().any(|s| {
            s.points
                .iter()
                .any(|p| p[1].is_finite() && (s.bar_width.is_none() || p[1] != 0.0))
        })
    }
}

fn line(name: &str, points: Vec<[f64; 2]>) -> LabSeries {
    LabSeries {
        name: name.to_owned(),
        points,
        bar_width: None,
    }
}

/// The distribution view's plot: per retry the sampled min, p5, p50, p95 and max of the wait
/// (or of the cumulative elapsed time) and the exact bounds, and the histogram of wait
/// `histogram_retry` when it is listed.
pub fn distribution_charts(
    d: &Distribution,
    cumulative: bool,
    histogram_retry: u32,
) -> Vec<LabChart> {
    let reached: Vec<_> = d.retries.iter().filter(|r| r.reached > 0).collect();
    let spread = |pick: fn(&crate::sim::Spread) -> f64| -> Vec<[f64; 2]> {
        reached
            .iter()
            .map(|r| {
                let s = if cumulative { &r.cumulative } else { &r.wait };
                [f64::from(r.retry), pick(s)]
            })
            .collect()
    };
    let what = if cumulative { "elapsed ms" } else { "wait ms" };
    let mut charts = vec![LabChart {
        title: format!(
            "{what} per retry ({} sampled runs, every attempt failing with 503)",
            d.samples
        ),
        x_label: "retry n".to_owned(),
        y_label: what.to_owned(),
        series: vec![
            line("sampled min", spread(|s| s.min)),
            line("sampled p5", spread(|s| s.p5)),
            line("sampled p50", spread(|s| s.p50)),
            line("sampled p95", spread(|s| s.p95)),
            line("sampled max", spread(|s| s.max)),
            line("exact min", exact_bound(d, cumulative, false)),
            line("exact max", exact_bound(d, cumulative, true)),
        ],
        ..LabChart::default()
    }];
    if let Some(r) = d.retries.iter().find(|r| r.retry == histogram_retry) {
        charts.push(LabChart {
            title: format!(
                "histogram of wait {} ({})",
                r.retry,
                crate::model::counted(u64::from(r.reached), "run", "runs")
            ),
            x_label: "wait ms".to_owned(),
            y_label: "runs".to_owned(),
            series: vec![LabSeries {
                name: format!("wait {}", r.retry),
                points: histogram_bars(&r.histogram),
                bar_width: Some(r.histogram.bin_ms as f64),
            }],
            whole_y: true,
            ..LabChart::default()
        });
    }
    charts
}

/// The exact lower (or, `high`, upper) bound of every retry's wait (or, `cumulative`, of the
/// elapsed time before it) as `[retry, ms]` points; retries without bounds are left out.
pub fn exact_bound(d: &Distribution, cumulative: bool, high: bool) -> Vec<[f64; 2]> {
    d.retries
        .iter()
        .filter_map(|r| {
            let b = if cumulative {
                r.cumulative_bounds
            } else {
                r.wait_bounds
            };
            b.map(|(lo, hi)| [f64::from(r.retry), if high { hi } else { lo }])
        })
        .collect()
}

/// A histogram's bins as `[bin centre ms, count]` points.
pub fn histogram_bars(h: &Histogram) -> Vec<[f64; 2]> {
    let width = h.bin_ms as f64;
    h.counts
        .iter()
        .enumerate()
        .map(|(i, &c)| [h.low_ms as f64 + (i as f64 + 0.5) * width, f64::from(c)])
        .collect()
}

/// The sweep's two plots: total calls and completion time against N, one line per strategy.
pub fn sweep_charts(points: &[SweepPoint]) -> Vec<LabChart> {
    let strategies = points.first().map_or(0, |p| p.results.len());
    let chart = |title: &str, y: &str, value: fn(&ContentionResult) -> f64| LabChart {
        title: title.to_owned(),
        x_label: "clients N".to_owned(),
        y_label: y.to_owned(),
        series: (0..strategies)
            .map(|i| {
                line(
                    &points[0].results[i].label,
                    points
                        .iter()
                        .filter_map(|p| p.results.get(i).map(|r| [f64::from(p.clients), value(r)]))
                        .collect(),
                )
            })
            .collect(),
        ..LabChart::default()
    };
    vec![
        chart("total calls against N (mean of the runs)", "calls", |r| {
            r.total_calls
        }),
        chart(
            "time until the last client completes against N",
            "completion ms",
            |r| r.completion_ms,
        ),
    ]
}

/// The server load over time at one N, one line per strategy.
pub fn load_charts(results: &[ContentionResult]) -> Vec<LabChart> {
    let clients = results.first().map_or(0, |r| r.clients);
    vec![LabChart {
        title: format!("server load at N = {clients} (calls a second, mean of the runs)"),
        x_label: "time ms".to_owned(),
        y_label: "calls/s".to_owned(),
        series: results
            .iter()
            .map(|r| {
                let points = r.load.iter().enumerate();
                line(
                    &r.label,
                    points.map(|(i, &v)| [i as f64 * r.bucket_ms, v]).collect(),
                )
            })
            .collect(),
        ..LabChart::default()
    }]
}

/// `charts` stacked top to bottom as PNG bytes, `width` pixels wide and
/// [`LAB_PNG_CHART_HEIGHT`] per chart, white background.
///
/// ```
/// use retryscope::interop::{LabChart, LabSeries, render_lab_png};
/// let chart = LabChart { title: "t".into(), x_label: "x".into(), y_label: "y".into(),
///     series: vec![LabSeries { name: "a".into(), points: vec![[0.0, 1.0], [1.0, 3.0]], bar_width: None }],
///     ..LabChart::default() };
/// let png = render_lab_png(&[chart], 600).unwrap();
/// assert_eq!(&png[1..4], b"PNG");
/// ```
///
/// # Errors
/// [`PlotError::Size`] for a width outside 200..=8000 or too many charts for 8000 pixels;
/// [`PlotError::Draw`] / [`PlotError::Encode`] when plotters or the encoder fail.
pub fn render_lab_png(charts: &[LabChart], width: u32) -> Result<Vec<u8>, PlotError> {
    let count = u32::try_from(charts.len().max(1)).unwrap_or(u32::MAX);
    let height = LAB_PNG_CHART_HEIGHT.saturating_mul(count);
    render_with(width, height, &|root| draw(root, charts))
}

/// `charts` stacked top to bottom as an SVG document (the report's HTML inlines it), `width`
/// pixels wide and [`LAB_PNG_CHART_HEIGHT`] per chart: the same drawing as
/// [`render_lab_png`], text left to the viewer's sans-serif font.
///
/// # Errors
/// As [`render_lab_png`] ([`PlotError::Encode`] aside).
pub fn render_lab_svg(charts: &[LabChart], width: u32) -> Result<String, PlotError> {
    let count = u32::try_from(charts.len().max(1)).unwrap_or(u32::MAX);
    let height = LAB_PNG_CHART_HEIGHT.saturating_mul(count);
    if !(MIN_SIZE..=MAX_SIZE).contains(&width) || !(MIN_SIZE..=MAX_SIZE).contains(&height) {
        return Err(PlotError::Size(width, height));
    }
    register_font()?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        draw(&root, charts).map_err(|e| PlotError::Draw(e.to_string()))?;
        root.present().map_err(|e| PlotError::Draw(e.to_string()))?;
    }
    Ok(svg)
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, charts: &[LabChart]) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let areas = root.split_evenly((charts.len().max(1), 1));
    for (area, chart) in areas.iter().zip(charts) {
        draw_chart(area, chart)?;
    }
    Ok(())
}

/// The range of the series' x or y values, widened when empty or flat; y starts at 0.
fn range(chart: &LabChart, axis: usize) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for s in &chart.series {
        let half = if axis == 0 {
            s.bar_width.unwrap_or(0.0) / 2.0
        } else {
            0.0
        };
        for p in &s.points {
            if p[axis].is_finite() {
                lo = lo.min(p[axis] - half);
                hi = hi.max(p[axis] + half);
            }
        }
    }
    if axis == 1 {
        lo = lo.min(0.0);
    }
    if !lo.is_finite() || !hi.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo <= f64::EPSILON {
        return (lo - 0.5, hi + 0.5);
    }
    (lo, hi + (hi - lo) * 0.05)
}

/// A tick label: whole numbers as such; on a short axis (a few retries, a few runs) other ticks
/// get one decimal, so `1, 1.2, 1.4` is not printed `1, 1, 1`.
fn tick_text(x: f64, span: f64) -> String {
    if (x - x.round()).abs() < 1e-9 || span >= 20.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

fn draw_chart<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, chart: &LabChart) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (x0, x1) = chart.x_range.unwrap_or_else(|| range(chart, 0));
    let (y0, y1) = range(chart, 1);
    let y_tick = |y: &f64| {
        if chart.whole_y && (y - y.round()).abs() > 1e-9 {
            String::new()
        } else {
            tick_text(*y, y1 - y0)
        }
    };
    let mut c = ChartBuilder::on(area)
        .caption(&chart.title, (FONT, 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(72)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    c.configure_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .x_label_formatter(&|x: &f64| tick_text(*x, x1 - x0))
        .y_label_formatter(&y_tick)
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 13))
        .draw()?;
    for (i, s) in chart.series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let drawn = if let Some(w) = s.bar_width {
            c.draw_series(s.points.iter().map(|p| {
                Rectangle::new(
                    [(p[0] - w * 0.45, 0.0), (p[0] + w * 0.45, p[1])],
                    color.filled(),
                )
            }))?
        } else {
            // Paths (plotters' `LineSeries` needs a feature we do not build), broken where y is
            // not finite (a gap); a point alone between gaps is a dot, as a path of one point
            // would not show.
            let segments = s.points.split(|p| !p[1].is_finite());
            let segments: Vec<Vec<(f64, f64)>> = segments
                .filter(|run| !run.is_empty())
                .map(|run| run.iter().map(|p| (p[0], p[1])).collect())
                .collect();
            c.draw_series(segments.into_iter().map(|run| match run.as_slice() {
                [dot] => Circle::new(*dot, 4, color.filled()).into_dyn(),
                _ => PathElement::new(run, color.stroke_width(2)).into_dyn(),
            }))?
        };
        drawn.label(s.name.as_str()).legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(3))
        });
    }
    c.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}
