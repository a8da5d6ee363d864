//! Conformance suite: the kube crate as a real client against a served demo cluster.

use std::time::Duration;

use futures_util::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{
    Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams, WatchEvent,
    WatchParams,
};
use kube::core::{ApiResource, GroupVersionKind};
use kube::discovery::{Discovery, Scope};
use kube::runtime::{reflector, watcher, WatchStreamExt};
use serde_json::json;

mod common;

use demo_cluster::{start, start_with_tuning, Config, Tuning};

use common::{configmap, empty_cluster_config as local, kube_client};

fn status_code(err: &kube::Error) -> u16 {
    match err {
        kube::Error::Api(s) => s.code,
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test]
async fn discovery_legacy_and_aggregated() {
    let cluster = start(local()).await.unwrap();
    let client = kube_client(&cluster);
    for discovery in [
        Discovery::new(client.clone()).run().await.unwrap(),
        Discovery::new(client.clone())
            .run_aggregated()
            .await
            .unwrap(),
    ] {
        let apps = discovery.get("apps").expect("apps group");
        let (ar, caps) = apps.recommended_kind("Deployment").expect("deployments");
        assert_eq!(ar.plural, "deployments");
        assert_eq!(caps.scope, Scope::Namespaced);
        assert!(
            caps.subresources
                .iter()
                .any(|(sub, _)| sub.plural == "deployments/scale" || sub.plural == "scale"),
            "{:?}",
            caps.subresources
        );
        let core = discovery.get("").expect("core group");
        assert!(core.recommended_kind("Pod").is_some());
        assert!(discovery.get("apiextensions.k8s.io").is_some());
    }
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn typed_configmap_crud_and_stale_conflict() {
    let cluster = start(local()).await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(kube_client(&cluster), "default");
    let created = api
        .create(&PostParams::default(), &configmap("cfg"))
        .await
        .unwrap();
    assert!(created.metadata.uid.is_some());
    let rv1 = created.metadata.resource_version.clone().unwrap();
    let mut changed = created.clone();
    changed.data = Some([("k".to_string(), "v2".to_string())].into());
    let updated = api
        .replace("cfg", &PostParams::default(), &changed)
        .await
        .unwrap();
    assert_ne!(
        updated.metadata.resource_version.as_deref(),
        Some(rv1.as_str())
    );
    // Replaying the old version is a 409 Conflict.
    let err = api
        .replace("cfg", &PostParams::default(), &changed)
        .await
        .unwrap_err();
    assert_eq!(status_code(&err), 409);
    // A no-op update keeps the resourceVersion.
    let same = api
        .replace("cfg", &PostParams::default(), &updated)
        .await
        .unwrap();
    assert_eq!(
        same.metadata.resource_version,
        updated.metadata.resource_version
    );
    let list = api.list(&ListParams::default()).await.unwrap();
    assert_eq!(list.items.len(), 1);
    let by_field = api
        .list(&ListParams::default().fields("metadata.name=cfg"))
        .await
        .unwrap();
    assert_eq!(by_field.items.len(), 1);
    let mut gen = configmap("");
    gen.metadata.name = None;
    gen.metadata.generate_name = Some("gen-".into());
    let generated = api.create(&PostParams::default(), &gen).await.unwrap();
    assert!(generated.metadata.name.unwrap().starts_with("gen-"));
    let dry = api
        .create(
            &PostParams {
                dry_run: true,
                ..Default::default()
            },
            &configmap("dry"),
        )
        .await
        .unwrap();
    assert_eq!(dry.metadata.name.as_deref(), Some("dry"));
    assert_eq!(status_code(&api.get("dry").await.unwrap_err()), 404);
    let deleted = api.delete("cfg", &DeleteParams::default()).await.unwrap();
    assert!(deleted.is_right());
    assert_eq!(status_code(&api.get("cfg").await.unwrap_err()), 404);
    cluster.shutdown().await.unwrap();
}

fn deployment(name: &str) -> Deployment {
    serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": "web", "image": "nginx:1.25", "env": [{"name": "A", "value": "1"}]},
                                                       {"name": "side", "image": "busybox"}]}}}}))
    .unwrap()
}

#[tokio::test]
async fn every_patch_type_on_deployments() {
    // The deployment controller would rewrite the status this test writes by hand.
    let cluster = start(Config {
        controllers: false,
        ..local()
    })
    .await
    .unwrap();
    let api: Api<Deployment> = Api::namespaced(kube_client(&cluster), "default");
    let created = api
        .create(
            &PostParams {
                field_manager: Some("creator".into()),
                ..Default::default()
            },
            &deployment("web"),
        )
        .await
        .unwrap();
    assert_eq!(created.metadata.generation, Some(1));
    assert_eq!(
        created.metadata.managed_fields.as_ref().unwrap()[0]
            .manager
            .as_deref(),
        Some("creator")
    );

    let merged = api
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"tier": "fe"}}})),
        )
        .await
        .unwrap();
    assert_eq!(merged.metadata.labels.unwrap()["tier"], "fe");
    assert_eq!(
        merged.metadata.generation,
        Some(1),
        "metadata-only change keeps generation"
    );

    let json_patch: json_patch::Patch =
        serde_json::from_value(json!([{"op": "replace", "path": "/spec/replicas", "value": 2}]))
            .unwrap();
    let patched = api
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::<()>::Json(json_patch),
        )
        .await
        .unwrap();
    assert_eq!(patched.spec.replicas, Some(2));
    assert_eq!(patched.metadata.generation, Some(2));

    let strategic = api
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Strategic(json!({"spec": {"template": {"spec": {"containers": [
        {"name": "web", "image": "nginx:1.27", "env": [{"name": "B", "value": "2"}]}]}}}})),
        )
        .await
        .unwrap();
    let containers = strategic.spec.template.spec.unwrap().containers;
    assert_eq!(
        containers.len(),
        2,
        "strategic merge keeps the other container"
    );
    assert_eq!(containers[0].image.as_deref(), Some("nginx:1.27"));
    assert_eq!(containers[0].env.as_ref().unwrap().len(), 2);

    // Server-side apply: conflict with the manager that set replicas, then force.
    let apply = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {"replicas": 5}});
    let err = api
        .patch("web", &PatchParams::apply("ci"), &Patch::Apply(&apply))
        .await
        .unwrap_err();
    let kube::Error::Api(status) = &err else {
        panic!("{err:?}")
    };
    assert_eq!(status.code, 409);
    assert!(
        status.message.starts_with("Apply failed with 1 conflict"),
        "{}",
        status.message
    );
    let forced = api
        .patch(
            "web",
            &PatchParams::apply("ci").force(),
            &Patch::Apply(&apply),
        )
        .await
        .unwrap();
    assert_eq!(forced.spec.replicas, Some(5));
    let managers: Vec<String> = forced
        .metadata
        .managed_fields
        .unwrap()
        .iter()
        .filter_map(|m| m.manager.clone())
        .collect();
    assert!(managers.contains(&"ci".to_string()));

    // Apply creates when absent.
    let fresh = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "applied"},
        "spec": {"selector": {"matchLabels": {"app": "a"}}, "template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
    let made = api
        .patch("applied", &PatchParams::apply("ci"), &Patch::Apply(&fresh))
        .await
        .unwrap();
    assert_eq!(made.spec.replicas, Some(1));

    // Scale and status subresources.
    let scale = api
        .patch_scale(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 3}})),
        )
        .await
        .unwrap();
    assert_eq!(scale.spec.unwrap().replicas, Some(3));
    assert_eq!(scale.status.unwrap().selector.as_deref(), Some("app=web"));
    let with_status = api.patch_status("web", &PatchParams::default(), &Patch::Merge(json!({"status": {"replicas": 3, "observedGeneration": 9}, "spec": {"replicas": 100}}))).await.unwrap();
    assert_eq!(with_status.status.unwrap().replicas, Some(3));
    assert_eq!(
        with_status.spec.replicas,
        Some(3),
        "status writes ignore spec"
    );
    let main = api
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"replicas": 0}})),
        )
        .await
        .unwrap();
    assert_eq!(
        main.status.unwrap().replicas,
        Some(3),
        "main writes ignore status"
    );

    let conditional = api
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"resourceVersion": "1"}, "spec": {"replicas": 1}})),
        )
        .await
        .unwrap_err();
    assert_eq!(status_code(&conditional), 409);
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn dynamic_objects_via_discovery() {
    let cluster = start(local()).await.unwrap();
    let client = kube_client(&cluster);
    let discovery = Discovery::new(client.clone()).run().await.unwrap();
    let (ar, _) = discovery
        .resolve_gvk(&GroupVersionKind::gvk("", "v1", "ConfigMap"))
        .unwrap();
    let api: Api<DynamicObject> = Api::namespaced_with(client, "kube-system", &ar);
    let obj: DynamicObject = serde_json::from_value(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dyn"}, "data": {"x": "1"}})).unwrap();
    api.create(&PostParams::default(), &obj).await.unwrap();
    let got = api.get("dyn").await.unwrap();
    assert_eq!(got.data["data"]["x"], "1");
    let patched = api
        .patch(
            "dyn",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"y": "2"}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.data["data"]["y"], "2");
    api.delete("dyn", &DeleteParams::default()).await.unwrap();
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn reflector_ends_consistent_with_a_fresh_list() {
    let cluster = start(local()).await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(kube_client(&cluster), "default");
    for i in 0..3 {
        api.create(&PostParams::default(), &configmap(&format!("pre-{i}")))
            .await
            .unwrap();
    }
    let (reader, writer) = reflector::store();
    let stream =
        reflector(writer, watcher(api.clone(), watcher::Config::default())).applied_objects();
    let handle = tokio::spawn(async move {
        let mut s = std::pin::pin!(stream);
        while s.try_next().await.ok().flatten().is_some() {}
    });
    reader.wait_until_ready().await.unwrap();
    for i in 0..5 {
        api.create(&PostParams::default(), &configmap(&format!("live-{i}")))
            .await
            .unwrap();
    }
    api.delete("pre-0", &DeleteParams::default()).await.unwrap();
    api.patch(
        "pre-1",
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"k": "changed"}})),
    )
    .await
    .unwrap();
    let expected: Vec<String> = {
        let mut v: Vec<String> = api
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .into_iter()
            .filter_map(|c| c.metadata.name)
            .collect();
        v.sort();
        v
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let mut have: Vec<String> = reader
            .state()
            .iter()
            .filter_map(|c| c.metadata.name.clone())
            .collect();
        have.sort();
        let pre1_changed = reader.state().iter().any(|c| {
            c.metadata.name.as_deref() == Some("pre-1")
                && c.data.as_ref().unwrap()["k"] == "changed"
        });
        if have == expected && pre1_changed {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "reflector has {have:?}, list has {expected:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    handle.abort();
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn watch_from_evicted_version_gets_410_and_streaming_list_ends_with_bookmark() {
    let tuning = Tuning {
        watch_cache_capacity: 4,
        ..Tuning::default()
    };
    let cluster = start_with_tuning(local(), tuning).await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(kube_client(&cluster), "default");
    let rv = api
        .list(&ListParams::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    for i in 0..6 {
        api.create(&PostParams::default(), &configmap(&format!("c{i}")))
            .await
            .unwrap();
    }
    let mut stream = api
        .watch(&WatchParams::default().timeout(1), &rv)
        .await
        .unwrap()
        .boxed();
    match stream.try_next().await.unwrap() {
        Some(WatchEvent::Error(e)) => {
            assert_eq!(e.code, 410);
            assert_eq!(e.reason, "Expired");
        }
        other => panic!("expected a 410 ERROR event, got {other:?}"),
    }
    assert!(
        stream.try_next().await.unwrap().is_none(),
        "stream closes after the error"
    );

    // Streaming list: initial ADDED events, then the initial-events-end bookmark.
    let mut stream = api
        .watch(&WatchParams::streaming_lists().timeout(1), "0")
        .await
        .unwrap()
        .boxed();
    let mut added = 0;
    loop {
        match stream.try_next().await.unwrap() {
            Some(WatchEvent::Added(_)) => added += 1,
            Some(WatchEvent::Bookmark(b)) => {
                assert_eq!(
                    b.metadata
                        .annotations
                        .get("k8s.io/initial-events-end")
                        .map(String::as_str),
                    Some("true")
                );
                break;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(added, 6);
    // A label-selector watch sees an object leave the selector as DELETED.
    let rv = api
        .list(&ListParams::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    api.patch(
        "c0",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"sel": "yes"}}})),
    )
    .await
    .unwrap();
    api.patch(
        "c0",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"sel": "no"}}})),
    )
    .await
    .unwrap();
    let mut stream = api
        .watch(&WatchParams::default().labels("sel=yes").timeout(1), &rv)
        .await
        .unwrap()
        .boxed();
    assert!(matches!(
        stream.try_next().await.unwrap(),
        Some(WatchEvent::Added(_))
    ));
    assert!(matches!(
        stream.try_next().await.unwrap(),
        Some(WatchEvent::Deleted(_))
    ));
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn websocket_watch_sends_one_text_message_per_event() {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    use tokio_tungstenite::tungstenite::Message;
    let cluster = start(local()).await.unwrap();
    let url = format!(
        "ws://{}/api/v1/namespaces?watch=true&timeoutSeconds=1",
        cluster.addr()
    );
    let mut request = url.into_client_request().unwrap();
    request.headers_mut().insert(
        "Sec-WebSocket-Protocol",
        "base64.binary.k8s.io".parse().unwrap(),
    );
    let (mut ws, response) = tokio_tungstenite::connect_async(request).await.unwrap();
    assert_eq!(
        response.headers()["sec-websocket-protocol"],
        "base64.binary.k8s.io"
    );
    let mut names = vec![];
    while let Some(msg) = ws.next().await {
        match msg.unwrap() {
            Message::Text(t) => {
                let ev: serde_json::Value = serde_json::from_str(&t).unwrap();
                assert_eq!(ev["type"], "ADDED");
                names.push(
                    ev["object"]["metadata"]["name"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                );
            }
            Message::Close(_) => break,
            _ => {}
        }
    }
    assert_eq!(names.len(), 4, "{names:?}");
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn custom_resource_definitions_serve_their_kinds() {
    let cluster = start(local()).await.unwrap();
    let client = kube_client(&cluster);
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wg"]},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
                "additionalPrinterColumns": [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}]}]}})).unwrap();
    let created = crds.create(&PostParams::default(), &crd).await.unwrap();
    let conditions = created.status.unwrap().conditions.unwrap();
    assert!(conditions
        .iter()
        .any(|c| c.type_ == "Established" && c.status == "True"));

    let discovery = Discovery::new(client.clone())
        .run_aggregated()
        .await
        .unwrap();
    let (ar, caps) = discovery
        .resolve_gvk(&GroupVersionKind::gvk("example.com", "v1", "Widget"))
        .expect("Widget discovered");
    assert_eq!(caps.scope, Scope::Namespaced);
    let widgets: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &ar);
    let w: DynamicObject = serde_json::from_value(json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"size": 3}, "status": {"phase": "ignored"}})).unwrap();
    let made = widgets.create(&PostParams::default(), &w).await.unwrap();
    assert_eq!(made.metadata.generation, Some(1));
    assert!(
        made.data.get("status").is_none(),
        "status is reset on create"
    );
    let merged = widgets
        .patch(
            "w1",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"size": 4}})),
        )
        .await
        .unwrap();
    assert_eq!(merged.metadata.generation, Some(2));
    let err = widgets
        .patch(
            "w1",
            &PatchParams::default(),
            &Patch::Strategic(json!({"spec": {"size": 5}})),
        )
        .await
        .unwrap_err();
    assert_eq!(status_code(&err), 415);
    let status = widgets
        .patch_status(
            "w1",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"phase": "Ready"}})),
        )
        .await
        .unwrap();
    assert_eq!(status.data["status"]["phase"], "Ready");
    assert_eq!(status.metadata.generation, Some(2));
    let applied = widgets
        .patch(
            "w2",
            &PatchParams::apply("ci"),
            &Patch::Apply(
                json!({"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"size": 1}}),
            ),
        )
        .await
        .unwrap();
    assert_eq!(applied.data["spec"]["size"], 1);
    assert_eq!(common::item_count(&widgets).await, 2);

    let scale = widgets
        .patch_scale(
            "w1",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 3}})),
        )
        .await
        .unwrap();
    assert_eq!(scale.spec.unwrap().replicas, Some(3));
    assert_eq!(widgets.get("w1").await.unwrap().data["spec"]["replicas"], 3);

    crds.delete("widgets.example.com", &DeleteParams::default())
        .await
        .unwrap();
    let ar = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("example.com", "v1", "Widget"),
        "widgets",
    );
    let gone: Api<DynamicObject> = Api::namespaced_with(client, "default", &ar);
    assert_eq!(
        status_code(&gone.list(&ListParams::default()).await.unwrap_err()),
        404
    );
    cluster.shutdown().await.unwrap();
}

#[tokio::test]
async fn state_file_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    let config = Config {
        state_file: Some(path.clone()),
        ..local()
    };
    let cluster = start(config.clone()).await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(kube_client(&cluster), "default");
    api.create(&PostParams::default(), &configmap("kept"))
        .await
        .unwrap();
    cluster.shutdown().await.unwrap();
    assert!(path.exists());
    let cluster = start(config).await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(kube_client(&cluster), "default");
    let kept = api.get("kept").await.unwrap();
    let rv: u64 = kept.metadata.resource_version.unwrap().parse().unwrap();
    let next = api
        .create(&PostParams::default(), &configmap("after"))
        .await
        .unwrap();
    assert!(
        next.metadata
            .resource_version
            .unwrap()
            .parse::<u64>()
            .unwrap()
            > rv
    );
    cluster.shutdown().await.unwrap();
}

/// A raw HTTP/1.1 chunked watch, read line by line, so a test can wait for exact events and
/// see whether the server ended the stream.
struct RawWatch {
    stream: tokio::net::TcpStream,
    buf: Vec<u8>,
    ended: bool,
}

/// Generous outer bound for events that should arrive at once; never a synchronisation.
const RAW_WATCH_PATIENCE: Duration = Duration::from_secs(60);

impl RawWatch {
    async fn open(addr: std::net::SocketAddr, path: &str) -> RawWatch {
        use tokio::io::AsyncWriteExt;
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").as_bytes())
            .await
            .unwrap();
        RawWatch {
            stream,
            buf: vec![],
            ended: false,
        }
    }

    /// The JSON event lines received so far.
    fn lines(&self) -> Vec<String> {
        String::from_utf8_lossy(&self.buf)
            .lines()
            .filter(|l| l.starts_with('{'))
            .map(String::from)
            .collect()
    }

    /// Reads one chunk; false once the server closed the connection.
    async fn read_more(&mut self) -> bool {
        use tokio::io::AsyncReadExt;
        let mut chunk = [0u8; 4096];
        match tokio::time::timeout(RAW_WATCH_PATIENCE, self.stream.read(&mut chunk)).await {
            Ok(Ok(0)) => {
                self.ended = true;
                false
            }
            Ok(Ok(n)) => {
                self.buf.extend_from_slice(&chunk[..n]);
                true
            }
            Ok(Err(e)) => panic!("watch read failed: {e}"),
            Err(_) => panic!(
                "no watch data for {RAW_WATCH_PATIENCE:?}; so far: {:?}",
                self.lines()
            ),
        }
    }

    /// Reads until `want` event lines contain `needle`; fails if the stream ends first.
    async fn wait_for(&mut self, needle: &str, want: usize) -> Vec<String> {
        loop {
            let lines = self.lines();
            if lines.iter().filter(|l| l.contains(needle)).count() >= want {
                return lines;
            }
            assert!(
                self.read_more().await,
                "watch ended before {want} lines with {needle}: {lines:?}"
            );
        }
    }

    /// Reads until the server closes the stream; the lines received in all.
    async fn read_to_end(mut self) -> Vec<String> {
        while self.read_more().await {}
        assert!(self.ended);
        self.lines()
    }
}

#[tokio::test]
async fn chunked_watch_sends_periodic_bookmarks_and_shutdown_ends_watches() {
    let tuning = Tuning {
        bookmark_interval: Duration::from_millis(100),
        ..Tuning::default()
    };
    let cluster = start_with_tuning(local(), tuning).await.unwrap();
    let addr = cluster.addr();
    let lines = RawWatch::open(addr, "/api/v1/nodes?watch=true&allowWatchBookmarks=true")
        .await
        .wait_for("BOOKMARK", 2)
        .await;
    assert_eq!(lines.iter().filter(|l| l.contains("\"ADDED\"")).count(), 3);
    let bookmark: serde_json::Value =
        serde_json::from_str(lines.iter().find(|l| l.contains("BOOKMARK")).unwrap()).unwrap();
    assert_eq!(bookmark["object"]["kind"], "Node");
    assert!(bookmark["object"]["metadata"]["resourceVersion"].is_string());

    // An open watch (30 min default timeout) must not hold up shutdown, and shutdown must end
    // it: the stream is known open once its initial events arrived.
    let mut pending = RawWatch::open(addr, "/api/v1/namespaces?watch=true").await;
    let initial = pending.wait_for("\"ADDED\"", 4).await;
    tokio::time::timeout(Duration::from_secs(30), cluster.shutdown())
        .await
        .expect("shutdown does not wait for the open watch")
        .unwrap();
    let lines = tokio::time::timeout(Duration::from_secs(30), pending.read_to_end())
        .await
        .expect("shutdown ended the open watch");
    assert_eq!(lines, initial, "no event after the initial ones");
}

async fn http_get(addr: std::net::SocketAddr, path: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    let code = out
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, out)
}

#[tokio::test]
async fn www_serves_static_files_beside_the_api() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.html"), "<h1>atlas</h1>").unwrap();
    std::fs::create_dir(dir.path().join("assets")).unwrap();
    std::fs::write(dir.path().join("assets/index.html"), "nested").unwrap();
    std::fs::write(dir.path().join("app-6ad2d810e1c90fb0_bg.wasm"), "\0asm").unwrap();
    let cluster = start(Config {
        www: Some(dir.path().to_path_buf()),
        ..local()
    })
    .await
    .unwrap();
    let (code, body) = http_get(cluster.addr(), "/").await;
    assert_eq!(code, 200);
    assert!(body.contains("<h1>atlas</h1>"));
    let (code, body) = http_get(cluster.addr(), "/assets/").await;
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("nested"));
    // The build's hashed files are kept by browsers for good; the page is asked again.
    let (code, head) = http_get(cluster.addr(), "/app-6ad2d810e1c90fb0_bg.wasm").await;
    assert_eq!(code, 200);
    assert!(
        head.to_ascii_lowercase()
            .contains("cache-control: public, max-age=31536000, immutable"),
        "{head}"
    );
    let (_, head) = http_get(cluster.addr(), "/").await;
    assert!(
        head.to_ascii_lowercase()
            .contains("cache-control: no-cache"),
        "{head}"
    );
    let (code, body) = http_get(cluster.addr(), "/api/").await;
    assert_eq!(code, 200);
    assert!(body.contains("APIVersions"));
    let (code, body) = http_get(cluster.addr(), "/version/").await;
    assert_eq!(code, 200);
    assert!(body.contains("gitVersion"));
    cluster.shutdown().await.unwrap();
}
