//! kube-rs where the other tests are thin: a list paged past 500 items (kube-rs's default
//! page size), the streaming-list watcher (`sendInitialEvents=true` with
//! `resourceVersionMatch=NotOlderThan`), as controllers on kube-apiserver 1.32+ use it, and
//! pod evictions (`pods/eviction`, policy/v1).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use futures_util::stream::BoxStream;
use futures_util::{stream, StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::{Api, EvictParams, ListParams, PostParams};
use kube::client::{Body, ClientBuilder};
use kube::runtime::reflector::Store;
use kube::runtime::{reflector, watcher};
use kube::{Client, Resource};

mod common;

use common::{configmap, empty_cluster_config, kube_client, PATIENCE};
use demo_cluster::{start, Config, RunningCluster};

const COUNT: usize = 1_234;

async fn create_configmaps(api: &Api<ConfigMap>, count: usize) {
    let created = stream::iter(0..count)
        .map(|i| {
            let api = api.clone();
            async move {
                api.create(&PostParams::default(), &configmap(&format!("cm-{i:04}")))
                    .await
            }
        })
        .buffer_unordered(16)
        .try_collect::<Vec<_>>()
        .await
        .expect("every create succeeds");
    assert_eq!(created.len(), count);
}

fn quiet_cluster() -> Config {
    Config {
        controllers: false,
        ..empty_cluster_config()
    }
}

/// name → resourceVersion of what the objects' metadata says.
fn versions<'a>(
    metas: impl IntoIterator<Item = &'a kube::api::ObjectMeta>,
) -> BTreeMap<String, String> {
    metas
        .into_iter()
        .map(|m| {
            (
                m.name.clone().expect("a name"),
                m.resource_version.clone().expect("a resourceVersion"),
            )
        })
        .collect()
}

/// What a fresh (unpaged) list returns now.
async fn fresh_list(api: &Api<ConfigMap>) -> BTreeMap<String, String> {
    let list = api.list(&ListParams::default()).await.expect("a list");
    assert!(list.metadata.continue_.is_none());
    versions(list.items.iter().map(|c| &c.metadata))
}

fn store_versions(reader: &Store<ConfigMap>) -> BTreeMap<String, String> {
    let state = reader.state();
    versions(state.iter().map(|c| c.meta()))
}

/// A client that records the path and query of every request it sends.
fn recording_client(cluster: &RunningCluster) -> (Client, Arc<Mutex<Vec<String>>>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = log.clone();
    let config = kube::Config::new(cluster.url().parse().expect("cluster URL"));
    let client = ClientBuilder::try_from(config)
        .expect("client builder")
        .with_layer(&tower::util::MapRequestLayer::new(
            move |req: http::Request<Body>| {
                sink.lock().expect("log").push(req.uri().to_string());
                req
            },
        ))
        .build();
    (client, log)
}

/// Pages through the whole collection by hand (limit + continue) with `write_between` run
/// after the first page; returns the names seen and the number of pages.
async fn page_by_hand<F, Fut>(
    api: &Api<ConfigMap>,
    limit: u32,
    write_between: F,
) -> (Vec<String>, usize)
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut names = Vec::new();
    let mut token: Option<String> = None;
    let mut pages = 0;
    let mut snapshot: Option<String> = None;
    let mut write_between = Some(write_between);
    loop {
        let mut params = ListParams::default().limit(limit);
        if let Some(token) = &token {
            params = params.continue_token(token);
        }
        let page = api.list(&params).await.expect("a page");
        pages += 1;
        assert!(page.items.len() <= limit as usize);
        // Every page of one list is read at the first page's resourceVersion.
        let rv = page
            .metadata
            .resource_version
            .clone()
            .expect("a resourceVersion");
        assert_eq!(snapshot.get_or_insert(rv.clone()), &rv);
        token = page.metadata.continue_.filter(|t| !t.is_empty());
        let remaining = page.metadata.remaining_item_count;
        assert_eq!(
            token.is_some(),
            remaining.is_some_and(|n| n > 0),
            "{remaining:?}"
        );
        names.extend(page.items.into_iter().filter_map(|c| c.metadata.name));
        if let Some(remaining) = remaining {
            assert_eq!(
                names.len() + remaining as usize,
                COUNT,
                "remainingItemCount"
            );
        }
        if let Some(write) = write_between.take() {
            write().await;
        }
        if token.is_none() {
            break;
        }
    }
    (names, pages)
}

async fn next_event(
    events: &mut BoxStream<'_, Result<watcher::Event<ConfigMap>, watcher::Error>>,
) -> watcher::Event<ConfigMap> {
    tokio::time::timeout(PATIENCE, events.next())
        .await
        .expect("a watcher event in time")
        .expect("the stream goes on")
        .expect("no watcher error")
}

fn assert_each_once(names: &[String], count: usize) {
    let unique: std::collections::BTreeSet<&String> = names.iter().collect();
    assert_eq!((names.len(), unique.len()), (count, count));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_page_past_500_items_with_continue_tokens() {
    let cluster = start(quiet_cluster()).await.expect("cluster starts");
    let api: Api<ConfigMap> = Api::namespaced(kube_client(&cluster), "default");
    create_configmaps(&api, COUNT).await;

    // By hand, as clients page: limit 200 + continue until the token is empty. A create and a
    // delete after the first page do not show: the pages are one snapshot.
    let (names, pages) = page_by_hand(&api, 200, || async {
        api.create(&PostParams::default(), &configmap("zz-late"))
            .await
            .expect("create");
        api.delete("cm-1233", &Default::default())
            .await
            .expect("delete");
    })
    .await;
    assert_eq!(pages, 7);
    assert_each_once(&names, COUNT);
    assert!(names.contains(&"cm-1233".to_string()) && !names.contains(&"zz-late".to_string()));

    // A new list sees the writes; 500 a page (kube-rs's watcher default) takes three pages.
    let (names, pages) = page_by_hand(&api, 500, || async {}).await;
    assert_eq!(pages, 3);
    assert_each_once(&names, COUNT);
    assert!(!names.contains(&"cm-1233".to_string()) && names.contains(&"zz-late".to_string()));

    // Metadata-only lists page the same way.
    let first = api
        .list_metadata(&ListParams::default().limit(1_000))
        .await
        .expect("a metadata page");
    let token = first.metadata.continue_.clone().expect("a continue token");
    let rest = api
        .list_metadata(&ListParams::default().limit(1_000).continue_token(&token))
        .await
        .expect("the last metadata page");
    assert!(rest.metadata.continue_.is_none());
    let names: Vec<String> = first
        .items
        .iter()
        .chain(&rest.items)
        .filter_map(|m| m.metadata.name.clone())
        .collect();
    assert_eq!(first.items.len(), 1_000);
    assert_each_once(&names, COUNT);

    // The watcher's initial list pages the same way and its store equals a fresh list.
    let (reader, writer) = reflector::store();
    let config = watcher::Config::default().page_size(200);
    let stream = reflector(writer, watcher(api.clone(), config)).boxed();
    let task = tokio::spawn(async move { stream.for_each(|_| async {}).await });
    tokio::time::timeout(PATIENCE, reader.wait_until_ready())
        .await
        .expect("the initial list completes")
        .expect("the store is ready");
    assert_eq!(store_versions(&reader), fresh_list(&api).await);
    task.abort();
    cluster.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_list_watcher_sees_everything_then_changes() {
    let cluster = start(quiet_cluster()).await.expect("cluster starts");
    let api: Api<ConfigMap> = Api::namespaced(kube_client(&cluster), "default");
    create_configmaps(&api, 600).await;

    let (client, requests) = recording_client(&cluster);
    let watched: Api<ConfigMap> = Api::namespaced(client, "default");
    let config = watcher::Config::default().streaming_lists();
    let (reader, writer) = reflector::store();
    let mut events = reflector(writer, watcher(watched, config)).boxed();

    // Init, one InitApply per object, InitDone (after the server's initial-events bookmark).
    let mut initial = 0;
    loop {
        match next_event(&mut events).await {
            watcher::Event::Init => {}
            watcher::Event::InitApply(_) => initial += 1,
            watcher::Event::InitDone => break,
            other => panic!("before InitDone: {other:?}"),
        }
    }
    assert_eq!(initial, 600);
    let listed = fresh_list(&api).await;
    assert_eq!(listed.len(), 600);
    assert_eq!(store_versions(&reader), listed);
    {
        let sent = requests.lock().expect("log");
        assert!(!sent.is_empty());
        assert!(
            sent.iter().all(|uri| uri.contains("watch=true")
                && uri.contains("sendInitialEvents=true")
                && uri.contains("resourceVersionMatch=NotOlderThan")),
            "only streaming watches, no list: {sent:#?}"
        );
    }

    // Then the watch goes on from there.
    api.create(&PostParams::default(), &configmap("after"))
        .await
        .expect("create");
    api.delete("cm-0000", &Default::default())
        .await
        .expect("delete");
    let (mut created, mut deleted) = (false, false);
    while !(created && deleted) {
        match next_event(&mut events).await {
            watcher::Event::Apply(cm) => {
                assert_eq!(cm.metadata.name.as_deref(), Some("after"));
                created = true;
            }
            watcher::Event::Delete(cm) => {
                assert_eq!(cm.metadata.name.as_deref(), Some("cm-0000"));
                deleted = true;
            }
            other => panic!("after InitDone: {other:?}"),
        }
    }
    let listed = fresh_list(&api).await;
    assert!(listed.contains_key("after") && !listed.contains_key("cm-0000"));
    assert_eq!(store_versions(&reader), listed);
    cluster.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evictions_delete_pods() {
    let cluster = start(quiet_cluster()).await.expect("cluster starts");
    let client = kube_client(&cluster);
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    pods.create(&PostParams::default(), &common::nginx_pod("evicted"))
        .await
        .expect("create");

    let dry = EvictParams {
        post_options: PostParams {
            dry_run: true,
            ..Default::default()
        },
        ..Default::default()
    };
    let status = pods
        .evict("evicted", &dry)
        .await
        .expect("a dry-run eviction");
    assert_eq!(
        (status.status, status.code),
        (Some(kube::core::response::StatusSummary::Success), 201)
    );
    assert!(pods.get_opt("evicted").await.expect("get").is_some());

    // An Eviction naming another pod than its URL is refused.
    let body = serde_json::json!({"apiVersion": "policy/v1", "kind": "Eviction",
        "metadata": {"name": "other", "namespace": "default"}});
    let request = http::Request::post("/api/v1/namespaces/default/pods/evicted/eviction")
        .header("content-type", "application/json")
        .body(serde_json::to_vec(&body).expect("json"))
        .expect("request");
    let refused = client
        .request::<kube::core::Status>(request)
        .await
        .expect_err("a mismatched name");
    assert!(
        matches!(&refused, kube::Error::Api(s) if s.code == 400),
        "{refused:?}"
    );

    let status = pods
        .evict("evicted", &EvictParams::default())
        .await
        .expect("an eviction");
    assert_eq!(status.code, 201);
    assert!(pods.get_opt("evicted").await.expect("get").is_none());
    let gone = pods
        .evict("evicted", &EvictParams::default())
        .await
        .expect_err("nothing left to evict");
    assert!(
        matches!(&gone, kube::Error::Api(s) if s.code == 404),
        "{gone:?}"
    );
    cluster.shutdown().await.expect("shutdown");
}
