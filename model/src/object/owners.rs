//! Who owns what, from `metadata.ownerReferences` (Deployment → ReplicaSets → Pods): an
//! object's owners upward and the objects it owns downward. Links go by uid, as the garbage
//! collector matches them; an owner that is not loaded is still shown from its reference.
//! Every walk is cycle-safe and bounded, since references come from any client.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use serde_json::Value;

use crate::object::meta::{text_field, ObjectMeta, OwnerReference};

/// Walks stop here unless asked otherwise; real chains are 2-3 deep (CronJob → Job → Pod).
pub const DEFAULT_MAX_DEPTH: usize = 8;

/// At most this many nodes in one tree or graph, so a hostile web of references stays small.
pub const MAX_NODES: usize = 2_000;

/// What the graph needs of one loaded object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedObject {
    pub uid: String,
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub namespace: Option<String>,
    pub owner_references: Vec<OwnerReference>,
}

impl OwnedObject {
    /// Reads a full object (or one with `kind`, `apiVersion` and `metadata`); `None`
    /// without a uid.
    pub fn from_object(object: &Value) -> Option<OwnedObject> {
        let meta = ObjectMeta::of_object(object);
        OwnedObject::from_meta(
            text_field(object, "apiVersion").unwrap_or_default(),
            text_field(object, "kind").unwrap_or_default(),
            meta,
        )
    }

    /// For items of a list, whose `kind`/`apiVersion` come from the list; `None` without a uid.
    pub fn from_meta(api_version: String, kind: String, meta: ObjectMeta) -> Option<OwnedObject> {
        Some(OwnedObject {
            uid: meta.uid?,
            api_version,
            kind,
            name: meta.name,
            namespace: meta.namespace,
            owner_references: meta.owner_references,
        })
    }
}

/// One box of the drawing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerNode {
    pub uid: String,
    pub api_version: String,
    pub kind: String,
    pub name: String,
    /// Known only for loaded objects: an owner is in its dependent's namespace or
    /// cluster-scoped, and the reference does not say which.
    pub namespace: Option<String>,
    /// False when known only from an ownerReference (not loaded, or already deleted).
    pub loaded: bool,
}

impl OwnerNode {
    fn of(object: &OwnedObject) -> OwnerNode {
        OwnerNode {
            uid: object.uid.clone(),
            api_version: object.api_version.clone(),
            kind: object.kind.clone(),
            name: object.name.clone(),
            namespace: object.namespace.clone(),
            loaded: true,
        }
    }

    fn referenced(reference: &OwnerReference) -> OwnerNode {
        OwnerNode {
            uid: reference.uid.clone(),
            api_version: reference.api_version.clone(),
            kind: reference.kind.clone(),
            name: reference.name.clone(),
            namespace: None,
            loaded: false,
        }
    }
}

/// The owners above an object, following the managing controller (else the first owner).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnerChain {
    /// Nearest owner first (Pod → [ReplicaSet, Deployment]).
    pub owners: Vec<OwnerNode>,
    /// The walk stopped at the depth limit with owners left above.
    pub truncated: bool,
    /// The references loop back to an object already in the chain.
    pub cycle: bool,
}

/// An object and what it owns, recursively.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedTree {
    pub node: OwnerNode,
    /// Sorted by kind, then name.
    pub children: Vec<OwnedTree>,
    /// Children exist but were left out (depth or size limit, or a cycle).
    pub truncated: bool,
}

impl OwnedTree {
    /// Nodes in the tree, this one included.
    pub fn size(&self) -> usize {
        1 + self.children.iter().map(OwnedTree::size).sum::<usize>()
    }
}

/// A node of an [`OwnerGraph`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphNode {
    pub node: OwnerNode,
    /// 0 for the object, -1 for its owners, -2 for theirs…, +1 for what it owns, +2…:
    /// a view can draw one column (or row) per depth.
    pub depth: i32,
}

/// An owner → owned edge, by index into [`OwnerGraph::nodes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GraphEdge {
    pub owner: usize,
    pub owned: usize,
    /// The reference is the managing controller's.
    pub controller: bool,
}

/// Everything above and below one object, each object once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnerGraph {
    /// The object is `nodes[0]`; then its owners, nearest first, then what it owns,
    /// breadth first (each level by kind and name).
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
    /// Some owners or owned objects were left out (depth or size limit).
    pub truncated: bool,
}

/// Loaded objects, indexed by uid and by owner uid.
#[derive(Debug, Clone, Default)]
pub struct OwnerIndex {
    objects: HashMap<String, OwnedObject>,
    /// Owner uid → uids of the objects referencing it.
    dependents: HashMap<String, BTreeSet<String>>,
}

impl OwnerIndex {
    pub fn new(objects: impl IntoIterator<Item = OwnedObject>) -> OwnerIndex {
        let mut index = OwnerIndex::default();
        for object in objects {
            index.insert(object);
        }
        index
    }

    /// Adds or replaces an object (by uid), e.g. on a watch event.
    pub fn insert(&mut self, object: OwnedObject) {
        self.remove(&object.uid);
        for reference in &object.owner_references {
            self.dependents
                .entry(reference.uid.clone())
                .or_default()
                .insert(object.uid.clone());
        }
        self.objects.insert(object.uid.clone(), object);
    }

    pub fn remove(&mut self, uid: &str) -> Option<OwnedObject> {
        let object = self.objects.remove(uid)?;
        for reference in &object.owner_references {
            if let Some(set) = self.dependents.get_mut(&reference.uid) {
                set.remove(uid);
                if set.is_empty() {
                    self.dependents.remove(&reference.uid);
                }
            }
        }
        Some(object)
    }

    pub fn get(&self, uid: &str) -> Option<&OwnedObject> {
        self.objects.get(uid)
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// The node for `reference`: the loaded object when there is one.
    fn node_of_reference(&self, reference: &OwnerReference) -> OwnerNode {
        self.objects
            .get(&reference.uid)
            .map_or_else(|| OwnerNode::referenced(reference), OwnerNode::of)
    }

    /// Loaded objects owned by `uid`, sorted by kind and name, with their reference to it.
    fn dependents_of(&self, uid: &str) -> Vec<(&OwnedObject, &OwnerReference)> {
        let mut found: Vec<_> = self
            .dependents
            .get(uid)
            .into_iter()
            .flatten()
            .filter_map(|child| self.objects.get(child))
            .filter_map(|child| {
                let reference = child.owner_references.iter().find(|r| r.uid == uid)?;
                Some((child, reference))
            })
            .collect();
        crate::list::stable_sort::sort_by(&mut found, |(a, _), (b, _)| {
            (&a.kind, &a.name, &a.uid).cmp(&(&b.kind, &b.name, &b.uid))
        });
        found
    }

    /// The chain of owners above `uid`, at most `max_depth` long.
    pub fn owner_chain(&self, uid: &str, max_depth: usize) -> OwnerChain {
        let mut chain = OwnerChain::default();
        let mut seen: HashSet<&str> = HashSet::from([uid]);
        let mut current = self.objects.get(uid);
        while let Some(object) = current {
            let Some(reference) = object
                .owner_references
                .iter()
                .find(|r| r.controller)
                .or(object.owner_references.first())
            else {
                break;
            };
            if chain.owners.len() >= max_depth {
                chain.truncated = true;
                break;
            }
            if !seen.insert(reference.uid.as_str()) {
                chain.cycle = true;
                break;
            }
            chain.owners.push(self.node_of_reference(reference));
            current = self.objects.get(&reference.uid);
        }
        chain
    }

    /// `uid` and what it owns, `max_depth` levels down; `None` when `uid` is not loaded.
    pub fn owned_tree(&self, uid: &str, max_depth: usize) -> Option<OwnedTree> {
        let root = self.objects.get(uid)?;
        let mut budget = MAX_NODES.saturating_sub(1);
        let mut path = vec![uid];
        Some(self.subtree(root, max_depth, &mut path, &mut budget))
    }

    fn subtree<'a>(
        &'a self,
        object: &'a OwnedObject,
        depth_left: usize,
        path: &mut Vec<&'a str>,
        budget: &mut usize,
    ) -> OwnedTree {
        let mut tree = OwnedTree {
            node: OwnerNode::of(object),
            children: Vec::new(),
            truncated: false,
        };
        for (child, _) in self.dependents_of(&object.uid) {
            // A dependent that is also an ancestor would loop forever.
            if depth_left == 0 || *budget == 0 || path.contains(&child.uid.as_str()) {
                tree.truncated = true;
                continue;
            }
            *budget -= 1;
            path.push(&child.uid);
            let subtree = self.subtree(child, depth_left - 1, path, budget);
            path.pop();
            tree.children.push(subtree);
        }
        tree
    }

    /// All owners above and owned objects below `uid` (each once, every reference an edge),
    /// `max_depth` levels each way. An unloaded `uid` gives a graph of just that node, unloaded.
    pub fn graph(&self, uid: &str, max_depth: usize) -> OwnerGraph {
        let mut graph = OwnerGraph::default();
        let root = match self.objects.get(uid) {
            Some(object) => OwnerNode::of(object),
            None => OwnerNode {
                uid: uid.to_string(),
                api_version: String::new(),
                kind: String::new(),
                name: String::new(),
                namespace: None,
                loaded: false,
            },
        };
        let mut index_of: HashMap<String, usize> = HashMap::from([(uid.to_string(), 0)]);
        graph.nodes.push(GraphNode {
            node: root,
            depth: 0,
        });
        let mut edges: HashSet<GraphEdge> = HashSet::new();
        let depth_limit = i32::try_from(max_depth).unwrap_or(i32::MAX);
        for upward in [true, false] {
            let mut queue = VecDeque::from([(uid.to_string(), 0i32)]);
            while let Some((current, depth)) = queue.pop_front() {
                let neighbours: Vec<(OwnerNode, bool)> = match (upward, self.objects.get(&current))
                {
                    (true, Some(object)) => object
                        .owner_references
                        .iter()
                        .map(|r| (self.node_of_reference(r), r.controller))
                        .collect(),
                    (true, None) => Vec::new(),
                    (false, _) => self
                        .dependents_of(&current)
                        .into_iter()
                        .map(|(child, r)| (OwnerNode::of(child), r.controller))
                        .collect(),
                };
                for (node, controller) in neighbours {
                    let known = index_of.get(&node.uid).copied();
                    let at = match known {
                        Some(at) => at,
                        None if depth.abs() >= depth_limit || graph.nodes.len() >= MAX_NODES => {
                            graph.truncated = true;
                            continue;
                        }
                        None => {
                            let at = graph.nodes.len();
                            let next_depth = if upward { depth - 1 } else { depth + 1 };
                            index_of.insert(node.uid.clone(), at);
                            queue.push_back((node.uid.clone(), next_depth));
                            graph.nodes.push(GraphNode {
                                node,
                                depth: next_depth,
                            });
                            at
                        }
                    };
                    let from = index_of.get(&current).copied().unwrap_or(0);
                    let (owner, owned) = if upward { (at, from) } else { (from, at) };
                    if owner != owned {
                        edges.insert(GraphEdge {
                            owner,
                            owned,
                            controller,
                        });
                    }
                }
            }
        }
        graph.edges = edges.into_iter().collect();
        crate::list::stable_sort::sort_by_key(&mut graph.edges, |e| {
            (e.owner, e.owned, e.controller)
        });
        graph
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reference(kind: &str, name: &str, uid: &str, controller: bool) -> OwnerReference {
        OwnerReference {
            api_version: if kind == "Deployment" || kind == "ReplicaSet" {
                "apps/v1".into()
            } else {
                "v1".into()
            },
            kind: kind.into(),
            name: name.into(),
            uid: uid.into(),
            controller,
            block_owner_deletion: controller,
        }
    }

    fn object(kind: &str, name: &str, uid: &str, owners: Vec<OwnerReference>) -> OwnedObject {
        OwnedObject {
            uid: uid.into(),
            api_version: "v1".into(),
            kind: kind.into(),
            name: name.into(),
            namespace: Some("default".into()),
            owner_references: owners,
        }
    }

    /// web (Deployment) → web-1, web-2 (ReplicaSets) → pods; web-1's pods a, b; web-2's c.
    fn deployment_family() -> OwnerIndex {
        let rs = |name: &str, uid: &str| {
            object(
                "ReplicaSet",
                name,
                uid,
                vec![reference("Deployment", "web", "d", true)],
            )
        };
        let pod = |name: &str, uid: &str, rs_name: &str, rs_uid: &str| {
            object(
                "Pod",
                name,
                uid,
                vec![reference("ReplicaSet", rs_name, rs_uid, true)],
            )
        };
        OwnerIndex::new([
            object("Deployment", "web", "d", vec![]),
            rs("web-2", "rs2"),
            rs("web-1", "rs1"),
            pod("web-1-b", "p2", "web-1", "rs1"),
            pod("web-1-a", "p1", "web-1", "rs1"),
            pod("web-2-c", "p3", "web-2", "rs2"),
        ])
    }

    fn names(tree: &OwnedTree) -> Vec<String> {
        tree.children.iter().map(|c| c.node.name.clone()).collect()
    }

    #[test]
    fn chain_goes_up_from_pod_to_deployment() {
        let index = deployment_family();
        let chain = index.owner_chain("p1", DEFAULT_MAX_DEPTH);
        let kinds: Vec<_> = chain.owners.iter().map(|o| o.kind.as_str()).collect();
        assert_eq!(kinds, ["ReplicaSet", "Deployment"]);
        assert!(chain.owners.iter().all(|o| o.loaded));
        assert!(!chain.truncated && !chain.cycle);
        assert!(index.owner_chain("d", 8).owners.is_empty());
        assert!(index.owner_chain("unknown", 8).owners.is_empty());
        let short = index.owner_chain("p1", 1);
        assert_eq!(short.owners.len(), 1);
        assert!(short.truncated);
    }

    #[test]
    fn owners_that_are_not_loaded_come_from_the_reference() {
        let index = OwnerIndex::new([object(
            "Pod",
            "job-pod",
            "p",
            vec![
                reference("ConfigMap", "other", "cm", false),
                reference("Job", "nightly", "job-uid", true),
            ],
        )]);
        let chain = index.owner_chain("p", 8);
        assert_eq!(chain.owners.len(), 1);
        let owner = &chain.owners[0];
        // The controller is followed, not the first reference.
        assert_eq!(
            (owner.kind.as_str(), owner.name.as_str()),
            ("Job", "nightly")
        );
        assert!(!owner.loaded);
        assert_eq!(owner.namespace, None);
    }

    #[test]
    fn tree_goes_down_sorted() {
        let index = deployment_family();
        let tree = index.owned_tree("d", DEFAULT_MAX_DEPTH).expect("loaded");
        assert_eq!(names(&tree), ["web-1", "web-2"]);
        assert_eq!(names(&tree.children[0]), ["web-1-a", "web-1-b"]);
        assert_eq!(names(&tree.children[1]), ["web-2-c"]);
        assert_eq!(tree.size(), 6);
        assert!(!tree.truncated);
        let shallow = index.owned_tree("d", 1).expect("loaded");
        assert_eq!(shallow.size(), 3);
        assert!(shallow.children.iter().all(|c| c.truncated));
        assert!(index.owned_tree("missing", 8).is_none());
    }

    #[test]
    fn cycles_are_cut() {
        // a owns b, b owns c, c owns a: a loop no real cluster should have, but could.
        let index = OwnerIndex::new([
            object("A", "a", "a", vec![reference("C", "c", "c", true)]),
            object("B", "b", "b", vec![reference("A", "a", "a", true)]),
            object("C", "c", "c", vec![reference("B", "b", "b", true)]),
            object("Self", "s", "s", vec![reference("Self", "s", "s", true)]),
        ]);
        let chain = index.owner_chain("a", 100);
        assert_eq!(chain.owners.len(), 2);
        assert!(chain.cycle);
        let tree = index.owned_tree("a", 100).expect("loaded");
        assert_eq!(tree.size(), 3);
        let graph = index.graph("a", 100);
        assert_eq!(graph.nodes.len(), 3);
        assert_eq!(graph.edges.len(), 3);
        let own = index.owner_chain("s", 100);
        assert!(own.cycle && own.owners.is_empty());
        assert_eq!(index.owned_tree("s", 100).map(|t| t.size()), Some(1));
        let graph = index.graph("s", 100);
        assert_eq!((graph.nodes.len(), graph.edges.len()), (1, 0));
    }

    #[test]
    fn graph_has_each_object_once_with_depths_and_edges() {
        let index = deployment_family();
        let graph = index.graph("rs1", DEFAULT_MAX_DEPTH);
        let summary: Vec<(&str, i32)> = graph
            .nodes
            .iter()
            .map(|n| (n.node.name.as_str(), n.depth))
            .collect();
        assert_eq!(
            summary,
            [("web-1", 0), ("web", -1), ("web-1-a", 1), ("web-1-b", 1)]
        );
        assert_eq!(
            graph.edges,
            [
                GraphEdge {
                    owner: 0,
                    owned: 2,
                    controller: true
                },
                GraphEdge {
                    owner: 0,
                    owned: 3,
                    controller: true
                },
                GraphEdge {
                    owner: 1,
                    owned: 0,
                    controller: true
                },
            ]
        );
        assert!(!graph.truncated);
        let limited = index.graph("d", 1);
        assert_eq!(limited.nodes.len(), 3);
        assert!(limited.truncated);
        let unknown = index.graph("nope", 3);
        assert_eq!(unknown.nodes.len(), 1);
        assert!(!unknown.nodes[0].node.loaded);
    }

    #[test]
    fn a_diamond_of_owners_shows_the_shared_child_under_both() {
        let index = OwnerIndex::new([
            object("Top", "top", "t", vec![]),
            object("Left", "l", "l", vec![reference("Top", "top", "t", true)]),
            object("Right", "r", "r", vec![reference("Top", "top", "t", false)]),
            object(
                "Leaf",
                "leaf",
                "x",
                vec![
                    reference("Left", "l", "l", true),
                    reference("Right", "r", "r", false),
                ],
            ),
        ]);
        let tree = index.owned_tree("t", 8).expect("loaded");
        assert_eq!(tree.size(), 5);
        let graph = index.graph("t", 8);
        assert_eq!(graph.nodes.len(), 4);
        assert_eq!(graph.edges.len(), 4);
        let up = index.graph("x", 8);
        assert_eq!(up.nodes.len(), 4);
        assert_eq!(up.nodes.iter().filter(|n| n.depth == -1).count(), 2);
    }

    #[test]
    fn huge_fan_outs_and_deep_chains_stay_bounded() {
        let mut objects = vec![object("Root", "root", "root", vec![])];
        for i in 0..3 * MAX_NODES {
            objects.push(object(
                "Pod",
                &format!("p{i}"),
                &format!("u{i}"),
                vec![reference("Root", "root", "root", true)],
            ));
        }
        // And a chain 100 deep.
        for i in 0..100 {
            let owner = if i == 0 {
                "root".to_string()
            } else {
                format!("c{}", i - 1)
            };
            objects.push(object(
                "Chain",
                &format!("c{i}"),
                &format!("c{i}"),
                vec![reference("Chain", &owner, &owner, true)],
            ));
        }
        let index = OwnerIndex::new(objects);
        let tree = index.owned_tree("root", 200).expect("loaded");
        assert!(tree.size() <= MAX_NODES);
        assert!(tree.truncated);
        let graph = index.graph("root", 200);
        assert!(graph.nodes.len() <= MAX_NODES && graph.truncated);
        let chain = index.owner_chain("c99", DEFAULT_MAX_DEPTH);
        assert_eq!(chain.owners.len(), DEFAULT_MAX_DEPTH);
        assert!(chain.truncated);
    }

    #[test]
    fn index_follows_replacements_and_removals() {
        let mut index = deployment_family();
        assert_eq!(index.len(), 6);
        // The pod is adopted by the other ReplicaSet.
        index.insert(object(
            "Pod",
            "web-1-a",
            "p1",
            vec![reference("ReplicaSet", "web-2", "rs2", true)],
        ));
        let tree = index.owned_tree("d", 8).expect("loaded");
        assert_eq!(names(&tree.children[0]), ["web-1-b"]);
        assert_eq!(names(&tree.children[1]), ["web-1-a", "web-2-c"]);
        assert!(index.remove("rs2").is_some());
        // Its pods now point at an owner that is gone: shown from the reference.
        let chain = index.owner_chain("p3", 8);
        assert_eq!(chain.owners.len(), 1);
        assert!(!chain.owners[0].loaded);
        assert!(index.remove("rs2").is_none());
        assert_eq!(index.len(), 5);
        assert!(index.get("d").is_some());
    }

    #[test]
    fn reads_objects_from_json() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": "p", "namespace": "ns", "uid": "u",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs",
                                 "uid": "r", "controller": true}]}});
        let owned = OwnedObject::from_object(&pod).expect("has a uid");
        assert_eq!(owned.kind, "Pod");
        assert_eq!(owned.namespace.as_deref(), Some("ns"));
        assert_eq!(owned.owner_references[0].uid, "r");
        assert!(OwnedObject::from_object(&json!({"metadata": {"name": "x"}})).is_none());
        assert!(OwnedObject::from_object(&json!(null)).is_none());
    }
}
