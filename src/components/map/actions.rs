//! What a node may do to the map (point at itself, expand, open, move the keyboard's focus)
//! and the drag under way; the canvas (`super`) owns them.

use std::collections::BTreeSet;
use std::sync::Arc;

use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::viewport::Viewport;
use crate::model::map::focus::{neighbour, Direction};
use crate::state::map::MapDrawing;

/// A pointer that moved this far (pixels) since it went down drags; less is a click.
pub(super) const DRAG_PIXELS: f64 = 4.0;

/// A drag in progress: where it started, and the viewport then.
#[derive(Clone, Copy, Default)]
pub(super) struct Drag {
    pub(super) start: Option<(f64, f64, Viewport)>,
    pub(super) moved: bool,
}

/// What a node may do to the map: say it is pointed at, expand, open, move the focus.
#[derive(Clone, Copy)]
pub struct MapActions {
    pub hovered: RwSignal<Option<usize>>,
    pub(super) expanded: RwSignal<BTreeSet<String>>,
    pub(super) drawing: ReadSignal<Option<Arc<MapDrawing>>>,
    pub(super) viewport: RwSignal<Viewport>,
    pub(super) drag: StoredValue<Drag>,
    pub(super) frame: NodeRef<Div>,
}

impl MapActions {
    pub fn expand(&self, group: &str) {
        self.expanded.update(|expanded| {
            expanded.insert(group.to_string());
        });
    }

    pub fn open(&self, href: &str) {
        if let Some(window) = web_sys::window() {
            let _ = window.location().set_hash(href);
        }
    }

    /// Whether the click ending now ended a drag (then it opens nothing).
    pub fn was_dragged(&self) -> bool {
        self.drag.with_value(|drag| drag.moved)
    }

    /// Focuses the node an arrow key leads to from node `from` (which brings it into view).
    pub fn move_focus(&self, from: usize, direction: Direction) {
        let Some(drawing) = self.drawing.get_untracked() else {
            return;
        };
        let Some(to) = neighbour(&drawing.map.layout, from, direction) else {
            return;
        };
        let Some(frame) = self.frame.get_untracked() else {
            return;
        };
        if let Ok(Some(element)) = frame.query_selector(&format!(".map-node[data-index='{to}']")) {
            // An SVG element focuses as an HTML one does (the call is by name).
            let _ = element.unchecked_into::<web_sys::HtmlElement>().focus();
        }
    }

    /// Pans just enough that node `index` is in the frame (it has the keyboard's focus).
    pub fn reveal(&self, index: usize) {
        let (Some(drawing), Some(frame)) =
            (self.drawing.get_untracked(), self.frame.get_untracked())
        else {
            return;
        };
        let Some(rect) = drawing.map.layout.nodes.get(index).copied() else {
            return;
        };
        let size = (
            f64::from(frame.client_width()),
            f64::from(frame.client_height()),
        );
        self.viewport
            .update(|v| *v = v.showing(rect.x, rect.y, rect.width, rect.height, size));
    }

    /// The whole drawing in view (`readable`: no smaller than that, from the left).
    pub(super) fn fit(&self, readable: Option<f64>) {
        let (Some(drawing), Some(frame)) =
            (self.drawing.get_untracked(), self.frame.get_untracked())
        else {
            return;
        };
        let layout = &drawing.map.layout;
        let (width, height) = (
            f64::from(frame.client_width()),
            f64::from(frame.client_height()),
        );
        self.viewport.set(match readable {
            Some(scale) => Viewport::first(layout.width, layout.height, width, height, scale),
            None => Viewport::fit(layout.width, layout.height, width, height),
        });
    }

    /// A point of the frame from the page's (`clientX`, `clientY`).
    pub(super) fn in_frame(&self, client_x: f64, client_y: f64) -> (f64, f64) {
        match self.frame.get_untracked() {
            Some(frame) => {
                let bounds = frame.get_bounding_client_rect();
                (client_x - bounds.left(), client_y - bounds.top())
            }
            None => (client_x, client_y),
        }
    }
}
