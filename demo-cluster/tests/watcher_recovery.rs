//! kube-rs's watcher and reflector recovering the way they do against kube-apiserver: a
//! timed-out watch is resumed from the last resourceVersion, an expired one (410) forces a
//! relist, and the reflector still ends equal to a fresh list.
//!
//! The test sees the watcher's requests through a layer on its client, so it waits for
//! exact requests (a re-watch after a timeout) instead of sleeping, and checks where each
//! watch resumed from and that no extra relist happened.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::{reflector, watcher, WatchStreamExt};
use serde_json::json;

mod common;

use common::{configmap, empty_cluster_config, kube_client, PATIENCE};
use demo_cluster::{start_with_tuning, Config, RunningCluster, Tuning};

/// The watcher's requests for the watched collection, as its client sent them.
#[derive(Debug, Default)]
struct SeenRequests {
    lists: usize,
    /// The resourceVersion each watch started from, in order.
    watches_from: Vec<String>,
}

const WATCHED_PATH: &str = "/api/v1/namespaces/default/configmaps";

/// A kube-rs client that records its requests for [`WATCHED_PATH`].
fn recording_client(cluster: &RunningCluster, seen: Arc<Mutex<SeenRequests>>) -> kube::Client {
    let config = kube::Config::new(cluster.url().parse().expect("cluster URL"));
    let record = move |request: http::Request<kube::client::Body>| {
        let uri = request.uri();
        if uri.path() == WATCHED_PATH {
            let query: Vec<(String, String)> = uri
                .query()
                .unwrap_or_default()
                .split('&')
                .filter_map(|pair| pair.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let param = |name: &str| {
                query
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.clone())
            };
            let mut seen = seen.lock().expect("requests lock");
            if param("watch").as_deref() == Some("true") {
                seen.watches_from
                    .push(param("resourceVersion").unwrap_or_default());
            } else {
                seen.lists += 1;
            }
        }
        request
    };
    kube::client::ClientBuilder::try_from(config)
        .expect("client config")
        .with_layer(&tower::util::MapRequestLayer::new(record))
        .build()
}

/// Polls `done` (a condition that lasts once reached) until it holds, failing after
/// [`PATIENCE`] with `what`.
async fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !done() {
        assert!(tokio::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

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
    let seen = Arc::new(Mutex::new(SeenRequests::default()));
    let watched: Api<ConfigMap> =
        Api::namespaced(recording_client(&cluster, seen.clone()), "default");
    let client = kube_client(&cluster);
    let writer_api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let elsewhere: Api<ConfigMap> = Api::namespaced(client, "kube-public");
    for i in 0..3 {
        writer_api
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
    assert_eq!(seen.lock().expect("requests lock").lists, 1);

    // Writes in another namespace push the watcher's resume point out of the cache, so its
    // next watch (after the 1 s timeout) gets 410 Expired and it must relist.
    for i in 0..10 {
        elsewhere
            .create(&PostParams::default(), &configmap(&format!("noise-{i}")))
            .await
            .expect("create elsewhere");
    }
    wait_until("the watcher relists after its resume point expired", || {
        relists.load(Ordering::SeqCst) >= 2
    })
    .await;
    assert_eq!(seen.lock().expect("requests lock").lists, 2);

    // Changes after the relist, across more timeouts, still arrive.
    writer_api
        .delete("pre-0", &DeleteParams::default())
        .await
        .expect("delete");
    let patched = writer_api
        .patch(
            "pre-1",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"k": "changed"}})),
        )
        .await
        .expect("patch");
    let patched_rv = patched
        .metadata
        .resource_version
        .expect("a resourceVersion");
    // The watch that saw the patch times out after 1 s; the next one must resume from the
    // patch's resourceVersion, the last it saw (no bookmarks, nothing newer here).
    wait_until("a re-watch from the patch's resourceVersion", || {
        seen.lock()
            .expect("requests lock")
            .watches_from
            .contains(&patched_rv)
    })
    .await;
    writer_api
        .create(&PostParams::default(), &configmap("after-timeout"))
        .await
        .expect("create");

    let expected = names(&writer_api).await;
    let deadline = tokio::time::Instant::now() + PATIENCE;
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
    // Timeouts were resumed, never relisted: the one relist is the 410's.
    assert_eq!(relists.load(Ordering::SeqCst), 2);
    let requests = std::mem::take(&mut *seen.lock().expect("requests lock"));
    assert_eq!(requests.lists, 2, "{requests:?}");
    assert!(
        requests
            .watches_from
            .iter()
            .all(|rv| !rv.is_empty() && rv != "0"),
        "every watch resumed from a known resourceVersion: {requests:?}"
    );
    task.abort();
    cluster.shutdown().await.expect("shutdown");
}
