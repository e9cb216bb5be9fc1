//! Undo and redo of the composer: whole-request snapshots, one per fill (a pasted or imported
//! curl command, a HAR entry, a saved request, a recorded run) and one per burst of typing.
//! Memory only: the stack holds what the user typed, secrets included, and is never written.

use super::request_draft::RequestDraft;

/// Typed changes less than this far apart are one undo step, seconds.
pub const TYPING_GROUP_S: f64 = 1.0;
/// Most undo steps kept; the oldest go first.
pub const MAX_STEPS: usize = 100;

/// One state to go back (or forward) to.
#[derive(Debug, Clone)]
struct Step {
    draft: RequestDraft,
    /// The fill this step undoes (`the pasted curl command`), `None` for typing.
    what: Option<String>,
}

/// The composer's undo and redo stacks.
#[derive(Debug, Default)]
pub struct ComposerUndo {
    undo: Vec<Step>,
    redo: Vec<Step>,
    /// The draft as last observed.
    last: Option<RequestDraft>,
    /// When the open typing group last changed, s (`egui::InputState::time`).
    typing_at: Option<f64>,
    /// A fill about to replace the draft: the next change is its own step.
    fill: Option<String>,
    /// The fill that can be undone now (until the next change), for the composer's notice.
    notice: Option<String>,
}

impl ComposerUndo {
    /// Notes that `what` (e.g. `the pasted curl command`) is replacing the whole draft.
    pub fn will_fill(&mut self, what: &str) {
        self.fill = Some(what.to_owned());
    }

    /// Records a change of `draft` since the last call (call once per frame; cheap when
    /// nothing changed). `now` is `egui::InputState::time`, s.
    pub fn observe(&mut self, draft: &RequestDraft, now: f64) {
        let Some(last) = &self.last else {
            self.last = Some(draft.clone());
            self.fill = None;
            return;
        };
        if last == draft {
            return;
        }
        let before = last.clone();
        if let Some(what) = self.fill.take() {
            self.push(Step {
                draft: before,
                what: Some(what.clone()),
            });
            self.typing_at = None;
            self.notice = Some(what);
        } else {
            let grouped = self.typing_at.is_some_and(|t| now - t < TYPING_GROUP_S);
            if !grouped {
                self.push(Step {
                    draft: before,
                    what: None,
                });
            }
            self.typing_at = Some(now);
            self.notice = None;
        }
        self.redo.clear();
        self.last = Some(draft.clone());
    }

    fn push(&mut self, step: Step) {
        if self.undo.len() == MAX_STEPS {
            self.undo.remove(0);
        }
        self.undo.push(step);
    }

    /// True when [`Self::undo`] has something to restore.
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    /// True when [`Self::redo`] has something to restore.
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Puts `draft` back as it was before the last step; returns what was undone
    /// (`the pasted curl command`, or `typing`), `None` when there is nothing to undo.
    pub fn undo(&mut self, draft: &mut RequestDraft) -> Option<String> {
        let step = self.undo.pop()?;
        Some(self.restore(step, draft, true))
    }

    /// Does again what [`Self::undo`] undid; returns what was redone.
    pub fn redo(&mut self, draft: &mut RequestDraft) -> Option<String> {
        let step = self.redo.pop()?;
        Some(self.restore(step, draft, false))
    }

    /// Puts `step` in `draft`, the draft it replaces on the redo (`undoing`) or the undo stack;
    /// what the step was.
    fn restore(&mut self, step: Step, draft: &mut RequestDraft, undoing: bool) -> String {
        let what = step.what.clone();
        let other = if undoing {
            &mut self.redo
        } else {
            &mut self.undo
        };
        other.push(Step {
            draft: std::mem::replace(draft, step.draft),
            what: step.what,
        });
        self.last = Some(draft.clone());
        self.typing_at = None;
        self.fill = None;
        self.notice = None;
        what.unwrap_or_else(|| "typing".to_owned())
    }

    /// The fill that replaced the composer and can be undone now, until the next change.
    pub fn fill_notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// Forgets the fill notice (the user dismissed it).
    pub fn dismiss_notice(&mut self) {
        self.notice = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft(url: &str) -> RequestDraft {
        RequestDraft {
            url: url.to_owned(),
            ..RequestDraft::default()
        }
    }

    #[test]
    fn a_fill_is_one_step_and_typing_groups_by_pauses() {
        let mut u = ComposerUndo::default();
        let mut d = draft("http://a");
        u.observe(&d, 0.0);
        assert!(!u.can_undo(), "the first look is the baseline");
        // Typing: three keys within a second are one step, a pause starts the next.
        for (t, url) in [
            (1.0, "http://ab"),
            (1.3, "http://abc"),
            (1.6, "http://abcd"),
        ] {
            d.url = url.into();
            u.observe(&d, t);
        }
        d.url = "http://abcde".into();
        u.observe(&d, 3.0);
        // A fill.
        u.will_fill("the pasted curl command");
        d = draft("http://filled");
        d.method = "POST".into();
        u.observe(&d, 3.1);
        assert_eq!(u.fill_notice(), Some("the pasted curl command"));

        assert_eq!(u.undo(&mut d).as_deref(), Some("the pasted curl command"));
        assert_eq!(d, draft("http://abcde"));
        assert_eq!(u.fill_notice(), None);
        assert_eq!(u.undo(&mut d).as_deref(), Some("typing"));
        assert_eq!(d.url, "http://abcd");
        assert_eq!(u.undo(&mut d).as_deref(), Some("typing"));
        assert_eq!(d.url, "http://a");
        assert_eq!(u.undo(&mut d), None, "nothing older");

        assert_eq!(u.redo(&mut d).as_deref(), Some("typing"));
        assert_eq!(d.url, "http://abcd");
        // Observing the restored draft records nothing new.
        u.observe(&d, 10.0);
        assert!(u.can_redo());
        // A new change drops the redo stack.
        d.url = "http://other".into();
        u.observe(&d, 11.0);
        assert!(!u.can_redo());
    }

    #[test]
    fn the_stack_keeps_the_newest_steps() {
        let mut u = ComposerUndo::default();
        let mut d = draft("http://0");
        u.observe(&d, 0.0);
        assert_eq!(MAX_STEPS, 100);
        for i in 1..=110_u32 {
            d.url = format!("http://{i}");
            u.observe(&d, f64::from(i) * 10.0);
        }
        let mut undone = 0;
        while u.undo(&mut d).is_some() {
            undone += 1;
        }
        assert_eq!(undone, MAX_STEPS);
        assert_eq!(d.url, "http://10");
    }
}
