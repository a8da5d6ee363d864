//! Port-forwards through kube-atlas (`/kube-atlas/forwards`), on the real control plane (its
//! stand-in kubelet answers every forwarded port with `Hello from pod NS/NAME, port P: GET
//! /path`) and on the demo cluster. Every connection made here is to loopback: kube-atlas's
//! own listeners, never a pod address.

mod support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use support::backends::{local_address, Backend, Cluster};

/// An HTTP/1.1 connection to a forward's local port.
type Connection = hyper::client::conn::http1::SendRequest<Empty<Bytes>>;

async fn connect(addr: SocketAddr) -> Connection {
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .unwrap_or_else(|e| panic!("connects to the forward at {addr}: {e}"));
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("HTTP handshake");
    tokio::spawn(connection);
    sender
}

/// `GET path` on an open connection: the whole answer as text.
async fn get_text(connection: &mut Connection, path: &str) -> String {
    connection.ready().await.expect("the connection is ready");
    let request = hyper::Request::get(path)
        .header("host", "127.0.0.1")
        .body(Empty::new())
        .expect("request");
    let response = tokio::time::timeout(Duration::from_secs(20), connection.send_request(request))
        .await
        .unwrap_or_else(|_| panic!("GET {path}: no answer within 20 s"))
        .unwrap_or_else(|e| panic!("GET {path}: {e}"));
    let body = response
        .into_body()
        .collect()
        .await
        .expect("the body")
        .to_bytes();
    String::from_utf8_lossy(&body).into_owned()
}

fn hello(pod: &str, port: u16, path: &str) -> String {
    format!("Hello from pod default/{pod}, port {port}: GET {path}\n")
}

fn id_of(info: &Value) -> String {
    info["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no id in {info}"))
        .to_string()
}

async fn started(cluster: &Cluster, kind: &str, name: &str, port: Value) -> Value {
    let (status, info) = cluster.start_forward("admin", kind, name, port, None).await;
    assert_eq!(status, 201, "the forward starts: {info}");
    info
}

async fn hundred_requests_over_ten_connections(backend: Backend) {
    let cluster = Cluster::start(backend).await;
    cluster.running_pod("web-1", json!({"app": "web"})).await;
    let info = started(&cluster, "Pod", "web-1", json!(8080)).await;
    assert_eq!(info["pod"], "web-1");
    assert_eq!(
        info["url"],
        format!("http://{}", info["localAddress"].as_str().unwrap_or(""))
    );
    let addr = local_address(&info);
    assert!(addr.ip().is_loopback(), "{info}");
    let connections = (0..10).map(|c| {
        tokio::spawn(async move {
            let mut connection = connect(addr).await;
            for r in 0..10 {
                let path = format!("/c{c}/r{r}");
                assert_eq!(
                    get_text(&mut connection, &path).await,
                    hello("web-1", 8080, &path)
                );
            }
        })
    });
    for connection in futures_util::future::join_all(connections).await {
        connection.expect("a connection's 10 requests were answered right");
    }
    let listed = cluster
        .call("GET", "/kube-atlas/forwards", &Value::Null)
        .await
        .1;
    let listed = &listed["forwards"][0];
    assert_eq!(listed["id"], info["id"], "{listed}");
    assert_eq!(listed["target"], json!({"kind": "Pod", "name": "web-1"}));
    assert!(listed["bytesIn"].as_u64() >= Some(100 * 40), "{listed}");
    assert!(listed["bytesOut"].as_u64() > Some(0), "{listed}");
}

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_a_forward_carries_100_requests_over_10_connections_to_the_right_pod_and_port() {
    hundred_requests_over_ten_connections(Backend::Real).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_a_forward_carries_100_requests_over_10_connections_to_the_right_pod_and_port() {
    hundred_requests_over_ten_connections(Backend::Demo).await;
}

async fn stopping_closes_the_listener(backend: Backend) {
    let cluster = Cluster::start(backend).await;
    cluster.running_pod("web-1", json!({"app": "web"})).await;
    let info = started(&cluster, "Pod", "web-1", json!("http")).await;
    assert_eq!(
        info["remotePort"], 8080,
        "the named port is the container's: {info}"
    );
    let addr = local_address(&info);
    let mut connection = connect(addr).await;
    assert_eq!(
        get_text(&mut connection, "/").await,
        hello("web-1", 8080, "/")
    );
    let id = id_of(&info);
    let (status, stopped) = cluster
        .call(
            "DELETE",
            &format!("/kube-atlas/forwards/{id}"),
            &Value::Null,
        )
        .await;
    assert_eq!(status, 200, "{stopped}");
    assert_eq!(stopped["ended"], "stopped from the page");
    let refused = tokio::net::TcpStream::connect(addr)
        .await
        .expect_err("the listener is closed");
    assert_eq!(
        refused.kind(),
        std::io::ErrorKind::ConnectionRefused,
        "{refused}"
    );
    // Its open connection went with it.
    let request = hyper::Request::get("/")
        .body(Empty::new())
        .expect("request");
    assert!(
        connection.send_request(request).await.is_err(),
        "the connection outlived its forward"
    );
    let listed = cluster
        .call("GET", "/kube-atlas/forwards", &Value::Null)
        .await
        .1;
    assert_eq!(listed["forwards"], json!([]));
    assert_eq!(listed["ended"][0]["id"], json!(id));
}

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_stopping_a_forward_closes_its_listener_and_connections() {
    stopping_closes_the_listener(Backend::Real).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_stopping_a_forward_closes_its_listener_and_connections() {
    stopping_closes_the_listener(Backend::Demo).await;
}

async fn a_deleted_pod_ends_its_forward(backend: Backend) {
    let cluster = Cluster::start(backend).await;
    cluster.running_pod("web-1", json!({"app": "web"})).await;
    let info = started(&cluster, "Pod", "web-1", json!(8080)).await;
    let id = id_of(&info);
    cluster.delete_pod("web-1").await;
    let clock = Instant::now();
    let ended = cluster
        .wait_for_forward(&id, |info| !info["ended"].is_null())
        .await;
    assert_eq!(ended["ended"], "pod default/web-1 was deleted", "{ended}");
    assert!(
        clock.elapsed() < Duration::from_secs(5),
        "ended after {:?}",
        clock.elapsed()
    );
    let refused = tokio::net::TcpStream::connect(local_address(&info)).await;
    assert!(
        refused.is_err(),
        "the listener of an ended forward still accepts"
    );
}

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_a_deleted_pod_ends_its_forward_saying_why() {
    a_deleted_pod_ends_its_forward(Backend::Real).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_a_deleted_pod_ends_its_forward_saying_why() {
    a_deleted_pod_ends_its_forward(Backend::Demo).await;
}

async fn a_service_forward_moves(backend: Backend) {
    let cluster = Cluster::start(backend).await;
    cluster.running_pod("web-1", json!({"app": "web"})).await;
    cluster.running_pod("web-2", json!({"app": "web"})).await;
    cluster.running_pod("other", json!({"app": "other"})).await;
    cluster
        .create(
            "services",
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
            "spec": {"selector": {"app": "web"},
                "ports": [{"name": "web", "port": 80, "targetPort": "http"}]}}),
        )
        .await;
    let info = started(&cluster, "Service", "web", json!(80)).await;
    assert_eq!(
        info["remotePort"], 8080,
        "port 80 is targetPort http, 8080: {info}"
    );
    let first = info["pod"].as_str().unwrap_or_default().to_string();
    let second = if first == "web-1" { "web-2" } else { "web-1" };
    assert!(first == "web-1" || first == "web-2", "{info}");
    let addr = local_address(&info);
    assert_eq!(
        get_text(&mut connect(addr).await, "/a").await,
        hello(&first, 8080, "/a")
    );
    cluster.delete_pod(&first).await;
    let id = id_of(&info);
    let moved = cluster
        .wait_for_forward(&id, |info| info["pod"] != first.as_str())
        .await;
    assert_eq!(moved["pod"], second);
    assert!(moved["ended"].is_null(), "{moved}");
    let note = format!("moved to pod {second}: {first} was deleted");
    assert_eq!(moved["notes"], json!([note]), "{moved}");
    assert_eq!(
        get_text(&mut connect(addr).await, "/b").await,
        hello(second, 8080, "/b")
    );
}

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_a_service_forward_moves_to_another_ready_pod_when_its_pod_is_deleted() {
    a_service_forward_moves(Backend::Real).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_a_service_forward_moves_to_another_ready_pod_when_its_pod_is_deleted() {
    a_service_forward_moves(Backend::Demo).await;
}

async fn refusals_in_words(backend: Backend) {
    let cluster = Cluster::start(backend).await;
    cluster.running_pod("web-1", json!({"app": "web"})).await;
    // A local port another program holds.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port to hold");
    let port = taken.local_addr().expect("its address").port();
    let (status, refused) = cluster
        .start_forward("admin", "Pod", "web-1", json!(8080), Some(port))
        .await;
    assert_eq!(
        (status, refused["reason"].as_str()),
        (409, Some("Conflict")),
        "{refused}"
    );
    let words = format!("local port {port} is already in use on 127.0.0.1");
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.starts_with(&words)),
        "{refused}"
    );
    // The viewer may read the pod but not create pods/portforward.
    let (status, refused) = cluster
        .start_forward("viewer", "Pod", "web-1", json!(8080), None)
        .await;
    assert_eq!(status, 403, "{refused}");
    assert_eq!(
        refused["message"],
        "forbidden: forwarding a port needs the permission to create pods/portforward in namespace default"
    );
    // A Service whose selector matches no pod.
    cluster
        .create(
            "services",
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "empty"},
            "spec": {"selector": {"app": "nothing"}, "ports": [{"port": 80}]}}),
        )
        .await;
    let (status, refused) = cluster
        .start_forward("admin", "Service", "empty", json!(80), None)
        .await;
    assert_eq!(status, 503, "{refused}");
    assert_eq!(
        refused["message"],
        "service default/empty has no ready endpoints: no running, ready pod matches app=nothing"
    );
    let (status, refused) = cluster
        .start_forward("admin", "Pod", "nope", json!(80), None)
        .await;
    assert_eq!(
        (status, refused["message"].as_str()),
        (404, Some("pod default/nope was not found"))
    );
    assert_eq!(
        cluster
            .call("GET", "/kube-atlas/forwards", &Value::Null)
            .await
            .1["forwards"],
        json!([])
    );
}

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_a_taken_local_port_a_viewer_and_an_empty_service_are_refused_in_words() {
    refusals_in_words(Backend::Real).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_a_taken_local_port_a_viewer_and_an_empty_service_are_refused_in_words() {
    refusals_in_words(Backend::Demo).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_another_origin_or_a_form_cannot_start_a_forward() {
    let cluster = Cluster::start(Backend::Demo).await;
    let request = json!({"context": "admin", "namespace": "default",
        "target": {"kind": "Pod", "name": "web-1"}, "port": 80, "keepAfterPageCloses": true})
    .to_string();
    let addr = cluster.atlas.addr;
    let foreign = [
        ("origin", "http://evil.example"),
        ("content-type", "application/json"),
    ];
    let response = support::send(addr, "POST", "/kube-atlas/forwards", &foreign, &request).await;
    assert_eq!(response.status(), 403);
    // What a form of any page can send, without a CORS preflight.
    let origin = cluster.origin();
    let form = [("origin", origin.as_str()), ("content-type", "text/plain")];
    let response = support::send(addr, "POST", "/kube-atlas/forwards", &form, &request).await;
    assert_eq!(response.status(), 415);
    // A forward that ends with its page needs the page's session.
    let unowned = json!({"context": "admin", "namespace": "default",
        "target": {"kind": "Pod", "name": "web-1"}, "port": 80});
    let (status, refused) = cluster.call("POST", "/kube-atlas/forwards", &unowned).await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.contains("session")),
        "{refused}"
    );
}
