//! End-to-end tests: the release build in headless Chromium against a fresh demo cluster.
//! Run by `cargo xtask test` (feature `e2e`), after `dist/` is built.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::{wait_for, Backend, Harness};
use thirtyfour::prelude::*;

/// Generous on a busy 2-core machine ([`common::PATIENCE`]).
const PAGE_TIMEOUT: Duration = common::PATIENCE;
const POLL: Duration = Duration::from_millis(100);

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

on_both_backends!(dashboard_shows_every_served_api_group);
async fn dashboard_shows_every_served_api_group(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    harness
        .driver
        .goto(harness.url("#/api"))
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

on_both_backends!(deep_link_opens_the_explorer_and_survives_reload);
async fn deep_link_opens_the_explorer_and_survives_reload(backend: Backend) {
    let harness = Harness::start_on(backend).await;
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

on_both_backends!(palette_jumps_by_short_name_and_filter_narrows_the_tree);
async fn palette_jumps_by_short_name_and_filter_narrows_the_tree(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let driver = &harness.driver;
    driver.goto(harness.url("#/api")).await.expect("page loads");
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
    // Enter opens the list (tests/e2e_newcomer.rs); Shift+Enter the definition.
    input
        .send_keys(Key::Shift + Key::Enter)
        .await
        .expect("Shift+Enter");
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

fn widget_crd() -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.e2e.kube-atlas.dev"},
        "spec": {
            "group": "e2e.kube-atlas.dev",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget",
                      "listKind": "WidgetList", "shortNames": ["wdg"]},
            "versions": [{
                "name": "v1alpha1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
                    "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}}}
            }]
        }
    })
}

on_both_backends!(a_crd_created_while_the_page_is_open_appears_without_reload);
async fn a_crd_created_while_the_page_is_open_appears_without_reload(backend: Backend) {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use kube::api::{Api, PostParams};

    let harness = Harness::start_on(backend).await;
    let driver = &harness.driver;
    // A user is looking at Deployments, scrolled down, when the CRD arrives.
    driver
        .goto(harness.url("/#/r/apps/v1/deployments"))
        .await
        .expect("page loads");
    wait_for(driver, ".explorer .gvk").await;
    assert!(!shown_groups(driver).await.contains("e2e.kube-atlas.dev"));
    driver
        .execute("document.querySelector('.main').scrollTop = 300;", vec![])
        .await
        .expect("scroll");

    let client = harness.kube_client();
    let crds: Api<CustomResourceDefinition> = Api::all(client);
    let crd: CustomResourceDefinition = serde_json::from_value(widget_crd()).expect("CRD");
    crds.create(&PostParams::default(), &crd)
        .await
        .expect("CRD created");

    let group = wait_for(driver, "[data-key='g:e2e.kube-atlas.dev']").await;
    assert!(group.is_displayed().await.expect("displayed"));
    // The tree changed in place: the selection and the scroll position survived.
    let still_selected = driver
        .find(By::Css(
            "[data-key='r:apps/v1/deployments'][aria-selected='true']",
        ))
        .await;
    assert!(
        still_selected.is_ok(),
        "selection kept across the discovery update"
    );
    let scroll = driver
        .execute("return document.querySelector('.main').scrollTop;", vec![])
        .await
        .expect("scroll read");
    assert_eq!(scroll.json().as_f64(), Some(300.0), "scroll kept");

    group
        .find(By::Css(".tree-row"))
        .await
        .expect("row")
        .click()
        .await
        .expect("expand");
    wait_for(
        driver,
        "[data-key='v:e2e.kube-atlas.dev/v1alpha1'] .tree-row",
    )
    .await
    .click()
    .await
    .expect("expand version");
    wait_for(
        driver,
        "[data-key='r:e2e.kube-atlas.dev/v1alpha1/widgets'] .tree-row",
    )
    .await
    .click()
    .await
    .expect("select widgets");
    let gvk = wait_for(driver, ".explorer .gvk").await;
    assert_eq!(
        gvk.text().await.expect("text"),
        "e2e.kube-atlas.dev/v1alpha1, Kind=Widget"
    );
    harness.screenshot("crd-live").await;

    // Deleting the CRD removes its group, again without a reload.
    crds.delete("widgets.e2e.kube-atlas.dev", &Default::default())
        .await
        .expect("CRD deleted");
    let gone = driver
        .query(By::Css("[data-key='g:e2e.kube-atlas.dev']"))
        .wait(PAGE_TIMEOUT, POLL)
        .not_exists()
        .await;
    assert!(gone.is_ok(), "group removed after the CRD was deleted");
    harness.stop().await;
}

/// `kubectl proxy --www=dist --www-prefix=/ui/` in front of the demo cluster: the app must
/// load from the sub-path and reach the API with same-origin paths. And with the proxy in
/// front of a dead server, the page must say so instead of hanging.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn works_under_a_kubectl_proxy_sub_path_and_reports_an_unreachable_api() {
    let harness = Harness::start().await;
    let driver = &harness.driver;
    let scratch = common::scratch_dir("kubectl-proxy");

    let proxy = common::kubectl_proxy(&scratch, harness.base_url());
    driver
        .goto(format!("{}/ui/#/api", proxy.url()))
        .await
        .expect("page loads");
    wait_for(driver, ".welcome .overview-group").await;
    assert!(shown_groups(driver).await.contains("apps"));
    // The CRD watch runs over a WebSocket through the proxy: a new CRD shows up well before
    // the 15 s discovery poll would notice it.
    let crds: kube::Api<
        k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
    > = kube::Api::all(harness.kube_client());
    let crd = serde_json::from_value(widget_crd()).expect("CRD");
    crds.create(&Default::default(), &crd)
        .await
        .expect("CRD created");
    let appeared = driver
        .query(By::Css("[data-key='g:e2e.kube-atlas.dev']"))
        .wait(Duration::from_secs(8), POLL)
        .first()
        .await;
    assert!(
        appeared.is_ok(),
        "the WebSocket watch through kubectl proxy delivered the change"
    );
    drop(proxy);

    let dead = common::kubectl_proxy(&scratch, "http://127.0.0.1:9");
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

on_both_backends!(request_log_lists_the_api_calls_and_the_open_watch);
async fn request_log_lists_the_api_calls_and_the_open_watch(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let driver = &harness.driver;
    driver.goto(harness.url("#/api")).await.expect("page loads");
    wait_for(driver, ".welcome .overview-group").await;
    wait_for(driver, ".request-log summary")
        .await
        .click()
        .await
        .expect("open log");
    // The CRD watch is opened once discovery is in. Its row is drawn again as what it shows
    // changes (a reference to it can go stale between finding it and reading it): found and
    // read afresh until it says the watch is open.
    let watch_text = common::wait_until_within(
        "the CRD watch logged as open",
        PAGE_TIMEOUT,
        async || {
            let row = driver
                .query(By::XPath(
                    "//tr[contains(@class,'log-row')][.//td[contains(., 'watch=true')]]",
                ))
                .nowait()
                .first()
                .await;
            match row {
                Ok(row) => row.text().await.unwrap_or_default(),
                Err(_) => String::new(),
            }
        },
        |text| text.contains("watch ·") && text.contains("open"),
    )
    .await;
    assert!(watch_text.contains("watch ·"), "{watch_text}");
    let mut paths = Vec::new();
    for cell in driver
        .find_all(By::Css(".request-log .log-row td.path"))
        .await
        .expect("cells")
    {
        paths.push(cell.text().await.unwrap_or_default());
    }
    for expected in ["/api", "/apis", "/version"] {
        assert!(
            paths.iter().any(|p| p == expected),
            "{expected} logged: {paths:?}"
        );
    }
    // Read in one script: rows are drawn again as newer requests arrive, so a found element
    // can go stale before its text is read.
    let curls = common::wait_until(
        "a curl command in the request log",
        async || common::texts_at(driver, ".request-log .log-row .copyable code", None).await,
        |curls| !curls.is_empty(),
    )
    .await;
    assert!(curls[0].starts_with("curl -s"), "{curls:?}");
    harness.screenshot("request-log").await;
    harness.stop().await;
}

on_both_backends!(legacy_discovery_walk_builds_the_same_tree);
async fn legacy_discovery_walk_builds_the_same_tree(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let driver = &harness.driver;
    driver.goto(harness.url("#/api")).await.expect("page loads");
    wait_for(driver, ".welcome .overview-group").await;
    let aggregated_groups = shown_groups(driver).await;
    let aggregated_summary = wait_for(driver, ".welcome .subtitle")
        .await
        .text()
        .await
        .expect("text");
    assert!(
        aggregated_summary.contains("Aggregated discovery"),
        "{aggregated_summary}"
    );

    let port =
        common::start_test_proxy(harness.cluster_addr(), common::ProxyMode::LegacyDiscovery).await;
    driver
        .goto(format!(
            "http://127.0.0.1:{port}{}#/r/apps/v1/deployments",
            harness.ui_prefix()
        ))
        .await
        .expect("page loads through the proxy");
    let gvk = wait_for(driver, ".explorer .gvk").await;
    assert_eq!(gvk.text().await.expect("text"), "apps/v1, Kind=Deployment");
    assert_eq!(shown_groups(driver).await, aggregated_groups);
    driver
        .goto(format!(
            "http://127.0.0.1:{port}{}#/api",
            harness.ui_prefix()
        ))
        .await
        .expect("home");
    let legacy_summary = wait_for(driver, ".welcome .subtitle")
        .await
        .text()
        .await
        .expect("text");
    assert!(
        legacy_summary.contains("Legacy discovery walk"),
        "{legacy_summary}"
    );
    // Same counts of groups, versions, resources and subresources both ways.
    let counts = |s: &str| s.split(". ").next().unwrap_or_default().to_string();
    assert_eq!(counts(&legacy_summary), counts(&aggregated_summary));
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_theme_follows_the_system_setting() {
    let background = |driver: WebDriver| async move {
        driver
            .execute(
                "return getComputedStyle(document.body).backgroundColor;",
                vec![],
            )
            .await
            .expect("style")
            .json()
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let light = Harness::start().await;
    light
        .driver
        .goto(light.url("#/api"))
        .await
        .expect("page loads");
    wait_for(&light.driver, ".welcome").await;
    assert_eq!(background(light.driver.clone()).await, "rgb(246, 247, 249)");
    light.stop().await;

    let dark = Harness::start_dark().await;
    dark.driver
        .goto(dark.url("/#/r/core/v1/pods?ns=default"))
        .await
        .expect("page loads");
    wait_for(&dark.driver, ".explorer .gvk").await;
    assert_eq!(background(dark.driver.clone()).await, "rgb(15, 18, 22)");
    dark.screenshot("dark").await;
    dark.stop().await;
}

/// The end-of-test panic check (`Harness::stop`) reads every open tab: an app that stopped in
/// a tab behind the one in front is found. Demo cluster only: this checks the harness.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_panic_check_reads_every_open_tab() {
    let harness = Harness::start().await;
    let driver = &harness.driver;
    driver.goto(harness.url("#/api")).await.expect("page loads");
    wait_for(driver, ".welcome").await;
    let in_front = driver.window().await.expect("this tab");
    let behind = driver.new_tab().await.expect("new tab");
    driver.switch_to_window(behind.clone()).await.expect("tab");
    driver.goto(harness.url("#/api")).await.expect("page loads");
    wait_for(driver, ".welcome").await;
    // The notice the app draws when it panics, drawn here by hand in the tab behind.
    let notice = |script: &'static str| async move {
        driver.execute(script, vec![]).await.expect("notice script");
    };
    notice(
        "const n = document.createElement('div'); n.id = 'app-stopped'; \
         n.textContent = 'simulated panic'; document.body.append(n);",
    )
    .await;
    driver
        .switch_to_window(in_front.clone())
        .await
        .expect("tab");

    assert_eq!(harness.app_stopped().await, None, "the tab in front runs");
    let stopped = common::stopped_tabs(driver).await;
    assert_eq!(stopped.len(), 1, "{stopped:?}");
    assert!(stopped[0].contains("simulated panic"), "{stopped:?}");
    assert_eq!(
        driver.window().await.expect("this tab"),
        in_front,
        "the tab in front stays in front"
    );

    driver.switch_to_window(behind).await.expect("tab");
    notice("document.getElementById('app-stopped').remove();").await;
    driver.switch_to_window(in_front).await.expect("tab");
    harness.stop().await;
}
