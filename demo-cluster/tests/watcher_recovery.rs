//! kube-rs's watcher and reflector recovering the way they do against kube-apiserver: a
//! timed-out watch is resumed from the last resourceVersion, an expired one (410) forces a
//! relist, and the reflector still ends equal to a fresh list.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::{reflector, watcher, WatchStreamExt};
use serde_json::json;

mod common;

use common::{configmap, empty_cluster_config, kube_client};
use demo_cluster::{start_with_tuning, Config, Tuning};

async fn names(api: &Api<ConfigMap>) -> Vec<String> {
    let mut names: Vec<String> = api
        .list(&ListParams::default())
        .await
        .expect("list")
        .items
        .into_iter()
        .filter_map(|c| c.metadata.name)
        .collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflector_survives_timeouts_and_a_forced_410_relist() {
    // A tiny watch cache makes the watcher's resume point expire quickly.
    let tuning = Tuning {
        watch_cache_capacity: 4,
        ..Tuning::default()
    };
    let cluster = start_with_tuning(
        Config {
            controllers: false,
            ..empty_cluster_config()
        },
        tuning,
    )
    .await
    .expect("cluster starts");
    let client = kube_client(&cluster);
    let watched: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let elsewhere: Api<ConfigMap> = Api::namespaced(client, "kube-public");
    for i in 0..3 {
        watched
            .create(&PostParams::default(), &configmap(&format!("pre-{i}")))
            .await
            .expect("create");
    }

    // Watches time out after 1 s, and without bookmarks the watcher's resourceVersion only
    // moves with events of its own namespace.
    let config = watcher::Config::default().timeout(1).disable_bookmarks();
    let relists = Arc::new(AtomicUsize::new(0));
    let counted = relists.clone();
    let (reader, writer) = reflector::store();
    let stream = reflector(
        writer,
        watcher(watched.clone(), config).inspect(move |event| {
            if matches!(event, Ok(watcher::Event::Init)) {
                counted.fetch_add(1, Ordering::SeqCst);
            }
        }),
    )
    .default_backoff()
    .applied_objects();
    let task = tokio::spawn(async move {
        // Errors (the 410 among them) are items of the stream: keep polling past them, as
        // controllers do, so the watcher can recover.
        let mut stream = std::pin::pin!(stream);
        while stream.next().await.is_some() {}
    });
    reader.wait_until_ready().await.expect("initial list");
    assert_eq!(relists.load(Ordering::SeqCst), 1);

    // Writes in another namespace push the watcher's resume point out of the cache, so its
    // next watch (after the 1 s timeout) gets 410 Expired and it must relist.
    for i in 0..10 {
        elsewhere
            .create(&PostParams::default(), &configmap(&format!("noise-{i}")))
            .await
            .expect("create elsewhere");
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while relists.load(Ordering::SeqCst) < 2 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the watcher never relisted after its resume point expired"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Changes after the relist, across more timeouts, still arrive.
    watched
        .delete("pre-0", &DeleteParams::default())
        .await
        .expect("delete");
    watched
        .patch(
            "pre-1",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"k": "changed"}})),
        )
        .await
        .expect("patch");
    tokio::time::sleep(Duration::from_millis(1200)).await;
    watched
        .create(&PostParams::default(), &configmap("after-timeout"))
        .await
        .expect("create");

    let expected = names(&watched).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let mut have: Vec<String> = reader
            .state()
            .iter()
            .filter_map(|c| c.metadata.name.clone())
            .collect();
        have.sort();
        let patched = reader.state().iter().any(|c| {
            c.metadata.name.as_deref() == Some("pre-1")
                && c.data.as_ref().and_then(|d| d.get("k")).map(String::as_str) == Some("changed")
        });
        if have == expected && patched {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "reflector has {have:?}, a fresh list has {expected:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    task.abort();
    cluster.shutdown().await.expect("shutdown");
}
