//! One test per edge rule, on the fixture's objects.

use serde_json::json;

use super::{edge, graph_of, object_mut, shop, targets};
use crate::map::graph::{EdgeKind, Graph};
use crate::map::missing::MissingKind;

const WEB_PODS: [&str; 3] = [
    "Pod/web-7d9f8c6b5-4xk2p",
    "Pod/web-7d9f8c6b5-9qzcm",
    "Pod/web-7d9f8c6b5-tr7wd",
];

#[test]
fn owner_references_link_owner_to_owned_controller_or_not() {
    let mut objects = shop();
    // A ConfigMap the Deployment owns without controlling it (as Helm hooks do).
    object_mut(&mut objects, "ConfigMap", "web-config")["metadata"]["ownerReferences"] = json!([
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
         "uid": "0b6f1d8e-0001-4000-8000-000000000001"}
    ]);
    let graph = graph_of(&objects);
    let controls = edge(
        &graph,
        "Deployment/web",
        EdgeKind::Controls,
        "ReplicaSet/web-7d9f8c6b5",
    );
    let controls = controls.expect("the Deployment controls its ReplicaSet");
    assert_eq!(controls.evidence, ["metadata.ownerReferences[0]"]);
    assert_eq!(
        targets(&graph, "ReplicaSet/web-7d9f8c6b5", EdgeKind::Controls),
        WEB_PODS
    );
    assert_eq!(
        targets(&graph, "CronJob/report", EdgeKind::Controls),
        ["Job/report-29420100", "Job/report-29420160"]
    );
    assert_eq!(
        targets(&graph, "Service/web", EdgeKind::Controls),
        ["EndpointSlice/web-8hx2k"]
    );
    assert!(edge(
        &graph,
        "Deployment/web",
        EdgeKind::Owns,
        "ConfigMap/web-config"
    )
    .is_some());
    assert!(edge(
        &graph,
        "Deployment/web",
        EdgeKind::Controls,
        "ConfigMap/web-config"
    )
    .is_none());
}

#[test]
fn a_service_selects_its_pods_and_its_endpoint_slices_say_which_are_ready() {
    let objects = shop();
    let graph = graph_of(&objects);
    assert_eq!(targets(&graph, "Service/web", EdgeKind::Selects), WEB_PODS);
    let ready: Vec<Option<bool>> = WEB_PODS
        .iter()
        .map(|pod| edge(&graph, "Service/web", EdgeKind::Selects, pod).and_then(|e| e.ready))
        .collect();
    assert_eq!(ready, [Some(true), Some(true), Some(false)]);
    let selects = edge(&graph, "Service/web", EdgeKind::Selects, WEB_PODS[0]).expect("edge");
    assert_eq!(selects.evidence, ["spec.selector"]);
    assert_eq!(selects.selector.as_deref(), Some("app=web"));

    // Without its slices, readiness is not known, rather than false.
    let without: Vec<_> = objects
        .into_iter()
        .filter(|o| o["kind"] != "EndpointSlice")
        .collect();
    let graph = graph_of(&without);
    let selects = edge(&graph, "Service/web", EdgeKind::Selects, WEB_PODS[2]).expect("edge");
    assert_eq!(selects.ready, None);
}

#[test]
fn an_ingress_routes_to_present_services_and_names_its_tls_secret() {
    let mut objects = shop();
    let graph = graph_of(&objects);
    let routes = edge(&graph, "Ingress/web", EdgeKind::Routes, "Service/web").expect("routes");
    assert_eq!(
        routes.evidence,
        ["spec.rules[0].http.paths[1].backend.service.name"]
    );
    // Its path to Service `api`, which is not in the set, is no edge.
    assert_eq!(
        targets(&graph, "Ingress/web", EdgeKind::Routes),
        ["Service/web"]
    );
    let tls = edge(
        &graph,
        "Ingress/web",
        EdgeKind::ServesTlsWith,
        "Secret/web-tls",
    );
    assert_eq!(tls.expect("tls").evidence, ["spec.tls[0].secretName"]);

    let ingress = object_mut(&mut objects, "Ingress", "web");
    ingress["spec"]["rules"] = json!([]);
    ingress["spec"]["defaultBackend"] = json!({"service": {"name": "web", "port": {"number": 80}}});
    let graph = graph_of(&objects);
    let routes = edge(&graph, "Ingress/web", EdgeKind::Routes, "Service/web").expect("routes");
    assert_eq!(routes.evidence, ["spec.defaultBackend.service.name"]);
}

#[test]
fn an_http_route_attaches_to_its_gateway_and_routes_to_its_backends() {
    let graph = graph_of(&shop());
    let backend = edge(&graph, "HTTPRoute/web", EdgeKind::Routes, "Service/web");
    assert_eq!(
        backend.expect("backend").evidence,
        ["spec.rules[0].backendRefs[0]"]
    );
    let parent = edge(
        &graph,
        "HTTPRoute/web",
        EdgeKind::AttachesTo,
        "Gateway/public",
    );
    assert_eq!(parent.expect("parent").evidence, ["spec.parentRefs[0]"]);
}

#[test]
fn a_pod_needs_what_it_mounts_reads_pulls_with_and_runs_as() {
    let graph = graph_of(&shop());
    let pod = WEB_PODS[0];
    let evidence = |kind, to| {
        edge(&graph, pod, kind, to)
            .map(|e| e.evidence.clone())
            .unwrap_or_default()
    };
    assert_eq!(
        evidence(EdgeKind::Mounts, "ConfigMap/web-config"),
        ["spec.volumes[0].configMap.name"]
    );
    assert_eq!(
        evidence(EdgeKind::Mounts, "ConfigMap/kube-root-ca.crt"),
        ["spec.volumes[1].projected.sources[1].configMap.name"]
    );
    assert_eq!(
        evidence(EdgeKind::ReadsEnv, "ConfigMap/web-config"),
        ["spec.containers[0].env[0].valueFrom.configMapKeyRef.name"]
    );
    assert_eq!(
        evidence(EdgeKind::ReadsEnv, "Secret/web-env"),
        ["spec.containers[0].envFrom[0].secretRef.name"]
    );
    assert_eq!(
        evidence(EdgeKind::PullsWith, "Secret/registry"),
        ["spec.imagePullSecrets[0].name"]
    );
    assert_eq!(
        evidence(EdgeKind::RunsAs, "ServiceAccount/web"),
        ["spec.serviceAccountName"]
    );
    let db = |kind, to| edge(&graph, "Pod/db-0", kind, to).map(|e| e.evidence.clone());
    assert_eq!(
        db(EdgeKind::Mounts, "PersistentVolumeClaim/data-db-0").unwrap_or_default(),
        ["spec.volumes[0].persistentVolumeClaim.claimName"]
    );
    assert_eq!(
        db(EdgeKind::ReadsEnv, "Secret/db-password").unwrap_or_default(),
        ["spec.containers[0].env[0].valueFrom.secretKeyRef.name"]
    );
    assert!(db(EdgeKind::RunsAs, "ServiceAccount/default").is_some());
}

#[test]
fn a_claim_leads_to_its_volume_and_the_volume_to_its_class() {
    let mut objects = shop();
    let graph = graph_of(&objects);
    let bound = edge(
        &graph,
        "PersistentVolumeClaim/data-db-0",
        EdgeKind::BindsTo,
        "PersistentVolume/pvc-0b6f1d8e-0018",
    );
    assert_eq!(bound.expect("bound").evidence, ["spec.volumeName"]);
    let class = edge(
        &graph,
        "PersistentVolume/pvc-0b6f1d8e-0018",
        EdgeKind::UsesClass,
        "StorageClass/standard",
    );
    assert_eq!(class.expect("class").evidence, ["spec.storageClassName"]);
    // The claim's own class is said through its volume once bound; unbound, directly.
    assert!(targets(
        &graph,
        "PersistentVolumeClaim/data-db-0",
        EdgeKind::UsesClass
    )
    .is_empty());
    object_mut(&mut objects, "PersistentVolumeClaim", "data-db-0")["spec"]["volumeName"] =
        json!("");
    let graph = graph_of(&objects);
    assert_eq!(
        targets(
            &graph,
            "PersistentVolumeClaim/data-db-0",
            EdgeKind::UsesClass
        ),
        ["StorageClass/standard"]
    );
}

#[test]
fn an_autoscaler_scales_its_target_a_budget_and_a_policy_choose_pods() {
    let mut objects = shop();
    let graph = graph_of(&objects);
    let scales = edge(
        &graph,
        "HorizontalPodAutoscaler/web",
        EdgeKind::Scales,
        "Deployment/web",
    );
    assert_eq!(scales.expect("scales").evidence, ["spec.scaleTargetRef"]);
    assert_eq!(
        targets(&graph, "PodDisruptionBudget/web", EdgeKind::Budgets),
        WEB_PODS
    );
    assert_eq!(
        targets(&graph, "NetworkPolicy/db-from-web", EdgeKind::Isolates),
        ["Pod/db-0"]
    );
    let isolates = edge(
        &graph,
        "NetworkPolicy/db-from-web",
        EdgeKind::Isolates,
        "Pod/db-0",
    );
    assert_eq!(
        isolates.and_then(|e| e.selector.clone()).as_deref(),
        Some("app in (db)")
    );
    // An empty podSelector chooses every pod of the namespace.
    object_mut(&mut objects, "NetworkPolicy", "db-from-web")["spec"]["podSelector"] = json!({});
    let graph = graph_of(&objects);
    assert_eq!(
        targets(&graph, "NetworkPolicy/db-from-web", EdgeKind::Isolates).len(),
        6
    );
}

#[test]
fn edges_only_join_objects_in_the_set() {
    let objects = shop();
    let without_secrets: Vec<_> = objects
        .iter()
        .filter(|o| o["kind"] != "Secret")
        .cloned()
        .collect();
    let graph = Graph::build(&without_secrets, vec![MissingKind::forbidden("Secret")]);
    assert!(graph
        .edges
        .iter()
        .all(|e| e.from < graph.objects.len() && e.to < graph.objects.len()));
    assert!(graph.objects.iter().all(|o| o.kind != "Secret"));
    // What named a Secret names nothing now: no edge stands in for it.
    let to_kind = |kind| graph.edges.iter().filter(move |e| e.kind == kind);
    assert_eq!(to_kind(EdgeKind::PullsWith).count(), 0);
    assert_eq!(to_kind(EdgeKind::ServesTlsWith).count(), 0);
    assert!(to_kind(EdgeKind::ReadsEnv).all(|e| graph.objects[e.to].kind == "ConfigMap"));
    assert_eq!(
        targets(&graph, "Ingress/web", EdgeKind::Routes),
        ["Service/web"]
    );
    assert_eq!(
        graph
            .missing
            .iter()
            .map(MissingKind::sentence)
            .collect::<Vec<_>>(),
        ["Secrets are not shown: you may not list them"]
    );
}

#[test]
fn odd_objects_are_skipped_not_fatal() {
    let odd = vec![
        json!("text"),
        json!({"kind": "Pod"}),
        json!({"kind": "Service", "metadata": {"name": "x"}, "spec": {"selector": "app"}}),
        json!({"kind": "Pod", "metadata": {"name": "p", "ownerReferences": 3}, "spec": {"volumes": {}}}),
    ];
    let graph = graph_of(&odd);
    assert_eq!(graph.objects.len(), 2);
    assert!(graph.edges.is_empty());
}
