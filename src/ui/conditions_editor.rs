//! Conditions on responses (DESIGN.md §8): the `retry_on.response` and `success_when` matcher
//! lists. Each matcher is a small form (status set, a header or JSON pointer test, body text or
//! regex); every key filled in must hold (AND), and the list holds when one matcher does (OR).
//!
//! Widget ids come from the field they edit (`profile.success_when[0].json_pointer`); every
//! control's accessible name says which list and which matcher (`success condition 1 JSON
//! pointer`). Texts that parse (status sets, JSON values) are kept as typed, so typing key by
//! key never rewrites the field under the caret.

use super::field_id::field_id;
use crate::model::{ResponseMatcher, StatusSet};
use egui::Ui;
use serde_json::Value;
use std::collections::HashMap;

/// One list the editor draws.
#[derive(Debug, Clone, Copy)]
pub struct ConditionList {
    /// Field path of the list (`retry_on.response`, `success_when`).
    pub path: &'static str,
    /// Accessible name prefix of each matcher's controls (`retry condition`, `success condition`).
    pub noun: &'static str,
    /// The add button's label.
    pub add_label: &'static str,
}

/// `retry_on.response`: responses retried whatever their status.
pub const RETRY_ON_RESPONSE: ConditionList = ConditionList {
    path: "retry_on.response",
    noun: "retry condition",
    add_label: "Add retry condition",
};

/// `success_when`: a success status counts only when one of these holds (polling).
pub const SUCCESS_WHEN: ConditionList = ConditionList {
    path: "success_when",
    noun: "success condition",
    add_label: "Add success condition",
};

/// What a matcher tests besides status and body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Subject {
    Nothing,
    Header,
    Pointer,
}

/// How the subject is tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Test {
    Present,
    Equals,
    Matches,
    Missing,
}

/// UI-only state: texts as typed, keyed by field path, with the value each was last synced to.
#[derive(Debug, Default)]
pub struct ConditionsEditor {
    texts: HashMap<String, Typed>,
}

#[derive(Debug, Default)]
struct Typed {
    text: String,
    synced: Option<String>,
    error: Option<String>,
}

impl ConditionsEditor {
    /// Draws the matcher list `list` over `matchers`; true when it changed.
    pub fn ui(
        &mut self,
        ui: &mut Ui,
        list: ConditionList,
        matchers: &mut Vec<ResponseMatcher>,
    ) -> bool {
        let mut changed = false;
        let mut remove = None;
        for (i, m) in matchers.iter_mut().enumerate() {
            let path = format!("profile.{}[{i}]", list.path);
            let name = format!("{} {}", list.noun, i + 1);
            egui::Frame::group(ui.style()).show(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.label(format!("Condition {}", i + 1));
                    if ui
                        .small_button("x")
                        .accessible_name(format!("{name} remove"))
                        .clicked()
                    {
                        remove = Some(i);
                    }
                });
                changed |= self.matcher_ui(ui, &path, &name, m);
            });
        }
        if let Some(i) = remove {
            matchers.remove(i);
            // Rows after it move up: forget their typed texts so they show their own values.
            self.texts
                .retain(|k, _| !k.starts_with(&format!("profile.{}[", list.path)));
            changed = true;
        }
        if ui.button(list.add_label).clicked() {
            matchers.push(match list.path {
                "success_when" => ResponseMatcher {
                    json_pointer: Some("/state".into()),
                    equals: Some(Value::String("done".into())),
                    ..ResponseMatcher::default()
                },
                _ => ResponseMatcher {
                    body_contains: Some("rate limit".into()),
                    ..ResponseMatcher::default()
                },
            });
            changed = true;
        }
        changed
    }

    fn matcher_ui(&mut self, ui: &mut Ui, path: &str, name: &str, m: &mut ResponseMatcher) -> bool {
        let mut changed = false;
        changed |= self.status_row(ui, path, name, &mut m.status);
        let mut subject = if m.header.is_some() {
            Subject::Header
        } else if m.json_pointer.is_some() {
            Subject::Pointer
        } else {
            Subject::Nothing
        };
        let before = subject;
        ui.horizontal(|ui| {
            let l = ui.label("Test");
            egui::ComboBox::from_id_salt(field_id(&format!("{path}.subject")))
                .selected_text(subject_label(subject))
                .show_ui(ui, |ui| {
                    for s in [Subject::Nothing, Subject::Header, Subject::Pointer] {
                        ui.selectable_value(&mut subject, s, subject_label(s));
                    }
                })
                .response
                .labelled_by(l.id)
                .accessible_name(format!("{name} test"));
        });
        if subject != before {
            m.header = (subject == Subject::Header).then(|| "X-Job-State".to_owned());
            m.json_pointer = (subject == Subject::Pointer).then(|| "/state".to_owned());
            m.matches = None;
            m.exists = None;
            m.equals = None;
            changed = true;
        }
        match subject {
            Subject::Header => changed |= self.header_rows(ui, path, name, m),
            Subject::Pointer => changed |= self.pointer_rows(ui, path, name, m),
            Subject::Nothing => {}
        }
        changed |= optional_text(
            ui,
            &format!("{path}.body_contains"),
            "Body contains",
            &format!("{name} body contains"),
            &mut m.body_contains,
        );
        changed |= optional_text(
            ui,
            &format!("{path}.body_matches"),
            "Body matches (regex)",
            &format!("{name} body matches"),
            &mut m.body_matches,
        );
        changed
    }

    fn status_row(
        &mut self,
        ui: &mut Ui,
        path: &str,
        name: &str,
        status: &mut Option<StatusSet>,
    ) -> bool {
        let key = format!("{path}.status");
        let current = status.as_ref().map(ToString::to_string).unwrap_or_default();
        let typed = self.typed(&key, &current);
        let mut changed = false;
        ui.horizontal(|ui| {
            let l = ui.label("Status");
            let r = ui
                .add(
                    egui::TextEdit::singleline(&mut typed.text)
                        .id(field_id(&key))
                        .hint_text("any (e.g. 200, 500-599)")
                        .desired_width(f32::INFINITY),
                )
                .labelled_by(l.id)
                .accessible_name(format!("{name} status"));
            if r.changed() {
                let parsed = if typed.text.trim().is_empty() {
                    Ok(None)
                } else {
                    StatusSet::parse_list(&typed.text).map(Some)
                };
                match parsed {
                    Ok(set) => {
                        typed.error = None;
                        typed.synced =
                            Some(set.as_ref().map(ToString::to_string).unwrap_or_default());
                        if *status != set {
                            *status = set;
                            changed = true;
                        }
                    }
                    Err(e) => typed.error = Some(e),
                }
            }
        });
        show_error(ui, typed.error.as_deref());
        changed
    }

    #[allow(
        clippy::unused_self,
        reason = "drawn like its sibling rows, which use the state"
    )]
    fn header_rows(
        &mut self,
        ui: &mut Ui,
        path: &str,
        name: &str,
        m: &mut ResponseMatcher,
    ) -> bool {
        let mut changed = false;
        let mut header = m.header.clone().unwrap_or_default();
        if text_row(
            ui,
            &format!("{path}.header"),
            "Header",
            &format!("{name} header name"),
            &mut header,
        ) {
            m.header = Some(header);
            changed = true;
        }
        let mut test = if m.matches.is_some() {
            Test::Matches
        } else if m.equals.is_some() {
            Test::Equals
        } else {
            Test::Present
        };
        if test_picker(
            ui,
            path,
            name,
            &mut test,
            &[Test::Present, Test::Equals, Test::Matches],
        ) {
            m.equals = (test == Test::Equals).then(|| Value::String(String::new()));
            m.matches = (test == Test::Matches).then(String::new);
            changed = true;
        }
        match test {
            Test::Equals => {
                let mut v = match &m.equals {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                if text_row(
                    ui,
                    &format!("{path}.equals"),
                    "Value",
                    &format!("{name} header value"),
                    &mut v,
                ) {
                    m.equals = Some(Value::String(v));
                    changed = true;
                }
            }
            Test::Matches => {
                let mut v = m.matches.clone().unwrap_or_default();
                if text_row(
                    ui,
                    &format!("{path}.matches"),
                    "Regex",
                    &format!("{name} header regex"),
                    &mut v,
                ) {
                    m.matches = Some(v);
                    changed = true;
                }
            }
            Test::Present | Test::Missing => {}
        }
        changed
    }

    fn pointer_rows(
        &mut self,
        ui: &mut Ui,
        path: &str,
        name: &str,
        m: &mut ResponseMatcher,
    ) -> bool {
        let mut changed = false;
        let mut pointer = m.json_pointer.clone().unwrap_or_default();
        if text_row(
            ui,
            &format!("{path}.json_pointer"),
            "JSON pointer",
            &format!("{name} JSON pointer"),
            &mut pointer,
        ) {
            m.json_pointer = Some(pointer);
            changed = true;
        }
        let mut test = match (&m.equals, m.exists) {
            (Some(_), _) => Test::Equals,
            (None, Some(false)) => Test::Missing,
            (None, _) => Test::Present,
        };
        if test_picker(
            ui,
            path,
            name,
            &mut test,
            &[Test::Present, Test::Missing, Test::Equals],
        ) {
            m.equals = (test == Test::Equals).then(|| Value::String(String::new()));
            m.exists = (test == Test::Missing).then_some(false);
            changed = true;
        }
        if test == Test::Equals {
            let key = format!("{path}.equals");
            let current = m.equals.as_ref().map(json_text).unwrap_or_default();
            let typed = self.typed(&key, &current);
            ui.horizontal(|ui| {
                let l = ui.label("Value (JSON)").on_hover_text(
                    "a JSON value: \"done\", 3, true, null, {…}; text that is not JSON is taken as a string",
                );
                let r = ui
                    .add(
                        egui::TextEdit::singleline(&mut typed.text)
                            .id(field_id(&key))
                            .desired_width(f32::INFINITY),
                    )
                    .labelled_by(l.id)
                    .accessible_name(format!("{name} JSON value"));
                if r.changed() {
                    let value = typed_json(&typed.text);
                    typed.synced = Some(json_text(&value));
                    if m.equals.as_ref() != Some(&value) {
                        m.equals = Some(value);
                        changed = true;
                    }
                }
            });
        }
        changed
    }

    /// The typed text of `key`, reset to `current` when the model changed elsewhere.
    fn typed(&mut self, key: &str, current: &str) -> &mut Typed {
        let typed = self.texts.entry(key.to_owned()).or_default();
        if typed.synced.as_deref() != Some(current) {
            current.clone_into(&mut typed.text);
            typed.synced = Some(current.to_owned());
            typed.error = None;
        }
        typed
    }
}

/// A typed JSON value: the text parsed as JSON, or the text itself as a string (`done` → "done").
fn typed_json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// How a JSON value is shown: a string that would not parse back as JSON is shown bare.
fn json_text(v: &Value) -> String {
    match v {
        Value::String(s) if serde_json::from_str::<Value>(s).is_err() => s.clone(),
        other => other.to_string(),
    }
}

fn subject_label(s: Subject) -> &'static str {
    match s {
        Subject::Nothing => "status and body only",
        Subject::Header => "a header",
        Subject::Pointer => "a JSON pointer",
    }
}

fn test_label(t: Test) -> &'static str {
    match t {
        Test::Present => "is present",
        Test::Equals => "equals",
        Test::Matches => "matches regex",
        Test::Missing => "is missing",
    }
}

fn test_picker(ui: &mut Ui, path: &str, name: &str, test: &mut Test, choices: &[Test]) -> bool {
    let before = *test;
    ui.horizontal(|ui| {
        let l = ui.label("Holds when it");
        egui::ComboBox::from_id_salt(field_id(&format!("{path}.test")))
            .selected_text(test_label(*test))
            .show_ui(ui, |ui| {
                for &t in choices {
                    ui.selectable_value(test, t, test_label(t));
                }
            })
            .response
            .labelled_by(l.id)
            .accessible_name(format!("{name} comparison"));
    });
    *test != before
}

fn text_row(ui: &mut Ui, path: &str, label: &str, name: &str, value: &mut String) -> bool {
    ui.horizontal(|ui| {
        let l = ui.label(label);
        ui.add(
            egui::TextEdit::singleline(value)
                .id(field_id(path))
                .desired_width(f32::INFINITY),
        )
        .labelled_by(l.id)
        .accessible_name(name)
        .changed()
    })
    .inner
}

/// A text key that is absent when empty (`body_contains`, `body_matches`).
fn optional_text(
    ui: &mut Ui,
    path: &str,
    label: &str,
    name: &str,
    value: &mut Option<String>,
) -> bool {
    let mut text = value.clone().unwrap_or_default();
    if text_row(ui, path, label, name, &mut text) {
        *value = (!text.is_empty()).then_some(text);
        return true;
    }
    false
}

fn show_error(ui: &mut Ui, error: Option<&str>) {
    if let Some(e) = error {
        ui.colored_label(ui.visuals().error_fg_color, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_json_takes_json_or_the_text_as_a_string() {
        assert_eq!(typed_json("\"done\""), Value::String("done".into()));
        assert_eq!(typed_json("done"), Value::String("done".into()));
        assert_eq!(typed_json("3"), serde_json::json!(3));
        assert_eq!(typed_json("null"), Value::Null);
        assert_eq!(json_text(&Value::String("done".into())), "done");
        assert_eq!(json_text(&Value::String("3".into())), "\"3\"");
        for text in ["done", "\"3\"", "3", "{\"a\":1}"] {
            assert_eq!(json_text(&typed_json(text)), text, "{text}");
        }
    }
}
