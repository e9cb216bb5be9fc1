//! The window's icon (title bar, task bar, Alt+Tab): `assets/icons/retryscope-256.png`, built in.

use std::sync::Arc;

/// The icon's PNG bytes (256×256 RGBA), rendered from `assets/icons/retryscope.svg`.
pub const ICON_PNG: &[u8] = include_bytes!("../../assets/icons/retryscope-256.png");

/// The decoded icon for `ViewportBuilder::with_icon`; `None` if the built-in PNG cannot be
/// decoded (it always can; a test proves it), in which case the window keeps the default icon.
pub fn window_icon() -> Option<Arc<egui::IconData>> {
    let image = image::load_from_memory_with_format(ICON_PNG, image::ImageFormat::Png).ok()?;
    let rgba = image.into_rgba8();
    let (width, height) = rgba.dimensions();
    Some(Arc::new(egui::IconData {
        rgba: rgba.into_raw(),
        width,
        height,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_icon_decodes_to_256_square_rgba() {
        let icon = window_icon().expect("the built-in icon decodes");
        assert_eq!((icon.width, icon.height), (256, 256));
        assert_eq!(icon.rgba.len(), 256 * 256 * 4);
        // Not blank: the corners are transparent, the middle is not.
        assert_eq!(icon.rgba[3], 0, "top-left corner is transparent");
        let middle = (128 * 256 + 128) * 4;
        assert_eq!(icon.rgba[middle + 3], 255, "the middle is opaque");
    }
}
