//! kube-rs where the other tests are thin: a list paged past 500 items (kube-rs's default
//! page size) and the streaming-list watcher (`sendInitialEvents=true` with
//! `resourceVersionMatch=NotOlderThan`), as controllers on kube-apiserver 1.32+ use it.

use std::time::Duration;

use futures_util::{stream, StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, PostParams};
use kube::runtime::{reflector, watcher, WatchStreamExt};

mod common;

use common::{configmap, empty_cluster_config, kube_client};
use demo_cluster::{start, Config};

const PATIENCE: Duration = Duration::from_secs(60);

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_page_past_500_items_with_continue_tokens() {
    let cluster = start(quiet_cluster()).await.expect("cluster starts");
    let api: Api<ConfigMap> = Api::namespaced(kube_client(&cluster), "default");
    create_configmaps(&api, 1_234).await;

    // By hand, as clients page: limit + continue until the token is empty.
    let mut names = Vec::new();
    let mut token: Option<String> = None;
    let mut pages = 0;
    let mut snapshot: Option<String> = None;
    loop {
        let mut params = ListParams::default().limit(500);
        if let Some(token) = &token {
            params = params.continue_token(token);
        }
        let page = api.list(&params).await.expect("a page");
        pages += 1;
        // Every page of one list is read at the first page's resourceVersion.
        let rv = page
            .metadata
            .resource_version
            .clone()
            .expect("a resourceVersion");
        assert_eq!(snapshot.get_or_insert(rv.clone()), &rv);
        if page.metadata.continue_.is_some() {
            assert!(page.metadata.remaining_item_count.is_some_and(|n| n > 0));
        }
        names.extend(page.items.into_iter().filter_map(|c| c.metadata.name));
        token = page.metadata.continue_.filter(|t| !t.is_empty());
        if token.is_none() {
            break;
        }
    }
    assert_eq!(pages, 3);
    let unique: std::collections::BTreeSet<&String> = names.iter().collect();
    assert_eq!((names.len(), unique.len()), (1_234, 1_234));

    // The watcher's initial list pages the same way (its default page size is 500) and
    // ends with every object.
    let (reader, writer) = reflector::store();
    let stream = reflector(writer, watcher(api.clone(), watcher::Config::default()))
        .applied_objects()
        .boxed();
    let task = tokio::spawn(async move { stream.for_each(|_| async {}).await });
    tokio::time::timeout(PATIENCE, reader.wait_until_ready())
        .await
        .expect("the initial list completes")
        .expect("the store is ready");
    assert_eq!(reader.state().len(), 1_234);
    task.abort();
    cluster.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_list_watcher_sees_everything_then_changes() {
    let cluster = start(quiet_cluster()).await.expect("cluster starts");
    let api: Api<ConfigMap> = Api::namespaced(kube_client(&cluster), "default");
    create_configmaps(&api, 600).await;

    let config = watcher::Config::default().streaming_lists();
    let (reader, writer) = reflector::store();
    let stream = reflector(writer, watcher(api.clone(), config))
        .applied_objects()
        .boxed();
    let task = tokio::spawn(async move { stream.for_each(|_| async {}).await });
    tokio::time::timeout(PATIENCE, reader.wait_until_ready())
        .await
        .expect("the initial events end with their bookmark")
        .expect("the store is ready");
    assert_eq!(reader.state().len(), 600);

    // Then the watch goes on from there.
    api.create(&PostParams::default(), &configmap("after"))
        .await
        .expect("create");
    api.delete("cm-0000", &Default::default())
        .await
        .expect("delete");
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let names: std::collections::BTreeSet<String> = reader
            .state()
            .iter()
            .filter_map(|c| c.metadata.name.clone())
            .collect();
        if names.contains("after") && !names.contains("cm-0000") {
            assert_eq!(names.len(), 600);
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "changes never arrived"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    task.abort();
    cluster.shutdown().await.expect("shutdown");
}
