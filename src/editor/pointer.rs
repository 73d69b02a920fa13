//! How the drawing is looked at and pointed at: pan and zoom ([`View`]) and a press in
//! progress ([`Press`]), as one state ([`Pointer`]) that changes only through
//! [`Pointer::apply`]. The component feeds it the browser's pointer, wheel and button input
//! and emits the [`EditAction`] it returns; nothing here touches the DOM, so every gesture
//! is tested natively.
//!
//! A drag is not an edit until the pointer is released: while it lasts only the drawing
//! moves, and the release becomes one `Move` action, so that undo takes back a whole drag.

use super::layout::{Drawing, MARGIN};
use super::{EditAction, Editor, Element};

/// The drawing's height on the page before it is fitted, in CSS pixels.
const VIEW_H: f64 = 380.0;
/// Fit makes the drawing's height follow the cluster's shape, between these.
const MIN_VIEW_H: f64 = 180.0;
const MAX_VIEW_H: f64 = 560.0;
/// Room left around a fitted cluster, in CSS pixels.
const FIT_PAD: f64 = 10.0;
/// Fit does not enlarge a small cluster beyond this.
const MAX_FIT_ZOOM: f64 = 2.0;
const MIN_ZOOM: f64 = 0.02;
const MAX_ZOOM: f64 = 4.0;
/// Pointer travel, in pixels, below which a press is a click rather than a drag.
const CLICK_SLOP: f64 = 4.0;
/// How close to the edge, in pixels, the selection may come before the view follows it.
const FOLLOW_MARGIN: f64 = 24.0;

/// Pan and zoom: drawing coordinates to screen pixels are `p * k + (tx, ty)`; `h` is the
/// drawing's height on the page.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    pub k: f64,
    pub tx: f64,
    pub ty: f64,
    pub h: f64,
}

impl Default for View {
    fn default() -> Self {
        View { k: 1.0, tx: 0.0, ty: 0.0, h: VIEW_H }
    }
}

impl View {
    /// The whole cluster in view with a small margin: as large as the width allows (up to
    /// [`MAX_FIT_ZOOM`]), and the drawing only as tall as the cluster then is, so that no
    /// server is cut off and no wide band stays empty.
    pub fn fit(d: &Drawing, width: f64) -> View {
        let x0 = d.nodes.iter().map(|b| b.x).fold(MARGIN, f64::min);
        let y0 = d.nodes.iter().map(|b| b.y).fold(MARGIN, f64::min);
        let (w, h) = ((d.width - MARGIN - x0).max(1.0), (d.height - MARGIN - y0).max(1.0));
        let k = ((width - 2.0 * FIT_PAD) / w).min((MAX_VIEW_H - 2.0 * FIT_PAD) / h).min(MAX_FIT_ZOOM);
        let k = k.max(MIN_ZOOM);
        let view_h = (h * k + 2.0 * FIT_PAD).clamp(MIN_VIEW_H, MAX_VIEW_H);
        View { k, tx: (width - w * k) / 2.0 - x0 * k, ty: (view_h - h * k) / 2.0 - y0 * k, h: view_h }
    }

    /// Zooms by `factor` keeping the point (x, y) of the screen where it is.
    pub fn zoom(self, factor: f64, x: f64, y: f64) -> View {
        let k = (self.k * factor).clamp(MIN_ZOOM, MAX_ZOOM);
        let f = k / self.k;
        View { k, tx: x - (x - self.tx) * f, ty: y - (y - self.ty) * f, h: self.h }
    }

    /// The same zoom with the drawing point (x, y) in the middle of a viewport `width`
    /// wide, if that point is within [`FOLLOW_MARGIN`] of an edge or beyond it; `None`
    /// when it is comfortably in view.
    pub fn follow(self, x: f64, y: f64, width: f64) -> Option<View> {
        let (sx, sy) = (x * self.k + self.tx, y * self.k + self.ty);
        let m = FOLLOW_MARGIN;
        let outside = sx < m || sx > width - m || sy < m || sy > self.h - m;
        outside.then_some(View { tx: width / 2.0 - x * self.k, ty: self.h / 2.0 - y * self.k, ..self })
    }
}

/// A press on the drawing, until it is released.
#[derive(Clone, Debug, PartialEq)]
enum Press {
    Pan {
        x0: f64,
        y0: f64,
        view: View,
        moved: bool,
    },
    /// Shift and a press on the background: a box that selects what it touches.
    Box {
        x0: f64,
        y0: f64,
        x: f64,
        y: f64,
    },
    Node {
        target: Option<Element>,
        node: String,
        x0: f64,
        y0: f64,
        dx: f64,
        dy: f64,
        moved: bool,
        shift: bool,
    },
    Other {
        target: Option<Element>,
    },
}

/// A node being dragged and how far, in drawing units.
pub type Drag = (String, f64, f64);

/// The pointer's state: the view, the press in progress and what it draws.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pointer {
    pub view: View,
    press: Option<Press>,
    /// The node a drag is moving, for the live drawing.
    pub drag: Option<Drag>,
    /// The selection box being drawn, in screen pixels: x, y, width, height.
    pub rubber: Option<(f64, f64, f64, f64)>,
    /// What the last press hit. The pointer is captured by the `<svg>` during a press, so a
    /// double click's own target is the `<svg>`, and the press tells what was clicked.
    last_hit: Option<Element>,
}

/// What the pointer and the view buttons do, in screen pixels of the drawing.
#[derive(Clone, Debug, PartialEq)]
pub enum PointerInput {
    /// The primary button went down on `target` (`None`: the background).
    Down {
        x: f64,
        y: f64,
        target: Option<Element>,
        shift: bool,
    },
    Move {
        x: f64,
        y: f64,
    },
    Up,
    DoubleClick,
    /// Zoom by `factor` around (x, y): the wheel, or a button with the viewport's middle.
    Zoom {
        factor: f64,
        x: f64,
        y: f64,
    },
    /// Fit the cluster to a viewport `width` wide.
    Fit {
        width: f64,
    },
    /// Pan so that the drawing point (x, y) is in view, for keyboard selection.
    Follow {
        x: f64,
        y: f64,
        width: f64,
    },
}

impl Pointer {
    /// Applies one input and returns the edit it amounts to, if any.
    pub fn apply(&mut self, input: PointerInput, ed: &Editor, d: &Drawing) -> Option<EditAction> {
        match input {
            PointerInput::Down { x, y, target, shift } => {
                self.down(x, y, target, shift);
                None
            }
            PointerInput::Move { x, y } => {
                self.moved(x, y);
                None
            }
            PointerInput::Up => self.up(ed, d),
            PointerInput::DoubleClick => match &self.last_hit {
                Some(Element::Node(id)) => Some(EditAction::ToggleCollapse(id.clone())),
                _ => None,
            },
            PointerInput::Zoom { factor, x, y } => {
                self.view = self.view.zoom(factor, x, y);
                None
            }
            PointerInput::Fit { width } => {
                self.view = View::fit(d, width);
                None
            }
            PointerInput::Follow { x, y, width } => {
                if let Some(v) = self.view.follow(x, y, width) {
                    self.view = v;
                }
                None
            }
        }
    }

    fn down(&mut self, x: f64, y: f64, target: Option<Element>, shift: bool) {
        self.last_hit = target.clone();
        let node = match &target {
            Some(Element::Node(id)) | Some(Element::Gpu(id, _)) => Some(id.clone()),
            _ => None,
        };
        self.press = Some(match (node, &target) {
            (Some(node), _) => Press::Node { target, node, x0: x, y0: y, dx: 0.0, dy: 0.0, moved: false, shift },
            (None, None) if shift => Press::Box { x0: x, y0: y, x, y },
            (None, None) => Press::Pan { x0: x, y0: y, view: self.view, moved: false },
            (None, Some(_)) => Press::Other { target },
        });
    }

    fn moved(&mut self, x: f64, y: f64) {
        let beyond_slop = |x0: f64, y0: f64| (x - x0).abs() > CLICK_SLOP || (y - y0).abs() > CLICK_SLOP;
        match &mut self.press {
            Some(Press::Box { x0, y0, x: bx, y: by }) => {
                (*bx, *by) = (x, y);
                self.rubber = Some((x0.min(x), y0.min(y), (x - *x0).abs(), (y - *y0).abs()));
            }
            Some(Press::Pan { x0, y0, view: v0, moved }) => {
                *moved = *moved || beyond_slop(*x0, *y0);
                if *moved {
                    self.view = View { tx: v0.tx + x - *x0, ty: v0.ty + y - *y0, ..*v0 };
                }
            }
            Some(Press::Node { node, x0, y0, dx, dy, moved, .. }) => {
                *moved = *moved || beyond_slop(*x0, *y0);
                if *moved {
                    (*dx, *dy) = ((x - *x0) / self.view.k, (y - *y0) / self.view.k);
                    self.drag = Some((node.clone(), *dx, *dy));
                }
            }
            Some(Press::Other { .. }) | None => {}
        }
    }

    fn up(&mut self, ed: &Editor, d: &Drawing) -> Option<EditAction> {
        let click = |target: Option<Element>| match (&ed.linking_from, target) {
            (Some(_), Some(Element::Node(id))) | (Some(_), Some(Element::Gpu(id, _))) => EditAction::LinkTo(id),
            (_, target) => EditAction::Select(target),
        };
        match self.press.take()? {
            Press::Node { node, dx, dy, moved: true, .. } => {
                self.drag = None;
                Some(EditAction::Move { node, dx, dy })
            }
            Press::Node { node, shift: true, .. } => Some(EditAction::ToggleSelect(node)),
            Press::Node { target, .. } | Press::Other { target } => Some(click(target)),
            Press::Box { x0, y0, x, y } => {
                self.rubber = None;
                // The box in drawing units; every node box it touches is selected.
                let v = self.view;
                let (ax, bx) = ((x0.min(x) - v.tx) / v.k, (x0.max(x) - v.tx) / v.k);
                let (ay, by) = ((y0.min(y) - v.ty) / v.k, (y0.max(y) - v.ty) / v.k);
                let hit = d.nodes.iter().filter(|b| b.x <= bx && b.x + b.w >= ax && b.y <= by && b.y + b.h >= ay);
                Some(EditAction::SelectNodes(hit.map(|b| b.id.clone()).collect()))
            }
            // A press on the background that did not pan clears the selection.
            Press::Pan { moved: false, .. } if ed.selection.is_some() => Some(EditAction::Select(None)),
            Press::Pan { .. } => None,
        }
    }
}

/// The centre of a selected element in the drawing, for [`PointerInput::Follow`].
pub fn centre_of(d: &Drawing, sel: &Element) -> Option<(f64, f64)> {
    match sel {
        Element::Node(id) => d.nodes.iter().find(|b| b.id == *id).map(|b| (b.x + b.w / 2.0, b.y + b.h / 2.0)),
        Element::Gpu(server, k) => d.gpus.iter().find(|g| g.server == *server && g.index == *k).map(|g| (g.x, g.y)),
        Element::Link(i) => d.links.iter().find(|l| l.index == *i).map(|l| ((l.x1 + l.x2) / 2.0, (l.y1 + l.y2) / 2.0)),
    }
}
