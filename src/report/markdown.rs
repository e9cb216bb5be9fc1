//! The report as Markdown with its plots as PNG files beside it (the lab's chart renderer and
//! the timeline plot), for a ticket system that takes Markdown and attachments.

use super::figures::Figures;
use super::tables::{Cell, Table, attempts_table, outcome_text, profiles_used, runs_span, tables};
use super::text::time_text;
use crate::interop::PlotError;
use std::fmt::Write as _;

/// Width of the PNG plots, pixels.
const PNG_WIDTH: u32 = 1200;

/// A Markdown report and the images it links to.
#[derive(Debug)]
pub struct MarkdownReport {
    /// The Markdown text; images are linked by file name, relative to the text's folder.
    pub text: String,
    /// `(file name, PNG bytes or why it could not be drawn)` for each linked image: the plots
    /// over time, then one timeline per informative run.
    pub images: Vec<(String, Result<Vec<u8>, PlotError>)>,
}

/// The Markdown of `figures` (the same tables as the HTML page); image files are named
/// `{stem}-over-time.png` and `{stem}-run-1.png` … (the caller writes them beside the text).
pub fn markdown(figures: &Figures, stem: &str, timelines: &super::Timelines) -> MarkdownReport {
    let f = figures;
    let mut m = String::from("# Flakiness report\n\n");
    let mut images = Vec::new();
    if let Some(w) = &f.warning {
        let _ = writeln!(m, "**Warning:** {w}\n");
    }
    if let Some(r) = &f.request {
        let _ = writeln!(m, "{}\n", code(&format!("{} {}", r.method, r.url)));
        if r.headers.is_empty() {
            m.push_str("- no headers\n");
        }
        for (name, value) in &r.headers {
            let _ = writeln!(m, "- {}", code(&format!("{name}: {value}")));
        }
        if let Some(body) = &r.body {
            let _ = writeln!(m, "- body: {}", code(body));
        }
        m.push_str("\nSecret values are masked (***) by Retryscope's secrets rule.\n\n");
    }
    let _ = writeln!(m, "Profile used: {}.\n", profiles_used(f, code));
    if let Some(span) = runs_span(f) {
        let _ = writeln!(m, "{span}.\n");
    }
    for (i, table) in tables(f).iter().enumerate() {
        render(&mut m, table);
        if i == 0 {
            let (charts, empty) = super::drawable_report_charts(f);
            m.push_str("## Over time\n\n");
            for note in &empty {
                let _ = writeln!(m, "{note}.\n");
            }
            if !charts.is_empty() {
                let name = format!("{stem}-over-time.png");
                let _ = writeln!(
                    m,
                    "![runs, failures and time to success over time]({name})\n"
                );
                images.push((name, crate::interop::render_lab_png(&charts, PNG_WIDTH)));
            }
        }
    }
    m.push_str("## Most informative runs\n");
    for (i, picked) in f.informative_runs.iter().enumerate() {
        let r = &picked.run;
        let name = format!("{stem}-run-{}.png", i + 1);
        let _ = writeln!(
            m,
            "\n### {}: {}\n\nStarted {}, {}.\n",
            picked.pick.title(),
            code(&r.id),
            time_text(&r.started_at),
            outcome_text(r),
        );
        match timelines.get(&r.id) {
            Some(plot) => {
                let _ = writeln!(m, "![timeline of run {}]({name})\n", r.id);
                images.push((
                    name,
                    crate::interop::render_png(plot, PNG_WIDTH, crate::interop::PNG_DEFAULT_HEIGHT),
                ));
            }
            None => {
                m.push_str("(timeline left out: the run was not read back from the history)\n\n");
            }
        }
        render(&mut m, &attempts_table(r));
    }
    MarkdownReport { text: m, images }
}

/// `text` as inline code (backticks inside become quotes).
fn code(text: &str) -> String {
    format!("`{}`", text.replace('`', "'"))
}

fn render(m: &mut String, t: &Table) {
    if !t.title.is_empty() {
        let _ = writeln!(m, "## {}\n", t.title);
    }
    if !t.note.is_empty() {
        let _ = writeln!(m, "{}\n", t.note);
    }
    if t.rows.is_empty() {
        if !t.empty.is_empty() {
            let _ = writeln!(m, "{}\n", t.empty);
        }
        return;
    }
    let _ = writeln!(m, "| {} |", t.head.join(" | "));
    let _ = writeln!(m, "|{}", "---|".repeat(t.head.len()));
    for row in &t.rows {
        let cells: Vec<String> = row
            .iter()
            .map(|c: &Cell| {
                let text = c.text.replace('|', "\\|");
                if c.code && !text.is_empty() {
                    code(&text)
                } else {
                    text
                }
            })
            .collect();
        let _ = writeln!(m, "| {} |", cells.join(" | "));
    }
    m.push('\n');
}
