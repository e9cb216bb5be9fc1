//! Millisecond inputs: a labelled number field, and an optional one with a "set" checkbox. Both
//! take the field path they edit as their id ([`super::number_field`]).

use super::number_field::{NumberSpec, number_field, optional_number_field};
use egui::Ui;

/// A labelled `u64` ms field at `path` with a tooltip; returns true when changed.
pub fn ms_field(ui: &mut Ui, path: &str, label: &str, value: &mut u64, tooltip: &str) -> bool {
    number_field(
        ui,
        NumberSpec::new(path, label).unit("ms").tooltip(tooltip),
        value,
    )
}

/// A labelled optional ms field at `path`: a checkbox named `label` turns the limit on/off, the
/// value is kept while off; `default_ms` is used when switched on from `None`.
pub fn optional_ms_field(
    ui: &mut Ui,
    path: &str,
    label: &str,
    value: &mut Option<u64>,
    default_ms: u64,
    tooltip: &str,
) -> bool {
    optional_number_field(
        ui,
        NumberSpec::new(path, label).unit("ms").tooltip(tooltip),
        value,
        default_ms,
    )
}
