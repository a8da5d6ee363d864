//! `pods/proxy` and `services/proxy` on the demo cluster: answered by the simulated container
//! behind the pod or a ready endpoint of the service, with kube-apiserver's refusals (503 when
//! nothing answers, 301 to the slash, 403 without the permission); and the hostile page.

use std::path::Path;

use demo_cluster::{start, Config};
use serde_json::json;

mod common;

use common::raw::{client_for, send, Reply};

const NS: &str = "/api/v1/namespaces/default";

fn header<'a>(reply: &'a http::Response<Vec<u8>>, name: &str) -> &'a str {
    reply
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

fn message(reply: &http::Response<Vec<u8>>) -> String {
    let status: serde_json::Value = serde_json::from_slice(reply.body()).unwrap_or_default();
    status["message"].as_str().unwrap_or_default().to_string()
}

#[tokio::test]
async fn pods_and_services_answer_through_the_proxy_as_their_containers() {
    let cluster = start(Config {
        speed: 50.0,
        ..common::empty_cluster_config()
    })
    .await
    .expect("the demo cluster starts");
    let url = cluster.url();
    common::portforward::create_pods(&url, None).await;
    let body = |pod: &str, port: u16, method: &str, target: &str| {
        format!("Hello from pod default/{pod}, port {port}: {method} {target}\n")
    };

    let answer = common::portforward::exchange(
        &url,
        "GET",
        &format!("{NS}/pods/web/proxy/a/b?c=1&d=2"),
        None,
    )
    .await;
    assert_eq!(answer.status(), 200);
    assert_eq!(header(&answer, "content-type"), "text/plain");
    assert_eq!(header(&answer, "cache-control"), "no-cache, private");
    assert_eq!(
        answer.body(),
        body("web", 80, "GET", "/a/b?c=1&d=2").as_bytes()
    );
    let answer = common::portforward::exchange(
        &url,
        "POST",
        &format!("{NS}/pods/web:8080/proxy/form"),
        None,
    )
    .await;
    assert_eq!(answer.body(), body("web", 8080, "POST", "/form").as_bytes());
    let answer =
        common::portforward::exchange(&url, "GET", &format!("{NS}/pods/web/proxy?x=1"), None).await;
    assert_eq!(answer.status(), 301);
    assert_eq!(
        header(&answer, "location"),
        format!("{NS}/pods/web/proxy/?x=1")
    );

    // A service: its only ready endpoint, on the target port.
    for id in ["web", "web:8000", "http:web:8000"] {
        let answer = common::portforward::exchange(
            &url,
            "GET",
            &format!("{NS}/services/{id}/proxy/x"),
            None,
        )
        .await;
        assert_eq!(
            answer.body(),
            body("web", 80, "GET", "/x").as_bytes(),
            "{id}"
        );
    }

    let refused =
        common::portforward::exchange(&url, "GET", &format!("{NS}/pods/web:81/proxy/"), None).await;
    assert_eq!(refused.status(), 503);
    assert!(
        message(&refused).starts_with("error trying to reach service: dial tcp 10.244.")
            && message(&refused).ends_with(":81: connect: connection refused"),
        "{}",
        message(&refused)
    );
    let cases = [
        (
            "services/empty/proxy/",
            503,
            "no endpoints available for service \"empty\"",
        ),
        (
            "services/web:9/proxy/",
            503,
            "no service port 9 found for service \"web\"",
        ),
        ("services/gone/proxy/", 404, "services \"gone\" not found"),
        ("pods/gone/proxy/", 404, "pods \"gone\" not found"),
    ];
    for (path, status, words) in cases {
        let refused =
            common::portforward::exchange(&url, "GET", &format!("{NS}/{path}"), None).await;
        assert_eq!(
            (refused.status().as_u16(), message(&refused)),
            (status, words.to_string()),
            "{path}"
        );
    }

    // The hostile page: HTML whose script reads the API from the page's origin.
    let page =
        common::portforward::exchange(&url, "GET", &format!("{NS}/pods/hostile/proxy/"), None)
            .await;
    assert_eq!(header(&page, "content-type"), "text/html; charset=utf-8");
    let html = String::from_utf8_lossy(page.body());
    assert!(
        html.contains("<script>") && html.contains("'/api/v1/namespaces/default/secrets'"),
        "{html}"
    );
}

#[tokio::test]
async fn a_user_without_the_permissions_is_refused_in_kube_apiservers_words() {
    let tokens = Path::new(env!("CARGO_MANIFEST_DIR")).join("tokens.example.csv");
    let cluster = start(Config {
        token_auth_file: Some(tokens),
        controllers: false,
        ..common::empty_cluster_config()
    })
    .await
    .expect("the demo cluster starts");
    let client = client_for(&cluster.url());
    let as_viewer = |path: &str| {
        http::Request::get(format!("{NS}/{path}"))
            .header("authorization", format!("Bearer {}", envtest::VIEWER_TOKEN))
    };
    let forbidden = |reply: &Reply| (reply.status, reply.json()["message"].clone());
    for (path, words) in [
        (
            "pods/web/proxy/",
            r#"pods "web" is forbidden: User "viewer" cannot get resource "pods/proxy" in API group "" in the namespace "default""#,
        ),
        (
            "services/web/proxy/",
            r#"services "web" is forbidden: User "viewer" cannot get resource "services/proxy" in API group "" in the namespace "default""#,
        ),
        (
            "pods/web/portforward?ports=80",
            r#"pods "web" is forbidden: User "viewer" cannot get resource "pods/portforward" in API group "" in the namespace "default""#,
        ),
    ] {
        let reply = send(&client, as_viewer(path), vec![], path).await;
        assert_eq!(forbidden(&reply), (403, json!(words)), "{path}");
    }
}
