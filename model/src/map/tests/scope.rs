//! A namespace, an application, one object's neighbourhood.

use serde_json::json;

use super::{graph_of, shop};
use crate::list::selector::parse_label_selector;
use crate::map::graph::Graph;
use crate::map::scope::{select, Scope};

fn kept(graph: &Graph, scope: &Scope) -> Vec<String> {
    let mut names: Vec<String> = select(graph, scope)
        .into_iter()
        .map(|at| format!("{}/{}", graph.objects[at].kind, graph.objects[at].name))
        .collect();
    names.sort();
    names
}

#[test]
fn a_namespace_keeps_its_objects_and_the_cluster_scoped_ones_they_reach() {
    let mut objects = shop();
    objects.push(json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "elsewhere", "namespace": "other", "uid": "other-1"}}));
    objects.push(
        json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": "unused", "uid": "class-2"}, "provisioner": "x"}),
    );
    // A route to another namespace's Service (allowed there by a ReferenceGrant).
    objects.push(json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "api", "namespace": "other", "uid": "other-2"}}));
    let route = objects
        .iter_mut()
        .find(|o| o["kind"] == "HTTPRoute")
        .expect("route");
    let backends = route["spec"]["rules"][0]["backendRefs"]
        .as_array_mut()
        .expect("backends");
    backends.push(json!({"name": "api", "namespace": "other"}));
    let graph = graph_of(&objects);
    let names = kept(&graph, &Scope::Namespace("shop".into()));
    assert_eq!(names.len(), objects.len() - 3);
    assert!(!names.contains(&"Service/api".to_string()));
    assert!(names.contains(&"StorageClass/standard".to_string()));
    assert!(names.contains(&"PersistentVolume/pvc-0b6f1d8e-0018".to_string()));
    assert!(!names.contains(&"StorageClass/unused".to_string()));
    assert!(!names.contains(&"ConfigMap/elsewhere".to_string()));
}

#[test]
fn an_application_is_what_its_labels_match_what_they_reach_and_what_serves_them() {
    let graph = graph_of(&shop());
    let selector = parse_label_selector("app=db").expect("selector");
    assert_eq!(
        kept(&graph, &Scope::Application(selector)),
        [
            "ConfigMap/kube-root-ca.crt",
            "NetworkPolicy/db-from-web",
            "PersistentVolume/pvc-0b6f1d8e-0018",
            "PersistentVolumeClaim/data-db-0",
            "Pod/db-0",
            "Secret/db-password",
            "ServiceAccount/default",
            "StatefulSet/db",
            "StorageClass/standard",
        ]
    );
    let selector = parse_label_selector("app=web").expect("selector");
    let web = kept(&graph, &Scope::Application(selector));
    for expected in [
        "Ingress/web",
        "HTTPRoute/web",
        "Gateway/public",
        "HorizontalPodAutoscaler/web",
        "PodDisruptionBudget/web",
    ] {
        assert!(web.contains(&expected.to_string()), "{expected} in {web:?}");
    }
    assert!(!web.iter().any(|n| n.contains("db")), "{web:?}");
}

#[test]
fn a_neighbourhood_is_what_lies_within_n_edges_either_way() {
    let graph = graph_of(&shop());
    let uid = "0b6f1d8e-0003-4000-8000-000000000003";
    let near = |distance| {
        kept(
            &graph,
            &Scope::Neighbourhood {
                uid: uid.into(),
                distance,
            },
        )
    };
    assert_eq!(
        near(1),
        [
            "EndpointSlice/web-8hx2k",
            "HTTPRoute/web",
            "Ingress/web",
            "Pod/web-7d9f8c6b5-4xk2p",
            "Pod/web-7d9f8c6b5-9qzcm",
            "Pod/web-7d9f8c6b5-tr7wd",
            "Service/web",
        ]
    );
    let two = near(2);
    assert!(two.contains(&"ReplicaSet/web-7d9f8c6b5".to_string()));
    assert!(two.contains(&"Gateway/public".to_string()));
    assert!(!two.contains(&"Deployment/web".to_string()));
    assert_eq!(near(0), ["Service/web"]);
    assert!(kept(
        &graph,
        &Scope::Neighbourhood {
            uid: "absent".into(),
            distance: 3
        }
    )
    .is_empty());
}
