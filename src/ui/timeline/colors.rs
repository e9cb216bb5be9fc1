//! Colours of attempt classes, waits and banners (same in table, plot and banner).

use crate::model::AttemptClass;
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

/// Colour of an attempt's text (table status, detail status line, plot labels): the class
/// colour on a dark background, the same hue at 65 % brightness on a light one, so amber and
/// green stay readable on white.
pub fn class_text_color(class: AttemptClass, dark_mode: bool) -> Color32 {
    let c = class_color(class);
    if dark_mode {
        return c;
    }
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "0.65 × a u8 is in [0, 166]"
    )]
    let darken = |v: u8| (f32::from(v) * 0.65).round() as u8;
    Color32::from_rgb(darken(c.r()), darken(c.g()), darken(c.b()))
}

/// Fill of the outcome banner.
pub fn banner_color(kind: OutcomeKind) -> Color32 {
    match kind {
        OutcomeKind::Succeeded => SUCCESS,
        OutcomeKind::GaveUp | OutcomeKind::Deadline => RETRYABLE,
        OutcomeKind::Stopped | OutcomeKind::Error => STOPPED,
        OutcomeKind::Cancelled | OutcomeKind::Interrupted => CANCELLED,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn light_theme_text_is_darker_than_the_bar_colour() {
        assert_eq!(class_text_color(AttemptClass::Retryable, true), RETRYABLE);
        let light = class_text_color(AttemptClass::Retryable, false);
        assert_eq!(light, Color32::from_rgb(142, 98, 13));
    }
}
