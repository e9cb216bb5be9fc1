//! Millisecond inputs: a labelled drag value, and an optional one with a "set" checkbox.

use egui::Ui;

/// A labelled `u64` ms field with a tooltip; returns true when changed.
pub fn ms_field(ui: &mut Ui, label: &str, value: &mut u64, tooltip: &str) -> bool {
    ui.horizontal(|ui| {
        let l = ui.label(label).on_hover_text(tooltip);
        ui.add(
            egui::DragValue::new(value)
                .speed(10.0)
                .suffix(" ms")
                .range(0..=86_400_000),
        )
        .labelled_by(l.id)
        .on_hover_text(tooltip)
        .changed()
    })
    .inner
}

/// A labelled optional ms field: a checkbox named `label` turns the limit on/off, the value
/// is kept while off; `default_ms` is used when switched on from `None`.
pub fn optional_ms_field(
    ui: &mut Ui,
    label: &str,
    value: &mut Option<u64>,
    default_ms: u64,
    tooltip: &str,
) -> bool {
    ui.horizontal(|ui| {
        let mut on = value.is_some();
        let mut changed = false;
        if ui.checkbox(&mut on, label).on_hover_text(tooltip).changed() {
            *value = on.then_some(value.unwrap_or(default_ms));
            changed = true;
        }
        if let Some(v) = value.as_mut() {
            changed |= ui
                .add(
                    egui::DragValue::new(v)
                        .speed(10.0)
                        .suffix(" ms")
                        .range(0..=86_400_000),
                )
                .accessible_name(format!("{label} value"))
                .on_hover_text(tooltip)
                .changed();
        } else {
            ui.weak("not set");
        }
        changed
    })
    .inner
}
