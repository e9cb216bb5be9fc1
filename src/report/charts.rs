//! The report's plots over time as the lab's chart descriptions ([`LabChart`]), so one drawing
//! code makes the HTML's inline SVG ([`crate::interop::render_lab_svg`]) and the Markdown's PNG
//! ([`crate::interop::render_lab_png`]).

use super::buckets::Bucket;
use super::figures::Figures;
use crate::interop::{LabChart, LabSeries};

/// Failure labels shown apart in the failures chart; the rest are summed as `other`.
pub const CHART_LABELS: usize = 4;

/// The time unit of the x axis: seconds up to 2 min, minutes up to 2 h, hours up to 3 days,
/// else days.
fn unit(figures: &Figures) -> (f64, &'static str) {
    let span = figures.buckets.width_ms as f64 * figures.buckets.items.len() as f64;
    if span <= 120_000.0 {
        (1_000.0, "seconds")
    } else if span <= 7_200_000.0 {
        (60_000.0, "minutes")
    } else if span <= 259_200_000.0 {
        (3_600_000.0, "hours")
    } else {
        (86_400_000.0, "days")
    }
}

/// The four charts: runs per bucket (failed, succeeded, neither), failed attempts per bucket
/// they were sent in, by status or error kind (the [`CHART_LABELS`] most frequent, the rest as `other`), the
/// success rate per bucket and time-to-success p50 / p95 / p99 per bucket. Bars of one bucket
/// stand side by side; the lines break at a bucket without a value (no succeeded or failed run;
/// no success), and a value alone between gaps is a dot. x is time since the first bucket's
/// start, which the x label names to the second; every chart spans the same buckets edge to
/// edge, and count axes label whole numbers only.
pub fn report_charts(figures: &Figures) -> Vec<LabChart> {
    let b = &figures.buckets;
    let (per, unit_name) = unit(figures);
    let width = b.width_ms as f64 / per;
    // The exact origin of x, to the second: a bucket of 1, 5, 10 or 30 s starts within a minute.
    let since = b.items.first().and_then(|i| i.start);
    let since = since
        .as_ref()
        .map(super::text::time_text)
        .unwrap_or_default();
    let x_label = format!("{unit_name} since {since}");
    let mid = |i: usize| (i as f64 + 0.5) * width;
    let grouped = |names: &[String], value: &dyn Fn(usize, usize) -> f64| -> Vec<LabSeries> {
        let k = names.len().max(1) as f64;
        names
            .iter()
            .enumerate()
            .map(|(j, name)| LabSeries {
                name: name.clone(),
                points: (0..b.items.len())
                    .map(|i| {
                        [
                            mid(i) + (j as f64 - (k - 1.0) / 2.0) * width / k,
                            value(i, j),
                        ]
                    })
                    .collect(),
                bar_width: Some(width / k),
            })
            .collect()
    };
    // In the palette's order: failed red, succeeded green, the rest yellow.
    let outcome_names = ["failed", "succeeded", "cancelled or unfinished"].map(str::to_owned);
    let runs = grouped(&outcome_names, &|i, j| {
        let item = &b.items[i];
        (match j {
            0 => item.failed,
            1 => item.succeeded,
            _ => item.runs - item.succeeded - item.failed,
        }) as f64
    });
    let mut labels: Vec<String> = figures
        .failures
        .iter()
        .take(CHART_LABELS)
        .map(|f| f.label.clone())
        .collect();
    let shown = labels.clone();
    if figures.failures.len() > CHART_LABELS {
        labels.push("other".to_owned());
    }
    let failures = grouped(&labels, &|i, j| {
        let counts = &b.items[i].failed_attempts;
        (match shown.get(j) {
            Some(label) => counts.get(label).copied().unwrap_or(0),
            None => counts
                .iter()
                .filter(|(l, _)| !shown.contains(l))
                .map(|(_, n)| n)
                .sum(),
        }) as f64
    });
    // A line with a point per bucket, NaN (a gap) where the bucket has no value.
    let line = |name: &str, value: &dyn Fn(&Bucket) -> Option<f64>| LabSeries {
        name: name.to_owned(),
        points: (b.items.iter().enumerate())
            .map(|(i, item)| [mid(i), value(item).unwrap_or(f64::NAN)])
            .collect(),
        bar_width: None,
    };
    let percentile = |name: &str, pick: fn(&super::Percentiles) -> f64| {
        line(name, &|item: &Bucket| {
            (item.time_to_success.count > 0).then(|| pick(&item.time_to_success))
        })
    };
    let width_text = super::text::duration_text(b.width_ms as f64);
    // Every chart spans the buckets edge to edge, so the four x axes line up.
    let x_range = Some((0.0, width * b.items.len().max(1) as f64));
    vec![
        LabChart {
            title: format!("runs per {width_text}"),
            x_label: x_label.clone(),
            y_label: "runs".to_owned(),
            series: runs,
            x_range,
            whole_y: true,
        },
        LabChart {
            title: format!("failed attempts per {width_text} sent, by status or error kind"),
            x_label: x_label.clone(),
            y_label: "attempts".to_owned(),
            series: failures,
            x_range,
            whole_y: true,
        },
        LabChart {
            title: format!("success rate per {width_text} (succeeded of succeeded + failed)"),
            x_label: x_label.clone(),
            y_label: "%".to_owned(),
            series: vec![line("success rate", &|item: &Bucket| {
                item.success_share().map(|share| 100.0 * share)
            })],
            x_range,
            whole_y: false,
        },
        LabChart {
            title: format!("time to success per {width_text}"),
            x_label,
            y_label: "ms".to_owned(),
            series: vec![
                percentile("p50", |p| p.p50_ms),
                percentile("p95", |p| p.p95_ms),
                percentile("p99", |p| p.p99_ms),
            ],
            x_range,
            whole_y: false,
        },
    ]
}

/// [`report_charts`] split into those with something to draw and, for each of the others, the
/// sentence a report prints in its place (`nothing to plot in "time to success per 1 min": no
/// value in any bucket`).
pub fn drawable_report_charts(figures: &Figures) -> (Vec<LabChart>, Vec<String>) {
    let (drawn, empty): (Vec<LabChart>, Vec<LabChart>) = report_charts(figures)
        .into_iter()
        .partition(LabChart::has_data);
    let notes = empty
        .iter()
        .map(|c| format!("nothing to plot in \"{}\": no value in any bucket", c.title))
        .collect();
    (drawn, notes)
}
