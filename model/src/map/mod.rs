//! The map: how a namespace's objects connect (issue #50). From whole objects of any kinds
//! to a drawing, in steps a view calls in turn:
//!
//! 1. [`graph::Graph::build`]: a node per object, an edge per reference ([`edge`]: why, and
//!    the field it came from; `rules` for the built-in kinds, `pod_refs` for what a pod needs,
//!    [`custom`] for custom resources' `…Ref` fields), with the kinds that could not be
//!    listed ([`missing`]);
//! 2. [`scope::select`]: a namespace, an application (a label selector and what it reaches),
//!    or one object's neighbourhood;
//! 3. [`group::fold`]: siblings of one owner and kind folded into a counted group unless
//!    expanded, with health by uid from the caller (or [`health::health_from_status`]);
//! 4. [`layout::layout`]: columns left to right, boxes and polylines in abstract units
//!    (`order` reduces crossings), and [`reading::reading_order`]: the same in words;
//! 5. [`focus::neighbour`]: where an arrow key moves on the drawing.
//!
//! Nothing here knows a page; every result depends on the objects, not on their order.

pub mod custom;
pub mod edge;
pub mod focus;
pub mod graph;
pub mod group;
pub mod health;
pub mod layout;
pub mod missing;
mod order;
mod pod_refs;
pub mod reading;
mod rules;
pub mod scope;

#[cfg(test)]
mod tests;

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use crate::diagnosis::Health;

/// Everything a map view draws, from one call.
#[derive(Debug, Clone, PartialEq)]
pub struct Map {
    pub graph: graph::Graph,
    pub view: group::MapView,
    pub layout: layout::MapLayout,
    pub reading: Vec<reading::ReadingEntry>,
}

/// The map of `objects` within `scope`: `health` by uid (the caller's verdicts, or
/// [`health::health_from_status`]), the group ids the user `expanded`, the kinds that could
/// not be listed.
pub fn draw(
    objects: &[Value],
    scope: &scope::Scope,
    health: &HashMap<String, Health>,
    expanded: &BTreeSet<String>,
    missing: Vec<missing::MissingKind>,
) -> Map {
    let graph = graph::Graph::build(objects, missing);
    let kept = scope::select(&graph, scope);
    let view = group::fold(&graph, &kept, health, expanded);
    let layout = layout::layout(&view);
    let reading = reading::reading_order(&graph, &view, &layout);
    Map {
        graph,
        view,
        layout,
        reading,
    }
}
