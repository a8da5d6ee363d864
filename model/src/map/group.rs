//! What the map draws: the kept objects, with siblings of one owner and kind (a ReplicaSet's
//! pods, a CronJob's Jobs) folded into one group node that counts them ("ReplicaSet web-7d:
//! 12 pods, 11 ready") unless the user expanded it. Edges between the same two nodes for the
//! same reason fold too: "Service web selects 12 pods, 11 ready".
//!
//! A group's place is its owner's and kind's, whatever its size: one pod more or less changes
//! a count, never the drawing around it (see [`super::layout`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::graph::{EdgeKind, Graph, MapObject};
use super::missing::{count_of, MissingKind};
use crate::diagnosis::Health;

/// The counts of a group node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupCounts {
    /// The owner's index in [`Graph::objects`].
    pub owner: usize,
    pub members: usize,
    /// Members with a Ready condition that is True (pods); `None` when no member has one.
    pub ready: Option<usize>,
    /// Members by health.
    pub by_health: BTreeMap<Health, usize>,
}

/// One box of the map: an object, or a group of siblings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapNode {
    /// The object's uid, or the group's id ([`group_id`]), which expanding takes.
    pub id: String,
    pub kind: String,
    pub api_version: String,
    pub namespace: Option<String>,
    /// The object's name; a group's owner's name.
    pub name: String,
    /// Indices into [`Graph::objects`]: one object, or the group's members.
    pub members: Vec<usize>,
    /// Set on a folded group.
    pub group: Option<GroupCounts>,
    /// The id of the expanded group this object is shown out of (for a "fold" control).
    pub expanded_from: Option<String>,
    /// The worst health among its members (`Unknown` for one without any).
    pub health: Health,
    /// Where it goes in its column before crossings are reduced: (namespace, kind, owner or
    /// own name, uid). A group and its only member share it.
    pub(crate) slot: (Option<String>, String, String, String),
}

impl MapNode {
    /// `Service web`, or `ReplicaSet web-7d: 12 pods, 11 ready`.
    pub fn title(&self, graph: &Graph) -> String {
        match &self.group {
            None => format!("{} {}", self.kind, self.name),
            Some(counts) => {
                let owner = &graph.objects[counts.owner];
                let mut text = format!(
                    "{}: {}",
                    owner.title(),
                    count_of(counts.members, &self.kind)
                );
                if let Some(ready) = counts.ready {
                    text.push_str(&format!(", {ready} ready"));
                }
                text
            }
        }
    }
}

/// One arrow between two boxes, for one reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapEdge {
    /// Indices into [`MapView::nodes`].
    pub from: usize,
    pub to: usize,
    pub kind: EdgeKind,
    /// How many object-to-object edges it stands for.
    pub count: usize,
    /// Of those a Service's EndpointSlices list, how many ready (`None`: no slice known).
    pub ready: Option<usize>,
    /// The distinct fields they were read from, in the order met.
    pub evidence: Vec<String>,
    pub selector: Option<String>,
}

/// The map before layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapView {
    /// In slot order (namespace, kind, name).
    pub nodes: Vec<MapNode>,
    /// By `from`, `to`, kind.
    pub edges: Vec<MapEdge>,
    pub missing: Vec<MissingKind>,
}

impl MapView {
    /// The node showing the object at `object` (an index into [`Graph::objects`]): its own,
    /// or its group's; `None` when out of scope.
    pub fn node_of(&self, object: usize) -> Option<usize> {
        self.nodes.iter().position(|n| n.members.contains(&object))
    }
}

/// The id of the group of `owner_uid`'s objects of `kind`.
pub fn group_id(owner_uid: &str, kind: &str) -> String {
    format!("group:{owner_uid}/{kind}")
}

/// Folds the objects `kept` (from [`super::scope::select`]) into nodes: siblings of an owner
/// present in the graph, two or more of one kind, become one node unless their group's id is
/// in `expanded`. `health` is by uid (from the caller's diagnosis, or
/// [`super::health::health_from_status`]).
pub fn fold(
    graph: &Graph,
    kept: &[usize],
    health: &HashMap<String, Health>,
    expanded: &BTreeSet<String>,
) -> MapView {
    let objects = &graph.objects;
    let by_uid: HashMap<&str, usize> = objects
        .iter()
        .enumerate()
        .map(|(at, o)| (o.uid.as_str(), at))
        .collect();
    let owner_of = |at: usize| -> Option<usize> {
        objects[at]
            .owner_uid
            .as_deref()
            .and_then(|u| by_uid.get(u).copied())
    };
    // Siblings by (owner, kind), in graph order.
    let mut families: BTreeMap<(usize, &str), Vec<usize>> = BTreeMap::new();
    for &at in kept {
        if let Some(owner) = owner_of(at) {
            families
                .entry((owner, &objects[at].kind))
                .or_default()
                .push(at);
        }
    }
    let health_of = |at: usize| {
        health
            .get(&objects[at].uid)
            .copied()
            .unwrap_or(Health::Unknown)
    };
    let mut nodes: Vec<MapNode> = Vec::new();
    let mut node_of: Vec<Option<usize>> = vec![None; objects.len()];
    let mut folded: BTreeSet<(usize, &str)> = BTreeSet::new();
    for &at in kept {
        let object = &objects[at];
        let family = owner_of(at).map(|owner| (owner, object.kind.as_str()));
        let siblings = family.and_then(|f| families.get(&f)).map_or(1, Vec::len);
        let slot = |name: &str, uid: &str| {
            (
                object.namespace.clone(),
                object.kind.clone(),
                name.to_string(),
                uid.to_string(),
            )
        };
        let Some((owner, kind)) = family.filter(|_| siblings > 1) else {
            // Alone, an owned object takes its would-be group's slot.
            let slot = match family {
                Some((owner, _)) => slot(&objects[owner].name, &objects[owner].uid),
                None => slot(&object.name, &object.uid),
            };
            node_of[at] = Some(nodes.len());
            nodes.push(object_node(object, at, health_of(at), None, slot));
            continue;
        };
        let id = group_id(&objects[owner].uid, kind);
        let owner_slot = slot(&objects[owner].name, &objects[owner].uid);
        if expanded.contains(&id) {
            let mut slot = owner_slot;
            slot.3 = format!("{}/{}", slot.3, object.name);
            node_of[at] = Some(nodes.len());
            nodes.push(object_node(object, at, health_of(at), Some(id), slot));
            continue;
        }
        if !folded.insert((owner, kind)) {
            continue;
        }
        let members = families.get(&(owner, kind)).cloned().unwrap_or_default();
        let mut by_health = BTreeMap::new();
        for &member in &members {
            *by_health.entry(health_of(member)).or_insert(0) += 1;
        }
        let readiness: Vec<bool> = members.iter().filter_map(|&m| objects[m].ready).collect();
        let counts = GroupCounts {
            owner,
            members: members.len(),
            ready: (!readiness.is_empty()).then(|| readiness.iter().filter(|r| **r).count()),
            by_health,
        };
        for &member in &members {
            node_of[member] = Some(nodes.len());
        }
        nodes.push(MapNode {
            id,
            kind: kind.to_string(),
            api_version: object.api_version.clone(),
            namespace: object.namespace.clone(),
            name: objects[owner].name.clone(),
            health: members
                .iter()
                .map(|&m| health_of(m))
                .max()
                .unwrap_or(Health::Unknown),
            members,
            group: Some(counts),
            expanded_from: None,
            slot: owner_slot,
        });
    }
    // Nodes in slot order; remap.
    let mut order: Vec<usize> = (0..nodes.len()).collect();
    crate::list::stable_sort::sort_by(&mut order, |a, b| nodes[*a].slot.cmp(&nodes[*b].slot));
    let mut renumber = vec![0; nodes.len()];
    for (new, &old) in order.iter().enumerate() {
        renumber[old] = new;
    }
    let mut sorted: Vec<Option<MapNode>> = nodes.into_iter().map(Some).collect();
    let nodes: Vec<MapNode> = order.iter().filter_map(|&old| sorted[old].take()).collect();
    let node_of: Vec<Option<usize>> = node_of.iter().map(|n| n.map(|n| renumber[n])).collect();
    MapView {
        edges: fold_edges(graph, &node_of),
        nodes,
        missing: graph.missing.clone(),
    }
}

fn object_node(
    object: &MapObject,
    at: usize,
    health: Health,
    expanded_from: Option<String>,
    slot: (Option<String>, String, String, String),
) -> MapNode {
    MapNode {
        id: object.uid.clone(),
        kind: object.kind.clone(),
        api_version: object.api_version.clone(),
        namespace: object.namespace.clone(),
        name: object.name.clone(),
        members: vec![at],
        group: None,
        expanded_from,
        health,
        slot,
    }
}

fn fold_edges(graph: &Graph, node_of: &[Option<usize>]) -> Vec<MapEdge> {
    let mut folded: BTreeMap<(usize, usize, EdgeKind), MapEdge> = BTreeMap::new();
    for edge in &graph.edges {
        let (Some(from), Some(to)) = (node_of[edge.from], node_of[edge.to]) else {
            continue;
        };
        if from == to {
            continue;
        }
        let entry = folded
            .entry((from, to, edge.kind))
            .or_insert_with(|| MapEdge {
                from,
                to,
                kind: edge.kind,
                count: 0,
                ready: None,
                evidence: Vec::new(),
                selector: edge.selector.clone(),
            });
        entry.count += 1;
        if let Some(ready) = edge.ready {
            *entry.ready.get_or_insert(0) += usize::from(ready);
        }
        for field in &edge.evidence {
            if !entry.evidence.contains(field) {
                entry.evidence.push(field.clone());
            }
        }
    }
    folded.into_values().collect()
}
