//! Fallback fonts for glyphs egui's bundled fonts lack (`→`, `×`, `≤` … in wait explanations and
//! formulas): the first common system font found is added after the bundled ones.

use egui::{FontData, FontFamily, FontInsert, FontPriority, InsertFontFamily};
use std::path::Path;

/// Proportional fallbacks tried in order (Debian/Ubuntu/Fedora/Arch paths, macOS, Windows).
const PROPORTIONAL: [&str; 7] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial Unicode.ttf",
    "C:\\Windows\\Fonts\\segoeui.ttf",
];

/// Monospace fallbacks tried in order.
const MONOSPACE: [&str; 5] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    "/usr/share/fonts/dejavu/DejaVuSansMono.ttf",
    "/usr/share/fonts/TTF/DejaVuSansMono.ttf",
    "/System/Library/Fonts/Menlo.ttc",
    "C:\\Windows\\Fonts\\consola.ttf",
];

/// Adds the first readable proportional and monospace system fonts as lowest-priority
/// fallbacks. Returns true when a proportional fallback was installed.
pub fn install_fallback_fonts(ctx: &egui::Context) -> bool {
    let prop = add_first(
        ctx,
        "fallback-proportional",
        &PROPORTIONAL,
        FontFamily::Proportional,
    );
    let mono = add_first(ctx, "fallback-monospace", &MONOSPACE, FontFamily::Monospace);
    if !mono && prop {
        // The proportional fallback still beats tofu in code and numbers.
        let _ = add_first(
            ctx,
            "fallback-monospace",
            &PROPORTIONAL,
            FontFamily::Monospace,
        );
    }
    prop
}

fn add_first(ctx: &egui::Context, name: &str, paths: &[&str], family: FontFamily) -> bool {
    let Some(bytes) = paths.iter().find_map(|p| std::fs::read(Path::new(p)).ok()) else {
        return false;
    };
    ctx.add_font(FontInsert::new(
        name,
        FontData::from_owned(bytes),
        vec![InsertFontFamily {
            family,
            priority: FontPriority::Lowest,
        }],
    ));
    true
}
