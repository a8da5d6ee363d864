//! `pods/portforward`, `pods/proxy` and `services/proxy` on the demo cluster: what answers
//! behind a forwarded port (the simulated container, worded as the stand-in kubelet of
//! `../shared/kubernetes`), many connections at once, refusals on the error channel, kubectl's
//! own port-forward (SPDY in a WebSocket), the proxies and the permissions they need.

use std::time::Duration;

use demo_cluster::{start, Config, RunningCluster};
use serde_json::json;

mod common;

use common::portforward::{get, hello, next, open, response, send};

const PODS: &str = "/api/v1/namespaces/default/pods";

async fn started() -> RunningCluster {
    let cluster = start(Config {
        speed: 50.0,
        ..common::empty_cluster_config()
    })
    .await
    .expect("the demo cluster starts");
    common::portforward::create_pods(&cluster.url(), None).await;
    cluster
}

#[tokio::test]
async fn ten_connections_of_ten_requests_each_reach_their_pod_and_port() {
    let cluster = started().await;
    let url = cluster.url();
    let connections = (0..10).map(|i| {
        let url = url.clone();
        tokio::spawn(async move {
            let pod = if i % 2 == 0 { "web" } else { "api" };
            let path = format!("{PODS}/{pod}/portforward?ports=80,8080");
            let mut socket = open(&url, &path, "v4.channel.k8s.io")
                .await
                .expect("upgraded");
            // Each channel opens with its port, little endian.
            for (channel, port) in [(0, 80u16), (1, 80), (2, 8080), (3, 8080)] {
                let opening = next(&mut socket).await.expect("the channel's port");
                assert_eq!(opening, (channel, port.to_le_bytes().to_vec()));
            }
            for request in 0..10 {
                let (channel, port) = if request % 2 == 0 { (0, 80) } else { (2, 8080) };
                let target = format!("/c{i}/r{request}?q=1");
                send(&mut socket, channel, &get(&target)).await;
                let answer = response(&mut socket, channel).await;
                assert_eq!(
                    String::from_utf8_lossy(&answer),
                    String::from_utf8_lossy(&hello(pod, port, &target))
                );
            }
        })
    });
    for connection in futures_util::future::join_all(connections).await {
        connection.expect("the connection's checks pass");
    }
}

#[tokio::test]
async fn a_port_nothing_listens_on_and_a_deleted_pod_say_so_on_the_error_channel() {
    let cluster = started().await;
    let url = cluster.url();
    let mut socket = open(
        &url,
        &format!("{PODS}/web/portforward?ports=81"),
        "v4.channel.k8s.io",
    )
    .await
    .expect("upgraded");
    assert_eq!(next(&mut socket).await, Some((0, vec![81, 0])));
    assert_eq!(next(&mut socket).await, Some((1, vec![81, 0])));
    let (channel, error) = next(&mut socket).await.expect("the error");
    let error = String::from_utf8_lossy(&error).into_owned();
    assert_eq!(channel, 1);
    assert!(
        error.starts_with("error forwarding port 81 to pod ")
            && error.contains("dial tcp4 127.0.0.1:81: connect: connection refused"),
        "{error}"
    );
    assert_eq!(next(&mut socket).await, None, "the socket closes");

    // A session open when its pod is deleted: the next request gets the error.
    let mut socket = open(
        &url,
        &format!("{PODS}/api/portforward?ports=80"),
        "v4.channel.k8s.io",
    )
    .await
    .expect("upgraded");
    for _ in 0..2 {
        next(&mut socket).await.expect("the channels' ports");
    }
    let client = common::raw::client_for(&url);
    let delete = http::Request::delete(format!("{PODS}/api?gracePeriodSeconds=0"));
    let reply = common::raw::send(&client, delete, vec![], "DELETE pod").await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let deadline = tokio::time::Instant::now() + common::PATIENCE;
    loop {
        let reply = common::raw::send(
            &client,
            http::Request::get(format!("{PODS}/api")),
            vec![],
            "GET",
        )
        .await;
        if reply.status == 404 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "api was not deleted"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    send(&mut socket, 0, &get("/")).await;
    let (channel, error) = next(&mut socket).await.expect("the error");
    assert_eq!(channel, 1);
    assert!(String::from_utf8_lossy(&error).starts_with("error forwarding port 80 to pod "));
    // And a new session is refused before the upgrade, in kube-apiserver's words.
    let refused = open(
        &url,
        &format!("{PODS}/api/portforward?ports=80"),
        "v4.channel.k8s.io",
    )
    .await;
    let Err((status, body)) = refused else {
        panic!("a new session to a deleted pod was upgraded");
    };
    assert_eq!(status, 404);
    assert!(
        body.contains(r#""message":"pods \"api\" not found""#),
        "{body}"
    );
}

#[tokio::test]
async fn refusals_before_the_upgrade_are_kube_apiservers_and_the_kubelets() {
    let cluster = started().await;
    let url = cluster.url();
    let without_ports = open(
        &url,
        &format!("{PODS}/web/portforward"),
        "v4.channel.k8s.io",
    )
    .await;
    assert_eq!(
        without_ports.err(),
        Some((400, "query parameter \"port\" is required\n".to_string()))
    );
    let unknown = open(
        &url,
        &format!("{PODS}/web/portforward?ports=80"),
        "x.k8s.io",
    )
    .await;
    assert_eq!(unknown.err(), Some((403, String::new())));
    let client = common::raw::client_for(&url);
    let plain = common::raw::send(
        &client,
        http::Request::get(format!("{PODS}/web/portforward?ports=80")),
        vec![],
        "GET",
    )
    .await;
    assert_eq!(
        (plain.status, plain.json()["message"].clone()),
        (400, json!("Upgrade request required"))
    );
}

#[test]
#[cfg_attr(not(have_kubectl), ignore = "needs kubectl")]
fn kubectl_port_forward_reaches_the_pod() {
    kubectl_port_forward_reaches_the_pod_over(true);
}

#[test]
#[cfg_attr(not(have_kubectl), ignore = "needs kubectl")]
fn kubectl_port_forward_over_a_plain_spdy_upgrade_reaches_the_pod() {
    kubectl_port_forward_reaches_the_pod_over(false);
}

/// `kubectl port-forward` and two GETs through it; `websockets` false is kubectl's plain
/// SPDY/3.1 upgrade (`KUBECTL_PORT_FORWARD_WEBSOCKETS=false`, as kubectl before 1.31).
fn kubectl_port_forward_reaches_the_pod_over(websockets: bool) {
    let url = common::start_on_own_runtime(Config {
        speed: 50.0,
        ..common::empty_cluster_config()
    })
    .expect("the demo cluster starts");
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(common::portforward::create_pods(&url, None));
    let kubectl = common::Kubectl {
        server: url.clone(),
        home: tempfile::tempdir().expect("a temporary home"),
    };
    let local = envtest::free_port();
    let mut child = kubectl
        .command(&["port-forward", "pod/web", &format!("{local}:8080")])
        .env("KUBECTL_PORT_FORWARD_WEBSOCKETS", websockets.to_string())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("kubectl port-forward starts");
    envtest::announced_port(&mut child, "Forwarding from 127.0.0.1:").expect("kubectl forwards");
    let answers = [
        common::portforward::http_get(local, "/one?x=1"),
        common::portforward::http_get(local, "/two"),
    ];
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        answers,
        [
            String::from_utf8_lossy(&hello("web", 8080, "/one?x=1")).into_owned(),
            String::from_utf8_lossy(&hello("web", 8080, "/two")).into_owned()
        ]
    );
}
