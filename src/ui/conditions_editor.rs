//! Conditions on responses (DESIGN.md §8): the `retry_on.response` and `success_when` matcher
//! lists. Each matcher is a small form (status set, a header or JSON pointer test, body text or
//! regex); every key filled in must hold (AND), and the list holds when one matcher does (OR).
//!
//! Widget ids come from the field they edit (`profile.success_when[0].json_pointer`); every
//! control's accessible name says which list and which matcher (`success condition 1 JSON
//! pointer`). Texts that parse (status sets, JSON values) are kept as typed, so typing key by
//! key never rewrites the field under the caret.

use super::controls::{picker, text_row};
use super::field_id::field_id;
use super::typed_text::{TypedRow, TypedText};
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
    texts: HashMap<String, TypedText>,
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
        let subjects = [Subject::Nothing, Subject::Header, Subject::Pointer]
            .map(|s| (s, subject_label(s), ""));
        let before = subject;
        picker(
            ui,
            field_id(&format!("{path}.subject")),
            "Test",
            &mut subject,
            &subjects,
        )
        .accessible_name(format!("{name} test"));
        if subject != before {
            m.header = (subject == Subject::Header).then(|| "X-Job-State".to_owned());
            m.json_pointer = (subject == Subject::Pointer).then(|| "/state".to_owned());
            m.matches = None;
            m.exists = None;
            m.equals = None;
            changed = true;
        }
        if subject != Subject::Nothing {
            changed |= self.subject_rows(ui, (path, name), subject == Subject::Header, m);
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
        let row = TypedRow {
            path: &key,
            label: "Status",
            hint: "any (e.g. 200, 500-599)",
            tooltip: "",
        };
        let show = |s: &Option<StatusSet>| s.as_ref().map(ToString::to_string).unwrap_or_default();
        let parse = |t: &str| {
            if t.trim().is_empty() {
                Ok(None)
            } else {
                StatusSet::parse_list(t).map(Some)
            }
        };
        let typed = self.texts.entry(key.clone()).or_default();
        let (changed, r) = typed.ui(ui, row, status, show, parse);
        r.accessible_name(format!("{name} status"));
        changed
    }

    /// The rows of a header or a JSON pointer test: its key, the comparison, and the value
    /// compared with (a header's as text, a JSON pointer's as a typed JSON value).
    fn subject_rows(
        &mut self,
        ui: &mut Ui,
        (path, name): (&str, &str),
        header: bool,
        m: &mut ResponseMatcher,
    ) -> bool {
        let (field, label, key, tests) = if header {
            let tests = [Test::Present, Test::Equals, Test::Matches];
            ("header", "Header", &mut m.header, tests)
        } else {
            let tests = [Test::Present, Test::Missing, Test::Equals];
            ("json_pointer", "JSON pointer", &mut m.json_pointer, tests)
        };
        let noun = if header {
            "header name"
        } else {
            "JSON pointer"
        };
        let key_name = format!("{name} {noun}");
        let mut changed = kept_text(ui, &format!("{path}.{field}"), label, &key_name, key);
        let set = [
            (Test::Matches, m.matches.is_some()),
            (Test::Equals, m.equals.is_some()),
            (Test::Missing, m.exists == Some(false)),
        ];
        let mut test = set
            .into_iter()
            .find(|&(t, on)| on && tests.contains(&t))
            .map_or(Test::Present, |(t, _)| t);
        if test_picker(ui, path, name, &mut test, &tests) {
            m.equals = (test == Test::Equals).then(|| Value::String(String::new()));
            if header {
                m.matches = (test == Test::Matches).then(String::new);
            } else {
                m.exists = (test == Test::Missing).then_some(false);
            }
            changed = true;
        }
        match test {
            Test::Equals if header => {
                let mut v = match &m.equals {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                let (path, name) = (format!("{path}.equals"), format!("{name} header value"));
                if named_row(ui, &path, "Value", &name, &mut v) {
                    m.equals = Some(Value::String(v));
                    changed = true;
                }
            }
            Test::Equals => {
                let key = format!("{path}.equals");
                let row = TypedRow {
                    path: &key,
                    label: "Value (JSON)",
                    hint: "",
                    tooltip: "a JSON value: \"done\", 3, true, null, {…}; text that is not JSON is taken as a string",
                };
                let show = |v: &Option<Value>| v.as_ref().map(json_text).unwrap_or_default();
                let typed = self.texts.entry(key.clone()).or_default();
                let (edited, r) =
                    typed.ui(ui, row, &mut m.equals, show, |t| Ok(Some(typed_json(t))));
                r.accessible_name(format!("{name} JSON value"));
                changed |= edited;
            }
            Test::Matches => {
                let (path, name) = (format!("{path}.matches"), format!("{name} header regex"));
                changed |= kept_text(ui, &path, "Regex", &name, &mut m.matches);
            }
            Test::Present | Test::Missing => {}
        }
        changed
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
    let choices: Vec<_> = choices.iter().map(|&t| (t, test_label(t), "")).collect();
    picker(
        ui,
        field_id(&format!("{path}.test")),
        "Holds when it",
        test,
        &choices,
    )
    .accessible_name(format!("{name} comparison"))
    .changed()
}

/// A text row named `name` for assistive technology.
fn named_row(ui: &mut Ui, path: &str, label: &str, name: &str, value: &mut String) -> bool {
    text_row(ui, path, label, value)
        .accessible_name(name)
        .changed()
}

/// A text key that stays set, even empty, once its subject or test is chosen (the header name,
/// the JSON pointer, the regex).
fn kept_text(ui: &mut Ui, path: &str, label: &str, name: &str, value: &mut Option<String>) -> bool {
    let mut text = value.clone().unwrap_or_default();
    let changed = named_row(ui, path, label, name, &mut text);
    if changed {
        *value = Some(text);
    }
    changed
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
    if named_row(ui, path, label, name, &mut text) {
        *value = (!text.is_empty()).then_some(text);
        return true;
    }
    false
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
