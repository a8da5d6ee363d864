//! End-to-end tests of the map (`#/map?ns=…`, issue #50), on the demo cluster and on
//! kube-apiserver with its controllers, scheduler and the stand-in kubelet: a namespace with
//! an Ingress, a Service, a Deployment mounting a ConfigMap and a claim draws each of those
//! edges; the Deployment's pods are one counted group that grows live as it scales and opens
//! into its pods; a Deployment no node can take reads Failing and says why on hover; a click
//! opens an object; the keyboard moves between nodes; an object page links to its
//! neighbourhood; a viewer is told which kinds are not shown.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{deployment, texts_at, wait_for, wait_until, Backend, Harness};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{
    ConfigMap, PersistentVolume, PersistentVolumeClaim, Pod, Service,
};
use k8s_openapi::api::networking::v1::Ingress;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::json;
use thirtyfour::prelude::*;

const NAMESPACE: &str = "mapped";

/// The app's objects: Ingress `web` → Service `web` → the pods of Deployment `web` (two
/// replicas, mounting ConfigMap `web-config` and claim `web-data`), and Deployment `hungry`,
/// whose pod asks for a node label no node has.
async fn create_app(harness: &Harness) -> Api<Deployment> {
    harness.create_namespace(NAMESPACE).await;
    let client = harness.kube_client();
    let post = PostParams::default();
    create::<ConfigMap>(
        harness,
        json!({"metadata": {"name": "web-config"}, "data": {"greeting": "hello"}}),
    )
    .await;
    // A volume the claim can bind to where no provisioner makes one (kube-apiserver).
    let volume: PersistentVolume = serde_json::from_value(json!({
        "metadata": {"name": "web-data-volume"},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                 "hostPath": {"path": "/tmp/web-data"}}
    }))
    .expect("a volume");
    Api::<PersistentVolume>::all(client.clone())
        .create(&post, &volume)
        .await
        .expect("volume created");
    create::<PersistentVolumeClaim>(
        harness,
        json!({"metadata": {"name": "web-data"},
               "spec": {"accessModes": ["ReadWriteOnce"],
                        "resources": {"requests": {"storage": "1Gi"}}}}),
    )
    .await;
    create::<Service>(
        harness,
        json!({"metadata": {"name": "web"},
               "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}),
    )
    .await;
    create::<Ingress>(
        harness,
        json!({"metadata": {"name": "web"},
               "spec": {"rules": [{"http": {"paths": [{"path": "/", "pathType": "Prefix",
                   "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}}),
    )
    .await;
    let deployments: Api<Deployment> = Api::namespaced(client, NAMESPACE);
    let web = json!({
        "containers": [{"name": "web", "image": "nginx:1.27",
            "volumeMounts": [{"name": "config", "mountPath": "/etc/web"},
                             {"name": "data", "mountPath": "/data"}]}],
        "volumes": [{"name": "config", "configMap": {"name": "web-config"}},
                    {"name": "data", "persistentVolumeClaim": {"claimName": "web-data"}}]
    });
    let hungry = json!({
        "containers": [{"name": "main", "image": "nginx:1.27"}],
        "nodeSelector": {"disk": "nowhere"}
    });
    for (name, replicas, spec) in [("web", 2, web), ("hungry", 1, hungry)] {
        deployments
            .create(&post, &deployment(name, replicas, spec))
            .await
            .expect("Deployment created");
    }
    deployments
}

/// Creates `object`, a `K` in JSON, in the test's namespace.
async fn create<K>(harness: &Harness, object: serde_json::Value)
where
    K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>
        + Clone
        + std::fmt::Debug
        + serde::de::DeserializeOwned
        + serde::Serialize,
{
    let object: K = serde_json::from_value(object).expect("an object of its kind");
    Api::<K>::namespaced(harness.kube_client(), NAMESPACE)
        .create(&PostParams::default(), &object)
        .await
        .expect("created");
}

/// Every node drawn: kind, name, health word and, for a group, how many it folds.
async fn nodes(harness: &Harness) -> Vec<(String, String, String, String)> {
    harness
        .driver
        .execute(
            "return Array.from(document.querySelectorAll('.map-svg .map-node')).map(n =>
                [n.dataset.kind, n.dataset.name, n.dataset.health, n.dataset.members || '']);",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert().ok())
        .unwrap_or_default()
}

/// Every edge drawn: `Kind/name` it leaves, its verb, `Kind/name` it reaches.
async fn edges(harness: &Harness) -> Vec<(String, String, String)> {
    harness
        .driver
        .execute(
            "return Array.from(document.querySelectorAll('.map-svg .map-edge')).map(e =>
                [e.dataset.from, e.dataset.verb, e.dataset.to]);",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert().ok())
        .unwrap_or_default()
}

/// Whether an edge of `verb` leaves a node named `from…` for one named `to…` (`Kind/name`,
/// names by their start: a pod group is named after its ReplicaSet).
fn has_edge(edges: &[(String, String, String)], from: &str, verb: &str, to: &str) -> bool {
    edges
        .iter()
        .any(|(f, v, t)| f.starts_with(from) && v == verb && t.starts_with(to))
}

/// The pod group of Deployment `web`'s ReplicaSet: (its name, how many pods it folds).
fn web_pods(nodes: &[(String, String, String, String)]) -> Option<(String, String)> {
    nodes
        .iter()
        .find(|(kind, name, _, members)| {
            kind == "Pod" && name.starts_with("web-") && !members.is_empty()
        })
        .map(|(_, name, _, members)| (name.clone(), members.clone()))
}

async fn the_map_draws_edges_health_and_live_groups(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let deployments = create_app(&harness).await;
    harness.open(&format!("#/map?ns={NAMESPACE}")).await;
    wait_for(&harness.driver, ".map-svg .map-node").await;

    // Each edge, from what the objects say.
    let shown = wait_until(
        "the map draws the Ingress, Service, Deployment, pods, ConfigMap and claim connected",
        async || edges(&harness).await,
        |edges| {
            has_edge(edges, "Ingress/web", "routes to", "Service/web")
                && has_edge(edges, "Service/web", "selects", "Pod/web-")
                && has_edge(edges, "Deployment/web", "controls", "ReplicaSet/web-")
                && has_edge(edges, "ReplicaSet/web-", "controls", "Pod/web-")
                && has_edge(edges, "Pod/web-", "mounts", "ConfigMap/web-config")
                && has_edge(
                    edges,
                    "Pod/web-",
                    "mounts",
                    "PersistentVolumeClaim/web-data",
                )
        },
    )
    .await;
    eprintln!("edges: {shown:?}");
    // An edge says what it means and where it was read, on hover.
    let titles = texts_at(&harness.driver, ".map-edge[data-verb='mounts'] title", None).await;
    assert!(
        titles
            .iter()
            .any(|t| t.contains("ConfigMap web-config") && t.contains("spec.volumes")),
        "{titles:?}"
    );

    // The two pods are one counted group.
    let (group, _) = wait_until(
        "Deployment web's two pods are one group of 2",
        async || web_pods(&nodes(&harness).await),
        |group| group.as_ref().is_some_and(|(_, members)| members == "2"),
    )
    .await
    .expect("the group");

    // The Deployment no node can take reads Failing, and says why when pointed at.
    wait_until(
        "Deployment hungry reads Failing",
        async || nodes(&harness).await,
        |nodes| {
            nodes.iter().any(|(kind, name, health, _)| {
                kind == "Deployment" && name == "hungry" && health == "failing"
            })
        },
    )
    .await;
    let hungry = harness
        .driver
        .find(By::Css(
            ".map-node[data-kind='Deployment'][data-name='hungry']",
        ))
        .await
        .expect("the hungry Deployment's node");
    harness
        .driver
        .action_chain()
        .move_to_element_center(&hungry)
        .perform()
        .await
        .expect("pointer over the node");
    let hover = wait_until(
        "pointing at Deployment hungry says its pod cannot be scheduled",
        async || texts_at(&harness.driver, ".map-hover", None).await,
        |texts| {
            texts.first().is_some_and(|t| {
                t.contains("Deployment hungry (Failing)")
                    && t.contains(&format!("Pod {NAMESPACE}/hungry-"))
                    && t.contains("cannot be scheduled")
            })
        },
    )
    .await;
    eprintln!("hover: {hover:?}");
    harness.screenshot("map-namespace").await;

    // Scaling adds pods to the group, live, and the group keeps the keyboard's focus while
    // its counts change (its node is changed in place, not drawn anew).
    let group_node = format!(".map-node[data-kind='Pod'][data-name='{group}']");
    harness
        .driver
        .find(By::Css(&group_node))
        .await
        .expect("the group's node")
        .focus()
        .await
        .expect("the group focused");
    deployments
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 4}})),
        )
        .await
        .expect("scaled");
    wait_until(
        "the group of Deployment web's pods grows to 4",
        async || web_pods(&nodes(&harness).await),
        |shown| {
            shown
                .as_ref()
                .is_some_and(|(name, members)| *name == group && members == "4")
        },
    )
    .await;
    let focused = texts_at(&harness.driver, ".map-node:focus", Some("data-name")).await;
    assert_eq!(
        focused,
        std::slice::from_ref(&group),
        "the grown group keeps the focus"
    );

    // Fit brings the whole map into view; a click opens the group into its pods.
    harness
        .driver
        .find(By::XPath(
            "//div[@class='map-toolbar']/button[text()='Fit']",
        ))
        .await
        .expect("the Fit button")
        .click()
        .await
        .expect("Fit");
    wait_until(
        "a click opens the group into its four pods",
        async || {
            if let Ok(node) = harness.driver.find(By::Css(&group_node)).await {
                let _ = node.click().await;
            }
            nodes(&harness).await
        },
        |nodes| {
            nodes
                .iter()
                .filter(|(kind, name, _, members)| {
                    kind == "Pod" && name.starts_with("web-") && members.is_empty()
                })
                .count()
                == 4
        },
    )
    .await;
    // The keyboard: from the Ingress, right arrow to the Service, Enter opens it.
    let ingress = harness
        .driver
        .find(By::Css(".map-node[data-kind='Ingress'][data-name='web']"))
        .await
        .expect("the Ingress's node");
    ingress.focus().await.expect("focused");
    ingress.send_keys(Key::Right).await.expect("right arrow");
    let focused = texts_at(&harness.driver, ".map-node:focus", Some("data-name")).await;
    assert_eq!(focused, ["web"], "the Service has the focus");
    let focused_kind = texts_at(&harness.driver, ".map-node:focus", Some("data-kind")).await;
    assert_eq!(focused_kind, ["Service"]);
    harness
        .driver
        .find(By::Css(".map-node:focus"))
        .await
        .expect("the focused node")
        .send_keys(Key::Enter)
        .await
        .expect("Enter");
    wait_until(
        "Enter opens the Service's page",
        async || harness.hash().await,
        |hash| hash == &format!("#/obj/core/v1/services/{NAMESPACE}/web"),
    )
    .await;
    // The Service's page links to its neighbourhood: what routes to it and what it selects,
    // not the Deployment no one routes to.
    common::click_live(&harness.driver, "a.map-link").await;
    let around = wait_until(
        "the Service's neighbourhood has its Ingress and pods, not Deployment hungry",
        async || nodes(&harness).await,
        |nodes| {
            let has = |kind: &str, name: &str| {
                nodes
                    .iter()
                    .any(|(k, n, _, _)| k == kind && n.starts_with(name))
            };
            has("Service", "web")
                && has("Ingress", "web")
                && has("Pod", "web-")
                && !has("Deployment", "hungry")
        },
    )
    .await;
    eprintln!("around the Service: {around:?}");
    harness.stop().await;
}

/// The map as a viewer sees it (the `view` role in `default`): Secrets, PersistentVolumes
/// and StorageClasses are named as not shown, and the rest is drawn.
async fn a_viewer_is_told_which_kinds_are_missing(backend: Backend) {
    let harness = Harness::start_as_viewer(backend).await;
    harness.open("#/map?ns=default").await;
    let missing = wait_until(
        "the viewer's map names the kinds it may not list",
        async || {
            texts_at(
                &harness.driver,
                ".map-missing [data-missing='forbidden']",
                None,
            )
            .await
        },
        |texts| {
            texts.first().is_some_and(|t| {
                t.starts_with("Not shown: you may not list")
                    && ["Secrets", "PersistentVolumes", "StorageClasses"]
                        .iter()
                        .all(|kind| t.contains(kind))
            })
        },
    )
    .await;
    eprintln!("missing: {missing:?}");
    // What the viewer may list is drawn (the namespace's Service `kubernetes`, at least on
    // kube-apiserver; the demo's seeded objects in `default`).
    wait_until(
        "the viewer's map draws what they may list",
        async || nodes(&harness).await.len(),
        |count| *count > 0,
    )
    .await;
    let loading = texts_at(&harness.driver, ".map-page .loading", None).await;
    assert!(loading.is_empty(), "{loading:?}");
    harness.screenshot("map-viewer-missing").await;
    harness.stop().await;
}

/// A custom resource on the map: the cnat `At` of ../shared/fixtures (its CRD served as
/// `v1alpha1`; the demo cluster serves it already), owning the pod it runs.
async fn a_custom_resource_is_drawn_with_the_pod_it_owns(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    harness.create_namespace(NAMESPACE).await;
    let client = harness.kube_client();
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "metadata": {"name": "ats.cnat.programming-kubernetes.info"},
        "spec": {"group": "cnat.programming-kubernetes.info", "scope": "Namespaced",
            "names": {"kind": "At", "plural": "ats", "singular": "at", "listKind": "AtList"},
            "versions": [{"name": "v1alpha1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object",
                    "x-kubernetes-preserve-unknown-fields": true}}}]}
    }))
    .expect("the At CRD");
    match Api::<CustomResourceDefinition>::all(client.clone())
        .create(&PostParams::default(), &crd)
        .await
    {
        Ok(_) => {}
        Err(kube::Error::Api(status)) if status.code == 409 => {}
        Err(error) => panic!("the At CRD: {error}"),
    }
    let resource = ApiResource {
        group: "cnat.programming-kubernetes.info".into(),
        version: "v1alpha1".into(),
        api_version: "cnat.programming-kubernetes.info/v1alpha1".into(),
        kind: "At".into(),
        plural: "ats".into(),
    };
    let ats: Api<DynamicObject> = Api::namespaced_with(client.clone(), NAMESPACE, &resource);
    let at: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "cnat.programming-kubernetes.info/v1alpha1", "kind": "At",
        "metadata": {"name": "nightly"},
        "spec": {"schedule": "2099-01-01T00:00:00Z", "command": "echo nightly"}
    }))
    .expect("an At");
    // The CRD is served a moment after it is created (kube-apiserver establishes it).
    let created = wait_until(
        "the At is created once its CRD is served",
        async || ats.create(&PostParams::default(), &at).await.ok(),
        Option::is_some,
    )
    .await
    .expect("created");
    let uid = created.metadata.uid.expect("the At's uid");
    create::<Pod>(
        &harness,
        json!({"metadata": {"name": "nightly-run", "ownerReferences": [{
                "apiVersion": "cnat.programming-kubernetes.info/v1alpha1", "kind": "At",
                "name": "nightly", "uid": uid, "controller": true}]},
               "spec": {"containers": [{"name": "run", "image": "busybox:1.36"}]}}),
    )
    .await;

    harness.open(&format!("#/map?ns={NAMESPACE}")).await;
    let shown = wait_until(
        "the map draws the At controlling its pod",
        async || edges(&harness).await,
        |edges| has_edge(edges, "At/nightly", "controls", "Pod/nightly-run"),
    )
    .await;
    eprintln!("edges: {shown:?}");
    harness.stop().await;
}

on_both_backends!(
    the_map_draws_edges_health_and_live_groups,
    a_viewer_is_told_which_kinds_are_missing,
    a_custom_resource_is_drawn_with_the_pod_it_owns
);
