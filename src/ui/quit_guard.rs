//! Asks before the window closes on live work (Ctrl+Q, the window's close button, the window
//! manager): a run that is waiting or sending is cancelled by quitting, a batch being worked is
//! paused and resumes at the next start, a watch is paused (`retryscope watch --resume ID`).
//! With nothing live the window closes at once.

use super::controls::{answer_buttons, modal};
use egui::{Context, ViewportCommand};

/// What quitting now would interrupt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LiveWork {
    /// Runs of this session that have not finished (sending or waiting).
    pub runs: usize,
    /// True while this window works a batch.
    pub batch: bool,
    /// True while a watch started in this window runs.
    pub watch: bool,
}

impl LiveWork {
    /// True when quitting would interrupt nothing.
    pub fn is_idle(self) -> bool {
        self.runs == 0 && !self.batch && !self.watch
    }

    /// The question, e.g. "1 run is waiting or sending, 1 batch is working: quit anyway?".
    pub fn question(self) -> String {
        let mut parts = Vec::new();
        match self.runs {
            0 => {}
            1 => parts.push("1 run is waiting or sending".to_owned()),
            n => parts.push(format!("{n} runs are waiting or sending")),
        }
        if self.batch {
            parts.push("1 batch is working".to_owned());
        }
        if self.watch {
            parts.push("1 watch is running".to_owned());
        }
        format!("{}: quit anyway?", parts.join(", "))
    }

    /// What quitting does to each, one sentence per kind of work.
    pub fn consequences(self) -> Vec<&'static str> {
        let mut lines = Vec::new();
        if self.runs > 0 {
            lines.push(
                "A run is cancelled: its history record ends as cancelled after the attempts \
                 made so far.",
            );
        }
        if self.batch {
            lines.push(
                "The batch is paused, not lost: items in flight go back to pending and the \
                 window resumes it at its next start (or: retryscope batch resume ID).",
            );
        }
        if self.watch {
            lines.push(
                "The watch is paused: its run in flight is cancelled and recorded; carry it on \
                 with retryscope watch --resume ID (the id is in the Watches tab).",
            );
        }
        lines
    }
}

/// The user's answer to the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuitAnswer {
    /// Close the window now.
    Quit,
    /// Keep the window open (also Esc or a click outside).
    Stay,
}

/// The close request being asked about, and whether the user already said to quit.
#[derive(Debug, Default)]
pub struct QuitGuard {
    asking: Option<LiveWork>,
    /// Set once the user answered Quit (or nothing was live): the close goes through.
    closing: bool,
}

impl QuitGuard {
    /// Handles a request to quit (Ctrl+Q) while `live` is running: closes at once when idle,
    /// else asks.
    pub fn request(&mut self, ctx: &Context, live: LiveWork) {
        if live.is_idle() {
            self.close(ctx);
        } else {
            self.asking = Some(live);
        }
    }

    /// Holds back a close the window system asked for (close button) while work is live, and
    /// asks instead. Call once per frame.
    pub fn intercept(&mut self, ctx: &Context, live: LiveWork) {
        if self.closing || !ctx.input(|i| i.viewport().close_requested()) {
            return;
        }
        if live.is_idle() {
            self.closing = true;
        } else {
            ctx.send_viewport_cmd(ViewportCommand::CancelClose);
            self.asking = Some(live);
        }
    }

    /// True once the window was told to close.
    pub fn is_closing(&self) -> bool {
        self.closing
    }

    /// True while the question is shown.
    pub fn is_asking(&self) -> bool {
        self.asking.is_some()
    }

    /// Closes the window without asking (smoke runs).
    pub fn close_now(&mut self, ctx: &Context) {
        self.close(ctx);
    }

    fn close(&mut self, ctx: &Context) {
        self.closing = true;
        self.asking = None;
        ctx.send_viewport_cmd(ViewportCommand::Close);
    }

    /// Shows the question while one is open; `live` is what runs now (the counts follow it, and
    /// the question goes away by itself when the work ends).
    pub fn ui(&mut self, ctx: &Context, live: LiveWork) {
        if self.asking.is_none() {
            return;
        }
        if live.is_idle() {
            // Everything finished while the user read the question: nothing is lost now.
            self.close(ctx);
            return;
        }
        self.asking = Some(live);
        let (answer, dismissed) = modal(ctx, "quit_guard", 520.0, "Quit Retryscope?", |ui| {
            ui.label(live.question());
            for line in live.consequences() {
                ui.label(line);
            }
            answer_buttons(
                ui,
                &[
                    ("Quit anyway", "close the window now", QuitAnswer::Quit),
                    (
                        "Keep working",
                        "leave the window open (Esc)",
                        QuitAnswer::Stay,
                    ),
                ],
            )
        });
        match answer.or(dismissed.then_some(QuitAnswer::Stay)) {
            Some(QuitAnswer::Quit) => self.close(ctx),
            Some(QuitAnswer::Stay) => self.asking = None,
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LiveWork;

    #[test]
    fn the_question_counts_what_is_live() {
        let all = LiveWork {
            runs: 1,
            batch: true,
            watch: true,
        };
        assert_eq!(
            all.question(),
            "1 run is waiting or sending, 1 batch is working, 1 watch is running: quit anyway?"
        );
        assert_eq!(all.consequences().len(), 3);
        let runs = LiveWork {
            runs: 3,
            ..LiveWork::default()
        };
        assert_eq!(
            runs.question(),
            "3 runs are waiting or sending: quit anyway?"
        );
        assert!(LiveWork::default().is_idle());
        assert!(!runs.is_idle());
        let watch = LiveWork {
            watch: true,
            ..LiveWork::default()
        };
        assert!(!watch.is_idle());
        assert_eq!(watch.question(), "1 watch is running: quit anyway?");
    }
}
