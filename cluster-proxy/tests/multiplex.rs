//! `/kube-atlas/multiplex`: many watches over one WebSocket to kube-atlas, against the demo
//! cluster: each stream gets its own events, a closed one stops (its upstream watch too) while
//! the others go on, refusals arrive as a status and a Status document, more streams than a
//! browser's six connections all deliver, and a foreign page cannot open the socket.

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use envtest::{ContextEntry, Credentials, ServerCheck};
use futures_util::{SinkExt, StreamExt};
use kube_atlas_server::{ClusterState, RunningServer};
use serde_json::{json, Value};
use support::{get, quick_timeouts, send, start_atlas, wait_for_state};
use tokio_tungstenite::tungstenite::{self, Message};

type Socket = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";
const WAIT: Duration = Duration::from_secs(20);

/// The demo cluster: a bare API server (no controllers, no seeded workloads).
async fn start_demo(token_auth_file: Option<std::path::PathBuf>) -> demo_cluster::RunningCluster {
    demo_cluster::start(demo_cluster::Config {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        controllers: false,
        empty: true,
        token_auth_file,
        ..Default::default()
    })
    .await
    .expect("the demo cluster starts")
}

fn anonymous(name: &str, server: String) -> ContextEntry<'_> {
    ContextEntry {
        name,
        server,
        check: ServerCheck::Unchecked,
        credentials: Credentials::Anonymous,
    }
}

/// Opens the multiplexing socket as a page of `origin` would.
async fn connect(addr: SocketAddr, origin: &str) -> Result<Socket, tungstenite::Error> {
    support::multiplex_socket(addr, origin, None).await
}

fn own_origin(atlas: &RunningServer) -> String {
    format!("http://127.0.0.1:{}", atlas.addr.port())
}

/// The multiplexing socket and every frame read from it so far.
struct Mux {
    socket: Socket,
    frames: Vec<Value>,
}

impl Mux {
    async fn open(atlas: &RunningServer) -> Mux {
        let socket = connect(atlas.addr, &own_origin(atlas))
            .await
            .expect("the multiplexing socket opens");
        Mux {
            socket,
            frames: Vec::new(),
        }
    }

    async fn send(&mut self, message: Value) {
        self.send_text(&message.to_string()).await;
    }

    async fn send_text(&mut self, text: &str) {
        self.socket
            .send(Message::text(text))
            .await
            .expect("the message is sent");
    }

    async fn watch(&mut self, id: u64, cluster: &str, path: &str, accept: Option<&str>) {
        let mut open = json!({ "op": "open", "id": id, "cluster": cluster, "path": path });
        if let Some(accept) = accept {
            open["accept"] = json!(accept);
        }
        self.send(open).await;
    }

    /// Reads frames until `done` holds of what was read (up to 20 s).
    async fn read_until(&mut self, what: &str, done: impl Fn(&Mux) -> bool) {
        let deadline = tokio::time::Instant::now() + WAIT;
        while !done(self) {
            let message = tokio::time::timeout_at(deadline, self.socket.next())
                .await
                .unwrap_or_else(|_| panic!("waited 20 s for {what}; read {:?}", self.frames));
            match message {
                Some(Ok(Message::Text(text))) => self
                    .frames
                    .push(serde_json::from_str(text.as_str()).expect("every frame is JSON")),
                Some(Ok(_)) => {}
                other => panic!("the socket ended waiting for {what}: {other:?}"),
            }
        }
    }

    fn of(&self, id: u64) -> Vec<&Value> {
        self.frames.iter().filter(|f| f["id"] == id).collect()
    }

    /// Everything stream `id` sent as `data`, joined.
    fn text(&self, id: u64) -> String {
        self.of(id)
            .iter()
            .filter_map(|f| f["data"].as_str())
            .collect()
    }

    fn status(&self, id: u64) -> Option<u64> {
        self.of(id).iter().find_map(|f| f["status"].as_u64())
    }

    fn ended(&self, id: u64) -> bool {
        self.of(id).iter().any(|f| f["end"] == true)
    }

    async fn until_text(&mut self, id: u64, needle: &str) {
        self.read_until(&format!("{needle:?} on stream {id}"), |mux| {
            mux.text(id).contains(needle)
        })
        .await;
    }

    /// The watch event of stream `id` that names `name`.
    fn event(&self, id: u64, name: &str) -> Value {
        let text = self.text(id);
        let line = text
            .lines()
            .find(|line| line.contains(&format!("\"{name}\"")))
            .unwrap_or_else(|| panic!("no event of {name} on stream {id}: {text}"));
        serde_json::from_str(line).expect("a watch event is a JSON line")
    }
}

/// Creates an object through kube-atlas's ordinary proxy path, as the page does.
async fn create(atlas: &RunningServer, cluster: &str, collection: &str, object: Value) {
    let response = send(
        atlas.addr,
        "POST",
        &format!("/clusters/{cluster}/api/v1/namespaces/default/{collection}"),
        &[
            ("origin", &own_origin(atlas)),
            ("content-type", "application/json"),
        ],
        &object.to_string(),
    )
    .await;
    assert_eq!(response.status(), 201, "creating {object}");
}

fn config_map(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
           "data": {"a": "é🦀"}})
}

fn pod(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"containers": [{"name": "web", "image": "nginx"}]}})
}

/// Waits (up to 20 s) until the demo cluster has `want` open watch subscriptions.
async fn wait_for_watches(demo: &demo_cluster::RunningCluster, want: usize, what: &str) {
    let store = demo.registry().store.clone();
    let deadline = tokio::time::Instant::now() + WAIT;
    while store.subscriber_count() != want {
        assert!(
            tokio::time::Instant::now() < deadline,
            "waited 20 s for {what}: {} watches upstream, want {want}",
            store.subscriber_count()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_watches_share_one_socket_and_closing_one_leaves_the_other() {
    let demo = start_demo(None).await;
    let atlas = start_atlas(
        &envtest::kubeconfig_of(&[anonymous("demo", demo.url())]),
        quick_timeouts(),
    )
    .await;
    let before = demo.registry().store.subscriber_count();
    let mut mux = Mux::open(&atlas).await;
    let configmaps = "/api/v1/namespaces/default/configmaps?watch=true";
    mux.watch(1, "demo", configmaps, Some(TABLE)).await;
    mux.watch(
        2,
        "demo",
        "/api/v1/namespaces/default/pods?watch=true",
        None,
    )
    .await;
    mux.read_until("both answers", |mux| {
        mux.status(1).is_some() && mux.status(2).is_some()
    })
    .await;
    assert_eq!((mux.status(1), mux.status(2)), (Some(200), Some(200)));
    wait_for_watches(&demo, before + 2, "both watches upstream").await;

    create(&atlas, "demo", "configmaps", config_map("mux-first")).await;
    mux.until_text(1, "mux-first").await;
    let event = mux.event(1, "mux-first");
    assert_eq!(event["type"], "ADDED", "{event}");
    assert_eq!(event["object"]["kind"], "Table", "{event}");
    assert_eq!(
        event["object"]["rows"][0]["cells"][0], "mux-first",
        "{event}"
    );
    create(&atlas, "demo", "pods", pod("mux-pod")).await;
    mux.until_text(2, "mux-pod").await;
    let event = mux.event(2, "mux-pod");
    assert_eq!(event["type"], "ADDED", "{event}");
    assert_eq!(event["object"]["kind"], "Pod", "{event}");
    assert!(!mux.text(1).contains("mux-pod"), "{}", mux.text(1));
    assert!(!mux.text(2).contains("mux-first"), "{}", mux.text(2));

    // Closing stream 1 ends it (and its upstream watch); stream 2 goes on.
    mux.send(json!({"op": "close", "id": 1})).await;
    mux.read_until("stream 1's end", |mux| mux.ended(1)).await;
    assert_eq!(mux.of(1).last(), Some(&&json!({"id": 1, "end": true})));
    wait_for_watches(&demo, before + 1, "stream 1's upstream watch to close").await;
    let frames_of_1 = mux.of(1).len();
    create(&atlas, "demo", "configmaps", config_map("mux-second")).await;
    create(&atlas, "demo", "pods", pod("mux-pod-2")).await;
    mux.until_text(2, "mux-pod-2").await;
    assert_eq!(mux.event(2, "mux-pod-2")["type"], "ADDED");
    assert_eq!(mux.of(1).len(), frames_of_1, "{:?}", mux.of(1));
    assert!(!mux.ended(2));

    // The page closes the socket: every stream's upstream watch closes.
    mux.socket.close(None).await.expect("the socket closes");
    wait_for_watches(&demo, before, "the watches to close with the socket").await;
    atlas.stop().await;
    demo.shutdown().await.expect("the demo cluster stops");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_streams_than_a_browsers_six_connections_all_deliver() {
    let demo = start_demo(None).await;
    let atlas = start_atlas(
        &envtest::kubeconfig_of(&[anonymous("demo", demo.url())]),
        quick_timeouts(),
    )
    .await;
    let before = demo.registry().store.subscriber_count();
    let mut mux = Mux::open(&atlas).await;
    let ids: Vec<u64> = (100..112).collect();
    for &id in &ids {
        let accept = (id % 2 == 0).then_some(TABLE);
        let path = "/api/v1/namespaces/default/configmaps?watch=true";
        mux.watch(id, "demo", path, accept).await;
    }
    wait_for_watches(&demo, before + ids.len(), "twelve watches upstream").await;
    create(&atlas, "demo", "configmaps", config_map("for-everyone")).await;
    for &id in &ids {
        mux.until_text(id, "for-everyone").await;
        let event = mux.event(id, "for-everyone");
        assert_eq!(event["type"], "ADDED", "{id}: {event}");
        let kind = if id % 2 == 0 { "Table" } else { "ConfigMap" };
        assert_eq!(event["object"]["kind"], kind, "{id}: {event}");
        assert_eq!(mux.status(id), Some(200));
    }
    // The page vanishes without closing: the streams are aborted all the same.
    drop(mux);
    wait_for_watches(&demo, before, "the watches to close with the socket").await;
    atlas.stop().await;
    demo.shutdown().await.expect("the demo cluster stops");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_come_as_a_status_and_its_status_document_then_end() {
    let demo = start_demo(None).await;
    let tokens =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../demo-cluster/tokens.example.csv");
    // RBAC on; kube-atlas's user has no token there, so it is system:anonymous.
    let guarded = start_demo(Some(tokens)).await;
    let nothing_there = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("its address")
    };
    let atlas = start_atlas(
        &envtest::kubeconfig_of(&[
            anonymous("demo", demo.url()),
            anonymous("guarded", guarded.url()),
            anonymous("gone", format!("http://{nothing_there}")),
        ]),
        quick_timeouts(),
    )
    .await;
    let mut mux = Mux::open(&atlas).await;
    let missing = "/api/v1/namespaces/default/configmaps/missing";
    mux.watch(1, "demo", missing, None).await;
    let pods = "/api/v1/namespaces/default/pods?watch=true";
    mux.watch(2, "guarded", pods, None).await;
    mux.watch(3, "nowhere", pods, None).await;
    mux.watch(4, "gone", pods, None).await;
    mux.send_text(r#"{"op":"open","id":5,"cluster":"demo","path":"api/v1/pods"}"#)
        .await;
    // Not answerable (no id): ignored, and the socket goes on.
    mux.send_text("not JSON at all").await;
    mux.send_text(r#"{"op":"open","cluster":"demo","path":"/version"}"#)
        .await;
    mux.watch(6, "demo", "/version", None).await;
    let ids = [1, 2, 3, 4, 5, 6];
    mux.read_until("every stream's end", |mux| {
        ids.iter().all(|&id| mux.ended(id))
    })
    .await;
    for (id, code, reason, words) in [
        (1, 404, "NotFound", "\"missing\" not found"),
        (2, 403, "Forbidden", "system:anonymous"),
        (
            3,
            404,
            "NotFound",
            "kube-atlas serves no context \"nowhere\"",
        ),
        (4, 502, "ServiceUnavailable", "cluster gone: unreachable"),
        (5, 400, "BadRequest", "does not start with /"),
    ] {
        let frames = mux.of(id);
        assert_eq!(frames.first(), Some(&&json!({"id": id, "status": code})));
        assert_eq!(frames.last(), Some(&&json!({"id": id, "end": true})));
        let status: Value = serde_json::from_str(&mux.text(id)).expect("a Status document");
        assert_eq!(status["kind"], "Status", "{id}: {status}");
        assert_eq!(status["code"], code, "{id}: {status}");
        assert_eq!(status["reason"], reason, "{id}: {status}");
        let message = status["message"].as_str().unwrap_or_default();
        assert!(message.contains(words), "{id}: {status}");
    }
    assert_eq!(mux.status(6), Some(200));
    assert!(mux.text(6).contains("gitVersion"), "{}", mux.text(6));
    assert!(
        mux.frames
            .iter()
            .all(|f| f["id"].as_u64().is_some_and(|id| ids.contains(&id))),
        "{:?}",
        mux.frames
    );
    // The unreachable cluster is marked so, as a request on the proxy path would mark it.
    let gone = wait_for_state(&atlas, "gone", |state| {
        matches!(state, ClusterState::Failed { .. })
    })
    .await;
    assert!(
        matches!(&gone, ClusterState::Failed { reason } if reason.starts_with("unreachable")),
        "{gone:?}"
    );
    atlas.stop().await;
    demo.shutdown().await.expect("the demo cluster stops");
    guarded.shutdown().await.expect("the demo cluster stops");
}

#[tokio::test]
async fn a_foreign_page_cannot_open_the_socket() {
    // No cluster is reached: the refusal comes first.
    let atlas = start_atlas(
        &envtest::kubeconfig_of(&[anonymous("demo", "http://127.0.0.1:9".to_string())]),
        quick_timeouts(),
    )
    .await;
    match connect(atlas.addr, "http://evil.example").await {
        Err(tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 403);
            let body = String::from_utf8_lossy(response.body().as_deref().unwrap_or_default());
            assert!(body.contains("another origin"), "{body}");
        }
        other => panic!("a foreign origin's socket opened: {:?}", other.map(|_| ())),
    }
    // The page's own origin may; a request that is no WebSocket is told so.
    let socket = connect(atlas.addr, &own_origin(&atlas)).await;
    assert!(socket.is_ok(), "{:?}", socket.map(|_| ()));
    let (status, body) = get(atlas.addr, "/kube-atlas/multiplex", &[]).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("is a WebSocket"), "{body}");
    atlas.stop().await;
}
