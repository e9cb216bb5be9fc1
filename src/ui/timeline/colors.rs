//! Colours of attempt classes, waits and banners (same in table, plot and banner).

use super::attempt_row::AttemptClass;
use crate::model::OutcomeKind;
use egui::Color32;

/// Success: green.
pub const SUCCESS: Color32 = Color32::from_rgb(46, 160, 67);
/// Retryable response: amber.
pub const RETRYABLE: Color32 = Color32::from_rgb(219, 150, 20);
/// Stopped: red.
pub const STOPPED: Color32 = Color32::from_rgb(207, 34, 46);
/// Network error: purple.
pub const NETWORK_ERROR: Color32 = Color32::from_rgb(137, 87, 229);
/// Attempt in flight: blue.
pub const IN_FLIGHT: Color32 = Color32::from_rgb(56, 132, 255);
/// Waits: grey.
pub const WAIT: Color32 = Color32::from_rgb(140, 140, 140);
/// Cancelled banner: neutral grey-blue.
pub const CANCELLED: Color32 = Color32::from_rgb(110, 118, 129);

/// Colour of an attempt bar or status cell.
pub fn class_color(class: AttemptClass) -> Color32 {
    match class {
        AttemptClass::InFlight => IN_FLIGHT,
        AttemptClass::Aborted => CANCELLED,
        AttemptClass::Success => SUCCESS,
        AttemptClass::Retryable => RETRYABLE,
        AttemptClass::Stopped => STOPPED,
        AttemptClass::NetworkError => NETWORK_ERROR,
    }
}

/// Fill of the outcome banner.
pub fn banner_color(kind: OutcomeKind) -> Color32 {
    match kind {
        OutcomeKind::Succeeded => SUCCESS,
        OutcomeKind::GaveUp | OutcomeKind::Deadline => RETRYABLE,
        OutcomeKind::Stopped | OutcomeKind::Error => STOPPED,
        OutcomeKind::Cancelled => CANCELLED,
    }
}
