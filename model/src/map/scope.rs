//! Which part of the graph a map shows: a namespace, an application (the objects a label
//! selector matches and what they reach), or one object's neighbourhood.

use std::collections::VecDeque;

use super::graph::{EdgeKind, Graph};
use crate::list::selector::LabelSelector;

/// The part of the graph to draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every object of the namespace, and the cluster-scoped ones they reach (their claims'
    /// volumes, those volumes' classes).
    Namespace(String),
    /// The objects whose labels match, everything they reach, and what routes to, scales,
    /// budgets or isolates them from outside (an unlabelled Ingress in front of the app's
    /// Service, with the Gateway its route attaches to).
    Application(LabelSelector),
    /// The objects within `distance` edges of the one with `uid`, either way.
    Neighbourhood { uid: String, distance: usize },
}

/// The objects `scope` keeps, as indices into [`Graph::objects`], ascending.
pub fn select(graph: &Graph, scope: &Scope) -> Vec<usize> {
    let (outgoing, incoming) = graph.adjacency();
    let mut kept = vec![false; graph.objects.len()];
    match scope {
        Scope::Namespace(namespace) => {
            let seeds: Vec<usize> = (0..graph.objects.len())
                .filter(|&at| graph.objects[at].namespace.as_deref() == Some(namespace))
                .collect();
            for &at in &seeds {
                kept[at] = true;
            }
            // Only cluster-scoped objects are added: another namespace's are not this one's.
            let cluster_scoped = |at: usize| graph.objects[at].namespace.is_none();
            reach_forward(graph, &outgoing, &seeds, &mut kept, &cluster_scoped);
        }
        Scope::Application(selector) => {
            let seeds: Vec<usize> = (0..graph.objects.len())
                .filter(|&at| selector.matches(&graph.objects[at].labels))
                .collect();
            for &at in &seeds {
                kept[at] = true;
            }
            let seeds = reach_forward(graph, &outgoing, &seeds, &mut kept, &|_| true);
            // From outside, one step back along the edges that serve the application.
            let serves = |kind: EdgeKind| {
                matches!(
                    kind,
                    EdgeKind::Routes | EdgeKind::Scales | EdgeKind::Budgets | EdgeKind::Isolates
                )
            };
            let mut front = Vec::new();
            for &at in &seeds {
                for &e in &incoming[at] {
                    let edge = &graph.edges[e];
                    if serves(edge.kind) && !kept[edge.from] {
                        kept[edge.from] = true;
                        front.push(edge.from);
                    }
                }
            }
            // A route's Gateway.
            for &at in &front {
                for &e in &outgoing[at] {
                    let edge = &graph.edges[e];
                    if edge.kind == EdgeKind::AttachesTo {
                        kept[edge.to] = true;
                    }
                }
            }
        }
        Scope::Neighbourhood { uid, distance } => {
            if let Some(start) = graph.position(uid) {
                kept[start] = true;
                let mut queue = VecDeque::from([(start, 0)]);
                while let Some((at, steps)) = queue.pop_front() {
                    if steps == *distance {
                        continue;
                    }
                    let neighbours = outgoing[at]
                        .iter()
                        .map(|&e| graph.edges[e].to)
                        .chain(incoming[at].iter().map(|&e| graph.edges[e].from));
                    for next in neighbours {
                        if !kept[next] {
                            kept[next] = true;
                            queue.push_back((next, steps + 1));
                        }
                    }
                }
            }
        }
    }
    (0..kept.len()).filter(|&at| kept[at]).collect()
}

/// Marks what `seeds` reach through edges to objects `admit` accepts; returns every object
/// kept on the way, seeds included.
fn reach_forward(
    graph: &Graph,
    outgoing: &[Vec<usize>],
    seeds: &[usize],
    kept: &mut [bool],
    admit: &dyn Fn(usize) -> bool,
) -> Vec<usize> {
    let mut reached = seeds.to_vec();
    let mut stack = seeds.to_vec();
    while let Some(at) = stack.pop() {
        for &e in &outgoing[at] {
            let to = graph.edges[e].to;
            if !kept[to] && admit(to) {
                kept[to] = true;
                reached.push(to);
                stack.push(to);
            }
        }
    }
    reached
}
