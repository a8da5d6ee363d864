//! Columns, stability when a group's size changes, the same drawing in any input order, and
//! the reading order.

use std::collections::{BTreeSet, HashMap};

use serde_json::{json, Value};

use super::{another_replica, shop, shuffled};
use crate::map::layout::{kind_column, MapLayout};
use crate::map::scope::Scope;
use crate::map::{draw, Map};

fn map_of(objects: &[Value]) -> Map {
    let scope = Scope::Namespace("shop".into());
    draw(
        objects,
        &scope,
        &HashMap::new(),
        &BTreeSet::new(),
        Vec::new(),
    )
}

/// The column of the node titled `title` (its kind and name, or a group's words).
fn column(map: &Map, kind: &str, name: &str) -> usize {
    let at = map
        .view
        .nodes
        .iter()
        .position(|n| n.kind == kind && n.name == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"));
    map.layout.columns[at]
}

#[test]
fn columns_run_from_the_way_in_to_what_pods_need() {
    let map = map_of(&shop());
    let order = [
        ("Gateway", "public"),
        ("HTTPRoute", "web"),
        ("Service", "web"),
        ("Deployment", "web"),
        ("ReplicaSet", "web-7d9f8c6b5"),
        // The group of the ReplicaSet's pods is named after it.
        ("Pod", "web-7d9f8c6b5"),
        ("ConfigMap", "web-config"),
    ];
    let columns: Vec<usize> = order.iter().map(|(k, n)| column(&map, k, n)).collect();
    assert!(columns.windows(2).all(|w| w[0] < w[1]), "{columns:?}");
    assert_eq!(
        column(&map, "Ingress", "web"),
        column(&map, "HTTPRoute", "web")
    );
    let storage = ["PersistentVolumeClaim", "PersistentVolume", "StorageClass"];
    let names = ["data-db-0", "pvc-0b6f1d8e-0018", "standard"];
    let storage: Vec<usize> = storage
        .iter()
        .zip(names)
        .map(|(k, n)| column(&map, k, n))
        .collect();
    assert!(storage.windows(2).all(|w| w[0] < w[1]), "{storage:?}");
    // Kinds without a column stand just left of what they point at.
    let deployment = column(&map, "Deployment", "web");
    assert_eq!(
        column(&map, "HorizontalPodAutoscaler", "web") + 1,
        deployment
    );
    assert_eq!(
        column(&map, "NetworkPolicy", "db-from-web") + 1,
        column(&map, "Pod", "db-0")
    );
    assert_eq!(kind_column("Certificate"), None);
    assert!(column(&map, "Certificate", "web-tls") < column(&map, "Issuer", "letsencrypt"));
}

#[test]
fn the_drawing_fits_its_size_and_edges_run_between_their_boxes() {
    let map = map_of(&shop());
    let layout = &map.layout;
    for rect in &layout.nodes {
        assert!(rect.x >= 0.0 && rect.x + rect.width <= layout.width);
        assert!(rect.y >= 0.0 && rect.y + rect.height <= layout.height);
    }
    for (edge, points) in map.view.edges.iter().zip(&layout.edges) {
        let (from, to) = (layout.nodes[edge.from], layout.nodes[edge.to]);
        let (first, last) = (points[0], points[points.len() - 1]);
        if edge.kind.drawn_reversed() {
            // A route's Gateway stands left of it: from the route's left to its right side.
            assert_eq!((first.x, last.x), (from.x, to.x + to.width));
        } else {
            assert_eq!((first.x, last.x), (from.x + from.width, to.x));
        }
        // A long edge passes each column between at a place of its own, not over a box.
        for point in &points[1..points.len() - 1] {
            let over_a_box = layout.nodes.iter().any(|r| {
                point.x >= r.x
                    && point.x <= r.x + r.width
                    && point.y >= r.y
                    && point.y <= r.y + r.height
            });
            assert!(!over_a_box, "{point:?}");
        }
    }
    // Boxes of one column never overlap.
    for (a, ra) in layout.nodes.iter().enumerate() {
        for rb in &layout.nodes[a + 1..] {
            let apart = ra.x != rb.x || ra.y + ra.height <= rb.y || rb.y + rb.height <= ra.y;
            assert!(apart, "{ra:?} {rb:?}");
        }
    }
}

/// The geometry only: a group's count changing changes its words, not where things are.
fn geometry(map: &Map) -> (Vec<String>, &MapLayout) {
    (
        map.view.nodes.iter().map(|n| n.id.clone()).collect(),
        &map.layout,
    )
}

#[test]
fn one_pod_more_or_less_moves_no_other_box() {
    let objects = shop();
    let before = map_of(&objects);

    let mut more = objects.clone();
    more.push(another_replica(&objects, "web-7d9f8c6b5-4xk2p", "zz9k1"));
    let after = map_of(&more);
    assert_eq!(geometry(&after), geometry(&before));
    assert_ne!(after.reading, before.reading, "the group's count is told");

    let fewer: Vec<Value> = objects
        .iter()
        .filter(|o| o["metadata"]["name"] != "web-7d9f8c6b5-9qzcm")
        .cloned()
        .collect();
    assert_eq!(geometry(&map_of(&fewer)), geometry(&before));

    // A second pod of a Job: the pod becomes a group of two in the same place, though a
    // pod of no owner sorts between the pod's name and its Job's.
    let mut objects = objects.clone();
    let mut bare = another_replica(&objects, "report-29420100-x0", "a");
    bare["metadata"]["name"] = json!("report-29420100-a");
    bare["metadata"]
        .as_object_mut()
        .map(|m| m.remove("ownerReferences"));
    objects.push(bare);
    let alone = map_of(&objects);
    let mut job_pods = objects.clone();
    job_pods.push(another_replica(&objects, "report-29420100-x0", "x9"));
    let grown = map_of(&job_pods);
    assert_eq!(grown.layout, alone.layout);
}

#[test]
fn the_same_objects_in_any_order_draw_the_same_map() {
    let objects = shop();
    let reference = map_of(&objects);
    for seed in 1..=20 {
        let map = map_of(&shuffled(&objects, seed));
        assert_eq!(map, reference, "seed {seed}");
    }
}

#[test]
fn the_reading_order_follows_the_drawing_and_tells_every_edge() {
    let map = map_of(&shop());
    assert_eq!(map.reading.len(), map.view.nodes.len());
    assert_eq!(map.reading[0].heading, "Gateway public (Unknown)");
    let told: usize = map.reading.iter().map(|e| e.outgoing.len()).sum();
    assert_eq!(told, map.view.edges.len());
    let service = map
        .reading
        .iter()
        .find(|e| e.heading.starts_with("Service web"))
        .expect("service");
    assert!(service.incoming.contains(
        &"Ingress web routes to Service web (spec.rules[0].http.paths[1].backend.service.name)"
            .to_string()
    ));
    let columns: Vec<usize> = map
        .reading
        .iter()
        .map(|e| map.layout.columns[e.node])
        .collect();
    assert!(columns.windows(2).all(|w| w[0] <= w[1]));
}

/// Crossings between the polylines' segments that span the same gap between two columns.
fn crossings(map: &Map) -> usize {
    let segments: Vec<(f64, f64, f64, f64)> = map
        .layout
        .edges
        .iter()
        .flat_map(|points| points.windows(2).map(|w| (w[0].x, w[1].x, w[0].y, w[1].y)))
        .filter(|(x1, x2, _, _)| x1 != x2)
        .collect();
    let mut count = 0;
    for (i, a) in segments.iter().enumerate() {
        for b in &segments[i + 1..] {
            if (a.0, a.1) == (b.0, b.1) && (a.2 - b.2) * (a.3 - b.3) < 0.0 {
                count += 1;
            }
        }
    }
    count
}

#[test]
fn columns_are_ordered_to_untangle_edges() {
    // By name, Service `first` stands above `second`; but `first` selects app `z`'s pods,
    // drawn below app `a`'s. The sweeps swap the Services.
    let mut objects = Vec::new();
    for app in ["a", "z"] {
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": app, "namespace": "shop", "uid": format!("{app}-d")}});
        let replica_set = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": format!("{app}-rs"), "namespace": "shop", "uid": format!("{app}-rs"),
                "ownerReferences": [{"kind": "Deployment", "name": app, "uid": format!("{app}-d"), "controller": true}]}});
        objects.extend([deployment, replica_set]);
        for pod in 0..2 {
            objects.push(json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": format!("{app}-rs-{pod}"), "namespace": "shop", "uid": format!("{app}-{pod}"),
                    "labels": {"app": app},
                    "ownerReferences": [{"kind": "ReplicaSet", "name": format!("{app}-rs"), "uid": format!("{app}-rs"), "controller": true}]}}));
        }
    }
    for (service, app) in [("first", "z"), ("second", "a")] {
        objects.push(json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": service, "namespace": "shop", "uid": service},
            "spec": {"selector": {"app": app}}}));
    }
    let map = map_of(&objects);
    assert_eq!(crossings(&map), 0);
    let y = |name: &str| {
        let at = map
            .view
            .nodes
            .iter()
            .position(|n| n.kind == "Service" && n.name == name);
        map.layout.nodes[at.expect("service")].y
    };
    assert!(y("second") < y("first"));
    // The fixture's namespace: fewer crossings than in name order (shared ConfigMaps and
    // ServiceAccounts leave some).
    let shop = map_of(&shop());
    let unordered = Map {
        layout: crate::map::layout::layout_with_sweeps(&shop.view, 0),
        ..shop.clone()
    };
    let (before, after) = (crossings(&unordered), crossings(&shop));
    println!("the fixture's crossings: {before} in name order, {after} after the sweeps");
    assert!(after < before, "{after} < {before}");
}
