//! Light / dark / follow-the-system theme switch.

use serde::{Deserialize, Serialize};

/// The user's theme choice (persisted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ThemeChoice {
    /// Follow the operating system's light/dark setting.
    #[default]
    System,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl ThemeChoice {
    /// Every choice, in switch order.
    pub const ALL: [ThemeChoice; 3] = [ThemeChoice::System, ThemeChoice::Light, ThemeChoice::Dark];

    /// Label on the switch.
    pub fn label(self) -> &'static str {
        match self {
            ThemeChoice::System => "System",
            ThemeChoice::Light => "Light",
            ThemeChoice::Dark => "Dark",
        }
    }

    /// The egui preference to apply.
    pub fn preference(self) -> egui::ThemePreference {
        match self {
            ThemeChoice::System => egui::ThemePreference::System,
            ThemeChoice::Light => egui::ThemePreference::Light,
            ThemeChoice::Dark => egui::ThemePreference::Dark,
        }
    }
}

/// Stroke around inactive widgets in the light theme, so white text fields stand out from the
/// panel (egui's light default draws none, and the fields almost vanish).
pub const LIGHT_FIELD_STROKE: egui::Stroke = egui::Stroke {
    width: 1.0,
    color: egui::Color32::from_gray(160),
};

/// Makes the light theme's text fields and buttons visible: an outline on inactive widgets and a
/// panel a shade darker than the fields. The dark theme keeps egui's defaults.
pub fn install_light_contrast(ctx: &egui::Context) {
    ctx.style_mut_of(egui::Theme::Light, |style| {
        let v = &mut style.visuals;
        v.widgets.inactive.bg_stroke = LIGHT_FIELD_STROKE;
        v.panel_fill = egui::Color32::from_gray(240);
        v.window_fill = egui::Color32::from_gray(246);
        v.extreme_bg_color = egui::Color32::WHITE;
    });
}

/// A sideways scroll area (id from `id_salt`) whose scroll bars stay visible, thin, whenever the
/// content is wider than the view, instead of egui's default bars that show only under the
/// pointer: a table whose last columns are cut off at 800 points must look cut off. Scroll areas
/// inside (a table's own vertical scroll) get the same bars.
pub fn sideways_scroll<R>(
    ui: &mut egui::Ui,
    id_salt: impl std::hash::Hash + std::fmt::Debug,
    add: impl FnOnce(&mut egui::Ui) -> R,
) -> R {
    ui.scope(|ui| {
        let mut bars = egui::style::ScrollStyle::solid();
        // Solid bars take their own room; a dormant handle that is drawn is what makes them
        // visible without the pointer over them.
        bars.dormant_handle_opacity = 0.6;
        bars.dormant_background_opacity = 0.2;
        ui.spacing_mut().scroll = bars;
        egui::ScrollArea::horizontal()
            .id_salt(id_salt)
            .show(ui, add)
            .inner
    })
    .inner
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn light_fields_get_an_outline_and_differ_from_the_panel() {
        let ctx = egui::Context::default();
        install_light_contrast(&ctx);
        ctx.set_theme(egui::Theme::Light);
        let style = ctx.style_of(egui::Theme::Light);
        assert_eq!(style.visuals.widgets.inactive.bg_stroke, LIGHT_FIELD_STROKE);
        assert_ne!(style.visuals.panel_fill, style.visuals.text_edit_bg_color());
    }
}
