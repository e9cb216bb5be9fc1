//! `response_header` settings: the delay headers tried in order (name + unit), how the header
//! delay combines with the fallback, and what happens when the server asks for too long.

use super::controls::picker;
use super::field_id::field_id;
use super::ms_field::ms_field;
use crate::model::{Backoff, Combine, DelayHeader, HeaderUnit, OnExceedMax};
use egui::Ui;

const UNITS: [(HeaderUnit, &str); 6] = [
    (HeaderUnit::Seconds, "seconds (or HTTP-date)"),
    (HeaderUnit::Milliseconds, "milliseconds"),
    (HeaderUnit::UnixTimestamp, "Unix timestamp (s)"),
    (HeaderUnit::HttpDate, "HTTP-date"),
    (HeaderUnit::RatelimitT, "RateLimit reset (t=)"),
    (HeaderUnit::GrpcPushbackMs, "gRPC pushback ms"),
];

const CLAMP_TIP: &str = "wait = min(max(header, computed), computed + X): the server's delay, but never \
    shorter than the fallback's wait nor more than X ms longer (AWS 2026 x-amz-retry-after: X = 5000)";

/// X given to a new `clamp`: AWS's 5 s.
const DEFAULT_CLAMP_ABOVE_MS: u64 = 5000;

fn unit_label(unit: HeaderUnit) -> &'static str {
    UNITS
        .iter()
        .find(|(u, _)| *u == unit)
        .map_or("?", |(_, l)| l)
}

/// The "Combine" picker's choices: value, text, tooltip.
#[rustfmt::skip]
const COMBINES: [(Combine, &str, &str); 3] = [
    (Combine::Replace, "replace", "the header's delay replaces the computed one (seed 001)"),
    (Combine::Max, "max", "the larger of header delay and fallback wait (Azure SDKs)"),
    (Combine::Clamp, "clamp", CLAMP_TIP),
];

/// The "Header above max delay" picker's choices: value, text, tooltip.
#[rustfmt::skip]
const ON_EXCEED: [(OnExceedMax, &str, &str); 2] = [
    (OnExceedMax::Stop, "stop", "never retry earlier than the server asked: end the run"),
    (OnExceedMax::Cap, "cap", "wait the max delay and retry anyway"),
];

/// Draws the header list and the combine / on-exceed pickers; true when changed.
pub fn header_delay_editor(ui: &mut Ui, id: &str, backoff: &mut Backoff) -> bool {
    let mut changed = false;
    ui.label("Delay headers, tried in order");
    let mut remove = None;
    for (i, h) in backoff.headers.iter_mut().enumerate() {
        let n = i + 1;
        ui.horizontal(|ui| {
            // Right to left (remove, unit, then the name takes exactly what is left), so the
            // row never overflows the panel.
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui
                    .small_button("x")
                    .accessible_name(format!("delay header {n} remove"))
                    .clicked()
                {
                    remove = Some(i);
                }
                let unit_width = (ui.available_width() * 0.55).clamp(60.0, 170.0);
                egui::ComboBox::from_id_salt((id, "unit", i))
                    .selected_text(unit_label(h.unit))
                    .width(unit_width)
                    .truncate()
                    .show_ui(ui, |ui| {
                        for (u, l) in UNITS {
                            changed |= ui.selectable_value(&mut h.unit, u, l).changed();
                        }
                    })
                    .response
                    .accessible_name(format!("delay header {n} unit"));
                changed |= ui
                    .add(
                        egui::TextEdit::singleline(&mut h.name)
                            .id(field_id(&format!("profile.{id}.headers[{i}].name")))
                            .desired_width(f32::INFINITY),
                    )
                    .accessible_name(format!("delay header {n} name"))
                    .changed();
            });
        });
    }
    if let Some(i) = remove {
        backoff.headers.remove(i);
        changed = true;
    }
    if ui.button("Add delay header").clicked() {
        backoff.headers.push(DelayHeader {
            name: "retry-after-ms".into(),
            unit: HeaderUnit::Milliseconds,
        });
        changed = true;
    }
    changed |= picker(
        ui,
        (id, "combine"),
        "Combine",
        &mut backoff.combine,
        &COMBINES,
    )
    .changed();
    if backoff.combine == Combine::Clamp {
        let mut x = backoff.clamp_above_ms.unwrap_or(DEFAULT_CLAMP_ABOVE_MS);
        let edited = ms_field(
            ui,
            &format!("profile.{id}.clamp_above_ms"),
            "Clamp above computed",
            &mut x,
            CLAMP_TIP,
        );
        if edited || backoff.clamp_above_ms.is_none() {
            backoff.clamp_above_ms = Some(x);
            changed = true;
        }
    }
    changed |= picker(
        ui,
        (id, "on_exceed"),
        "Header above max delay",
        &mut backoff.on_exceed_max,
        &ON_EXCEED,
    )
    .changed();
    changed
}
