//! Where each box of the map goes: columns left to right from the way in (Gateways, routes,
//! Ingresses, Services) to workloads, their ReplicaSets and Jobs, pods, and what pods need
//! (ConfigMaps, Secrets, claims, volumes, classes). A node's column is the longest path to it
//! from a source, never left of its kind's column; kinds without one (custom resources,
//! autoscalers, budgets, policies) stand just left of the nearest thing they point at (right
//! of what points at them). A route's Gateway is drawn before the route, as traffic flows.
//! Edges longer than one column pass through placeholders so they never cross a box; each
//! column is ordered to reduce crossings (`order`) and stacked from the top.
//!
//! Stable: the geometry is a function of the view's nodes (by their place: a group's, or a
//! lone member's, is its owner's and kind's) and edges, never of a group's size, so a pod
//! more or less in a group (or a second pod making one) moves nothing.
//!
//! Everything depends only on the [`MapView`]'s nodes and edges, which are sorted: the same
//! objects give the same drawing in any order.

use super::group::{MapEdge, MapView};
use super::order::{order_layers, Slot, SWEEPS};
use crate::overview::chart::Rect;

pub const NODE_WIDTH: f64 = 220.0;
pub const NODE_HEIGHT: f64 = 48.0;
/// Between two columns, for the edges.
pub const COLUMN_GAP: f64 = 100.0;
/// Between two boxes of a column.
pub const ROW_GAP: f64 = 16.0;
/// The height a passing edge takes in a column it crosses.
pub const PASSAGE_HEIGHT: f64 = 12.0;
pub const MARGIN: f64 = 16.0;

/// A point in the layout's units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// The drawing of a [`MapView`], in abstract units (an SVG `viewBox` of `0 0 width height`).
#[derive(Debug, Clone, PartialEq)]
pub struct MapLayout {
    /// By node index of the view.
    pub nodes: Vec<Rect>,
    /// Each node's column, 0 on the left.
    pub columns: Vec<usize>,
    /// By edge index of the view: a polyline from the edge's source to its target (the
    /// arrowhead at the last point), leaving a box on its right side and entering the next on
    /// its left; a route's edge to its Gateway runs right to left, as the Gateway is drawn
    /// first, and so does an edge that closes a cycle.
    pub edges: Vec<Vec<Point>>,
    pub width: f64,
    pub height: f64,
}

/// The column a kind belongs in at least (`None`: placed by its edges alone).
pub fn kind_column(kind: &str) -> Option<usize> {
    Some(match kind {
        "Gateway" => 0,
        "HTTPRoute" | "GRPCRoute" | "TLSRoute" | "TCPRoute" | "UDPRoute" | "Ingress" => 1,
        "Service" => 2,
        "Deployment" | "StatefulSet" | "DaemonSet" | "CronJob" => 3,
        "ReplicaSet" | "Job" | "EndpointSlice" => 4,
        "Pod" => 5,
        "ConfigMap" | "Secret" | "ServiceAccount" | "PersistentVolumeClaim" => 6,
        "PersistentVolume" => 7,
        "StorageClass" => 8,
        _ => return None,
    })
}

/// Lays out `view`.
pub fn layout(view: &MapView) -> MapLayout {
    layout_with_sweeps(view, SWEEPS)
}

/// With `sweeps` passes of crossing reduction (0: columns in name order), to measure them.
pub(crate) fn layout_with_sweeps(view: &MapView, sweeps: usize) -> MapLayout {
    let count = view.nodes.len();
    let forward = forward_edges(view);
    let ranks = ranks(view, &forward);
    // Columns without a node close up.
    let mut used: Vec<usize> = ranks.clone();
    crate::list::stable_sort::sort(&mut used);
    used.dedup();
    let columns: Vec<usize> = ranks
        .iter()
        .map(|rank| used.partition_point(|u| u < rank))
        .collect();
    let layer_count = used.len();
    // Each column's slots: its nodes, then a passage for every edge crossing it.
    let mut layers: Vec<Vec<Slot>> = vec![Vec::new(); layer_count];
    for (node, &column) in columns.iter().enumerate() {
        layers[column].push(Slot::Node(node));
    }
    for (at, edge) in view.edges.iter().enumerate() {
        if forward[at] {
            let (left, right) = ends(edge);
            let (first, last) = (columns[left] + 1, columns[right]);
            for (column, slots) in layers.iter_mut().enumerate().take(last).skip(first) {
                slots.push(Slot::Passage { edge: at, column });
            }
        }
    }
    let layers = order_layers(view, &columns, &forward, layers, sweeps);
    // Stacked from the top.
    let mut nodes = vec![
        Rect {
            x: 0.0,
            y: 0.0,
            width: 0.0,
            height: 0.0
        };
        count
    ];
    let mut passages = std::collections::HashMap::new();
    let mut height: f64 = 0.0;
    for (column, slots) in layers.iter().enumerate() {
        let x = MARGIN + column as f64 * (NODE_WIDTH + COLUMN_GAP);
        let mut y = MARGIN;
        for slot in slots {
            match *slot {
                Slot::Node(node) => {
                    nodes[node] = Rect {
                        x,
                        y,
                        width: NODE_WIDTH,
                        height: NODE_HEIGHT,
                    };
                    y += NODE_HEIGHT + ROW_GAP;
                }
                Slot::Passage { edge, column } => {
                    passages.insert((edge, column), y + PASSAGE_HEIGHT / 2.0);
                    y += PASSAGE_HEIGHT + ROW_GAP;
                }
            }
        }
        height = height.max(y - ROW_GAP + MARGIN);
    }
    let edges = view
        .edges
        .iter()
        .enumerate()
        .map(|(at, edge)| {
            let (left, right) = ends(edge);
            let (from, to) = (nodes[left], nodes[right]);
            let middle = |r: Rect| r.y + r.height / 2.0;
            let mut points = if forward[at] {
                vec![Point {
                    x: from.x + from.width,
                    y: middle(from),
                }]
            } else {
                vec![
                    Point {
                        x: from.x,
                        y: middle(from),
                    },
                    Point {
                        x: to.x + to.width,
                        y: middle(to),
                    },
                ]
            };
            for column in (columns[left] + 1..columns[right]).filter(|_| forward[at]) {
                let x = MARGIN + column as f64 * (NODE_WIDTH + COLUMN_GAP);
                let y = passages.get(&(at, column)).copied().unwrap_or(0.0);
                points.push(Point { x, y });
                points.push(Point {
                    x: x + NODE_WIDTH,
                    y,
                });
            }
            if forward[at] {
                points.push(Point {
                    x: to.x,
                    y: middle(to),
                });
            }
            if edge.kind.drawn_reversed() {
                points.reverse();
            }
            points
        })
        .collect();
    let width = if layer_count == 0 {
        2.0 * MARGIN
    } else {
        2.0 * MARGIN + layer_count as f64 * NODE_WIDTH + (layer_count - 1) as f64 * COLUMN_GAP
    };
    MapLayout {
        nodes,
        columns,
        edges,
        width,
        height: height.max(2.0 * MARGIN),
    }
}

/// Which edges go forward: all but those closing a cycle (found by a depth-first walk in
/// node order, so the same ones whatever the input order).
fn forward_edges(view: &MapView) -> Vec<bool> {
    let count = view.nodes.len();
    let mut outgoing = vec![Vec::new(); count];
    for (at, edge) in view.edges.iter().enumerate() {
        outgoing[ends(edge).0].push(at);
    }
    let mut forward = vec![true; view.edges.len()];
    // 0 unvisited, 1 on the walk's path, 2 done.
    let mut state = vec![0u8; count];
    for root in 0..count {
        if state[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        state[root] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&edge) = outgoing[node].get(*next) {
                *next += 1;
                let to = ends(&view.edges[edge]).1;
                match state[to] {
                    0 => {
                        state[to] = 1;
                        stack.push((to, 0));
                    }
                    1 => forward[edge] = false,
                    _ => {}
                }
            } else {
                state[node] = 2;
                stack.pop();
            }
        }
    }
    forward
}

/// Each node's rank before empty columns close up.
fn ranks(view: &MapView, forward: &[bool]) -> Vec<usize> {
    let count = view.nodes.len();
    let mut incoming = vec![Vec::new(); count];
    let mut outgoing = vec![Vec::new(); count];
    let mut pending = vec![0usize; count];
    for (at, edge) in view.edges.iter().enumerate() {
        if forward[at] {
            let (left, right) = ends(edge);
            incoming[right].push(left);
            outgoing[left].push(right);
            pending[right] += 1;
        }
    }
    // Kahn's order over the forward edges (acyclic), smallest index first.
    let mut ready: std::collections::BTreeSet<usize> =
        (0..count).filter(|&n| pending[n] == 0).collect();
    let mut order = Vec::with_capacity(count);
    while let Some(node) = ready.pop_first() {
        order.push(node);
        for &to in &outgoing[node] {
            pending[to] -= 1;
            if pending[to] == 0 {
                ready.insert(to);
            }
        }
    }
    let hint = |node: usize| kind_column(&view.nodes[node].kind);
    let mut rank = vec![0usize; count];
    for &node in &order {
        let after = incoming[node]
            .iter()
            .map(|&p| rank[p] + 1)
            .max()
            .unwrap_or(0);
        rank[node] = after.max(hint(node).unwrap_or(0));
    }
    // A kind without a column of its own stands just left of its nearest target (so chains
    // of them end beside what they point at); right of all it comes after, still.
    for &node in order.iter().rev() {
        if hint(node).is_none() {
            if let Some(nearest) = outgoing[node].iter().map(|&t| rank[t]).min() {
                rank[node] = nearest.saturating_sub(1).max(rank[node]);
            }
        }
    }
    rank
}

/// An edge's ends in drawing order, left then right (a route's Gateway first).
pub(crate) fn ends(edge: &MapEdge) -> (usize, usize) {
    if edge.kind.drawn_reversed() {
        (edge.to, edge.from)
    } else {
        (edge.from, edge.to)
    }
}
