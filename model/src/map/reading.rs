//! The map in words, for a screen reader and for a text view: the boxes in the drawing's
//! order (column by column, top to bottom), each with what it points at and what points at
//! it, as sentences ("Service web selects 3 pods of ReplicaSet web-7d (selector app=web; 2 of
//! 3 ready)").

use super::graph::{EdgeKind, Graph};
use super::group::{MapEdge, MapView};
use super::layout::MapLayout;
use super::missing::count_of;

/// One box, told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadingEntry {
    /// Index into [`MapView::nodes`].
    pub node: usize,
    /// `ReplicaSet web-7d: 3 pods, 2 ready (Warning)`.
    pub heading: String,
    /// Its edges out, as sentences.
    pub outgoing: Vec<String>,
    /// The edges reaching it, as the same sentences.
    pub incoming: Vec<String>,
}

/// The boxes of `view` in the order `layout` draws them, then the kinds not shown.
pub fn reading_order(graph: &Graph, view: &MapView, layout: &MapLayout) -> Vec<ReadingEntry> {
    let mut order: Vec<usize> = (0..view.nodes.len()).collect();
    crate::list::stable_sort::sort_by(&mut order, |a, b| {
        let key = |n: usize| {
            (
                layout.columns.get(n).copied(),
                layout.nodes.get(n).map(|r| r.y),
            )
        };
        let (ka, kb) = (key(*a), key(*b));
        ka.0.cmp(&kb.0)
            .then(ka.1.unwrap_or(0.0).total_cmp(&kb.1.unwrap_or(0.0)))
    });
    let mut outgoing = vec![Vec::new(); view.nodes.len()];
    let mut incoming = vec![Vec::new(); view.nodes.len()];
    for edge in &view.edges {
        let sentence = edge_sentence(graph, view, edge);
        incoming[edge.to].push(sentence.clone());
        outgoing[edge.from].push(sentence);
    }
    order
        .into_iter()
        .map(|node| ReadingEntry {
            node,
            heading: format!(
                "{} ({})",
                view.nodes[node].title(graph),
                view.nodes[node].health.label()
            ),
            outgoing: std::mem::take(&mut outgoing[node]),
            incoming: std::mem::take(&mut incoming[node]),
        })
        .collect()
}

/// `Pod web-1 mounts ConfigMap web (spec.volumes[0].configMap.name)`.
pub fn edge_sentence(graph: &Graph, view: &MapView, edge: &MapEdge) -> String {
    let from = &view.nodes[edge.from];
    let to = &view.nodes[edge.to];
    let subject = match &from.group {
        // Every member or only some: the count says which.
        Some(counts) => format!(
            "{} of {}",
            count_of(edge.count.min(counts.members), &from.kind),
            graph.objects[counts.owner].title()
        ),
        None => format!("{} {}", from.kind, from.name),
    };
    let object = match &to.group {
        Some(counts) => {
            let reached = if edge.kind == EdgeKind::Controls || edge.kind == EdgeKind::Owns {
                counts.members
            } else {
                edge.count.min(counts.members)
            };
            format!(
                "{} of {}",
                count_of(reached, &to.kind),
                graph.objects[counts.owner].title()
            )
        }
        None => format!("{} {}", to.kind, to.name),
    };
    let mut details = Vec::new();
    match &edge.selector {
        Some(selector) => details.push(format!("selector {selector}")),
        None => details.push(edge.evidence.join(", ")),
    }
    if let Some(ready) = edge.ready {
        details.push(format!("{ready} of {} ready", edge.count));
    }
    format!(
        "{subject} {} {object} ({})",
        edge.kind.verb(),
        details.join("; ")
    )
}
