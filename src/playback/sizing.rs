//! How the cluster's drawing is sized: the scale from scene units to CSS pixels that fits
//! the room a panel, the window (projector mode) or the screen (full screen) gives it, and
//! where on the canvas the drawing starts.

use super::scene::Scene;

/// Job numbers, labels and counts in projector mode, in CSS pixels: legible from the back
/// of a room.
pub const PROJECTOR_TEXT_PX: f64 = 24.0;
/// The height of the queue's row under the cluster in projector mode, in CSS pixels.
pub const QUEUE_BAND_PX: f64 = 2.4 * PROJECTOR_TEXT_PX;

/// How the scene maps onto the canvas: scene units to CSS pixels, and CSS pixels to
/// device pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub scale: f64,
    pub dpr: f64,
    /// CSS pixels under the scene for the queue's row (projector mode), else 0.
    pub band: f64,
    /// In full screen, the box the canvas fills (CSS pixels), the drawing centred in it:
    /// the screen's room goes to the canvas whatever the cluster's shape.
    pub frame: Option<(f64, f64)>,
}

impl Fit {
    /// The canvas's backing size in device pixels.
    pub fn backing(&self, scene: &Scene) -> (u32, u32) {
        let (w, h) = self.css(scene);
        ((w * self.dpr).round() as u32, (h * self.dpr).round() as u32)
    }

    /// The canvas's size in CSS pixels.
    pub fn css(&self, scene: &Scene) -> (f64, f64) {
        let drawn = self.drawn(scene);
        match self.frame {
            Some((w, h)) => (w.max(drawn.0).floor(), h.max(drawn.1).floor()),
            None => (drawn.0.round(), drawn.1.round()),
        }
    }

    /// The drawing's size in CSS pixels: the scene and the queue's row.
    pub fn drawn(&self, scene: &Scene) -> (f64, f64) {
        (scene.width * self.scale, scene.height * self.scale + self.band)
    }

    /// Where the drawing starts on the canvas, in CSS pixels: centred in a full-screen
    /// frame, else at the corner.
    pub fn offset(&self, scene: &Scene) -> (f64, f64) {
        let ((w, h), (dw, dh)) = (self.css(scene), self.drawn(scene));
        match self.frame {
            Some(_) => (((w - dw) / 2.0).max(0.0).floor(), ((h - dh) / 2.0).max(0.0).floor()),
            None => (0.0, 0.0),
        }
    }

    /// The side of a GPU cell, in CSS pixels.
    pub fn cell_px(&self, scene: &Scene) -> f64 {
        scene.cell * self.scale
    }
}

/// The largest zoom of projector mode and full screen: a small cluster fills the panel.
pub const PROJECTOR_MAX_SCALE: f64 = 8.0;

/// How a scene fits a panel `width` CSS pixels wide (and, in full screen or projector
/// mode, `height` tall): as wide as the panel up to the page's largest zoom (`large`: up
/// to projector mode's, in full screen and projector mode, where a small cluster should
/// fill the room), and in projector mode with the queue's row under it.
pub fn fit(scene: &Scene, width: f64, height: Option<f64>, dpr: f64, large: bool, projector: bool) -> Fit {
    let band = if projector { QUEUE_BAND_PX } else { 0.0 };
    let max = if large { PROJECTOR_MAX_SCALE } else { super::scene::MAX_SCALE };
    let mut scale = (width / scene.width).min(max);
    if let Some(h) = height {
        scale = scale.min((h - band).max(50.0) / scene.height);
    }
    Fit { scale: scale.max(0.05), dpr, band, frame: None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Shared;
    use proxima_core::topology::resolve_topology_arg;

    #[test]
    fn a_full_screen_frame_centres_the_drawing_and_clicks_map_back() {
        let scene = Scene::racks(&Shared::new(resolve_topology_arg("teaching").unwrap()));
        // A wide box: the drawing fills its height, centred across its width.
        let (w, h) = (2.0 * scene.width * 4.0, scene.height * 4.0);
        let free = fit(&scene, w, Some(h), 2.0, true, false);
        assert!((free.scale - 4.0).abs() < 1e-9, "{}", free.scale);
        let framed = Fit { frame: Some((w, h)), ..free };
        assert_eq!(framed.css(&scene), (w.floor(), h.floor()));
        let (ox, oy) = framed.offset(&scene);
        assert_eq!(oy, 0.0);
        assert!((ox - (w - scene.width * 4.0) / 2.0).abs() <= 1.0, "{ox}");
        // Without a frame the canvas is the drawing, from its corner; the page's zoom is capped.
        assert_eq!(free.offset(&scene), (0.0, 0.0));
        let page = fit(&scene, w, None, 1.0, false, false);
        assert_eq!(page.scale, crate::playback::scene::MAX_SCALE);
        // Projector mode keeps the queue's row under the scene inside the height.
        let projected = fit(&scene, w, Some(h), 1.0, true, true);
        assert!(projected.drawn(&scene).1 <= h + 1e-9);
    }
}
