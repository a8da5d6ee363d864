//! What the map shows of its drawing: each node's words, link and box, each edge's sentence
//! and path, as the node and edge views take them.

use crate::components::diagnosis::subject_href;
use crate::model::diagnosis::Subject;
use crate::model::map::missing::count_of;
use crate::model::map::reading::edge_sentence;
use crate::model::ApiTree;
use crate::state::map::MapDrawing;

use super::edge::ShownEdge;
use super::node::ShownNode;

pub(super) fn shown_nodes(drawing: &MapDrawing, tree: &ApiTree) -> Vec<ShownNode> {
    let map = &drawing.map;
    map.view
        .nodes
        .iter()
        .enumerate()
        .map(|(index, node)| {
            let summary = match &node.group {
                Some(counts) => {
                    let mut text = count_of(counts.members, &node.kind);
                    if let Some(ready) = counts.ready {
                        text.push_str(&format!(", {ready} ready"));
                    }
                    text
                }
                None => node.kind.clone(),
            };
            let href = node.group.is_none().then(|| {
                let subject = Subject {
                    kind: node.kind.clone(),
                    api_version: node.api_version.clone(),
                    namespace: node.namespace.clone(),
                    name: node.name.clone(),
                    uid: node.id.clone(),
                };
                subject_href(&subject, tree)
            });
            ShownNode {
                index,
                id: node.id.clone(),
                kind: node.kind.clone(),
                name: node.name.clone(),
                summary,
                title: node.title(&map.graph),
                health: node.health,
                line: drawing.lines.get(index).cloned().flatten(),
                href: href.flatten(),
                members: node.group.as_ref().map(|counts| counts.members),
                rect: map.layout.nodes[index],
            }
        })
        .collect()
}

pub(super) fn shown_edges(drawing: &MapDrawing) -> Vec<ShownEdge> {
    let map = &drawing.map;
    let name = |node: usize| {
        let node = &map.view.nodes[node];
        format!("{}/{}", node.kind, node.name)
    };
    map.view
        .edges
        .iter()
        .zip(&map.layout.edges)
        .map(|(edge, points)| ShownEdge {
            sentence: edge_sentence(&map.graph, &map.view, edge),
            verb: edge.kind.verb(),
            from: name(edge.from),
            to: name(edge.to),
            points: points.clone(),
        })
        .collect()
}
