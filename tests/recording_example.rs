//! The example recording in `examples/recordings/rollout.jsonl`: a Deployment rolled out and
//! then given a new image on the seeded demo cluster, recorded as the dashboard records (the
//! list of each watched kind, then every watch event, in the format of
//! `model::history::recording`). One test checks the shipped file replays into the
//! activity lanes a live page shows; an ignored one records it again:
//! `cargo test -p kube-atlas --test recording_example -- --ignored --exact record_the_example`.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use kube::api::{
    Api, ApiResource, DynamicObject, ListParams, Patch, PatchParams, PostParams, WatchEvent,
    WatchParams,
};
use kube_atlas::model::history::recording::{Header, FORMAT_VERSION};
use kube_atlas::model::history::{activity, seen_events, Record, RecordType, Recording, SeenEvent};
use kube_atlas::model::watch::StoreChange;

const NAMESPACE: &str = "rollout";

fn example_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/recordings/rollout.jsonl")
}

/// The kinds the activity view watches for a Deployment, as (group, version, kind, plural).
const KINDS: [(&str, &str, &str, &str); 4] = [
    ("apps", "v1", "Deployment", "deployments"),
    ("apps", "v1", "ReplicaSet", "replicasets"),
    ("", "v1", "Pod", "pods"),
    ("events.k8s.io", "v1", "Event", "events"),
];

fn collection_path(group: &str, version: &str, plural: &str) -> String {
    let base = if group.is_empty() {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    };
    format!("{base}/namespaces/{NAMESPACE}/{plural}")
}

fn deployment(image: &str) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                         "spec": {"containers": [{"name": "web", "image": image}]}}
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "records examples/recordings/rollout.jsonl again"]
async fn record_the_example() {
    let cluster = demo_cluster::start(demo_cluster::Config {
        listen: ([127, 0, 0, 1], 0).into(),
        speed: 4.0,
        ..Default::default()
    })
    .await
    .expect("demo cluster");
    let config = kube::Config::new(cluster.url().parse().expect("url"));
    let client = kube::Client::try_from(config).expect("client");
    let namespaces: Api<DynamicObject> = Api::all_with(
        client.clone(),
        &ApiResource::from_gvk(&kube::core::GroupVersionKind::gvk("", "v1", "Namespace")),
    );
    let namespace: DynamicObject =
        serde_json::from_value(serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}))
            .expect("namespace");
    namespaces
        .create(&PostParams::default(), &namespace)
        .await
        .expect("namespace created");
    let started = Instant::now();
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<Record>();
    for (group, version, kind, plural) in KINDS {
        let resource = ApiResource::from_gvk_with_plural(
            &kube::core::GroupVersionKind::gvk(group, version, kind),
            plural,
        );
        let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), NAMESPACE, &resource);
        let key = collection_path(group, version, plural);
        let list = api.list(&ListParams::default()).await.expect("list");
        let items = list
            .items
            .iter()
            .map(|o| serde_json::to_value(o).expect("json"))
            .collect();
        sender
            .send(Record::of_change(
                0.0,
                &key,
                &StoreChange::Append(items),
                false,
            ))
            .expect("recorded");
        let version = list.metadata.resource_version.unwrap_or_default();
        let sender = sender.clone();
        tokio::spawn(async move {
            let params = WatchParams::default().timeout(290);
            let mut stream = api.watch(&params, &version).await.expect("watch").boxed();
            while let Ok(Some(event)) = stream.try_next().await {
                let t = started.elapsed().as_secs_f64() * 1000.0;
                let record = match event {
                    WatchEvent::Added(o) => Record::of_change(
                        t,
                        &key,
                        &StoreChange::Apply(serde_json::to_value(o).expect("json")),
                        true,
                    ),
                    WatchEvent::Modified(o) => Record::of_change(
                        t,
                        &key,
                        &StoreChange::Apply(serde_json::to_value(o).expect("json")),
                        false,
                    ),
                    WatchEvent::Deleted(o) => Record::of_change(
                        t,
                        &key,
                        &StoreChange::Delete(serde_json::to_value(o).expect("json")),
                        false,
                    ),
                    WatchEvent::Bookmark(b) => Record {
                        t,
                        key: key.clone(),
                        record_type: RecordType::Bookmark,
                        object: None,
                        items: None,
                        resource_version: Some(b.metadata.resource_version),
                        cluster: None,
                    },
                    WatchEvent::Error(_) => continue,
                };
                if sender.send(record).is_err() {
                    return;
                }
            }
        });
    }
    drop(sender);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let deployments: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        NAMESPACE,
        &ApiResource::from_gvk(&kube::core::GroupVersionKind::gvk(
            "apps",
            "v1",
            "Deployment",
        )),
    );
    let created: DynamicObject =
        serde_json::from_value(deployment("nginx:1.25")).expect("deployment");
    deployments
        .create(
            &PostParams {
                field_manager: Some("kubectl-create".into()),
                ..Default::default()
            },
            &created,
        )
        .await
        .expect("created");
    tokio::time::sleep(Duration::from_secs(8)).await;
    let image = serde_json::json!({"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.26"}]}}}});
    deployments
        .patch(
            "web",
            &PatchParams {
                field_manager: Some("kubectl-set".into()),
                ..Default::default()
            },
            &Patch::Strategic(image),
        )
        .await
        .expect("new image");
    tokio::time::sleep(Duration::from_secs(12)).await;
    let mut records = Vec::new();
    while let Ok(record) = receiver.try_recv() {
        records.push(record);
    }
    records.sort_by(|a, b| a.t.total_cmp(&b.t));
    let recording = Recording {
        header: Some(Header {
            version: FORMAT_VERSION,
            started_at: "2026-11-23T12:00:00Z".into(),
            note: "demo cluster (seeded, --speed 4): Deployment rollout/web created with 3 replicas, then its image changed from nginx:1.25 to nginx:1.26".into(),
        }),
        records,
    };
    let path = example_path();
    std::fs::create_dir_all(path.parent().expect("folder")).expect("folder");
    std::fs::write(&path, recording.to_jsonl()).expect("written");
    println!(
        "wrote {} records to {}",
        recording.records.len(),
        path.display()
    );
    cluster.shutdown().await.expect("shutdown");
}

/// The shipped example replays into the lanes the live activity view shows.
#[test]
fn the_example_recording_replays_into_the_controllers_lanes() {
    let text = std::fs::read_to_string(example_path())
        .expect("examples/recordings/rollout.jsonl is in the repository");
    let recording = Recording::parse(&text).expect("a valid recording");
    let stores = recording.replay(f64::INFINITY, 0.0);
    let is_events = |key: &str| key.ends_with("/events");
    let deployment_uid = stores
        .iter()
        .filter(|(key, _)| key.ends_with("/deployments"))
        .flat_map(|(_, s)| s.timelines())
        .find(|t| t.identity.name == "web")
        .map(|t| t.identity.uid.clone())
        .expect("the Deployment web was recorded");
    let timelines: Vec<_> = stores
        .iter()
        .filter(|(key, _)| !is_events(key))
        .flat_map(|(_, s)| s.timelines())
        .collect();
    let events: Vec<SeenEvent> = stores
        .iter()
        .filter(|(key, _)| is_events(key))
        .flat_map(|(_, s)| seen_events(s))
        .collect();
    let replayed = activity(&deployment_uid, &timelines, &events);
    let lanes: BTreeSet<&str> = replayed.lanes.iter().map(|l| l.id.as_str()).collect();
    for expected in [
        "manager:kubectl-create",
        "component:deployment-controller",
        "component:replicaset-controller",
        "component:default-scheduler",
    ] {
        assert!(lanes.contains(expected), "{expected} in {lanes:?}");
    }
    assert!(lanes.iter().any(|l| l.starts_with("kubelet:")), "{lanes:?}");
    // The image change: two ReplicaSets on the chain.
    let replica_sets = timelines
        .iter()
        .filter(|t| t.identity.kind == "ReplicaSet" && replayed.chain.contains(&t.identity.uid))
        .count();
    assert_eq!(replica_sets, 2);
}
