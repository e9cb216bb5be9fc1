//! One run as the UI holds it: its timeline plus view state (selected attempt, caches).

use super::body_render::BodyRender;
use super::run_timeline::Timeline;
use crate::model::AttemptOutcome;

/// Body preview lines prepared for one attempt (so a 1 MiB body is split once, not per frame).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyCache {
    /// Index of the attempt row the cache belongs to.
    pub row: usize,
    /// How the body is shown.
    pub render: BodyRender,
    /// Display lines (long lines split at [`MAX_LINE_CHARS`]) for row-virtualised scrolling.
    pub lines: Vec<String>,
}

/// Longest display line of a body, in characters; longer lines wrap onto the next row.
pub const MAX_LINE_CHARS: usize = 160;

/// A run's timeline and what the user selected in it.
#[derive(Debug, Clone)]
pub struct RunView {
    /// The folded events.
    pub timeline: Timeline,
    /// Index of the selected attempt row (detail pane), if any.
    pub selected_row: Option<usize>,
    /// A row the table should scroll to on the next frame (after a plot click).
    pub scroll_to_row: Option<usize>,
    /// Body lines of the selected attempt.
    body_cache: Option<BodyCache>,
    /// The request the run sent ("Copy as curl"); `None` when unknown.
    pub request: Option<std::sync::Arc<super::SentRequest>>,
    /// `from history, <date>` for a past run opened from the History panel: shown read-only
    /// (no Cancel, no Retry now), never live.
    pub read_only: Option<String>,
}

impl RunView {
    /// A view of `timeline` with nothing selected.
    pub fn new(timeline: Timeline) -> Self {
        RunView {
            timeline,
            selected_row: None,
            scroll_to_row: None,
            body_cache: None,
            request: None,
            read_only: None,
        }
    }

    /// The timeline and the selected attempt's body prepared for display (computed once per
    /// selection, then cached).
    pub fn timeline_and_body(&mut self) -> (&Timeline, Option<&BodyCache>) {
        self.refresh_body_cache();
        let body = self
            .body_cache
            .as_ref()
            .filter(|c| Some(c.row) == self.selected_row);
        (&self.timeline, body)
    }

    fn refresh_body_cache(&mut self) {
        let Some(row) = self.selected_row else {
            return;
        };
        if self.body_cache.as_ref().is_some_and(|c| c.row == row) {
            return;
        }
        let Some(result) = self
            .timeline
            .attempts()
            .get(row)
            .and_then(|a| a.result.as_ref())
        else {
            return;
        };
        if let AttemptOutcome::Response(resp) = &result.outcome {
            let render = BodyRender::from_preview(&resp.body);
            let lines = display_lines(&render);
            self.body_cache = Some(BodyCache { row, render, lines });
        }
    }
}

fn display_lines(render: &BodyRender) -> Vec<String> {
    let mut lines = Vec::new();
    for line in render.text().lines() {
        let chars: Vec<char> = line.chars().collect();
        if chars.is_empty() {
            lines.push(String::new());
        }
        for piece in chars.chunks(MAX_LINE_CHARS) {
            lines.push(piece.iter().collect());
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_split() {
        let long = "x".repeat(MAX_LINE_CHARS * 2 + 1);
        let lines = display_lines(&BodyRender::Text(format!("a\n\n{long}")));
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[0], "a");
        assert_eq!(lines[1], "");
        assert_eq!(lines[4], "x");
    }
}
