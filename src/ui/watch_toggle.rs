//! The *Watch* toggle beside Send (DESIGN.md §12): `every [30s] for [8h]`, typed as text and
//! read by the CLI's own parsers (`--every`, `--for`), with the reason beside a field that does
//! not parse; while a watch of the composed request runs, where it is (slot n of N, next run
//! in …) and its Stop.

use crate::policy::WatchSchedule;
use crate::service::{WatchEvent, WatchUpdate, watch_service};
use crate::store::WatchState;
use crate::ui::field_id::field_id;

/// What the toggle asks the workbench to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchAction {
    /// Start a watch of the composed request: interval and length, ms (`None`: until stopped).
    Start {
        /// Interval between slots, ms.
        every_ms: u64,
        /// Length, ms; `None`: until stopped.
        for_ms: Option<u64>,
    },
    /// Stop the watch with this id (it is stored `paused`, resumable).
    Stop(String),
}

/// The toggle: the schedule as typed, and the watch running from this window, if any.
#[derive(Debug, Clone, Default)]
pub struct WatchToggle {
    /// The schedule as typed (kept in the workspace).
    pub text: ScheduleText,
    watching: Option<Watching>,
}

/// A watch's schedule as typed in the toggle, kept across restarts in the workspace.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ScheduleText {
    /// The interval as typed (`30s`).
    pub every: String,
    /// The length as typed (`8h`; empty: until stopped).
    pub length: String,
}

impl Default for ScheduleText {
    fn default() -> Self {
        Self {
            every: "30s".into(),
            length: "8h".into(),
        }
    }
}

/// The watch running from this window.
#[derive(Debug, Clone)]
struct Watching {
    id: String,
    /// `GET /status`: the composed request's title, for its runs' tabs.
    title: String,
    /// Known once the watch is stored.
    schedule: Option<WatchSchedule>,
    /// The next slot not yet sent or missed.
    next_slot: u64,
    /// A slot's run is in flight.
    running: bool,
    /// Stop was pressed.
    stopping: bool,
    /// Another process can carry it on once paused (false: its secrets live in this window
    /// only, no OS keyring).
    resumable: bool,
}

impl WatchToggle {
    /// The schedule typed: interval and length, ms, or the problem of each field.
    pub fn schedule(&self) -> (Result<u64, String>, Result<Option<u64>, String>) {
        let every = if self.text.every.trim().is_empty() {
            Err("every: type a duration such as 30s".to_owned())
        } else {
            watch_service::parse_every(&self.text.every)
        };
        let length = if self.text.length.trim().is_empty() {
            Ok(None)
        } else {
            watch_service::parse_length(&self.text.length).map(Some)
        };
        (every, length)
    }

    /// The id of the watch running from this window, if any.
    pub fn watching(&self) -> Option<&str> {
        self.watching.as_ref().map(|w| w.id.as_str())
    }

    /// Stop was pressed for the watch running from this window.
    pub fn stopping(&mut self) {
        if let Some(w) = &mut self.watching {
            w.stopping = true;
        }
    }

    /// Watch `id` of the request titled `title` was asked for (started, or resumed from the
    /// Watches tab); `resumable`: it can be carried on once paused.
    pub fn started(&mut self, id: String, title: String, resumable: bool) {
        self.watching = Some(Watching {
            resumable,
            id,
            title,
            schedule: None,
            next_slot: 0,
            running: false,
            stopping: false,
        });
    }

    /// The title of slot `slot`'s run: `GET /status · watch slot 3`.
    pub fn run_title(&self, slot: u64) -> String {
        let title = self.watching.as_ref().map_or("", |w| w.title.as_str());
        format!("{title} · watch slot {}", slot + 1)
    }

    /// Follows an event of the watch running from this window (others are ignored); returns
    /// the status line it calls for (`(is_error, text)`), when it ended or failed.
    pub fn accept(&mut self, update: &WatchUpdate) -> Option<(bool, String)> {
        let watching = self.watching.as_mut().filter(|w| w.id == update.watch)?;
        match &update.event {
            WatchEvent::Started(record) => {
                // A resumed watch carries on at its next slot.
                watching.schedule = Some(record.schedule);
                watching.next_slot = record.next_slot;
            }
            WatchEvent::RunStarted { slot, .. } => {
                watching.next_slot = slot + 1;
                watching.running = true;
            }
            WatchEvent::Ran { .. } => watching.running = false,
            WatchEvent::Missed { slots, .. } => {
                watching.next_slot = watching.next_slot.max(slots.end);
            }
            WatchEvent::Run(_) => {}
            WatchEvent::Ended(state) => {
                let Watching { id, resumable, .. } = self.watching.take()?;
                let text = match state {
                    WatchState::Paused if resumable => format!(
                        "Watch {id} paused: carry it on with `retryscope watch --resume {id}`"
                    ),
                    WatchState::Paused => format!(
                        "Watch {id} paused; it cannot be resumed: its secrets were kept in this window only (no OS keyring)"
                    ),
                    state => format!("Watch {id} {}", state.id()),
                };
                return Some((false, text));
            }
            WatchEvent::Failed(problem) => {
                self.watching = None;
                return Some((true, format!("The watch stopped: {problem}")));
            }
        }
        None
    }

    /// Draws the toggle; `blocked`: why the request cannot be sent now.
    pub fn ui(&mut self, ui: &mut egui::Ui, blocked: Option<&str>) -> Option<WatchAction> {
        if let Some(watching) = &self.watching {
            return watching_ui(ui, watching);
        }
        let (every, length) = self.schedule();
        let mut action = None;
        ui.horizontal_wrapped(|ui| {
            let ok = blocked.is_none() && every.is_ok() && length.is_ok();
            let why = blocked.map_or_else(
                || "send the request on this schedule, each run recorded under one watch".into(),
                |b| format!("cannot watch: {b}"),
            );
            if ui
                .add_enabled(ok, egui::Button::new("Watch"))
                .on_hover_text(why)
                .on_disabled_hover_text("fix the request or the schedule first")
                .clicked()
                && let (Ok(every_ms), Ok(for_ms)) = (&every, &length)
            {
                action = Some(WatchAction::Start {
                    every_ms: *every_ms,
                    for_ms: *for_ms,
                });
            }
            let text = &mut self.text;
            schedule_field(ui, "every", "request.watch.every", &mut text.every, "30s");
            schedule_field(
                ui,
                "for",
                "request.watch.for",
                &mut text.length,
                "until stopped",
            );
        });
        for problem in [every.err(), length.err()].into_iter().flatten() {
            ui.colored_label(ui.visuals().error_fg_color, problem);
        }
        action
    }
}

fn schedule_field(ui: &mut egui::Ui, label: &str, id: &str, text: &mut String, hint: &str) {
    let label = ui.label(label);
    ui.add(
        egui::TextEdit::singleline(text)
            .id(field_id(id))
            .hint_text(hint)
            .desired_width(60.0),
    )
    .labelled_by(label.id)
    .on_hover_text("a duration: 200ms, 30s, 5m, 8h, 2d (the interval at least 100ms)");
}

/// "[Stop] Watching: slot 3 of 960 · next run in 12 s": Stop first, so that it stays where it
/// is as the text changes; the text is cut to the room left (whole on hover).
fn watching_ui(ui: &mut egui::Ui, w: &Watching) -> Option<WatchAction> {
    let mut action = None;
    ui.horizontal(|ui| {
        if ui
            .add_enabled(!w.stopping, egui::Button::new("Stop"))
            .on_hover_text(
                "stop the watch: the run in flight is cancelled and recorded, the watch is paused (retryscope watch --resume ID carries it on)",
            )
            .clicked()
        {
            action = Some(WatchAction::Stop(w.id.clone()));
        }
        ui.add(
            egui::Label::new(watching_text(w, chrono::Utc::now().timestamp_millis())).truncate(),
        );
    });
    // The countdown moves each second.
    ui.ctx()
        .request_repaint_after(std::time::Duration::from_secs(1));
    action
}

/// `Watching: slot 3 of 960 · next run in 12 s` at wall-clock `now_ms` (Unix ms).
fn watching_text(w: &Watching, now_ms: i64) -> String {
    let Some(s) = &w.schedule else {
        return "Watching: starting…".into();
    };
    let total = s.count.or_else(|| {
        let span = u64::try_from(s.until_unix_ms? - s.start_unix_ms).ok()?;
        Some(span.div_ceil(s.every_ms.max(1)))
    });
    let slot = w.next_slot.max(1);
    let of = total.map_or_else(|| " (until stopped)".into(), |n| format!(" of {n}"));
    let mut text = format!("Watching: slot {slot}{of}");
    if w.stopping {
        text.push_str(" · stopping…");
    } else if w.running {
        text.push_str(" · running");
    } else if s.has_slot(w.next_slot) {
        #[allow(clippy::cast_precision_loss)]
        let left = (s.slot_time(w.next_slot) - now_ms).max(0) as f64;
        text.push_str(" · next run in ");
        text.push_str(&crate::report::duration_text(left));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watching_line_counts_slots_and_the_time_to_the_next() {
        let mut t = WatchToggle::default();
        t.started("w1".into(), "GET /".into(), true);
        let mut w = t.watching.clone().unwrap();
        assert_eq!(watching_text(&w, 0), "Watching: starting…");
        w.schedule = Some(WatchSchedule {
            start_unix_ms: 1_000,
            every_ms: 30_000,
            jitter: 0.0,
            seed: 1,
            count: None,
            until_unix_ms: Some(1_000 + 28_800_000),
        });
        w.next_slot = 3;
        assert_eq!(
            watching_text(&w, 1_000 + 78_000),
            "Watching: slot 3 of 960 · next run in 12 s"
        );
    }

    #[test]
    fn a_paused_watch_says_how_to_resume_it_only_when_it_can_be() {
        let paused = |resumable| {
            let mut t = WatchToggle::default();
            t.started("w1".into(), "GET /".into(), resumable);
            let update = WatchUpdate {
                watch: "w1".into(),
                event: WatchEvent::Ended(WatchState::Paused),
            };
            t.accept(&update).map(|(_, text)| text).unwrap_or_default()
        };
        assert!(paused(true).contains("retryscope watch --resume w1"));
        let kept_in_memory = paused(false);
        assert!(
            kept_in_memory.contains("cannot be resumed"),
            "{kept_in_memory}"
        );
        assert!(!kept_in_memory.contains("--resume"), "{kept_in_memory}");
    }
}
