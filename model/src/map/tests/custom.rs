//! Custom resources: the cnat `At` of ../shared/fixtures, which owns the pod it runs, and
//! cert-manager's Certificate and Issuer, whose `…Ref` fields name other objects.

use serde_json::{json, Value};

use super::{edge, graph_of, shop, targets};
use crate::map::graph::EdgeKind;
use crate::map::scope::Scope;
use crate::map::{draw, Map};

#[test]
fn a_custom_resource_references_what_its_ref_fields_name_and_nothing_else() {
    let graph = graph_of(&shop());
    let issuer = edge(
        &graph,
        "Certificate/web-tls",
        EdgeKind::References,
        "Issuer/letsencrypt",
    );
    assert_eq!(
        issuer.expect("issuerRef, by kind").evidence,
        ["spec.issuerRef"]
    );
    // No kind: the field's name ends with it (privateKeySecretRef → Secret).
    let key = edge(
        &graph,
        "Issuer/letsencrypt",
        EdgeKind::References,
        "Secret/letsencrypt-key",
    );
    assert_eq!(
        key.expect("by the field's name").evidence,
        ["spec.acme.privateKeySecretRef"]
    );
    // `secretName` is a string, not a reference; `passwordSecretRef` names nothing present.
    assert_eq!(
        targets(&graph, "Certificate/web-tls", EdgeKind::References),
        ["Issuer/letsencrypt"]
    );
}

#[test]
fn built_in_kinds_ref_fields_are_not_read_as_custom_references() {
    // A PersistentVolume's claimRef names its claim: the claim → volume edge says it already.
    let graph = graph_of(&shop());
    assert!(targets(
        &graph,
        "PersistentVolume/pvc-0b6f1d8e-0018",
        EdgeKind::References
    )
    .is_empty());
    assert!(crate::map::custom::is_custom("cert-manager.io/v1"));
    assert!(crate::map::custom::is_custom("cluster.x-k8s.io/v1beta1"));
    assert!(!crate::map::custom::is_custom(
        "gateway.networking.k8s.io/v1"
    ));
    assert!(!crate::map::custom::is_custom("apps/v1"));
}

/// The cnat example as recorded, as the server returns it once created in `shop`, with the
/// pod its controller starts at the scheduled time (owned by it, as cnat's controller sets).
fn cnat_at_and_its_pod() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/fixtures/crds/cnat-at-example.yaml"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let mut documents = crate::object::yaml::parse_documents(&text).expect("the example is YAML");
    let mut at = documents.remove(0);
    at["metadata"]["namespace"] = json!("shop");
    at["metadata"]["uid"] = json!("5c1a7e0d-0000-4000-8000-00000000a700");
    at["metadata"]["resourceVersion"] = json!("2001");
    at["metadata"]["creationTimestamp"] = json!("2026-12-01T09:00:00Z");
    at["status"] = json!({"phase": "RUNNING"});
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "example-at-pod", "namespace": "shop",
            "uid": "5c1a7e0d-0000-4000-8000-00000000a701", "resourceVersion": "2002",
            "creationTimestamp": "2026-12-01T09:00:00Z",
            "ownerReferences": [{"apiVersion": "cnat.programming-kubernetes.info/v1alpha1",
                "kind": "At", "name": "example-at", "uid": "5c1a7e0d-0000-4000-8000-00000000a700",
                "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"containers": [{"name": "busybox", "image": "busybox",
            "command": ["sh", "-c", "echo YAY"], "imagePullPolicy": "IfNotPresent"}],
            "restartPolicy": "OnFailure", "serviceAccountName": "default", "serviceAccount": "default"},
        "status": {"phase": "Pending"}
    });
    vec![at, pod]
}

#[test]
#[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
fn the_cnat_at_owns_its_pod_and_stands_left_of_it() {
    let mut objects = shop();
    objects.extend(cnat_at_and_its_pod());
    let graph = graph_of(&objects);
    let controls = edge(
        &graph,
        "At/example-at",
        EdgeKind::Controls,
        "Pod/example-at-pod",
    );
    assert_eq!(
        controls.expect("owned").evidence,
        ["metadata.ownerReferences[0]"]
    );
    // Its spec (a schedule and a command) names nothing.
    assert!(targets(&graph, "At/example-at", EdgeKind::References).is_empty());
    let scope = Scope::Namespace("shop".into());
    let map: Map = draw(
        &objects,
        &scope,
        &Default::default(),
        &Default::default(),
        Vec::new(),
    );
    let column = |name: &str| {
        let at = map
            .view
            .nodes
            .iter()
            .position(|n| n.name == name)
            .expect("node");
        map.layout.columns[at]
    };
    assert_eq!(column("example-at") + 1, column("example-at-pod"));
}

#[test]
fn a_map_watches_the_namespaced_custom_kinds_and_no_builtin_or_cluster_scoped_one() {
    use crate::api::tree::tests::res;
    use crate::api::tree::{ApiGroup, ApiTree, GroupVersion};
    use crate::map::custom::{custom_kinds_to_watch, MAX_CUSTOM_KINDS};

    let group = |name: &str, versions: Vec<GroupVersion>, preferred: &str| {
        ApiGroup::new(name, versions, Some(preferred))
    };
    let mut read_only = res("snapshots", "Snapshot", true, &[]);
    read_only.verbs = vec!["get".into()];
    let tree = ApiTree::new(vec![
        group(
            "",
            vec![GroupVersion::new(
                "v1",
                false,
                vec![res("pods", "Pod", true, &[])],
            )],
            "v1",
        ),
        group(
            "gateway.networking.k8s.io",
            vec![GroupVersion::new(
                "v1",
                false,
                vec![res("httproutes", "HTTPRoute", true, &[])],
            )],
            "v1",
        ),
        group(
            "cnat.programming-kubernetes.info",
            vec![
                GroupVersion::new("v1alpha1", false, vec![res("ats", "At", true, &[])]),
                GroupVersion::new("v1", false, vec![res("ats", "At", true, &[])]),
            ],
            "v1",
        ),
        group(
            "cert-manager.io",
            vec![GroupVersion::new(
                "v1",
                false,
                vec![
                    res("certificates", "Certificate", true, &[]),
                    res("clusterissuers", "ClusterIssuer", false, &[]),
                    read_only,
                ],
            )],
            "v1",
        ),
    ]);
    let watched: Vec<String> = custom_kinds_to_watch(&tree)
        .iter()
        .map(|found| format!("{}/{}", found.api_version(), found.resource.kind))
        .collect();
    assert_eq!(
        watched,
        [
            "cnat.programming-kubernetes.info/v1/At",
            "cert-manager.io/v1/Certificate"
        ]
    );

    let many: Vec<ApiGroup> = (0..MAX_CUSTOM_KINDS + 5)
        .map(|n| {
            group(
                &format!("g{n}.example.com"),
                vec![GroupVersion::new(
                    "v1",
                    false,
                    vec![res("things", "Thing", true, &[])],
                )],
                "v1",
            )
        })
        .collect();
    assert_eq!(
        custom_kinds_to_watch(&ApiTree::new(many)).len(),
        MAX_CUSTOM_KINDS
    );
}
