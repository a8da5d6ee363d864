//! The map's tests, on the objects of `model/tests/fixtures/map/shop.json` (a namespace as
//! kube-apiserver lists it: a Deployment with its ReplicaSet and pods, a Service and its
//! EndpointSlice, an Ingress, a Gateway and HTTPRoute, mounts, a StatefulSet's claim with its
//! volume and class, an autoscaler, a budget, a network policy, a CronJob's Jobs and
//! cert-manager's Certificate and Issuer).

mod custom;
mod edges;
mod grouping;
mod layout;
mod scope;

use serde_json::Value;

use super::graph::{Edge, EdgeKind, Graph};

const SHOP: &str = include_str!("../../../tests/fixtures/map/shop.json");

/// The fixture's items.
pub(super) fn shop() -> Vec<Value> {
    let list: Value = serde_json::from_str(SHOP).expect("the fixture is JSON");
    list["items"].as_array().expect("a List").clone()
}

pub(super) fn graph_of(objects: &[Value]) -> Graph {
    Graph::build(objects, Vec::new())
}

/// The edge of `kind` from `from` to `to` (`"Kind/name"`), if any.
pub(super) fn edge<'g>(graph: &'g Graph, from: &str, kind: EdgeKind, to: &str) -> Option<&'g Edge> {
    let at = |id: &str| {
        let (kind, name) = id.split_once('/').expect("Kind/name");
        graph
            .objects
            .iter()
            .position(|o| o.kind == kind && o.name == name)
            .unwrap_or_else(|| panic!("no {id} in the graph"))
    };
    let (from, to) = (at(from), at(to));
    graph
        .edges
        .iter()
        .find(|e| e.from == from && e.to == to && e.kind == kind)
}

/// `Kind/name` of every object `kind` edges reach from `from`, sorted.
pub(super) fn targets(graph: &Graph, from: &str, kind: EdgeKind) -> Vec<String> {
    let mut found: Vec<String> = graph
        .edges
        .iter()
        .filter(|e| e.kind == kind)
        .filter(|e| {
            let source = &graph.objects[e.from];
            format!("{}/{}", source.kind, source.name) == from
        })
        .map(|e| format!("{}/{}", graph.objects[e.to].kind, graph.objects[e.to].name))
        .collect();
    found.sort();
    found
}

/// The object named `name` of `kind`, to edit before building.
pub(super) fn object_mut<'o>(objects: &'o mut [Value], kind: &str, name: &str) -> &'o mut Value {
    objects
        .iter_mut()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind}/{name} in the fixture"))
}

/// A copy of pod `name` as another replica: a new name and uid.
pub(super) fn another_replica(objects: &[Value], name: &str, suffix: &str) -> Value {
    let mut pod = objects
        .iter()
        .find(|o| o["kind"] == "Pod" && o["metadata"]["name"] == name)
        .cloned()
        .expect("the pod");
    let base = name.rsplit_once('-').map_or(name, |(base, _)| base);
    pod["metadata"]["name"] = Value::from(format!("{base}-{suffix}"));
    pod["metadata"]["uid"] = Value::from(format!("replica-{suffix}"));
    pod
}

/// A deterministic shuffle (xorshift), so a failure repeats.
pub(super) fn shuffled(objects: &[Value], seed: u64) -> Vec<Value> {
    let mut state = seed.max(1);
    let mut items = objects.to_vec();
    for i in (1..items.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        items.swap(i, (state % (i as u64 + 1)) as usize);
    }
    items
}
