//! The map's view (issue #50): how a namespace's objects connect, drawn as SVG where the
//! model's layout put each node (`model::map`), with pan (drag), zoom (wheel and buttons),
//! Fit, keyboard travel between nodes, groups that expand, each node's diagnosis line on
//! hover, and the same graph as a list for screen readers. One concern a file: a node
//! (`node`), an edge (`edge`), the icon (`icon`), the frame's scale and offset
//! (`viewport`), the words (`reading`), what the drawing shows of each (`shown`), what a
//! node may do to the map and the drag under way (`actions`).

mod actions;
mod edge;
mod icon;
mod node;
mod reading;
mod shown;
mod viewport;

use std::collections::BTreeSet;
use std::sync::Arc;

use leptos::html::Div;
use leptos::prelude::*;

use crate::model::ApiTree;
use crate::state::map::MapDrawing;
pub use actions::MapActions;
use actions::{Drag, DRAG_PIXELS};
use edge::MapEdgeView;
use node::{node_by_id, nodes_by_id, MapNodeView, ShownNode};
use reading::{MapReading, MissingKinds};
use shown::{shown_edges, shown_nodes};
use viewport::{Viewport, BUTTON_ZOOM};

/// The first view's smallest scale: a node's words readable (a wider map starts at its
/// left, the way in, and pans).
const FIRST_SCALE: f64 = 0.8;

/// The frame's least height (pixels), however short the drawing.
const MIN_FRAME_HEIGHT: f64 = 240.0;

/// The map of `drawing`; `expanded` holds the groups the user opened.
#[component]
pub fn MapCanvas(
    drawing: ReadSignal<Option<Arc<MapDrawing>>>,
    expanded: RwSignal<BTreeSet<String>>,
    tree: ApiTree,
) -> impl IntoView {
    let frame = NodeRef::<Div>::new();
    let actions = MapActions {
        hovered: RwSignal::new(None),
        expanded,
        drawing,
        viewport: RwSignal::new(Viewport::default()),
        drag: StoredValue::new(Drag::default()),
        frame,
    };
    let viewport = actions.viewport;
    let nodes = Memo::new(move |_| {
        drawing.with(|d| {
            d.as_ref()
                .map(|d| shown_nodes(d, &tree))
                .unwrap_or_default()
        })
    });
    let nodes_by_id = nodes_by_id(nodes);
    let edges = Memo::new(move |_| {
        drawing.with(|d| d.as_ref().map(|d| shown_edges(d)).unwrap_or_default())
    });
    let size = Memo::new(move |_| {
        drawing.with(|d| {
            d.as_ref()
                .map(|d| (d.map.layout.width, d.map.layout.height))
        })
    });
    // Placed once, when the first drawing is in (after the frame took its height); later
    // drawings keep the user's view.
    let placed = StoredValue::new(false);
    Effect::new(move |_| {
        if size.get().is_some() && !placed.get_value() {
            placed.set_value(true);
            request_animation_frame(move || actions.fit(Some(FIRST_SCALE)));
        }
    });
    // As tall as the drawing at its first scale, within the window.
    let frame_height = move || {
        let height = size.get().map_or(0.0, |(_, height)| height) * FIRST_SCALE;
        format!("min(72vh, {:.0}px)", height.max(MIN_FRAME_HEIGHT))
    };
    let list_shown = RwSignal::new(false);
    let hover_line = move || {
        let hovered = actions.hovered.get()?;
        nodes.with(|nodes| nodes.get(hovered).map(ShownNode::description))
    };
    let zoom_by = move |factor: f64| {
        let (width, height) = frame
            .get_untracked()
            .map(|f| (f64::from(f.client_width()), f64::from(f.client_height())))
            .unwrap_or_default();
        viewport.update(|v| *v = v.zoomed(factor, width / 2.0, height / 2.0));
    };
    let on_wheel = move |event: leptos::ev::WheelEvent| {
        event.prevent_default();
        let (x, y) = actions.in_frame(f64::from(event.client_x()), f64::from(event.client_y()));
        viewport.update(|v| *v = v.wheeled(event.delta_y(), x, y));
    };
    let on_down = move |event: leptos::ev::PointerEvent| {
        if event.button() != 0 {
            return;
        }
        let start = (f64::from(event.client_x()), f64::from(event.client_y()));
        actions.drag.set_value(Drag {
            start: Some((start.0, start.1, viewport.get_untracked())),
            moved: false,
        });
    };
    let on_move = move |event: leptos::ev::PointerEvent| {
        let Some((x, y, from)) = actions.drag.with_value(|d| d.start) else {
            return;
        };
        let (dx, dy) = (
            f64::from(event.client_x()) - x,
            f64::from(event.client_y()) - y,
        );
        if !actions.was_dragged() && dx.hypot(dy) < DRAG_PIXELS {
            return;
        }
        if !actions.was_dragged() {
            actions.drag.update_value(|d| d.moved = true);
            if let Some(frame) = frame.get_untracked() {
                let _ = frame.set_pointer_capture(event.pointer_id());
            }
        }
        viewport.set(from.panned(dx, dy));
    };
    let on_up = move |_| actions.drag.update_value(|d| d.start = None);
    let on_click_capture = move |_| {
        // After a drag's click has been seen by the nodes, the next click is a click.
        request_animation_frame(move || actions.drag.update_value(|d| d.moved = false));
    };
    let missing = move || {
        drawing.with(|d| {
            d.as_ref()
                .map(|d| d.map.view.missing.clone())
                .unwrap_or_default()
        })
    };
    let reading = move || {
        drawing.with(|d| {
            d.as_ref()
                .map(|d| d.map.reading.clone())
                .unwrap_or_default()
        })
    };
    view! {
        <div class="map">
            <div class="map-toolbar" role="toolbar" aria-label="Map view">
                <button on:click=move |_| zoom_by(BUTTON_ZOOM) aria-label="Zoom in" title="Zoom in">"+"</button>
                <button on:click=move |_| zoom_by(1.0 / BUTTON_ZOOM) aria-label="Zoom out" title="Zoom out">"−"</button>
                <button on:click=move |_| actions.fit(None) title="The whole map in view">"Fit"</button>
                <button
                    on:click=move |_| expanded.set(BTreeSet::new())
                    disabled=move || expanded.with(BTreeSet::is_empty)
                    title="Fold expanded groups again"
                >
                    "Collapse groups"
                </button>
                <button
                    on:click=move |_| list_shown.update(|shown| *shown = !*shown)
                    aria-pressed=move || list_shown.get().to_string()
                >
                    "Show as a list"
                </button>
                <span class="map-zoom" aria-live="off">
                    {move || format!("{:.0}%", viewport.get().scale * 100.0)}
                </span>
            </div>
            <p class="map-hover" aria-live="polite">
                {move || hover_line().unwrap_or_else(|| {
                    "Point at or focus a node to see why it has its health. Drag to pan, wheel to zoom, arrow keys to move between nodes, Enter to open.".to_string()
                })}
            </p>
            {move || view! { <MissingKinds missing=missing()/> }}
            <div
                class="map-frame"
                node_ref=frame
                style:height=frame_height
                on:wheel=on_wheel
                on:pointerdown=on_down
                on:pointermove=on_move
                on:pointerup=on_up
                on:pointercancel=on_up
                on:click=on_click_capture
            >
                <svg class="map-svg" role="group" aria-label="The map: objects and how they connect">
                    <defs>
                        <marker id="map-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                            <path d="M0 0 L10 5 L0 10 z" class="map-arrow"></path>
                        </marker>
                    </defs>
                    <g transform=move || viewport.get().transform()>
                        <For each=move || edges.get() key=|edge| format!("{edge:?}") let:edge>
                            <MapEdgeView edge=edge/>
                        </For>
                        <For each=move || nodes.get() key=|node| node.id.clone() let:node>
                            <MapNodeView node=node_by_id(node, nodes_by_id) actions=actions/>
                        </For>
                    </g>
                </svg>
            </div>
            {move || view! { <MapReading entries=reading() shown=list_shown.into()/> }}
        </div>
    }
}
