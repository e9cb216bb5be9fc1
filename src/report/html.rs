//! The report as one self-contained HTML page: inline CSS, plots as inline SVG (the lab's chart
//! renderer) and the runs' timelines as PNG data URLs; no script, and a Content-Security-Policy
//! that forbids every fetch, so it opens offline and shows the same in any browser.
//!
//! Every figure shown carries its JSON path and raw value (`data-figure="success_rate.value"
//! data-value="0.93"`), so a test (or a script) can check the page against [`Figures`].

use super::figures::Figures;
use super::tables::{Cell, Table, attempts_table, outcome_text, profiles_used, runs_span, tables};
use super::text::time_text;
use std::fmt::Write as _;

/// Width of the inline plots, pixels.
const CHART_WIDTH: u32 = 960;
/// Size of a run's timeline image, pixels.
const TIMELINE_SIZE: (u32, u32) = (960, 300);

const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;color:#1f2328;margin:0;background:#f6f8fa}\
main{max-width:1000px;margin:0 auto;padding:24px;background:#fff}\
h1{margin:0 0 4px}h2{margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}\
.sub{color:#59636e;margin:0 0 16px}.cards{display:flex;flex-wrap:wrap;gap:12px}\
.card{border:1px solid #d0d7de;border-radius:6px;padding:10px 14px;min-width:150px;max-width:300px}\
.card .big{display:block;font-size:24px;font-weight:600}.card small{color:#59636e}\
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:left}\
th{background:#f6f8fa}code{font-family:ui-monospace,monospace;font-size:13px;word-break:break-all}\
img,svg{max-width:100%;height:auto}.note{color:#59636e;font-size:13px}";

/// The page of `figures`: the summary, what was sent, the plots over time
/// ([`super::report_charts`]) inline as SVG, the tables, and each informative run with its
/// timeline (`timelines`, by run id) as a PNG data URL. A plot that cannot be drawn is left
/// out with a note saying why.
pub fn html(figures: &Figures, timelines: &super::Timelines) -> String {
    let f = figures;
    let mut h = String::with_capacity(64 * 1024);
    let title = f.request.as_ref().map_or_else(
        || "Flakiness report".to_owned(),
        |r| format!("Flakiness report: {} {}", r.method, r.url),
    );
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; img-src data:\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{t}</title><style>{STYLE}</style></head>\n<body><main id=\"report\" data-format=\"{}\">\
         \n<h1>{t}</h1>\n<p class=\"sub\">",
        esc(&f.format),
        t = esc(&title),
    );
    h.push_str(&runs_span(f).map_or_else(|| "no runs matched".to_owned(), |span| esc(&span)));
    if let Some(at) = &f.generated_at {
        let _ = write!(h, "; generated {}", esc(&time_text(at)));
    }
    h.push_str("</p>\n");
    if let Some(w) = &f.warning {
        let _ = writeln!(
            h,
            "<p class=\"note\"><strong>warning:</strong> {}</p>",
            esc(w)
        );
    }
    for (i, table) in tables(f).iter().enumerate() {
        if i == 0 {
            cards(&mut h, table);
            sent(&mut h, f);
            h.push_str("<h2 id=\"over-time\">Over time</h2>\n");
            let (charts, empty) = super::drawable_report_charts(f);
            for note in &empty {
                let _ = write!(h, "<p class=\"note\">{}</p>", esc(note));
            }
            if !charts.is_empty() {
                match crate::interop::render_lab_svg(&charts, CHART_WIDTH) {
                    Ok(svg) => {
                        h.push_str(svg.find("<svg").map_or(svg.as_str(), |at| &svg[at..]));
                    }
                    Err(why) => {
                        let _ = write!(
                            h,
                            "<p class=\"note\">plots left out: {}</p>",
                            esc(&why.to_string())
                        );
                    }
                }
            }
            h.push('\n');
        } else {
            render(&mut h, table);
        }
    }
    runs(&mut h, f, timelines);
    h.push_str("</main></body></html>\n");
    h
}

/// `text` with `& < > " '` as entities.
fn esc(text: &str) -> String {
    quick_xml::escape::escape(text).into_owned()
}

/// A cell's content: escaped, as code when it is code, wrapped with its figure's path and
/// value when it shows one.
fn cell(c: &Cell) -> String {
    let text = if c.code {
        format!("<code>{}</code>", esc(&c.text))
    } else {
        esc(&c.text)
    };
    match &c.figure {
        Some((path, value)) => format!(
            "<span data-figure=\"{}\" data-value=\"{value}\">{text}</span>",
            esc(path)
        ),
        None => text,
    }
}

/// The summary table as cards: the value large, the figure's name, the detail small.
fn cards(h: &mut String, t: &Table) {
    let _ = write!(
        h,
        "<h2 id=\"{}\">{}</h2><div class=\"cards\">",
        t.id,
        esc(&t.title)
    );
    for row in &t.rows {
        if let [name, value, detail] = row.as_slice() {
            let _ = write!(
                h,
                "<div class=\"card\"><span class=\"big\">{}</span>{}<br><small>{}</small></div>",
                cell(value),
                cell(name),
                cell(detail)
            );
        }
    }
    h.push_str("</div>\n");
}

fn render(h: &mut String, t: &Table) {
    if !t.title.is_empty() {
        let _ = writeln!(h, "<h2 id=\"{}\">{}</h2>", t.id, esc(&t.title));
    }
    if !t.note.is_empty() {
        let _ = write!(h, "<p class=\"note\">{}</p>", esc(&t.note));
    }
    if t.rows.is_empty() && !t.empty.is_empty() {
        let _ = writeln!(h, "<p>{}</p>", esc(t.empty));
        return;
    }
    h.push_str("<table><tr>");
    for name in &t.head {
        let _ = write!(h, "<th>{}</th>", esc(name));
    }
    h.push_str("</tr>");
    for row in &t.rows {
        h.push_str("<tr>");
        for c in row {
            let _ = write!(h, "<td>{}</td>", cell(c));
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>\n");
}

fn sent(h: &mut String, f: &Figures) {
    h.push_str("<h2 id=\"sent\">What was sent</h2>\n");
    if let Some(r) = &f.request {
        let _ = write!(h, "<p><code>{} {}</code></p>", esc(&r.method), esc(&r.url));
        let rows = r
            .headers
            .iter()
            .map(|(n, v)| vec![Cell::code(n), Cell::code(v)])
            .collect();
        render(
            h,
            &Table {
                head: vec!["header", "value"],
                rows,
                empty: "No headers.",
                ..Table::default()
            },
        );
        if let Some(body) = &r.body {
            let _ = write!(h, "<p>body: <code>{}</code></p>", esc(body));
        }
        h.push_str(
            "<p class=\"note\">Secret values are masked (***) by Retryscope's secrets rule.</p>",
        );
    }
    let profiles = profiles_used(f, |name| format!("<code>{}</code>", esc(name)));
    let _ = write!(h, "<p>Profile used: {profiles}.</p>");
    if !f.selection.is_empty() {
        let shown: Vec<String> = f
            .selection
            .iter()
            .map(|(k, v)| format!("{} <code>{}</code>", esc(k), esc(v)))
            .collect();
        let _ = write!(h, "<p>Runs selected by {}.</p>", shown.join(", "));
    }
    h.push('\n');
}

fn runs(h: &mut String, f: &Figures, timelines: &super::Timelines) {
    use base64::Engine as _;
    h.push_str(
        "<h2 id=\"runs\">Most informative runs</h2>\n<p class=\"note\">Picked: the first failed run \
         of the longest outage, the slowest success, and the run whose server asked for the longest \
         delay; a place left empty goes to the run with the most attempts.</p>\n",
    );
    for picked in &f.informative_runs {
        let r = &picked.run;
        let _ = write!(
            h,
            "<h3>{}: <code>{}</code></h3><p>started {}, {}</p>",
            esc(picked.pick.title()),
            esc(&r.id),
            esc(&time_text(&r.started_at)),
            esc(&outcome_text(r))
        );
        let (w, ht) = TIMELINE_SIZE;
        let plot = timelines
            .get(&r.id)
            .ok_or_else(|| "the run was not read back from the history".to_owned())
            .and_then(|p| crate::interop::render_png(p, w, ht).map_err(|e| e.to_string()));
        match plot {
            Ok(png) => {
                let _ = write!(
                    h,
                    "<img alt=\"timeline of run {}\" src=\"data:image/png;base64,{}\">",
                    esc(&r.id),
                    base64::engine::general_purpose::STANDARD.encode(png)
                );
            }
            Err(why) => {
                let why: &str = &why;
                let _ = write!(h, "<p class=\"note\">timeline left out: {}</p>", esc(why));
            }
        }
        render(h, &attempts_table(r));
    }
}
