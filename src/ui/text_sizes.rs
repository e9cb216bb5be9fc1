//! Text sizes the workbench uses on top of egui's defaults.

use egui::{FontId, TextStyle};

/// Size of [`TextStyle::Small`], points. egui's default (9 pt) is hard to read in the preview
/// strip, formulas, table sub-headings and plot labels; 11 pt stays smaller than body text
/// (12.5 pt).
pub const SMALL_TEXT_SIZE: f32 = 11.0;

/// Sets the workbench's text sizes in both the light and the dark style. Idempotent.
pub fn install_text_sizes(ctx: &egui::Context) {
    ctx.all_styles_mut(|style| {
        style
            .text_styles
            .insert(TextStyle::Small, FontId::proportional(SMALL_TEXT_SIZE));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_text_is_raised_in_both_themes() {
        let ctx = egui::Context::default();
        install_text_sizes(&ctx);
        for theme in [egui::Theme::Light, egui::Theme::Dark] {
            let style = ctx.style_of(theme);
            let size = style.text_styles.get(&TextStyle::Small).map(|f| f.size);
            assert_eq!(size, Some(SMALL_TEXT_SIZE));
        }
    }
}
