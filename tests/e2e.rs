//! End-to-end tests: the release build in headless Chromium against a fresh demo cluster.
//! Run by `cargo xtask test` (feature `e2e`), after `dist/` is built.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::Harness;
use thirtyfour::prelude::*;

const PAGE_TIMEOUT: Duration = Duration::from_secs(20);
const POLL: Duration = Duration::from_millis(100);

async fn wait_for(driver: &WebDriver, css: &str) -> WebElement {
    driver
        .query(By::Css(css))
        .wait(PAGE_TIMEOUT, POLL)
        .first()
        .await
        .unwrap_or_else(|e| panic!("`{css}` never appeared: {e}"))
}

/// Group names shown as top-level tree rows.
async fn shown_groups(driver: &WebDriver) -> BTreeSet<String> {
    let rows = driver
        .query(By::Css("[role=treeitem][aria-level='1']"))
        .wait(PAGE_TIMEOUT, POLL)
        .all_from_selector_required()
        .await
        .expect("tree rows");
    let mut names = BTreeSet::new();
    for row in rows {
        if let Ok(Some(key)) = row.attr("data-key").await {
            names.insert(key.trim_start_matches("g:").to_string());
        }
    }
    names
}

/// Group names the server serves, from its legacy discovery (`core` for /api).
async fn served_groups(base: &str) -> BTreeSet<String> {
    let apis: serde_json::Value = reqwest_json(&format!("{base}/apis")).await;
    let mut names: BTreeSet<String> = apis["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .filter_map(|g| g["name"].as_str().map(str::to_string))
        .collect();
    names.insert("core".into());
    names
}

async fn reqwest_json(url: &str) -> serde_json::Value {
    let body = tokio::task::spawn_blocking({
        let url = url.to_string();
        move || http_get(&url)
    })
    .await
    .expect("join");
    serde_json::from_str(&body).expect("JSON")
}

/// A tiny HTTP/1.0 GET over loopback, so the test does not depend on a client library's
/// defaults (it only reads discovery from the demo cluster).
fn http_get(url: &str) -> String {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://").expect("http URL");
    let (host, path) = rest
        .split_once('/')
        .map(|(h, p)| (h, format!("/{p}")))
        .unwrap_or((rest, "/".into()));
    let mut stream = std::net::TcpStream::connect(host).expect("connect");
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: {host}\r\nAccept: application/json\r\n\r\n"
    )
    .expect("write");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_shows_every_served_api_group() {
    let harness = Harness::start().await;
    harness
        .driver
        .goto(harness.url("/"))
        .await
        .expect("page loads");
    wait_for(&harness.driver, ".welcome .overview-group").await;
    let expected = served_groups(harness.base_url()).await;
    let shown = shown_groups(&harness.driver).await;
    assert_eq!(shown, expected, "the tree shows exactly the served groups");
    let version = wait_for(&harness.driver, ".server-version").await;
    assert!(version.text().await.unwrap_or_default().starts_with('v'));
    harness.screenshot("api-groups").await;
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_link_opens_the_explorer_and_survives_reload() {
    let harness = Harness::start().await;
    let driver = &harness.driver;
    driver
        .goto(harness.url("/#/r/apps/v1/deployments?ns=default"))
        .await
        .expect("page loads");
    let gvk = wait_for(driver, ".explorer .gvk").await;
    assert_eq!(gvk.text().await.expect("text"), "apps/v1, Kind=Deployment");
    let gvr = wait_for(driver, ".explorer .gvr").await;
    assert_eq!(
        gvr.text().await.expect("text"),
        "apps/v1, Resource=deployments"
    );
    let body = driver
        .find(By::Css(".explorer"))
        .await
        .expect("explorer")
        .text()
        .await
        .expect("text");
    assert!(
        body.contains("/apis/apps/v1/namespaces/default/deployments"),
        "{body}"
    );
    assert!(
        body.contains("deployments/scale"),
        "subresources listed: {body}"
    );
    assert!(
        body.contains("Scale (autoscaling/v1)"),
        "cross-group kind: {body}"
    );
    let selected = wait_for(
        driver,
        "[data-key='r:apps/v1/deployments'][aria-selected='true']",
    )
    .await;
    assert!(selected.is_displayed().await.expect("displayed"));
    harness.screenshot("explorer").await;

    // Select another resource by click: the URL follows, and a reload restores it.
    wait_for(driver, "[data-key='g:core'] .tree-row")
        .await
        .click()
        .await
        .expect("expand core");
    wait_for(driver, "[data-key='v:core/v1'] .tree-row")
        .await
        .click()
        .await
        .expect("expand v1");
    wait_for(driver, "[data-key='r:core/v1/pods'] .tree-row")
        .await
        .click()
        .await
        .expect("select pods");
    wait_for(driver, "[data-key='r:core/v1/pods'][aria-selected='true']").await;
    let url = driver.current_url().await.expect("url");
    assert_eq!(url.fragment(), Some("/r/core/v1/pods?ns=default"));
    driver.refresh().await.expect("reload");
    let gvk = wait_for(driver, ".explorer .gvk").await;
    assert_eq!(gvk.text().await.expect("text"), "v1, Kind=Pod");
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn palette_jumps_by_short_name_and_filter_narrows_the_tree() {
    let harness = Harness::start().await;
    let driver = &harness.driver;
    driver.goto(harness.url("/")).await.expect("page loads");
    wait_for(driver, ".welcome .overview-group").await;
    driver
        .find(By::Css("body"))
        .await
        .expect("body")
        .send_keys(":")
        .await
        .expect("type :");
    let input = wait_for(driver, ".palette input").await;
    input.send_keys("deploy").await.expect("type");
    let first = wait_for(driver, ".palette li[aria-selected='true'] .mono").await;
    assert_eq!(first.text().await.expect("text"), "deployments.apps");
    input.send_keys(Key::Enter).await.expect("enter");
    let gvk = wait_for(driver, ".explorer .gvk").await;
    assert_eq!(gvk.text().await.expect("text"), "apps/v1, Kind=Deployment");

    let filter = wait_for(driver, "#tree-filter").await;
    filter.send_keys("crd").await.expect("type filter");
    let row = wait_for(
        driver,
        "[data-key='r:apiextensions.k8s.io/v1/customresourcedefinitions']",
    )
    .await;
    assert!(row.is_displayed().await.expect("displayed"));
    assert_eq!(
        shown_groups(driver).await,
        BTreeSet::from(["apiextensions.k8s.io".to_string()])
    );
    harness.stop().await;
}

fn at_crd() -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "ats.cnat.programming-kubernetes.info"},
        "spec": {
            "group": "cnat.programming-kubernetes.info",
            "scope": "Namespaced",
            "names": {"plural": "ats", "singular": "at", "kind": "At", "listKind": "AtList"},
            "versions": [{
                "name": "v1alpha1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "schedule": {"type": "string"}, "command": {"type": "string"}}},
                    "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}}}
            }]
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crd_created_while_the_page_is_open_appears_without_reload() {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use kube::api::{Api, PostParams};

    let harness = Harness::start().await;
    let driver = &harness.driver;
    driver.goto(harness.url("/")).await.expect("page loads");
    wait_for(driver, ".welcome .overview-group").await;
    assert!(!shown_groups(driver)
        .await
        .contains("cnat.programming-kubernetes.info"));

    let config = kube::Config::new(harness.base_url().parse().expect("url"));
    let client = kube::Client::try_from(config).expect("kube client");
    let crds: Api<CustomResourceDefinition> = Api::all(client);
    let crd: CustomResourceDefinition = serde_json::from_value(at_crd()).expect("CRD");
    crds.create(&PostParams::default(), &crd)
        .await
        .expect("CRD created");

    let group = wait_for(driver, "[data-key='g:cnat.programming-kubernetes.info']").await;
    assert!(group.is_displayed().await.expect("displayed"));
    group
        .find(By::Css(".tree-row"))
        .await
        .expect("row")
        .click()
        .await
        .expect("expand");
    wait_for(
        driver,
        "[data-key='v:cnat.programming-kubernetes.info/v1alpha1'] .tree-row",
    )
    .await
    .click()
    .await
    .expect("expand version");
    wait_for(
        driver,
        "[data-key='r:cnat.programming-kubernetes.info/v1alpha1/ats'] .tree-row",
    )
    .await
    .click()
    .await
    .expect("select ats");
    let gvk = wait_for(driver, ".explorer .gvk").await;
    assert_eq!(
        gvk.text().await.expect("text"),
        "cnat.programming-kubernetes.info/v1alpha1, Kind=At"
    );
    harness.screenshot("crd-live").await;
    harness.stop().await;
}

/// `kubectl proxy --www=dist --www-prefix=/ui/` in front of the demo cluster: the app must
/// load from the sub-path and reach the API with same-origin paths. And with the proxy in
/// front of a dead server, the page must say so instead of hanging.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn works_under_a_kubectl_proxy_sub_path_and_reports_an_unreachable_api() {
    if std::process::Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .output()
        .is_err()
    {
        eprintln!("kubectl not on PATH: skipping the kubectl proxy test");
        return;
    }
    let harness = Harness::start().await;
    let driver = &harness.driver;
    let scratch = common::scratch_dir("kubectl-proxy");

    let proxy = common::KubectlProxy::start(&scratch, harness.base_url());
    driver
        .goto(format!("{}/ui/", proxy.url()))
        .await
        .expect("page loads");
    wait_for(driver, ".welcome .overview-group").await;
    assert!(shown_groups(driver).await.contains("apps"));
    drop(proxy);

    let dead = common::KubectlProxy::start(&scratch, "http://127.0.0.1:9");
    driver
        .goto(format!("{}/ui/", dead.url()))
        .await
        .expect("page loads");
    let alert = wait_for(driver, ".main .error[role=alert]").await;
    let text = alert.text().await.expect("text");
    assert!(text.contains("Cannot load the API"), "{text}");
    assert!(
        text.contains("Cannot reach the Kubernetes API"),
        "unreachable, said as such: {text}"
    );
    harness.stop().await;
}
