//! The simulated control plane seen through kube-rs (and kubectl when present): deployments,
//! replica sets, scheduling, kubelets, jobs, garbage collection, namespaces, events and the
//! cnat `At` operator. Clusters run at high speed so each test takes a second or two.
//!
//! Waiting is on events, never on elapsed time: lasting states are polled with a generous
//! outer bound ([`eventually`]); short-lived states (a pod terminating for milliseconds, a
//! phase that lasts one controller step) are caught on a watch ([`watch_until`]), which sees
//! every write.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

use futures_util::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{Event, Namespace, Node, PersistentVolumeClaim, Pod, Service};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use kube::api::{
    Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams, WatchEvent,
    WatchParams,
};
use kube::core::{ApiResource, GroupVersionKind};
use kube::Client;
use serde_json::{json, Value};

mod common;

use common::{PATIENCE, SPEED};

/// Polls `check` until it yields a value, failing after [`PATIENCE`] with `what`. Only for
/// states that last once reached; see [`watch_until`] for passing ones.
async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A list and a watch from its resourceVersion: opened before the action under test, then
/// read with [`Watching::until`]. A watch sees every write, so a state that lasts
/// milliseconds cannot slip between two polls.
struct Watching<K> {
    listed: Vec<K>,
    events: futures_util::stream::BoxStream<'static, kube::Result<WatchEvent<K>>>,
}

async fn start_watching<K>(api: &Api<K>, label_selector: &str) -> Watching<K>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug + Send + 'static,
{
    let list = api
        .list(&ListParams::default().labels(label_selector))
        .await
        .unwrap();
    let from = list.metadata.resource_version.unwrap_or_default();
    let params = WatchParams::default().labels(label_selector);
    let events = api.watch(&params, &from).await.unwrap().boxed();
    Watching {
        listed: list.items,
        events,
    }
}

impl<K: std::fmt::Debug> Watching<K> {
    /// The first object (listed or written) that `matches`, with every one seen before it.
    async fn until(mut self, what: &str, mut matches: impl FnMut(&K) -> bool) -> (K, Vec<K>) {
        let mut seen = vec![];
        for item in std::mem::take(&mut self.listed) {
            if matches(&item) {
                return (item, seen);
            }
            seen.push(item);
        }
        let found = tokio::time::timeout(PATIENCE, async {
            while let Some(event) = self.events.try_next().await.unwrap() {
                match event {
                    WatchEvent::Added(o) | WatchEvent::Modified(o) => {
                        if matches(&o) {
                            return o;
                        }
                        seen.push(o);
                    }
                    WatchEvent::Error(e) => panic!("watch failed while waiting for {what}: {e:?}"),
                    WatchEvent::Deleted(_) | WatchEvent::Bookmark(_) => {}
                }
            }
            panic!("watch ended before {what}");
        })
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"));
        (found, seen)
    }
}

fn deployment(name: &str, image: &str, replicas: i32) -> Deployment {
    serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": name, "image": image}]}}}
    }))
    .unwrap()
}

fn pod_name(pod: &Pod) -> String {
    pod.metadata.name.clone().unwrap_or_default()
}

/// The pod's first image, and its phase or that it is terminating (for messages).
fn image_and_state(pod: &Pod) -> (String, String) {
    let image = pod
        .spec
        .as_ref()
        .and_then(|spec| spec.containers.first())
        .and_then(|container| container.image.clone())
        .unwrap_or_default();
    let phase = pod
        .status
        .as_ref()
        .and_then(|status| status.phase.clone())
        .unwrap_or_default();
    let state = match pod.metadata.deletion_timestamp {
        Some(_) => format!("{phase}, terminating"),
        None => phase,
    };
    (image, state)
}

fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap()
}

async fn pods_of(client: &Client, ns: &str, app: &str) -> Vec<Value> {
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    pods.list(&ListParams::default().labels(&format!("app={app}")))
        .await
        .unwrap()
        .items
        .iter()
        .map(to_json)
        .collect()
}

fn is_running_and_ready(pod: &Value) -> bool {
    pod["status"]["phase"] == "Running"
        && pod["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c["type"] == "Ready" && c["status"] == "True")
}

/// Waits until the deployment's rollout is complete (what `kubectl rollout status` checks).
async fn rolled_out(client: &Client, ns: &str, name: &str, replicas: i64) -> Value {
    let api: Api<Deployment> = Api::namespaced(client.clone(), ns);
    eventually(
        &format!("deployment {name} with {replicas} available"),
        || {
            let api = api.clone();
            async move {
                let d = to_json(&api.get(name).await.ok()?);
                let st = &d["status"];
                let done = st["observedGeneration"] == d["metadata"]["generation"]
                    && st["updatedReplicas"].as_i64().unwrap_or(0) == replicas
                    && st["replicas"].as_i64().unwrap_or(0) == replicas
                    && st["availableReplicas"].as_i64().unwrap_or(0) == replicas;
                done.then_some(d)
            }
        },
    )
    .await
}

/// Waits until exactly `count` pods of `app` exist, all running and ready.
/// Exactly `count` pods of `app`, all Running and Ready and none on its way out (a pod
/// being deleted still runs until its kubelet stops it).
async fn running_pods(client: &Client, ns: &str, app: &str, count: usize) -> Vec<Value> {
    eventually(&format!("{count} running pods of {app}"), || async {
        let pods = pods_of(client, ns, app).await;
        let settled = pods
            .iter()
            .all(|p| is_running_and_ready(p) && p["metadata"]["deletionTimestamp"].is_null());
        (pods.len() == count && settled).then_some(pods)
    })
    .await
}

async fn events_in(client: &Client, ns: &str) -> Vec<Value> {
    let events: Api<Event> = Api::namespaced(client.clone(), ns);
    events
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .iter()
        .map(to_json)
        .collect()
}

async fn node_names(client: &Client) -> Vec<String> {
    names_of(&Api::<Node>::all(client.clone())).await
}

/// The names of every object `api` lists.
async fn names_of<K>(api: &Api<K>) -> Vec<String>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    api.list(&ListParams::default())
        .await
        .unwrap()
        .items
        .iter()
        .filter_map(|o| o.meta().name.clone())
        .collect()
}

fn managers(obj: &Value) -> Vec<String> {
    obj["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["manager"].as_str().map(String::from))
        .collect()
}

#[tokio::test]
async fn deployment_runs_three_pods_on_nodes_with_the_owner_chain() {
    let (cluster, client) = common::start_fast(true).await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    deployments
        .create(
            &PostParams::default(),
            &deployment("nginx", "nginx:1.27", 3),
        )
        .await
        .unwrap();
    let d = rolled_out(&client, "default", "nginx", 3).await;
    assert_eq!(
        d["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "1"
    );
    let conditions = d["status"]["conditions"].as_array().unwrap();
    assert!(conditions.iter().any(|c| c["type"] == "Available"
        && c["status"] == "True"
        && c["reason"] == "MinimumReplicasAvailable"));
    assert!(conditions
        .iter()
        .any(|c| c["type"] == "Progressing" && c["reason"] == "NewReplicaSetAvailable"));

    let sets: Api<ReplicaSet> = Api::namespaced(client.clone(), "default");
    let rs_list = sets.list(&ListParams::default()).await.unwrap().items;
    assert_eq!(rs_list.len(), 1);
    let rs = to_json(&rs_list[0]);
    let hash = rs["metadata"]["labels"]["pod-template-hash"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(rs["metadata"]["name"], format!("nginx-{hash}"));
    assert_eq!(
        rs["spec"]["selector"]["matchLabels"]["pod-template-hash"],
        hash.as_str()
    );
    assert_eq!(
        rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "1"
    );
    let owner = &rs["metadata"]["ownerReferences"][0];
    assert_eq!(owner["kind"], "Deployment");
    assert_eq!(owner["uid"], d["metadata"]["uid"]);
    assert_eq!(owner["controller"], true);
    assert!(managers(&rs).contains(&"kube-controller-manager".to_string()));

    let pods = running_pods(&client, "default", "nginx", 3).await;
    let node_names = node_names(&client).await;
    for pod in &pods {
        let name = pod["metadata"]["name"].as_str().unwrap();
        assert!(name.starts_with(&format!("nginx-{hash}-")), "{name}");
        assert_eq!(
            pod["metadata"]["labels"]["pod-template-hash"],
            hash.as_str()
        );
        let owner = &pod["metadata"]["ownerReferences"][0];
        assert_eq!(
            (owner["kind"].as_str(), &owner["uid"]),
            (Some("ReplicaSet"), &rs["metadata"]["uid"])
        );
        assert!(node_names.contains(&pod["spec"]["nodeName"].as_str().unwrap().to_string()));
        assert!(pod["status"]["podIP"]
            .as_str()
            .unwrap()
            .starts_with("10.244."));
        assert!(pod["status"]["hostIP"].is_string());
        let cs = &pod["status"]["containerStatuses"][0];
        assert_eq!(cs["ready"], true);
        assert_eq!(cs["started"], true);
        assert_eq!(cs["restartCount"], 0);
        assert!(cs["state"]["running"]["startedAt"].is_string());
        assert!(cs["containerID"]
            .as_str()
            .unwrap()
            .starts_with("containerd://"));
        assert!(cs["imageID"].as_str().unwrap().contains("@sha256:"));
        for ty in ["PodScheduled", "Initialized", "ContainersReady", "Ready"] {
            assert!(
                pod["status"]["conditions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c["type"] == ty && c["status"] == "True"),
                "{ty}"
            );
        }
        let m = managers(pod);
        assert!(
            m.contains(&"kube-controller-manager".to_string())
                && m.contains(&"kubelet".to_string()),
            "{m:?}"
        );
    }
    // The least-loaded choice spreads three pods over the three nodes.
    let mut used: Vec<&str> = pods
        .iter()
        .map(|p| p["spec"]["nodeName"].as_str().unwrap())
        .collect();
    used.sort();
    used.dedup();
    assert_eq!(used.len(), 3);
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn events_along_the_chain_name_the_real_components() {
    let (cluster, client) = common::start_fast(true).await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    deployments
        .create(&PostParams::default(), &deployment("web", "nginx", 3))
        .await
        .unwrap();
    rolled_out(&client, "default", "web", 3).await;
    let pods = running_pods(&client, "default", "web", 3).await;
    let events = eventually("kubelet Started events", || async {
        let events = events_in(&client, "default").await;
        let started = events.iter().filter(|e| e["reason"] == "Started").count();
        (started == 3).then_some(events)
    })
    .await;
    let find = |reason: &str, kind: &str| -> Vec<&Value> {
        events
            .iter()
            .filter(|e| e["reason"] == reason && e["involvedObject"]["kind"] == kind)
            .collect()
    };
    let scaling = find("ScalingReplicaSet", "Deployment");
    assert_eq!(scaling.len(), 1);
    assert_eq!(scaling[0]["source"]["component"], "deployment-controller");
    assert_eq!(scaling[0]["reportingComponent"], "deployment-controller");
    let rs_name = pods[0]["metadata"]["ownerReferences"][0]["name"]
        .as_str()
        .unwrap();
    assert_eq!(
        scaling[0]["message"],
        format!("Scaled up replica set {rs_name} from 0 to 3")
    );
    let created = find("SuccessfulCreate", "ReplicaSet");
    assert_eq!(created.len(), 3);
    for e in &created {
        assert_eq!(e["source"]["component"], "replicaset-controller");
        assert!(e["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("Created pod: {rs_name}-")));
    }
    for pod in &pods {
        let name = pod["metadata"]["name"].as_str().unwrap();
        let node = pod["spec"]["nodeName"].as_str().unwrap();
        let about: Vec<&Value> = events
            .iter()
            .filter(|e| e["involvedObject"]["name"] == name)
            .collect();
        let scheduled = about.iter().find(|e| e["reason"] == "Scheduled").unwrap();
        assert_eq!(scheduled["reportingComponent"], "default-scheduler");
        assert_eq!(scheduled["action"], "Binding");
        assert!(scheduled["eventTime"].is_string());
        assert_eq!(
            scheduled["message"],
            format!("Successfully assigned default/{name} to {node}")
        );
        for reason in ["Pulling", "Pulled", "Created", "Started"] {
            let Some(e) = about.iter().find(|e| e["reason"] == reason) else {
                // The image is pulled once per node: later pods there skip "Pulling".
                assert_eq!(reason, "Pulling");
                continue;
            };
            assert_eq!(e["source"]["component"], "kubelet", "{reason}");
            assert_eq!(e["source"]["host"], node, "{reason}");
            assert_eq!(e["reportingComponent"], "kubelet");
            assert_eq!(e["involvedObject"]["fieldPath"], "spec.containers{web}");
            assert_eq!(e["type"], "Normal");
        }
    }
    let started = events.iter().find(|e| e["reason"] == "Started").unwrap();
    assert_eq!(started["message"], "Started container web");
    assert!(events.iter().any(|e| e["reason"] == "Pulled"
        && e["message"]
            .as_str()
            .unwrap()
            // The kubelet names the image with the default tag it pulls.
            .starts_with("Successfully pulled image \"nginx:latest\" in ")));

    // The same events through events.k8s.io/v1.
    let gvk = GroupVersionKind::gvk("events.k8s.io", "v1", "Event");
    let ar = ApiResource::from_gvk(&gvk);
    let new_api: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &ar);
    let listed = new_api.list(&ListParams::default()).await.unwrap().items;
    let scheduled = listed
        .iter()
        .map(to_json)
        .find(|e| e["reason"] == "Scheduled")
        .unwrap();
    assert_eq!(scheduled["reportingController"], "default-scheduler");
    assert_eq!(scheduled["regarding"]["kind"], "Pod");
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn scaling_up_and_down_creates_and_gracefully_deletes_pods() {
    let (cluster, client) = common::start_fast(true).await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    deployments
        .create(&PostParams::default(), &deployment("app", "nginx", 2))
        .await
        .unwrap();
    rolled_out(&client, "default", "app", 2).await;
    let scale = |n: i64| {
        let deployments = deployments.clone();
        async move {
            deployments
                .patch_scale(
                    "app",
                    &PatchParams::default(),
                    &Patch::Merge(json!({"spec": {"replicas": n}})),
                )
                .await
                .unwrap();
        }
    };
    scale(5).await;
    rolled_out(&client, "default", "app", 5).await;
    running_pods(&client, "default", "app", 5).await;

    // Scaling down marks pods for graceful deletion first (deletionTimestamp, Killing).
    let mut watcher_pods = Api::<Pod>::namespaced(client.clone(), "default");
    let pod_writes = start_watching(&watcher_pods, "app=app").await;
    scale(1).await;
    let (terminating, _) = pod_writes
        .until("a pod being terminated", |p| {
            p.metadata.deletion_timestamp.is_some()
        })
        .await;
    assert_eq!(
        to_json(&terminating)["metadata"]["deletionGracePeriodSeconds"],
        30
    );
    rolled_out(&client, "default", "app", 1).await;
    running_pods(&client, "default", "app", 1).await;
    let events = events_in(&client, "default").await;
    let deleted = events
        .iter()
        .filter(|e| e["reason"] == "SuccessfulDelete")
        .count();
    assert_eq!(deleted, 4);
    assert!(events.iter().any(|e| e["reason"] == "Killing"
        && e["source"]["component"] == "kubelet"
        && e["message"] == "Stopping container app"));
    let messages: Vec<&str> = events
        .iter()
        .filter(|e| e["reason"] == "ScalingReplicaSet")
        .filter_map(|e| e["message"].as_str())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("Scaled up replica set app-") && m.ends_with("from 2 to 5")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.ends_with("from 5 to 1")),
        "{messages:?}"
    );
    watcher_pods = Api::namespaced(client.clone(), "default");
    assert_eq!(common::item_count(&watcher_pods).await, 1);
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn template_change_rolls_out_a_new_replica_set() {
    let (cluster, client) = common::start_fast(true).await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    deployments
        .create(&PostParams::default(), &deployment("web", "nginx:1.26", 3))
        .await
        .unwrap();
    let before = rolled_out(&client, "default", "web", 3).await;
    let patch = json!({"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}});
    deployments
        .patch("web", &PatchParams::default(), &Patch::Strategic(patch))
        .await
        .unwrap();
    let after = eventually("the second revision rolled out", || async {
        let d = rolled_out(&client, "default", "web", 3).await;
        (d["metadata"]["generation"] == 2
            && d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2")
            .then_some(d)
    })
    .await;
    assert_ne!(
        before["metadata"]["generation"],
        after["metadata"]["generation"]
    );
    let sets: Api<ReplicaSet> = Api::namespaced(client.clone(), "default");
    let all: Vec<Value> = sets
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .iter()
        .map(to_json)
        .collect();
    assert_eq!(all.len(), 2);
    let new = all.iter().find(|rs| rs["spec"]["replicas"] == 3).unwrap();
    let old = all.iter().find(|rs| rs["spec"]["replicas"] == 0).unwrap();
    assert_eq!(
        new["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "2"
    );
    assert_eq!(
        old["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        "1"
    );
    assert_eq!(
        new["spec"]["template"]["spec"]["containers"][0]["image"],
        "nginx:1.27"
    );
    let pods = running_pods(&client, "default", "web", 3).await;
    let new_hash = &new["metadata"]["labels"]["pod-template-hash"];
    assert!(pods
        .iter()
        .all(|p| &p["metadata"]["labels"]["pod-template-hash"] == new_hash));
    // maxSurge 25% of 3 = 1, maxUnavailable 0: one pod at a time, old set scaled 3→2→1→0.
    let events = events_in(&client, "default").await;
    let old_name = old["metadata"]["name"].as_str().unwrap();
    let downs: Vec<&str> = events
        .iter()
        .filter_map(|e| e["message"].as_str())
        .filter(|m| m.starts_with(&format!("Scaled down replica set {old_name}")))
        .collect();
    assert_eq!(downs.len(), 3, "{downs:?}");
    cluster.shutdown().await.unwrap();
}

async fn gone<K>(api: &Api<K>, name: &str) -> bool
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    matches!(api.get(name).await, Err(kube::Error::Api(s)) if s.code == 404)
}

#[tokio::test]
async fn cascading_deletion_in_background_foreground_and_orphan_modes() {
    let (cluster, client) = common::start_fast(true).await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    let sets: Api<ReplicaSet> = Api::namespaced(client.clone(), "default");
    for name in ["bg", "fg", "orphan"] {
        deployments
            .create(&PostParams::default(), &deployment(name, "nginx", 2))
            .await
            .unwrap();
    }
    for name in ["bg", "fg", "orphan"] {
        rolled_out(&client, "default", name, 2).await;
        running_pods(&client, "default", name, 2).await;
    }
    let set_of = |app: &'static str| {
        let sets = sets.clone();
        async move {
            sets.list(&ListParams::default().labels(&format!("app={app}")))
                .await
                .unwrap()
                .items
                .into_iter()
                .next()
                .unwrap()
        }
    };

    // Background: the owner goes at once, the collector removes the rest afterwards.
    let bg_rs = set_of("bg").await;
    deployments
        .delete("bg", &DeleteParams::background())
        .await
        .unwrap();
    assert!(gone(&deployments, "bg").await);
    eventually("bg replica set and pods collected", || async {
        (gone(&sets, bg_rs.metadata.name.as_deref().unwrap()).await
            && pods_of(&client, "default", "bg").await.is_empty())
        .then_some(())
    })
    .await;

    // Foreground: the owner stays, marked, until its dependents are gone.
    let marked = deployments
        .delete("fg", &DeleteParams::foreground())
        .await
        .unwrap();
    let marked = to_json(
        &marked
            .left()
            .expect("foreground deletion returns the object"),
    );
    assert!(marked["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(
        marked["metadata"]["finalizers"],
        json!(["foregroundDeletion"])
    );
    let fg_rs = set_of("fg").await;
    eventually("fg replica set in foreground deletion", || async {
        let rs = to_json(
            &sets
                .get(fg_rs.metadata.name.as_deref().unwrap())
                .await
                .ok()?,
        );
        (rs["metadata"]["finalizers"] == json!(["foregroundDeletion"])).then_some(())
    })
    .await;
    assert!(
        !gone(&deployments, "fg").await,
        "the owner waits for its dependents"
    );
    eventually("fg deployment, replica set and pods gone", || async {
        (gone(&deployments, "fg").await
            && gone(&sets, fg_rs.metadata.name.as_deref().unwrap()).await
            && pods_of(&client, "default", "fg").await.is_empty())
        .then_some(())
    })
    .await;

    // Orphan: dependents lose the reference and keep running.
    let orphan_rs = set_of("orphan").await;
    let marked = deployments
        .delete("orphan", &DeleteParams::orphan())
        .await
        .unwrap();
    let marked = to_json(&marked.left().expect("orphan deletion returns the object"));
    assert_eq!(marked["metadata"]["finalizers"], json!(["orphan"]));
    eventually("orphan deployment gone", || async {
        gone(&deployments, "orphan").await.then_some(())
    })
    .await;
    let rs = to_json(
        &sets
            .get(orphan_rs.metadata.name.as_deref().unwrap())
            .await
            .unwrap(),
    );
    assert!(rs["metadata"]["ownerReferences"].is_null(), "{rs}");
    // The deployment is gone only once the collector finished the orphan finalizer, so any
    // wrongful cascade to the pods would already have been issued.
    let pods = running_pods(&client, "default", "orphan", 2).await;
    assert!(pods
        .iter()
        .all(|p| p["metadata"]["ownerReferences"][0]["uid"] == rs["metadata"]["uid"]));
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn crashing_image_restarts_with_crash_loop_back_off() {
    let (cluster, client) = common::start_fast(true).await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let pod_writes = start_watching(&pods, "app=flaky").await;
    deployments
        .create(
            &PostParams::default(),
            &deployment("flaky", "example/crash-app:1", 1),
        )
        .await
        .unwrap();
    let status = |p: &Pod| to_json(p)["status"]["containerStatuses"][0].clone();
    let (pod, before) = pod_writes
        .until("CrashLoopBackOff after 3 restarts", |p| {
            let cs = status(p);
            cs["restartCount"].as_i64() >= Some(3)
                && cs["state"]["waiting"]["reason"] == "CrashLoopBackOff"
        })
        .await;
    let mut counts: Vec<i64> = before
        .iter()
        .chain([&pod])
        .filter_map(|p| status(p)["restartCount"].as_i64())
        .collect();
    counts.dedup();
    let pod = to_json(&pod);
    assert!(
        counts.len() >= 3 && counts.windows(2).all(|w| w[0] < w[1]),
        "restart counts seen: {counts:?}"
    );
    let cs = &pod["status"]["containerStatuses"][0];
    assert_eq!(cs["ready"], false);
    assert_eq!(cs["lastState"]["terminated"]["exitCode"], 1);
    assert_eq!(cs["lastState"]["terminated"]["reason"], "Error");
    assert_eq!(pod["status"]["phase"], "Running");
    let events = events_in(&client, "default").await;
    let back_off = events.iter().find(|e| e["reason"] == "BackOff").unwrap();
    assert_eq!(back_off["type"], "Warning");
    assert_eq!(back_off["source"]["component"], "kubelet");
    assert!(back_off["message"]
        .as_str()
        .unwrap()
        .starts_with("Back-off restarting failed container flaky in pod "));
    // Repeated events are aggregated: one Event with a count.
    assert!(back_off["count"].as_i64().unwrap() >= 2, "{back_off}");
    let d = to_json(&deployments.get("flaky").await.unwrap());
    assert_eq!(d["status"]["unavailableReplicas"], 1);
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn job_pods_run_to_completion() {
    let (cluster, client) = common::start_fast(true).await;
    let jobs: Api<Job> = Api::namespaced(client.clone(), "default");
    let job: Job = serde_json::from_value(json!({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
        "spec": {"completions": 2, "parallelism": 1, "template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "pi", "image": "perl", "command": ["sh", "-c", "echo 3.14; sleep 5"]}]}}}
    }))
    .unwrap();
    jobs.create(&PostParams::default(), &job).await.unwrap();
    let done = eventually("job complete", || async {
        let j = to_json(&jobs.get("pi").await.ok()?);
        j["status"]["conditions"]
            .as_array()?
            .iter()
            .any(|c| c["type"] == "Complete" && c["status"] == "True")
            .then_some(j)
    })
    .await;
    assert_eq!(done["status"]["succeeded"], 2);
    assert!(done["status"]["completionTime"].is_string());
    assert!(
        done["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"].is_string()
    );
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let listed = pods
        .list(&ListParams::default().labels("job-name=pi"))
        .await
        .unwrap()
        .items;
    assert_eq!(listed.len(), 2);
    for pod in listed.iter().map(to_json) {
        assert_eq!(pod["status"]["phase"], "Succeeded");
        assert_eq!(
            pod["status"]["containerStatuses"][0]["state"]["terminated"]["reason"],
            "Completed"
        );
        let log = pods
            .logs(
                pod["metadata"]["name"].as_str().unwrap(),
                &Default::default(),
            )
            .await
            .unwrap();
        assert_eq!(log, "3.14\n");
    }
    let events = events_in(&client, "default").await;
    assert!(events
        .iter()
        .any(|e| e["reason"] == "Completed" && e["source"]["component"] == "job-controller"));
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn namespace_deletion_goes_through_terminating() {
    let (cluster, client) = common::start_fast(true).await;
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": "team"}})).unwrap();
    namespaces
        .create(&PostParams::default(), &ns)
        .await
        .unwrap();
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "team");
    deployments
        .create(&PostParams::default(), &deployment("api", "nginx", 2))
        .await
        .unwrap();
    running_pods(&client, "team", "api", 2).await;
    let deleted = namespaces
        .delete("team", &DeleteParams::default())
        .await
        .unwrap();
    let deleted = to_json(&deleted.left().expect("namespace deletion is deferred"));
    assert_eq!(deleted["status"]["phase"], "Terminating");
    assert!(deleted["metadata"]["deletionTimestamp"].is_string());
    // New content is refused while terminating.
    let refused = deployments
        .create(&PostParams::default(), &deployment("late", "nginx", 1))
        .await
        .unwrap_err();
    assert!(matches!(refused, kube::Error::Api(s) if s.code == 403));
    eventually("namespace gone", || async {
        gone(&namespaces, "team").await.then_some(())
    })
    .await;
    let pods: Api<Pod> = Api::all(client.clone());
    assert!(pods
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .iter()
        .all(|p| p.metadata.namespace.as_deref() != Some("team")));
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn scheduler_reports_failed_scheduling_without_ready_nodes() {
    let (cluster, client) = common::start_fast(true).await;
    let nodes: Api<Node> = Api::all(client.clone());
    for i in 1..=3 {
        nodes
            .patch(
                &format!("demo-node-{i}"),
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"unschedulable": true}})),
            )
            .await
            .unwrap();
    }
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let pod: Pod = serde_json::from_value(json!({"metadata": {"name": "waiting"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}}))
    .unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
    let condition = eventually("PodScheduled=False", || async {
        let p = to_json(&pods.get("waiting").await.ok()?);
        p["status"]["conditions"]
            .as_array()?
            .iter()
            .find(|c| c["type"] == "PodScheduled" && c["status"] == "False")
            .cloned()
    })
    .await;
    assert_eq!(condition["reason"], "Unschedulable");
    // Retries are aggregated into the event's series (it was written through events.k8s.io).
    let failed = eventually("a FailedScheduling series", || async {
        let events = events_in(&client, "default").await;
        let failed = events
            .into_iter()
            .find(|e| e["reason"] == "FailedScheduling")?;
        (failed["series"]["count"].as_i64()? >= 2).then_some(failed)
    })
    .await;
    assert_eq!(failed["type"], "Warning");
    assert_eq!(failed["reportingComponent"], "default-scheduler");
    assert!(failed["message"]
        .as_str()
        .unwrap()
        .starts_with("0/3 nodes are available: 3 node(s) were unschedulable"));
    nodes
        .patch(
            "demo-node-2",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"unschedulable": null}})),
        )
        .await
        .unwrap();
    let p = eventually("pod running on the uncordoned node", || async {
        let p = to_json(&pods.get("waiting").await.ok()?);
        is_running_and_ready(&p).then_some(p)
    })
    .await;
    assert_eq!(p["spec"]["nodeName"], "demo-node-2");
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn at_runs_its_command_at_the_schedule_and_reaches_done() {
    let (cluster, client) = common::start_fast(true).await;
    let gvk = GroupVersionKind::gvk("cnat.programming-kubernetes.info", "v1alpha1", "At");
    let ar = ApiResource::from_gvk_with_plural(&gvk, "ats");
    let ats: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &ar);
    // Whole seconds, as the operator reads them: at least 1 s ahead, so it starts PENDING.
    let when = chrono::Utc::now() + chrono::Duration::seconds(2);
    let at: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "cnat.programming-kubernetes.info/v1alpha1", "kind": "At",
        "metadata": {"name": "example-at"},
        "spec": {"schedule": when.format("%Y-%m-%dT%H:%M:%SZ").to_string(), "command": "echo YAY"}
    }))
    .unwrap();
    // Every write of the At is seen on the watch, so no phase can be missed.
    let at_writes = start_watching(&ats, "").await;
    ats.create(&PostParams::default(), &at).await.unwrap();
    let phase = |at: &DynamicObject| at.data["status"]["phase"].as_str().map(String::from);
    let (done, before) = at_writes
        .until("the At DONE", |at| phase(at).as_deref() == Some("DONE"))
        .await;
    let mut phases: Vec<String> = before.iter().chain([&done]).filter_map(phase).collect();
    phases.dedup();
    assert_eq!(phases, ["PENDING", "RUNNING", "DONE"]);
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let pod = to_json(&pods.get("example-at-pod").await.unwrap());
    assert_eq!(pod["status"]["phase"], "Succeeded");
    assert_eq!(pod["metadata"]["ownerReferences"][0]["kind"], "At");
    assert_eq!(
        pod["spec"]["containers"][0]["command"],
        json!(["sh", "-c", "echo YAY"])
    );
    let started = pod["status"]["containerStatuses"][0]["state"]["terminated"]["startedAt"]
        .as_str()
        .unwrap();
    // The schedule is on the At's simulated clock: SPEED times as fast from its creation.
    let created = to_json(&done)["metadata"]["creationTimestamp"]
        .as_str()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .unwrap()
        .with_timezone(&chrono::Utc);
    let due = created + (when - created) / SPEED as i32;
    assert!(
        started >= due.format("%Y-%m-%dT%H:%M:%SZ").to_string().as_str(),
        "ran before its schedule ({due})"
    );
    assert_eq!(
        pods.logs("example-at-pod", &Default::default())
            .await
            .unwrap(),
        "YAY\n"
    );
    let at = to_json(&ats.get("example-at").await.unwrap());
    assert!(managers(&at).contains(&"cnat-controller".to_string()));
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn followed_logs_stream_until_the_pod_goes() {
    let (cluster, client) = common::start_fast(true).await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let pod: Pod = serde_json::from_value(json!({"metadata": {"name": "web"},
        "spec": {"containers": [{"name": "web", "image": "nginx"}]}}))
    .unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
    eventually("pod running", || async {
        is_running_and_ready(&to_json(&pods.get("web").await.ok()?)).then_some(())
    })
    .await;
    let url = format!(
        "{}/api/v1/namespaces/default/pods/web/log?follow=true&timestamps=true",
        cluster.url()
    );
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let path = &url[url.find("/api").unwrap()..];
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(
            format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .await
        .unwrap();
    // The follow is known open once the first log line arrived.
    let mut out = vec![];
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&out).contains("/docker-entrypoint.sh") {
        let n = tokio::time::timeout(PATIENCE, stream.read(&mut chunk))
            .await
            .expect("log lines arrive")
            .unwrap();
        assert!(
            n > 0,
            "the log ended early: {}",
            String::from_utf8_lossy(&out)
        );
        out.extend_from_slice(&chunk[..n]);
    }
    pods.delete("web", &DeleteParams::default()).await.unwrap();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut out))
        .await
        .expect("the stream ends when the pod goes")
        .unwrap();
    let body = String::from_utf8_lossy(&out).into_owned();
    assert!(
        body.contains("Configuration complete; ready for start up"),
        "{body}"
    );
    assert!(
        body.contains("Z /docker-entrypoint.sh"),
        "timestamps prefix lines: {body}"
    );
    cluster.shutdown().await.unwrap();
}

// ---- kubectl (ignored when it is not installed, except under CI) ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn kubectl_rollout_status_and_events_show_the_chain() {
    let (cluster, _client) = common::start_fast(true).await;
    let server = cluster.url();
    let home = tempfile::tempdir().unwrap();
    let run = move |args: &[&str]| -> (bool, String, String) {
        let out = std::process::Command::new("kubectl")
            .arg("--server")
            .arg(&server)
            .arg("--cache-dir")
            .arg(home.path().join("cache"))
            .args(args)
            .env("KUBECONFIG", home.path().join("kubeconfig"))
            .env("HOME", home.path())
            .output()
            .expect("kubectl runs");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let out = tokio::task::spawn_blocking(move || {
        let (ok, out, err) = run(&[
            "create",
            "deployment",
            "shop",
            "--image=nginx:1.27",
            "--replicas=3",
        ]);
        assert!(ok, "{err}");
        let (ok, out2, err) = run(&["rollout", "status", "deployment/shop", "--timeout=20s"]);
        assert!(ok, "{err}\n{out2}");
        assert!(
            out2.contains("deployment \"shop\" successfully rolled out"),
            "{out2}"
        );
        let (ok, events, err) = run(&["get", "events"]);
        assert!(ok, "{err}");
        let (ok, pods, err) = run(&["get", "pods", "-o", "wide"]);
        assert!(ok, "{err}");
        format!("{out}\n{events}\n{pods}")
    })
    .await
    .unwrap();
    for needle in [
        "ScalingReplicaSet",
        "SuccessfulCreate",
        "Scheduled",
        "Pulled",
        "Created",
        "Started",
        "deployment/shop",
        "replicaset/shop-",
        "Running",
        "demo-node-",
    ] {
        assert!(out.contains(needle), "{needle} missing in:\n{out}");
    }
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn recreate_strategy_stops_old_pods_before_starting_new_ones() {
    let (cluster, client) = common::start_fast(true).await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    let mut d = to_json(&deployment("db", "postgres:15", 2));
    d["spec"]["strategy"] = json!({"type": "Recreate"});
    deployments
        .create(&PostParams::default(), &serde_json::from_value(d).unwrap())
        .await
        .unwrap();
    rolled_out(&client, "default", "db", 2).await;
    // Every pod write from here on, so that no moment of the rollout is missed.
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let mut watching = start_watching(&pods, "app=db").await;
    let patch = json!({"spec": {"template": {"spec": {"containers": [{"name": "db", "image": "postgres:16"}]}}}});
    deployments
        .patch("db", &PatchParams::default(), &Patch::Strategic(patch))
        .await
        .unwrap();
    // Recreate, as the pods show it: no pod of the new template exists while one of the old
    // template remains (terminating or not), until the two new ones replace the two old.
    let mut present: BTreeMap<String, (String, String)> = watching
        .listed
        .iter()
        .map(|pod| (pod_name(pod), image_and_state(pod)))
        .collect();
    let counts = |present: &BTreeMap<String, (String, String)>| {
        let old = present.values().filter(|(i, _)| i == "postgres:15").count();
        (old, present.len() - old)
    };
    assert_eq!(counts(&present), (2, 0), "before the rollout: {present:?}");
    tokio::time::timeout(PATIENCE, async {
        while let Some(event) = watching.events.try_next().await.unwrap() {
            match event {
                WatchEvent::Added(pod) | WatchEvent::Modified(pod) => {
                    present.insert(pod_name(&pod), image_and_state(&pod));
                }
                WatchEvent::Deleted(pod) => {
                    present.remove(&pod_name(&pod));
                }
                WatchEvent::Error(e) => panic!("pod watch failed during the rollout: {e:?}"),
                WatchEvent::Bookmark(_) => {}
            }
            let (old, new) = counts(&present);
            assert!(
                old == 0 || new == 0,
                "Recreate: new pods exist while old ones remain: {present:?}"
            );
            if (old, new) == (0, 2) {
                return;
            }
        }
        panic!("the pod watch ended during the rollout: {present:?}");
    })
    .await
    .unwrap_or_else(|_| panic!("two new pods never replaced the old ones: {present:?}"));
    eventually("revision 2 rolled out", || async {
        let d = rolled_out(&client, "default", "db", 2).await;
        (d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2").then_some(())
    })
    .await;
    let pods = running_pods(&client, "default", "db", 2).await;
    assert!(pods
        .iter()
        .all(|p| p["spec"]["containers"][0]["image"] == "postgres:16"));
    // Event names end in the hex nanoseconds of their creation: that orders them.
    let mut scaling: Vec<(u64, String)> = events_in(&client, "default")
        .await
        .into_iter()
        .filter(|e| e["reason"] == "ScalingReplicaSet")
        .map(|e| {
            let name = e["metadata"]["name"].as_str().unwrap();
            let nanos = u64::from_str_radix(name.rsplit('.').next().unwrap(), 16).unwrap();
            (nanos, e["message"].as_str().unwrap().to_string())
        })
        .collect();
    scaling.sort();
    let messages: Vec<&str> = scaling.iter().map(|(_, m)| m.as_str()).collect();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert!(messages[0].ends_with("from 0 to 2"), "{messages:?}");
    let down = messages
        .iter()
        .position(|m| m.contains("Scaled down") && m.ends_with("from 2 to 0"));
    let up = messages
        .iter()
        .rposition(|m| m.contains("Scaled up") && m.ends_with("from 0 to 2"));
    assert!(down.is_some() && up.is_some() && down < up, "{messages:?}");
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn kubelets_renew_node_leases_and_heartbeats() {
    let (cluster, client) = common::start_fast(true).await;
    let leases: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        "kube-node-lease",
        &ApiResource::from_gvk(&GroupVersionKind::gvk("coordination.k8s.io", "v1", "Lease")),
    );
    let first = eventually("three node leases", || async {
        let list = leases.list(&ListParams::default()).await.ok()?.items;
        (list.len() == 3).then_some(list.iter().map(to_json).collect::<Vec<_>>())
    })
    .await;
    let lease = first
        .iter()
        .find(|l| l["metadata"]["name"] == "demo-node-1")
        .unwrap();
    assert_eq!(lease["spec"]["holderIdentity"], "demo-node-1");
    assert_eq!(lease["spec"]["leaseDurationSeconds"], 40);
    assert_eq!(lease["metadata"]["ownerReferences"][0]["kind"], "Node");
    let renewed_before = lease["spec"]["renewTime"].clone();
    // Heartbeats come at most once a second, whatever the speed.
    eventually("a renewed lease", || async {
        let l = to_json(&leases.get("demo-node-1").await.ok()?);
        (l["spec"]["renewTime"] != renewed_before).then_some(())
    })
    .await;
    // The kubelet keeps posting the node's status: a heartbeat stamped now or later comes
    // (heartbeat times have whole seconds, so "now" is cut to the second).
    let since = chrono::DateTime::from_timestamp(chrono::Utc::now().timestamp(), 0).unwrap();
    let nodes: Api<Node> = Api::all(client.clone());
    let node = eventually("a node heartbeat after the lease renewal", || async {
        let node = to_json(&nodes.get("demo-node-1").await.ok()?);
        let ready = node["status"]["conditions"]
            .as_array()?
            .iter()
            .find(|c| c["type"] == "Ready")?
            .clone();
        let beat = chrono::DateTime::parse_from_rfc3339(ready["lastHeartbeatTime"].as_str()?)
            .ok()?
            .with_timezone(&chrono::Utc);
        (ready["status"] == "True" && beat >= since).then_some(node)
    })
    .await;
    assert!(managers(&node).contains(&"kubelet".to_string()));
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn new_nodes_get_a_kubelet_and_node_selectors_are_honoured() {
    let (cluster, client) = common::start_fast(true).await;
    let nodes: Api<Node> = Api::all(client.clone());
    let node: Node = serde_json::from_value(json!({
        "metadata": {"name": "gpu-node", "labels": {"accelerator": "gpu"}},
        "spec": {"podCIDR": "10.244.9.0/24"},
        "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status"}],
                   "addresses": [{"type": "InternalIP", "address": "172.18.0.9"}]}
    }))
    .unwrap();
    nodes.create(&PostParams::default(), &node).await.unwrap();
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let pod: Pod = serde_json::from_value(json!({"metadata": {"name": "trainer"},
        "spec": {"nodeSelector": {"accelerator": "gpu"}, "containers": [{"name": "c", "image": "pytorch/pytorch"}]}}))
    .unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
    let running = eventually("the pod running on the new node", || async {
        let p = to_json(&pods.get("trainer").await.ok()?);
        is_running_and_ready(&p).then_some(p)
    })
    .await;
    assert_eq!(running["spec"]["nodeName"], "gpu-node");
    assert_eq!(running["status"]["hostIP"], "172.18.0.9");
    assert!(running["status"]["podIP"]
        .as_str()
        .unwrap()
        .starts_with("10.244.9."));

    let nowhere: Pod = serde_json::from_value(json!({"metadata": {"name": "nowhere"},
        "spec": {"nodeSelector": {"accelerator": "tpu"}, "containers": [{"name": "c", "image": "x"}]}}))
    .unwrap();
    pods.create(&PostParams::default(), &nowhere).await.unwrap();
    let failed = eventually("FailedScheduling for the unmatched selector", || async {
        events_in(&client, "default")
            .await
            .into_iter()
            .find(|e| e["reason"] == "FailedScheduling")
    })
    .await;
    assert!(
        failed["message"].as_str().unwrap().starts_with(
            "0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector"
        ),
        "{failed}"
    );
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn orphaned_pods_are_adopted_and_relabelled_pods_released() {
    let (cluster, client) = common::start_fast(true).await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    deployments
        .create(&PostParams::default(), &deployment("keep", "nginx", 2))
        .await
        .unwrap();
    rolled_out(&client, "default", "keep", 2).await;
    let before = running_pods(&client, "default", "keep", 2).await;
    let mut names: Vec<&str> = before
        .iter()
        .map(|p| p["metadata"]["name"].as_str().unwrap())
        .collect();
    names.sort();
    let sets: Api<ReplicaSet> = Api::namespaced(client.clone(), "default");
    let rs = sets
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .remove(0);
    let rs_name = rs.metadata.name.clone().unwrap();
    let old_uid = rs.metadata.uid.clone().unwrap();
    sets.delete(&rs_name, &DeleteParams::orphan())
        .await
        .unwrap();
    // The deployment recreates its ReplicaSet, which adopts the orphaned pods.
    let new_uid = eventually("a recreated replica set owning the old pods", || async {
        let rs = sets.get(&rs_name).await.ok()?;
        let uid = rs.metadata.uid.clone()?;
        let pods = pods_of(&client, "default", "keep").await;
        (uid != old_uid
            && pods.len() == 2
            && pods
                .iter()
                .all(|p| p["metadata"]["ownerReferences"][0]["uid"] == uid.as_str()))
        .then_some(uid)
    })
    .await;
    let after = running_pods(&client, "default", "keep", 2).await;
    let mut after_names: Vec<&str> = after
        .iter()
        .map(|p| p["metadata"]["name"].as_str().unwrap())
        .collect();
    after_names.sort();
    assert_eq!(names, after_names, "no pod was replaced");

    // A pod whose labels stop matching is released and replaced.
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    pods.patch(
        names[0],
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"app": "debug"}}})),
    )
    .await
    .unwrap();
    let released = eventually("the relabelled pod released", || async {
        let p = to_json(&pods.get(names[0]).await.ok()?);
        p["metadata"]["ownerReferences"].is_null().then_some(p)
    })
    .await;
    assert_eq!(released["metadata"]["labels"]["app"], "debug");
    let replaced = running_pods(&client, "default", "keep", 2).await;
    assert!(replaced
        .iter()
        .all(|p| p["metadata"]["ownerReferences"][0]["uid"] == new_uid.as_str()));
    cluster.shutdown().await.unwrap();
}

fn stateful_set(name: &str, replicas: i32) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name},
        "spec": {"replicas": replicas, "serviceName": name,
                 "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": name, "image": "nginx"}]}},
                 "volumeClaimTemplates": [{"metadata": {"name": "www"},
                     "spec": {"accessModes": ["ReadWriteOnce"],
                              "resources": {"requests": {"storage": "1Gi"}}}}]}
    })
}

#[tokio::test]
async fn stateful_set_creates_ordered_pods_with_claims_and_scales_down_from_the_top() {
    let (cluster, client) = common::start_fast(true).await;
    let sets: Api<StatefulSet> = Api::default_namespaced(client.clone());
    let pods: Api<Pod> = Api::default_namespaced(client.clone());
    let claims: Api<PersistentVolumeClaim> = Api::default_namespaced(client.clone());
    let watching = start_watching(&pods, "app=web").await;
    let set: StatefulSet = serde_json::from_value(stateful_set("web", 1)).unwrap();
    sets.create(&PostParams::default(), &set).await.unwrap();
    running_pods(&client, "default", "web", 1).await;
    sets.patch(
        "web",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"replicas": 3}})),
    )
    .await
    .unwrap();

    // Each pod appears only once its predecessor is Running and Ready.
    let mut ready: Vec<String> = vec![];
    let mut appeared: Vec<String> = vec![];
    watching
        .until("web-2 running and ready", |pod| {
            let pod = to_json(pod);
            let name = pod["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if !appeared.contains(&name) {
                let ordinal: usize = name.trim_start_matches("web-").parse().unwrap();
                if ordinal > 0 {
                    assert!(
                        ready.contains(&format!("web-{}", ordinal - 1)),
                        "{name} created before its predecessor was ready"
                    );
                }
                appeared.push(name.clone());
            }
            if is_running_and_ready(&pod) && !ready.contains(&name) {
                ready.push(name.clone());
            }
            name == "web-2" && is_running_and_ready(&pod)
        })
        .await;
    assert_eq!(appeared, ["web-0", "web-1", "web-2"]);
    let running = running_pods(&client, "default", "web", 3).await;
    for pod in &running {
        let name = pod["metadata"]["name"].as_str().unwrap();
        assert_eq!(pod["spec"]["hostname"], name);
        assert_eq!(pod["spec"]["subdomain"], "web");
        assert_eq!(pod["metadata"]["ownerReferences"][0]["kind"], "StatefulSet");
        assert_eq!(
            pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"],
            format!("www-{name}")
        );
    }
    let claim_names = names_of(&claims).await;
    assert_eq!(claim_names, ["www-web-0", "www-web-1", "www-web-2"]);

    let status = eventually("stateful set status with 3 ready", || async {
        let set = to_json(&sets.get("web").await.ok()?);
        let st = &set["status"];
        (st["readyReplicas"] == 3
            && st["currentReplicas"] == 3
            && st["updatedReplicas"] == 3
            && st["observedGeneration"] == set["metadata"]["generation"])
            .then(|| st.clone())
    })
    .await;
    assert_eq!(status["replicas"], 3);
    assert_eq!(status["currentRevision"], status["updateRevision"]);
    let messages: Vec<String> = events_in(&client, "default")
        .await
        .iter()
        .filter(|e| e["reason"] == "SuccessfulCreate")
        .filter_map(|e| e["message"].as_str().map(String::from))
        .collect();
    assert!(
        messages.contains(&"create Pod web-0 in StatefulSet web successful".to_string()),
        "{messages:?}"
    );
    assert!(
        messages.contains(&"create Claim www-web-0 Pod web-0 in StatefulSet web success".into()),
        "{messages:?}"
    );

    // Scale-down removes the highest ordinal first, one at a time; the claims stay.
    let watching = start_watching(&pods, "app=web").await;
    sets.patch(
        "web",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"replicas": 1}})),
    )
    .await
    .unwrap();
    let mut terminating: Vec<String> = vec![];
    watching
        .until("web-1 terminating", |pod| {
            let pod = to_json(pod);
            let name = pod["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if pod["metadata"]["deletionTimestamp"].is_string() && !terminating.contains(&name) {
                terminating.push(name.clone());
            }
            name == "web-1" && pod["metadata"]["deletionTimestamp"].is_string()
        })
        .await;
    assert_eq!(terminating, ["web-2", "web-1"]);
    let left = running_pods(&client, "default", "web", 1).await;
    assert_eq!(left[0]["metadata"]["name"], "web-0");
    let claims_left = claims.list(&ListParams::default()).await.unwrap().items;
    assert_eq!(claims_left.len(), 3);
    drop(cluster);
}

#[tokio::test]
async fn daemon_set_runs_one_pod_per_node_and_follows_its_node_selector() {
    let (cluster, client) = common::start_fast(true).await;
    let node_names = node_names(&client).await;
    assert!(node_names.len() > 1, "{node_names:?}");
    let sets: Api<DaemonSet> = Api::default_namespaced(client.clone());
    let set: DaemonSet = serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}},
                 "template": {"metadata": {"labels": {"app": "agent"}},
                              "spec": {"containers": [{"name": "agent", "image": "busybox"}]}}}
    }))
    .unwrap();
    sets.create(&PostParams::default(), &set).await.unwrap();
    let pods = running_pods(&client, "default", "agent", node_names.len()).await;
    let mut on_nodes: Vec<String> = pods
        .iter()
        .map(|p| p["spec"]["nodeName"].as_str().unwrap().to_string())
        .collect();
    on_nodes.sort();
    let mut expected = node_names.clone();
    expected.sort();
    assert_eq!(on_nodes, expected, "exactly one pod per node");
    for pod in &pods {
        assert_eq!(pod["metadata"]["ownerReferences"][0]["kind"], "DaemonSet");
    }
    let count = node_names.len();
    eventually("daemon set status counting every node", || async {
        let set = to_json(&sets.get("agent").await.ok()?);
        let st = &set["status"];
        (st["desiredNumberScheduled"] == count
            && st["currentNumberScheduled"] == count
            && st["numberReady"] == count
            && st["updatedNumberScheduled"] == count
            && st["numberAvailable"] == count
            && st["observedGeneration"] == set["metadata"]["generation"])
            .then_some(())
    })
    .await;

    // A nodeSelector naming one node leaves one pod, on that node.
    let chosen = expected[0].clone();
    sets.patch(
        "agent",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"template": {"spec": {
            "nodeSelector": {"kubernetes.io/hostname": chosen}}}}})),
    )
    .await
    .unwrap();
    let pods = running_pods(&client, "default", "agent", 1).await;
    assert_eq!(pods[0]["spec"]["nodeName"], chosen.as_str());
    eventually("daemon set status of one node", || async {
        let set = to_json(&sets.get("agent").await.ok()?);
        let st = &set["status"];
        (st["desiredNumberScheduled"] == 1 && st["numberReady"] == 1).then_some(())
    })
    .await;
    drop(cluster);
}

/// The ready addresses of the service's EndpointSlice, sorted, once it lists `count` endpoints
/// all ready, matching the running pods' IPs.
async fn ready_endpoints(client: &Client, service: &str, count: usize) -> (Value, Vec<String>) {
    let slices: Api<EndpointSlice> = Api::default_namespaced(client.clone());
    let selector = format!("kubernetes.io/service-name={service}");
    eventually(&format!("{count} ready endpoints of {service}"), || async {
        let listed = slices
            .list(&ListParams::default().labels(&selector))
            .await
            .ok()?;
        let [slice] = listed.items.as_slice() else {
            return None;
        };
        let slice = to_json(slice);
        let endpoints = slice["endpoints"].as_array().cloned().unwrap_or_default();
        let ready: Vec<String> = endpoints
            .iter()
            .filter(|e| e["conditions"]["ready"] == true)
            .filter_map(|e| e["addresses"][0].as_str().map(String::from))
            .collect();
        let mut pod_ips: Vec<String> = pods_of(client, "default", service)
            .await
            .iter()
            .filter(|p| is_running_and_ready(p) && p["metadata"]["deletionTimestamp"].is_null())
            .filter_map(|p| p["status"]["podIP"].as_str().map(String::from))
            .collect();
        pod_ips.sort();
        let mut addresses = ready.clone();
        addresses.sort();
        (endpoints.len() == count && addresses.len() == count && addresses == pod_ips)
            .then_some((slice, addresses))
    })
    .await
}

#[tokio::test]
async fn endpoint_slice_lists_the_ready_pods_of_a_service_and_follows_scaling() {
    let (cluster, client) = common::start_fast(true).await;
    let deployments: Api<Deployment> = Api::default_namespaced(client.clone());
    deployments
        .create(&PostParams::default(), &deployment("shop", "nginx", 2))
        .await
        .unwrap();
    let services: Api<Service> = Api::default_namespaced(client.clone());
    let service: Service = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "shop"},
        "spec": {"selector": {"app": "shop"},
                 "ports": [{"name": "http", "port": 80, "targetPort": 8080}]}
    }))
    .unwrap();
    let service = services
        .create(&PostParams::default(), &service)
        .await
        .unwrap();
    let (slice, _) = ready_endpoints(&client, "shop", 2).await;
    let name = slice["metadata"]["name"].as_str().unwrap();
    assert!(
        name.starts_with("shop-") && name.len() > "shop-".len(),
        "{name}"
    );
    assert_eq!(slice["addressType"], "IPv4");
    assert_eq!(
        slice["metadata"]["labels"]["endpointslice.kubernetes.io/managed-by"],
        "endpointslice-controller.k8s.io"
    );
    let owner = &slice["metadata"]["ownerReferences"][0];
    assert_eq!(owner["kind"], "Service");
    assert_eq!(owner["uid"].as_str(), service.metadata.uid.as_deref());
    assert_eq!(
        slice["ports"],
        json!([{"name": "http", "port": 8080, "protocol": "TCP"}])
    );
    assert_eq!(slice["endpoints"][0]["targetRef"]["kind"], "Pod");

    for replicas in [3, 1] {
        deployments
            .patch(
                "shop",
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"replicas": replicas}})),
            )
            .await
            .unwrap();
        ready_endpoints(&client, "shop", replicas).await;
    }
    drop(cluster);
}

#[tokio::test]
async fn seeded_cluster_runs_a_stateful_set_a_daemon_set_and_service_endpoints() {
    let (cluster, client) = common::start_fast(false).await;
    let db = running_pods(&client, "shop", "db", 2).await;
    let mut names: Vec<&str> = db
        .iter()
        .filter_map(|p| p["metadata"]["name"].as_str())
        .collect();
    names.sort();
    assert_eq!(names, ["db-0", "db-1"]);
    let claims: Api<PersistentVolumeClaim> = Api::namespaced(client.clone(), "shop");
    let claim_names = names_of(&claims).await;
    assert_eq!(claim_names, ["data-db-0", "data-db-1"]);
    let node_count = node_names(&client).await.len();
    running_pods(&client, "kube-system", "node-agent", node_count).await;
    let slices: Api<EndpointSlice> = Api::namespaced(client.clone(), "shop");
    for service in ["frontend", "cart", "db"] {
        let selector = format!("kubernetes.io/service-name={service}");
        eventually(&format!("an endpoint slice for shop/{service}"), || async {
            let listed = slices
                .list(&ListParams::default().labels(&selector))
                .await
                .ok()?;
            listed
                .items
                .iter()
                .any(|s| s.endpoints.as_ref().is_some_and(|e| !e.is_empty()))
                .then_some(())
        })
        .await;
    }
    drop(cluster);
}
