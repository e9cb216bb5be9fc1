//! Number inputs that keep what the user types: a text field whose id comes from the field path
//! ([`super::field_id`]), parsed on every keystroke. A valid number updates the value at once (so
//! the preview and the problems list follow the typing); text that is not a number stays in the
//! field with a message under it, leaves the value as it was and makes Send and Save refuse
//! until it is fixed ([`invalid_fields`]). Ranges the profile has rules for are reported by the profile's problems list, not
//! clamped here, so `999999999999` stays `999999999999` and the list says why it cannot be sent.

use super::field_id::{field_id, keyed};
use egui::Ui;
use std::fmt::Display;
use std::str::FromStr;

/// What a number field shows around the value.
#[derive(Debug, Clone, Copy)]
pub struct NumberSpec<'a> {
    /// Field path, the widget's id (`profile.backoff.base_delay_ms`).
    pub path: &'a str,
    /// Visible label, also the accessible name.
    pub label: &'a str,
    /// Unit shown after the field (`ms`), or empty.
    pub unit: &'a str,
    /// Tooltip of the label and the field.
    pub tooltip: &'a str,
    /// Largest value the field itself accepts (fields without profile validation), if any.
    pub max: Option<f64>,
}

impl<'a> NumberSpec<'a> {
    /// A spec with no unit, tooltip or maximum.
    pub fn new(path: &'a str, label: &'a str) -> Self {
        Self {
            path,
            label,
            unit: "",
            tooltip: "",
            max: None,
        }
    }

    /// Sets the unit shown after the field.
    #[must_use]
    pub fn unit(mut self, unit: &'a str) -> Self {
        self.unit = unit;
        self
    }

    /// Sets the tooltip.
    #[must_use]
    pub fn tooltip(mut self, tooltip: &'a str) -> Self {
        self.tooltip = tooltip;
        self
    }

    /// Refuses values above `max` in the field itself.
    #[must_use]
    pub fn max(mut self, max: f64) -> Self {
        self.max = Some(max);
        self
    }
}

/// A number the field can hold: parsed from the typed text.
pub trait FieldNumber: Copy + PartialEq + Display + FromStr {
    /// The value as f64 (for the maximum check).
    fn as_f64(self) -> f64;
    /// What a valid entry looks like, for the message under the field.
    const KIND: &'static str;
    /// The largest value, as text.
    const LARGEST: &'static str;
}

macro_rules! field_number {
    ($($t:ty: $kind:literal, $largest:literal;)*) => {$(
        impl FieldNumber for $t {
            #[allow(clippy::cast_lossless, reason = "u32 and u64 to f64 for the maximum check")]
            fn as_f64(self) -> f64 {
                self as f64
            }
            const KIND: &'static str = $kind;
            const LARGEST: &'static str = $largest;
        }
    )*};
}

field_number! {
    u64: "a whole number ≥ 0", "18446744073709551615";
    u32: "a whole number ≥ 0", "4294967295";
    f64: "a number", "1.8e308";
}

/// Parses the typed text: surrounding spaces and `_` digit separators are ignored; an f64 must
/// be finite and ≥ 0. `Err` is the message shown under the field.
///
/// ```
/// use retryscope::ui::number_field::parse_typed;
/// assert_eq!(parse_typed::<u64>(" 100_000 ", None), Ok(100_000));
/// assert!(parse_typed::<u64>("12a", None).is_err());
/// assert!(parse_typed::<u64>("51", Some(50.0)).is_err());
/// assert_eq!(parse_typed::<f64>("0.25", None), Ok(0.25));
/// assert_eq!(
///     parse_typed::<u32>("9999999999", None),
///     Err("`9999999999` is too large (at most 4294967295)".to_owned())
/// );
/// ```
///
/// # Errors
/// A message naming the text and what the field wants.
pub fn parse_typed<T: FieldNumber>(text: &str, max: Option<f64>) -> Result<T, String> {
    let cleaned: String = text.trim().chars().filter(|c| *c != '_').collect();
    if cleaned.is_empty() {
        return Err(format!("type {}", T::KIND));
    }
    let value: T = cleaned.parse().map_err(|_| {
        if cleaned.bytes().all(|b| b.is_ascii_digit()) {
            format!("`{}` is too large (at most {})", text.trim(), T::LARGEST)
        } else {
            format!("`{}` is not {}", text.trim(), T::KIND)
        }
    })?;
    let f = value.as_f64();
    if !f.is_finite() || f < 0.0 {
        return Err(format!("`{}` is not {}", text.trim(), T::KIND));
    }
    if let Some(max) = max
        && f > max
    {
        return Err(format!("at most {max}"));
    }
    Ok(value)
}

/// A labelled number row; returns true when the value changed.
pub fn number_field<T: FieldNumber>(ui: &mut Ui, spec: NumberSpec<'_>, value: &mut T) -> bool {
    field_row(ui, spec.path, |ui| {
        let mut label = ui.label(spec.label);
        if !spec.tooltip.is_empty() {
            label = label.on_hover_text(spec.tooltip);
        }
        number_input(ui, spec, Some(label.id), value)
    })
}

/// A row keyed by `path` drawn by `add` (changed, message), the message under it; true when
/// changed.
fn field_row(ui: &mut Ui, path: &str, add: impl FnOnce(&mut Ui) -> (bool, Option<String>)) -> bool {
    keyed(ui, path, |ui| {
        let (changed, error) = ui.horizontal(add).inner;
        super::controls::error_line(ui, error.as_deref());
        changed
    })
}

/// An optional number: a checkbox named `label` turns it on (starting at `default`) or off (the
/// value is kept while off); returns true when changed.
pub fn optional_number_field<T: FieldNumber>(
    ui: &mut Ui,
    spec: NumberSpec<'_>,
    value: &mut Option<T>,
    default: T,
) -> bool {
    field_row(ui, spec.path, |ui| {
        let mut on = value.is_some();
        let toggle = ui.checkbox(&mut on, spec.label);
        if !spec.tooltip.is_empty() {
            toggle.clone().on_hover_text(spec.tooltip);
        }
        let toggled = toggle.changed();
        if toggled {
            *value = on.then_some(value.unwrap_or(default));
        }
        let Some(v) = value.as_mut() else {
            ui.weak("not set");
            return (toggled, None);
        };
        let label = format!("{} value", spec.label);
        let (changed, error) = number_input(
            ui,
            NumberSpec {
                label: &label,
                ..spec
            },
            None,
            v,
        );
        (toggled || changed, error)
    })
}

/// Number fields whose text is not a valid number: field path → `Label: message`. Kept across
/// frames, so a field in a hidden tab or a collapsed section still counts; an entry goes when its
/// field is drawn with valid text or [`forget_typed_fields`] drops it. Send and Save refuse
/// while any field shows text that is not its value.
#[derive(Debug, Clone, Default)]
pub struct InvalidFields(pub std::collections::BTreeMap<String, String>);

fn invalid_fields_id() -> egui::Id {
    egui::Id::unique("retryscope.invalid_number_fields")
}

/// The fields whose text is not a number now (drawn this frame or earlier and not fixed since).
pub fn invalid_fields(ctx: &egui::Context) -> InvalidFields {
    ctx.data(|d| d.get_temp::<InvalidFields>(invalid_fields_id()))
        .unwrap_or_default()
}

/// Drops what was typed into the fields whose path starts with `prefix` (e.g. `profile.` when
/// another profile is loaded): their text and their entries in [`InvalidFields`].
pub fn forget_typed_fields(ctx: &egui::Context, prefix: &str) {
    ctx.data_mut(|d| {
        let paths: Vec<String> = d
            .get_temp::<InvalidFields>(invalid_fields_id())
            .map(|f| {
                f.0.keys()
                    .filter(|k| k.starts_with(prefix))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        for path in &paths {
            d.remove::<Typed>(field_id(path).with("typed"));
        }
        d.get_temp_mut_or_default::<InvalidFields>(invalid_fields_id())
            .0
            .retain(|k, _| !k.starts_with(prefix));
    });
}

fn mark_valid(ui: &Ui, path: &str) {
    ui.data_mut(|d| {
        d.get_temp_mut_or_default::<InvalidFields>(invalid_fields_id())
            .0
            .remove(path);
    });
}

/// What the user typed into one field, and the value it was typed over (a value changed from
/// elsewhere, e.g. another profile loaded, drops the text).
#[derive(Debug, Clone)]
struct Typed {
    text: String,
    over: String,
}

/// The text field itself, named by the visible label `label_id` or else by `spec.label`;
/// returns (changed, message to show). Text that is not a number stays in the field (also after
/// focus moves on) until it is fixed or the value changes elsewhere; it is listed in
/// [`InvalidFields`] meanwhile.
fn number_input<T: FieldNumber>(
    ui: &mut Ui,
    spec: NumberSpec<'_>,
    label_id: Option<egui::Id>,
    value: &mut T,
) -> (bool, Option<String>) {
    let id = field_id(spec.path);
    let buffer_id = id.with("typed");
    let shown = value.to_string();
    let mut text = ui
        .data(|d| d.get_temp::<Typed>(buffer_id))
        .filter(|t| t.over == shown)
        .map_or_else(|| shown.clone(), |t| t.text);
    let width = (ui.available_width() - 40.0).clamp(48.0, 140.0);
    let mut response = ui.add(
        egui::TextEdit::singleline(&mut text)
            .id(id)
            .desired_width(width),
    );
    response = match label_id {
        Some(label_id) => response.labelled_by(label_id),
        None => response.accessible_name(spec.label),
    };
    if !spec.tooltip.is_empty() {
        response = response.on_hover_text(spec.tooltip);
    }
    if !spec.unit.is_empty() {
        ui.weak(spec.unit);
    }
    let mut changed = false;
    let parsed = parse_typed::<T>(&text, spec.max);
    if response.changed() {
        // Keep a field that grew (a problems box appeared above) in view while typing.
        response.scroll_to_me(None);
        if let Ok(v) = &parsed
            && *v != *value
        {
            *value = *v;
            changed = true;
        }
    }
    match parsed {
        Err(message) => {
            ui.data_mut(|d| {
                d.insert_temp(
                    buffer_id,
                    Typed {
                        text,
                        over: value.to_string(),
                    },
                );
                d.get_temp_mut_or_default::<InvalidFields>(invalid_fields_id())
                    .0
                    .insert(spec.path.to_owned(), format!("{}: {message}", spec.label));
            });
            (changed, Some(message))
        }
        Ok(_) if response.has_focus() => {
            ui.data_mut(|d| {
                d.insert_temp(
                    buffer_id,
                    Typed {
                        text,
                        over: value.to_string(),
                    },
                );
            });
            mark_valid(ui, spec.path);
            (changed, None)
        }
        Ok(_) => {
            ui.data_mut(|d| d.remove::<Typed>(buffer_id));
            mark_valid(ui, spec.path);
            (changed, None)
        }
    }
}
