//! Chaos mode (`--chaos`): each fault as a client sees it on the wire (raw HTTP and
//! WebSocket), faulted writes not applied, kube-rs's watcher converging under a mix of
//! faults, the same seed giving the same faults, and a `--state-file` restart that keeps the
//! objects and moves the resourceVersion on.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::runtime::{reflector, watcher, WatchStreamExt};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;

mod common;

use common::{configmap, empty_cluster_config, kube_client, PATIENCE};
use demo_cluster::chaos::{Chaos, ChaosSpec, Fault};
use demo_cluster::storage::object::ObjectKey;
use demo_cluster::{start, Config, RunningCluster, RESTART_RV_STEP};

fn spec(text: &str) -> ChaosSpec {
    text.parse().expect("valid chaos spec")
}

/// A bare API server (no controllers writing) with chaos mode on.
fn chaos_config(chaos: &str, seed: u64) -> Config {
    Config {
        controllers: false,
        chaos: Some(spec(chaos)),
        seed,
        ..empty_cluster_config()
    }
}

async fn chaos_cluster(chaos: &str, seed: u64) -> RunningCluster {
    start(chaos_config(chaos, seed))
        .await
        .expect("cluster starts")
}

fn cm_key(name: &str) -> ObjectKey {
    ObjectKey::new("", "configmaps", "default", name)
}

/// Writes a ConfigMap straight into the store, past chaos (setup for the HTTP checks).
fn put_configmap(cluster: &RunningCluster, name: &str) -> u64 {
    let stored = cluster
        .registry()
        .store
        .create(
            &cm_key(name),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}),
        )
        .expect("stored");
    stored["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|rv| rv.parse().ok())
        .expect("a resourceVersion")
}

/// One HTTP/1.1 exchange read to the end (`Connection: close`).
struct Reply {
    code: u16,
    headers: Vec<(String, String)>,
    /// The body as sent (a chunked body keeps its chunk sizes).
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// The JSON lines of a chunked watch body.
    fn events(&self) -> Vec<Value> {
        self.body
            .lines()
            .filter(|l| l.starts_with('{'))
            .map(|l| serde_json::from_str(l).expect("a JSON watch line"))
            .collect()
    }

    /// Whether a chunked body ended with its last (empty) chunk: a clean end, not a reset.
    fn ended_cleanly(&self) -> bool {
        self.header("transfer-encoding") == Some("chunked") && self.body.ends_with("0\r\n\r\n")
    }
}

async fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> Reply {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let body = body.map(Value::to_string).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream
        .write_all(format!("{head}{body}").as_bytes())
        .await
        .expect("request written");
    let mut raw = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut raw))
        .await
        .unwrap_or_else(|_| panic!("{method} {path}: no end of response"))
        .expect("response read");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a complete head");
    let mut lines = head.lines();
    let code = lines
        .next()
        .and_then(|status| status.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .expect("a status line");
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    Reply {
        code,
        headers,
        body: body.to_string(),
    }
}

fn assert_status(reply: &Reply, code: u16, reason: &str) -> Value {
    assert_eq!(reply.code, code, "{}", reply.body);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let status = reply.json();
    assert_eq!(status["kind"], "Status");
    assert_eq!(status["apiVersion"], "v1");
    assert_eq!(status["status"], "Failure");
    assert_eq!(status["code"], code);
    assert_eq!(status["reason"], reason);
    status
}

/// A watch over WebSocket: the text messages until the server closes.
async fn websocket_watch(addr: SocketAddr, path: &str) -> (Vec<Value>, bool) {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}{path}"))
        .await
        .expect("WebSocket upgrade");
    let mut messages = Vec::new();
    let mut closed = false;
    let read = async {
        while let Some(msg) = ws.next().await {
            match msg.expect("WebSocket message") {
                Message::Text(t) => messages.push(serde_json::from_str(&t).expect("JSON event")),
                Message::Close(_) => {
                    closed = true;
                    break;
                }
                _ => {}
            }
        }
    };
    tokio::time::timeout(PATIENCE, read)
        .await
        .expect("the server ended the WebSocket watch");
    let _ = ws.close(None).await;
    (messages, closed)
}

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";

#[tokio::test]
async fn error_answers_500_status_and_faulted_writes_are_not_applied() {
    let www = tempfile::tempdir().expect("www dir");
    std::fs::write(www.path().join("index.html"), "<h1>atlas</h1>").expect("index");
    let cluster = start(Config {
        www: Some(www.path().to_path_buf()),
        ..chaos_config("error=1", 5)
    })
    .await
    .expect("cluster starts");
    let addr = cluster.addr();
    let store = cluster.registry().store.clone();

    let status = assert_status(
        &http(addr, "GET", CONFIGMAPS, None).await,
        500,
        "InternalError",
    );
    assert!(
        status["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Internal error occurred: injected by --chaos")),
        "{status}"
    );
    assert!(status["details"]["causes"][0]["message"].is_string());
    for path in ["/api", "/apis", "/version", "/openapi/v3", "/api/v1/nodes"] {
        assert_status(&http(addr, "GET", path, None).await, 500, "InternalError");
    }

    // Writes answered 500 never reached the store.
    let rv_before = store.current_rv();
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new"}});
    assert_status(
        &http(addr, "POST", CONFIGMAPS, Some(&cm)).await,
        500,
        "InternalError",
    );
    assert_eq!(
        store.get(&cm_key("new")),
        None,
        "the create was not applied"
    );
    put_configmap(&cluster, "old");
    let rv_before_writes = store.current_rv();
    assert!(rv_before_writes > rv_before);
    let item = format!("{CONFIGMAPS}/old");
    let changed = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "old"}, "data": {"k": "v"}});
    assert_status(
        &http(addr, "PUT", &item, Some(&changed)).await,
        500,
        "InternalError",
    );
    assert_status(
        &http(addr, "PATCH", &item, Some(&json!({"data": {"k": "v"}}))).await,
        500,
        "InternalError",
    );
    assert_status(
        &http(addr, "DELETE", &item, None).await,
        500,
        "InternalError",
    );
    assert_eq!(store.current_rv(), rv_before_writes, "no write was applied");
    assert!(store
        .get(&cm_key("old"))
        .is_some_and(|o| o.get("data").is_none()));

    // kube-rs sees the Status as an API error (500 is not retried).
    let api: Api<ConfigMap> = Api::namespaced(kube_client(&cluster), "default");
    match api.get("old").await {
        Err(kube::Error::Api(s)) => assert_eq!((s.code, s.reason.as_str()), (500, "InternalError")),
        other => panic!("expected a 500 Status, got {other:?}"),
    }

    // Health checks and the static UI files are left alone.
    for path in ["/healthz", "/livez", "/readyz"] {
        let reply = http(addr, "GET", path, None).await;
        assert_eq!((reply.code, reply.body.as_str()), (200, "ok"), "{path}");
    }
    let page = http(addr, "GET", "/index.html", None).await;
    assert_eq!(page.code, 200);
    assert!(page.body.contains("<h1>atlas</h1>"));
    cluster.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn throttle_answers_429_with_retry_after_and_kube_rs_waits_it_out() {
    let cluster = chaos_cluster("throttle=1", 5).await;
    let addr = cluster.addr();
    let reply = http(addr, "GET", CONFIGMAPS, None).await;
    let status = assert_status(&reply, 429, "TooManyRequests");
    assert_eq!(reply.header("retry-after"), Some("1"));
    assert_eq!(status["details"]["retryAfterSeconds"], 1);
    assert_eq!(
        status["message"],
        "Too many requests, please try again later."
    );
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new"}});
    assert_status(
        &http(addr, "POST", CONFIGMAPS, Some(&cm)).await,
        429,
        "TooManyRequests",
    );
    assert_eq!(cluster.registry().store.get(&cm_key("new")), None);
    cluster.shutdown().await.expect("shutdown");

    // A seed whose first request is throttled and second is not: kube-rs's default retry
    // honours Retry-After, so its get succeeds after waiting a second.
    let half = spec("throttle=0.5");
    let seed = (0..1000)
        .find(|s| {
            let chaos = Chaos::new(half.clone(), *s);
            chaos.draw(0).fault == Some(Fault::Throttle) && chaos.draw(1).fault.is_none()
        })
        .expect("such a seed");
    let cluster = chaos_cluster("throttle=0.5", seed).await;
    put_configmap(&cluster, "there");
    let api: Api<ConfigMap> = Api::namespaced(kube_client(&cluster), "default");
    let began = Instant::now();
    api.get("there").await.expect("the retried get succeeds");
    assert!(
        began.elapsed() >= Duration::from_secs(1),
        "waited Retry-After"
    );
    cluster.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn expire_answers_resumed_watches_with_410_expired_on_both_transports() {
    let cluster = chaos_cluster("expire=1", 5).await;
    let addr = cluster.addr();
    let rv = put_configmap(&cluster, "there");

    // Chunked: a 200 stream with one ERROR event, then a clean end.
    let reply = http(
        addr,
        "GET",
        &format!("{CONFIGMAPS}?watch=true&resourceVersion={rv}"),
        None,
    )
    .await;
    assert_eq!(reply.code, 200);
    assert!(reply.ended_cleanly(), "{}", reply.body);
    let events = reply.events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["type"], "ERROR");
    let status = &events[0]["object"];
    assert_eq!(status["kind"], "Status");
    assert_eq!(
        (status["code"].as_u64(), status["reason"].as_str()),
        (Some(410), Some("Expired"))
    );
    assert!(
        status["message"]
            .as_str()
            .is_some_and(|m| m.starts_with(&format!("too old resource version: {rv} ("))),
        "{status}"
    );

    // WebSocket: the ERROR message, then the close.
    let (messages, closed) = websocket_watch(
        addr,
        &format!("{CONFIGMAPS}?watch=true&resourceVersion={rv}"),
    )
    .await;
    assert!(closed);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0]["type"], "ERROR");
    assert_eq!(messages[0]["object"]["reason"], "Expired");

    // Watches without a resume point, and lists (even at a version), are not affected.
    let (messages, _) =
        websocket_watch(addr, &format!("{CONFIGMAPS}?watch=true&timeoutSeconds=1")).await;
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0]["type"], "ADDED");
    let (messages, _) = websocket_watch(
        addr,
        &format!("{CONFIGMAPS}?watch=true&resourceVersion=0&timeoutSeconds=1"),
    )
    .await;
    assert_eq!(messages[0]["type"], "ADDED");
    let list = http(
        addr,
        "GET",
        &format!("{CONFIGMAPS}?resourceVersion={rv}"),
        None,
    )
    .await;
    assert_eq!(list.code, 200, "{}", list.body);
    assert_eq!(list.json()["items"][0]["metadata"]["name"], "there");
    cluster.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn drop_watch_ends_watch_streams_on_both_transports() {
    let cluster = chaos_cluster("drop-watch=1", 5).await;
    let addr = cluster.addr();
    let rv = put_configmap(&cluster, "first");

    // A watch's initial state is cut inside: nothing arrives, the stream ends cleanly.
    let reply = http(addr, "GET", &format!("{CONFIGMAPS}?watch=true"), None).await;
    assert_eq!(reply.code, 200);
    assert!(reply.ended_cleanly(), "{}", reply.body);
    assert_eq!(reply.events(), Vec::<Value>::new());

    // A resumed watch is cut before the first change it would send (replayed or live).
    let path = format!("{CONFIGMAPS}?watch=true&resourceVersion={rv}&allowWatchBookmarks=true");
    let subscribed_before = cluster.registry().store.subscriber_count();
    let live = tokio::spawn({
        let path = path.clone();
        async move { http(addr, "GET", &path, None).await }
    });
    let ws = tokio::spawn({
        let path = path.clone();
        async move { websocket_watch(addr, &path).await }
    });
    // Both watches are open (subscribed to the store) and quiet until the change below.
    common::wait_for_subscribers(
        &cluster.registry(),
        |count| count >= subscribed_before + 2,
        "the watches to subscribe",
    )
    .await;
    assert!(!live.is_finished() && !ws.is_finished());
    put_configmap(&cluster, "second");
    let reply = live.await.expect("chunked watch");
    assert_eq!(reply.code, 200);
    assert!(reply.ended_cleanly(), "{}", reply.body);
    assert_eq!(reply.events(), Vec::<Value>::new());
    let (messages, closed) = ws.await.expect("WebSocket watch");
    assert!(closed, "the WebSocket was closed");
    assert_eq!(messages, Vec::<Value>::new());
    cluster.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn the_same_seed_repeats_the_fault_sequence() {
    async fn codes(seed: u64) -> Vec<u16> {
        let cluster = chaos_cluster("error=0.3,throttle=0.3", seed).await;
        let mut codes = Vec::new();
        for _ in 0..40 {
            codes.push(
                http(cluster.addr(), "GET", "/api/v1/namespaces", None)
                    .await
                    .code,
            );
        }
        cluster.shutdown().await.expect("shutdown");
        codes
    }
    let first = codes(42).await;
    assert_eq!(first, codes(42).await, "same seed, same answers");
    assert_ne!(first, codes(43).await, "another seed, other answers");
    for code in [200, 429, 500] {
        assert!(first.contains(&code), "{code} in {first:?}");
    }
    // The server follows the decision source a test can compute.
    let chaos = Chaos::new(spec("error=0.3,throttle=0.3"), 42);
    let predicted: Vec<u16> = (0..40)
        .map(|i| match chaos.draw(i).fault {
            Some(Fault::Error) => 500,
            Some(Fault::Throttle) => 429,
            None => 200,
        })
        .collect();
    assert_eq!(first, predicted);
}

/// Retries what chaos answered 500 or 429: safe, as faulted writes were not applied (a
/// create applied despite its 500 would come back 409 AlreadyExists and fail here).
async fn retrying<T, F, Fut>(what: &str, mut op: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, kube::Error>>,
{
    for _ in 0..50 {
        match op().await {
            Ok(v) => return v,
            Err(kube::Error::Api(s)) if s.code == 500 || s.code == 429 => continue,
            Err(e) => panic!("{what}: {e}"),
        }
    }
    panic!("{what}: still failing after 50 tries");
}

/// (name, resourceVersion) of every ConfigMap in `default`, sorted.
type Versions = Vec<(String, String)>;

fn stored_versions(cluster: &RunningCluster) -> Versions {
    let (items, _) = cluster
        .registry()
        .store
        .list("", "configmaps", Some("default"));
    let mut v: Versions = items
        .iter()
        .map(|o| {
            (
                o["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                o["metadata"]["resourceVersion"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

/// ConfigMaps left by one round of [`churn_configmaps`]: 30 created, 6 deleted.
const KEPT_PER_ROUND: usize = 24;

/// Creates, patches and deletes ConfigMaps through the API, retrying injected faults; names
/// carry `round`, so rounds add up.
async fn churn_configmaps(api: &Api<ConfigMap>, round: usize) {
    let (post, patch, delete) = (
        PostParams::default(),
        PatchParams::default(),
        DeleteParams::default(),
    );
    for i in 0..30 {
        let name = format!("cm-{round}-{i}");
        let object = configmap(&name);
        retrying(&format!("create {name}"), || api.create(&post, &object)).await;
        if i % 3 == 0 {
            let change = Patch::Merge(json!({"data": {"k": format!("changed-{i}")}}));
            retrying(&format!("patch {name}"), || {
                api.patch(&name, &patch, &change)
            })
            .await;
        }
        if i % 5 == 0 {
            retrying(&format!("delete {name}"), || api.delete(&name, &delete)).await;
        }
        // Paced, so most changes reach the watcher live rather than in a relist.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Rounds of churn at most while waiting for the first relist. Each round cuts about a
/// dozen streams and `expire=0.1` answers each resume 410 with probability 0.1, so a round
/// relists with probability about 0.7; eight rounds without one mean resumes are not expired.
const MAX_CHURN_ROUNDS: usize = 8;

/// Runs a reflector under `spec` while the cluster is written to, in rounds until it has
/// relisted at least once after its first list (at most [`MAX_CHURN_ROUNDS`]); it must end
/// equal to the store. Returns how many watch requests and relists it took: a relist is an
/// Init after the first InitDone, so retries of the first list do not count.
async fn reflector_converges(chaos: &str, config: watcher::Config) -> (usize, usize) {
    let cluster = chaos_cluster(chaos, 7).await;
    let watches = Arc::new(AtomicUsize::new(0));
    let counted = watches.clone();
    let count_watches = move |request: http::Request<kube::client::Body>| {
        if request
            .uri()
            .query()
            .is_some_and(|q| q.contains("watch=true"))
        {
            counted.fetch_add(1, Ordering::SeqCst);
        }
        request
    };
    let client = kube::client::ClientBuilder::try_from(kube::Config::new(
        cluster.url().parse().expect("cluster URL"),
    ))
    .expect("client config")
    .with_layer(&tower::util::MapRequestLayer::new(count_watches))
    .build();
    let watched: Api<ConfigMap> = Api::namespaced(client, "default");
    let relists = Arc::new(AtomicUsize::new(0));
    let counted = relists.clone();
    let first_list_done = AtomicBool::new(false);
    let (reader, writer) = reflector::store();
    let stream = reflector(
        writer,
        watcher(watched, config).inspect(move |event| match event {
            Ok(watcher::Event::InitDone) => first_list_done.store(true, Ordering::SeqCst),
            Ok(watcher::Event::Init) if first_list_done.load(Ordering::SeqCst) => {
                counted.fetch_add(1, Ordering::SeqCst);
            }
            _ => {}
        }),
    )
    .default_backoff();
    let task = tokio::spawn(async move {
        // Errors (500s, 429s, 410s) are items of the stream: keep polling past them, as
        // controllers do, so the watcher recovers.
        let mut stream = std::pin::pin!(stream);
        while stream.next().await.is_some() {}
    });

    // The changes come after the initial list, so the watches carry them (and get cut).
    tokio::time::timeout(PATIENCE, reader.wait_until_ready())
        .await
        .expect("initial list within the patience")
        .expect("initial list");
    let api: Api<ConfigMap> = Api::namespaced(kube_client(&cluster), "default");
    let mut rounds = 0;
    while rounds < MAX_CHURN_ROUNDS && relists.load(Ordering::SeqCst) == 0 {
        churn_configmaps(&api, rounds).await;
        rounds += 1;
    }
    let want = stored_versions(&cluster);
    assert_eq!(want.len(), KEPT_PER_ROUND * rounds, "{want:?}");
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let mut have: Versions = reader
            .state()
            .iter()
            .map(|c| {
                (
                    c.metadata.name.clone().unwrap_or_default(),
                    c.metadata.resource_version.clone().unwrap_or_default(),
                )
            })
            .collect();
        have.sort();
        if have == want {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "reflector has {have:?}, the store {want:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    task.abort();
    cluster.shutdown().await.expect("shutdown");
    (
        watches.load(Ordering::SeqCst),
        relists.load(Ordering::SeqCst),
    )
}

const MIXED: &str = "drop-watch=0.2,expire=0.1,throttle=0.05,error=0.05";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_rs_watcher_converges_under_chaos() {
    let (watches, relists) = reflector_converges(MIXED, watcher::Config::default()).await;
    eprintln!("list+watch: {watches} watches, {relists} relists");
    // About 60 changes a round, each cutting its stream with probability 0.2: streams were
    // cut and resumed, and some resume was answered 410 and relisted.
    assert!(watches >= 2, "{watches} watches");
    assert!(
        relists >= 1,
        "no relist after the first list in {MAX_CHURN_ROUNDS} rounds: resumes never expired"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_rs_streaming_list_watcher_converges_under_chaos() {
    let (watches, relists) =
        reflector_converges(MIXED, watcher::Config::default().streaming_lists()).await;
    eprintln!("streaming list: {watches} watches, {relists} relists");
    assert!(watches >= 2, "{watches} watches");
    assert!(
        relists >= 1,
        "no relist after the first list in {MAX_CHURN_ROUNDS} rounds: resumes never expired"
    );
}

#[tokio::test]
async fn a_state_file_restart_keeps_objects_and_moves_the_resource_version_on() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = Config {
        controllers: false,
        state_file: Some(dir.path().join("state.json")),
        ..empty_cluster_config()
    };
    let cluster = start(config.clone()).await.expect("cluster starts");
    let api: Api<ConfigMap> = Api::namespaced(kube_client(&cluster), "default");
    let kept = api
        .create(&PostParams::default(), &configmap("kept"))
        .await
        .expect("create");
    let kept_rv: u64 = kept
        .metadata
        .resource_version
        .as_deref()
        .and_then(|rv| rv.parse().ok())
        .expect("a resourceVersion");
    let before = cluster.registry().store.current_rv();
    assert_eq!(before, kept_rv, "the last write");
    cluster.shutdown().await.expect("shutdown");

    let cluster = start(config).await.expect("cluster restarts");
    let addr = cluster.addr();
    let api: Api<ConfigMap> = Api::namespaced(kube_client(&cluster), "default");
    let again = api.get("kept").await.expect("kept across the restart");
    assert_eq!(
        again.metadata.resource_version,
        kept.metadata.resource_version
    );
    assert_eq!(again.metadata.uid, kept.metadata.uid);

    // The list version moved on past every pre-restart version.
    let list = http(addr, "GET", CONFIGMAPS, None).await.json();
    let list_rv: u64 = list["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|rv| rv.parse().ok())
        .expect("a list resourceVersion");
    assert_eq!(list_rv, before + RESTART_RV_STEP);

    // Resuming from the last pre-restart version: 410 Expired, as kube-apiserver's rebuilt
    // watch cache answers versions older than its first list. The client relists.
    let reply = http(
        addr,
        "GET",
        &format!("{CONFIGMAPS}?watch=true&resourceVersion={before}"),
        None,
    )
    .await;
    let events = reply.events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["type"], "ERROR");
    assert_eq!(events[0]["object"]["reason"], "Expired");
    assert_eq!(
        events[0]["object"]["message"],
        format!("too old resource version: {before} ({list_rv})")
    );
    let exact = http(
        addr,
        "GET",
        &format!("{CONFIGMAPS}?resourceVersion={before}&resourceVersionMatch=Exact"),
        None,
    )
    .await;
    assert_status(&exact, 410, "Expired");

    // From the new list version the watch works, and new writes are numbered above it.
    let path = format!("{CONFIGMAPS}?watch=true&resourceVersion={list_rv}&timeoutSeconds=2");
    let watch = tokio::spawn(async move { http(addr, "GET", &path, None).await });
    let after = api
        .create(&PostParams::default(), &configmap("after"))
        .await
        .expect("create after the restart");
    let after_rv: u64 = after
        .metadata
        .resource_version
        .as_deref()
        .and_then(|rv| rv.parse().ok())
        .expect("a resourceVersion");
    assert_eq!(after_rv, list_rv + 1);
    let events = watch.await.expect("watch").events();
    let names: Vec<&str> = events
        .iter()
        .map(|e| e["object"]["metadata"]["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, ["after"], "{events:?}");
    assert_eq!(events[0]["type"], "ADDED");
    cluster.shutdown().await.expect("shutdown");
}

#[test]
fn a_state_file_lagging_behind_its_objects_still_moves_the_version_past_them() {
    // A file whose own version is older than an object in it (hand-edited, or written by an
    // older build): the counter starts past the object anyway.
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("state.json");
    let doc = json!({"resourceVersion": 5, "objects": [{
        "group": "", "resource": "configmaps", "namespace": "default", "name": "x",
        "object": {"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "x", "namespace": "default", "resourceVersion": "900"}}}]});
    std::fs::write(&path, doc.to_string()).expect("state written");
    let config = Config {
        state_file: Some(path),
        ..Config::default()
    };
    let registry = demo_cluster::build_registry(&config, &demo_cluster::Tuning::default())
        .expect("state loads");
    assert_eq!(registry.store.current_rv(), 900 + RESTART_RV_STEP);
    assert!(registry.store.get(&cm_key("x")).is_some());
}
