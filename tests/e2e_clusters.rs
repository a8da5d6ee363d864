//! Several clusters in one dashboard: two real control planes (kube-apiserver v1.36, one
//! with the admin's token, one with the viewer's) and the demo cluster behind one kube-atlas.
//! The header's switcher names each with its state; choosing one shows its pods (the URL
//! carries it, so a reload stays); a list merged from all three has a CLUSTER column; a
//! pod is compared with the same pod on another cluster; a cluster that stops is marked
//! while the others stay live;
//! a page of another origin cannot watch through kube-atlas.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{shown_names, texts_at, wait_for, wait_until, Harness};
use thirtyfour::components::SelectElement;
use thirtyfour::prelude::*;

const PODS: &str = "#/list/core/v1/pods?ns=default";

const POD: &str = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"NAME"},"spec":{"containers":[{"name":"web","image":"nginx"}]}}"#;

/// What the switcher offers: `(value, data-state)` of each option.
async fn offered(driver: &WebDriver) -> Vec<(String, String)> {
    driver
        .execute(
            "return Array.from(document.querySelectorAll('#cluster-select option')).map(o => [o.value, o.dataset.state]);",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<Vec<(String, String)>>().ok())
        .unwrap_or_default()
}

async fn location_search(driver: &WebDriver) -> String {
    driver
        .execute("return location.search;", vec![])
        .await
        .ok()
        .and_then(|r| r.convert::<String>().ok())
        .unwrap_or_default()
}

async fn choose_cluster(driver: &WebDriver, name: &str) {
    let select = wait_for(driver, "#cluster-select").await;
    SelectElement::new(&select)
        .await
        .expect("the switcher is a select")
        .select_by_value(name)
        .await
        .expect("the cluster is offered");
}

async fn pods_shown(harness: &Harness, expected: &[&str]) {
    let expected: Vec<String> = expected.iter().map(|name| name.to_string()).collect();
    wait_until(
        "the cluster's pods",
        async || shown_names(&harness.driver).await,
        |names| *names == expected,
    )
    .await;
}

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn switch_between_clusters_and_see_one_go_away() {
    let mut harness = Harness::start_several().await;
    let several = harness.several();
    for (plane, pod) in [(&several.alpha, "web-alpha"), (&several.beta, "web-beta")] {
        plane
            .kubectl_ok(&["run", pod, "--image=nginx", "--namespace=default"])
            .unwrap_or_else(|e| panic!("kubectl run {pod}: {e}"));
    }
    let atlas_url = several.atlas.url();
    let demo_pods: kube::Api<k8s_openapi::api::core::v1::Pod> =
        kube::Api::namespaced(harness.kube_client(), "default");
    demo_pods
        .create(
            &Default::default(),
            &serde_json::from_str(&POD.replace("NAME", "web-demo")).expect("a pod"),
        )
        .await
        .expect("the demo pod is created");

    // Opened on alpha: its pods, the switcher naming all three, connected.
    harness.open(&format!("?cluster=alpha{PODS}")).await;
    pods_shown(&harness, &["web-alpha"]).await;
    let all_connected = [
        ("alpha", "connected"),
        ("beta", "connected"),
        ("demo", "connected"),
    ]
    .map(|(name, state)| (name.to_string(), state.to_string()))
    .to_vec();
    wait_until(
        "three clusters, connected",
        async || offered(&harness.driver).await,
        |offered| *offered == all_connected,
    )
    .await;
    assert_eq!(
        texts_at(&harness.driver, ".cluster-state", Some("data-state")).await,
        ["connected"]
    );

    // Switched to beta (the viewer's token): its pods, the same screen, the URL naming it.
    choose_cluster(&harness.driver, "beta").await;
    pods_shown(&harness, &["web-beta"]).await;
    assert_eq!(location_search(&harness.driver).await, "?cluster=beta");
    assert_eq!(harness.hash().await, PODS);
    // A reload stays on beta.
    harness.driver.refresh().await.expect("reload");
    pods_shown(&harness, &["web-beta"]).await;
    let selected = wait_for(&harness.driver, "#cluster-select")
        .await
        .prop("value")
        .await
        .expect("the switcher's value");
    assert_eq!(selected.as_deref(), Some("beta"));

    // The demo cluster, live: a pod created there appears.
    choose_cluster(&harness.driver, "demo").await;
    pods_shown(&harness, &["web-demo"]).await;
    demo_pods
        .create(
            &Default::default(),
            &serde_json::from_str(&POD.replace("NAME", "web-demo-2")).expect("a pod"),
        )
        .await
        .expect("a second demo pod");
    pods_shown(&harness, &["web-demo", "web-demo-2"]).await;

    // The same list from every cluster, merged, with a CLUSTER column.
    harness
        .open(&format!("?cluster=demo{PODS}&clusters=all"))
        .await;
    wait_until(
        "pods of all three clusters",
        async || merged_rows(&harness.driver).await,
        |rows| {
            *rows
                == [
                    ("alpha", "web-alpha"),
                    ("beta", "web-beta"),
                    ("demo", "web-demo"),
                    ("demo", "web-demo-2"),
                ]
                .map(|(cluster, name)| (cluster.to_string(), name.to_string()))
        },
    )
    .await;
    assert_eq!(
        texts_at(&harness.driver, "table.merged-list thead th", None).await[..2],
        ["CLUSTER".to_string(), "NAME".to_string()]
    );
    harness.screenshot("clusters-merged-list").await;
    // A row links to its object on its own cluster.
    let link = harness
        .driver
        .execute(
            "return document.querySelector('tr.merged-row[data-cluster=beta] td.name-cell a').getAttribute('href');",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<String>().ok())
        .unwrap_or_default();
    assert_eq!(link, "?cluster=beta#/obj/core/v1/pods/default/web-beta");
    wait_until(
        "every cluster's stream live",
        async || merged_phases(&harness.driver).await,
        |phases| phases.iter().all(|(_, phase)| phase == "live") && phases.len() == 3,
    )
    .await;

    // The same pod on two clusters, compared field by field from alpha's object page.
    let several = harness.several();
    for (plane, image) in [
        (&several.alpha, "nginx:1.27"),
        (&several.beta, "nginx:1.28"),
    ] {
        plane
            .kubectl_ok(&[
                "run",
                "shared",
                &format!("--image={image}"),
                "--namespace=default",
            ])
            .unwrap_or_else(|e| panic!("kubectl run shared: {e}"));
    }
    harness
        .open("?cluster=alpha#/obj/core/v1/pods/default/shared")
        .await;
    compare_with(&harness.driver, "beta").await;
    let outcome = wait_for(&harness.driver, ".compare-summary[data-outcome=different]").await;
    assert!(outcome
        .text()
        .await
        .unwrap_or_default()
        .contains("from alpha to beta"),);
    harness.screenshot("clusters-compare").await;
    let changes = texts_at(&harness.driver, ".compare-changes li", None).await;
    assert!(
        changes
            .iter()
            .any(|change| change == "spec.containers[name=shared].image: nginx:1.27 → nginx:1.28"),
        "{changes:?}"
    );
    // Nothing a server sets of its own is reported as a difference.
    assert!(
        !changes
            .iter()
            .any(|change| change.starts_with("metadata.uid")
                || change.starts_with("metadata.resourceVersion")),
        "{changes:?}"
    );
    compare_with(&harness.driver, "demo").await;
    let missing = wait_for(&harness.driver, ".compare-summary[data-outcome=missing]").await;
    assert_eq!(
        missing.text().await.unwrap_or_default(),
        "demo has no such object."
    );
    harness
        .open(&format!("?cluster=demo{PODS}&clusters=all"))
        .await;
    wait_until(
        "every cluster's stream live again",
        async || merged_phases(&harness.driver).await,
        |phases| phases.iter().all(|(_, phase)| phase == "live") && phases.len() == 3,
    )
    .await;

    // alpha's API server stops: its entry and its stream say so; the others stay live.
    let several = harness.several();
    tokio::task::block_in_place(|| several.alpha.stop_api_server());
    wait_until(
        "alpha marked failed",
        async || offered(&harness.driver).await,
        |offered| {
            offered
                .iter()
                .any(|(name, state)| name == "alpha" && state == "failed")
        },
    )
    .await;
    let alpha_line = harness
        .driver
        .execute(
            "return document.querySelector('#cluster-select option[value=alpha]').textContent;",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<String>().ok())
        .unwrap_or_default();
    assert!(
        alpha_line.starts_with("alpha: failed: unreachable: https://127.0.0.1:"),
        "{alpha_line}"
    );
    let others: Vec<(String, String)> = offered(&harness.driver)
        .await
        .into_iter()
        .filter(|(name, _)| name != "alpha")
        .collect();
    assert_eq!(others, all_connected[1..].to_vec());
    wait_until(
        "alpha's merged entry marked failed",
        async || {
            texts_at(
                &harness.driver,
                ".merged-cluster[data-cluster=alpha] .cluster-state",
                Some("data-state"),
            )
            .await
        },
        |states| *states == ["failed"],
    )
    .await;
    demo_pods
        .delete("web-demo-2", &Default::default())
        .await
        .expect("the second demo pod goes");
    wait_until(
        "the demo cluster's rows still follow it",
        async || merged_rows(&harness.driver).await,
        |rows| {
            rows.iter()
                .any(|(cluster, name)| cluster == "beta" && name == "web-beta")
                && rows
                    .iter()
                    .any(|(cluster, name)| cluster == "demo" && name == "web-demo")
                && !rows.iter().any(|(_, name)| name == "web-demo-2")
        },
    )
    .await;
    harness.screenshot("clusters-one-gone").await;
    // beta's and the demo cluster's merged streams are both there, and both live.
    let mut phases: Vec<(String, String)> = merged_phases(&harness.driver)
        .await
        .into_iter()
        .filter(|(cluster, _)| cluster != "alpha")
        .collect();
    phases.sort();
    assert_eq!(
        phases,
        [
            ("beta".to_string(), "live".to_string()),
            ("demo".to_string(), "live".to_string())
        ],
        "the merged streams of the clusters still up"
    );

    // A watch over a WebSocket (which no CORS rule guards) opens from kube-atlas's own page,
    // and is refused to a page of another origin (the demo cluster's own).
    let watch_url = format!(
        "{}/clusters/demo/api/v1/namespaces/default/pods?watch=true",
        atlas_url.replace("http://", "ws://")
    );
    assert_eq!(open_watch(&harness.driver, &watch_url).await, "opened");
    harness
        .driver
        .goto(format!("{}/", harness.base_url()))
        .await
        .expect("the other origin's page");
    assert_eq!(open_watch(&harness.driver, &watch_url).await, "refused");
    harness.stop().await;
}

/// Opens the object page's comparison and chooses `cluster` in it.
async fn compare_with(driver: &WebDriver, cluster: &str) {
    let opened = driver
        .execute(
            "const d = document.querySelector('details.cluster-compare'); if (d) { d.open = true; } return !!d;",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<bool>().ok())
        .unwrap_or_default();
    if !opened {
        wait_for(driver, "details.cluster-compare").await;
        driver
            .execute(
                "document.querySelector('details.cluster-compare').open = true;",
                vec![],
            )
            .await
            .expect("the comparison opens");
    }
    let select = wait_for(driver, "select[aria-label='Compare with cluster']").await;
    SelectElement::new(&select)
        .await
        .expect("a select")
        .select_by_value(cluster)
        .await
        .expect("the cluster is offered");
}

/// The merged list's rows: `(cluster, name)`.
async fn merged_rows(driver: &WebDriver) -> Vec<(String, String)> {
    driver
        .execute(
            "return Array.from(document.querySelectorAll('tr.merged-row')).map(r => [r.dataset.cluster, r.querySelector('td.name-cell').textContent.trim()]);",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<Vec<(String, String)>>().ok())
        .unwrap_or_default()
}

/// Each cluster's stream phase in the merged list: `(cluster, phase)`.
async fn merged_phases(driver: &WebDriver) -> Vec<(String, String)> {
    driver
        .execute(
            "return Array.from(document.querySelectorAll('.merged-cluster')).map(c => [c.dataset.cluster, c.querySelector('.stream-status').dataset.phase]);",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<Vec<(String, String)>>().ok())
        .unwrap_or_default()
}

/// Opens a WebSocket from the current page: "opened" once it opens, "refused" if it fails.
async fn open_watch(driver: &WebDriver, url: &str) -> String {
    driver
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const socket = new WebSocket(arguments[0]);
             socket.onopen = () => { socket.close(); done('opened'); };
             socket.onerror = () => done('refused');",
            vec![serde_json::json!(url)],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<String>().ok())
        .unwrap_or_default()
}
