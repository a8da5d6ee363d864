//! End-to-end tests of live views: lists and object pages that follow the server through the
//! shared watch layer, with kubectl and kube-rs writing, a server that stops answering for
//! 8 s, a proxy whose WebSockets stay silent, and many live tabs at once. The release build
//! in headless Chromium against the demo cluster (`cargo xtask test`, feature `e2e`).

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{
    shown_names, start_test_proxy, wait_for, wait_until, wait_until_within, Backend, Harness,
    ProxyMode, PATIENCE,
};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use thirtyfour::prelude::*;

/// Polls until `check` holds for the shown names, at most [`PATIENCE`]; returns them and the
/// time it took.
async fn wait_names(
    driver: &WebDriver,
    what: &str,
    check: impl Fn(&[String]) -> bool,
) -> (Vec<String>, Duration) {
    let started = Instant::now();
    let names = wait_until_within(
        what,
        PATIENCE,
        async || shown_names(driver).await,
        |n| check(n),
    )
    .await;
    (names, started.elapsed())
}

/// The text of the first element at `css`, empty when there is none.
async fn text_at(driver: &WebDriver, css: &str) -> String {
    match driver.find(By::Css(css)).await {
        Ok(element) => element.text().await.unwrap_or_default(),
        Err(_) => String::new(),
    }
}

fn config_map(name: &str) -> ConfigMap {
    serde_json::from_value(serde_json::json!({"metadata": {"name": name}, "data": {"k": "v"}}))
        .expect("config map")
}

/// The config maps a test made: a real control plane publishes its CA bundles into every
/// namespace (`kube-root-ca.crt`, and this OpenShift-built one `openshift-service-ca.crt`).
fn made_here(names: &[String]) -> Vec<&String> {
    names.iter().filter(|n| !n.ends_with("ca.crt")).collect()
}

/// A new `namespace` with config maps `keep` and `drop`; its config maps' API.
async fn keep_and_drop(harness: &Harness, namespace: &str) -> Api<ConfigMap> {
    harness.create_namespace(namespace).await;
    let config_maps: Api<ConfigMap> = Api::namespaced(harness.kube_client(), namespace);
    for name in ["keep", "drop"] {
        config_maps
            .create(&PostParams::default(), &config_map(name))
            .await
            .expect("created");
    }
    config_maps
}

/// Marks the page, so a later check can tell it was never reloaded.
async fn mark_page(driver: &WebDriver) {
    driver
        .execute("window.__kubeAtlasNotReloaded = true;", vec![])
        .await
        .expect("script runs");
}

async fn assert_not_reloaded(driver: &WebDriver) {
    let marked = driver
        .execute("return window.__kubeAtlasNotReloaded === true;", vec![])
        .await
        .expect("script runs");
    assert_eq!(
        marked.json(),
        &serde_json::json!(true),
        "the page was reloaded"
    );
}

/// Labels ConfigMap `name` `color=<color>` and waits for the object page to show it.
async fn label_and_see(harness: &Harness, config_maps: &Api<ConfigMap>, name: &str, color: &str) {
    config_maps
        .patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"metadata": {"labels": {"color": color}}})),
        )
        .await
        .expect("labelled");
    let shown = format!("color={color}");
    wait_until_within(
        "the new label shown",
        PATIENCE,
        async || text_at(&harness.driver, "[aria-label=Labels]").await,
        |labels| labels.contains(&shown),
    )
    .await;
}

async fn wait_live(driver: &WebDriver) {
    wait_for(driver, ".stream-status[data-phase=live]").await;
}

on_both_backends!(
    #[cfg_attr(
        not(have_kubectl),
        ignore = "kubectl not installed (cargo xtask setup)"
    )]
    rows_appear_and_go_as_kubectl_creates_and_deletes_config_maps
);
async fn rows_appear_and_go_as_kubectl_creates_and_deletes_config_maps(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    harness.create_namespace("live-kubectl").await;
    harness
        .open("#/list/core/v1/configmaps?ns=live-kubectl")
        .await;
    wait_live(&harness.driver).await;
    mark_page(&harness.driver).await;
    let kubectl = |args: &[&str]| {
        let output = std::process::Command::new("kubectl")
            .arg("--server")
            .arg(harness.base_url())
            .args(args)
            .output()
            .expect("kubectl runs");
        assert!(
            output.status.success(),
            "kubectl {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    for name in ["alpha", "beta"] {
        kubectl(&[
            "-n",
            "live-kubectl",
            "create",
            "configmap",
            name,
            "--from-literal=k=v",
        ]);
    }
    let (names, took) = wait_names(&harness.driver, "created config maps shown", |names| {
        names.iter().any(|n| n == "alpha") && names.iter().any(|n| n == "beta")
    })
    .await;
    println!("created rows shown after {took:?}: {names:?}");
    harness.screenshot("live-list").await;
    kubectl(&["-n", "live-kubectl", "delete", "configmap", "alpha"]);
    wait_names(&harness.driver, "deleted config map gone", |names| {
        !names.iter().any(|n| n == "alpha") && names.iter().any(|n| n == "beta")
    })
    .await;
    assert_not_reloaded(&harness.driver).await;
    let status = harness
        .driver
        .find(By::Css(".stream-status"))
        .await
        .expect("status line")
        .text()
        .await
        .expect("text");
    assert!(status.contains("Live"), "{status}");
    assert!(status.contains("resourceVersion"), "{status}");
    // A Table watch needs its Accept header, which browser WebSockets cannot send.
    assert!(status.contains("HTTP stream"), "{status}");
    harness.stop().await;
}

/// The READY cell of `name` in the deployments grid.
async fn ready_cell(driver: &WebDriver, name: &str) -> Option<String> {
    let rows = driver
        .find_all(By::Css("table[role=grid] tbody tr.vt-row"))
        .await
        .ok()?;
    for row in rows {
        let cells = row.find_all(By::Css("td:not(.vt-select)")).await.ok()?;
        let mut texts = Vec::new();
        for cell in cells {
            texts.push(cell.text().await.unwrap_or_default());
        }
        if texts.first().map(String::as_str) == Some(name) {
            return texts.get(1).cloned();
        }
    }
    None
}

on_both_backends!(scaling_a_deployment_changes_its_ready_cell);
/// The READY cell follows a scale through the Table watch (the time it took is printed; the
/// write-to-screen lag is measured by `cargo xtask bench live`, not asserted here).
async fn scaling_a_deployment_changes_its_ready_cell(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    harness.nginx_rolled_out().await;
    let client = harness.kube_client();
    harness.open("#/list/apps/v1/deployments?ns=default").await;
    wait_live(&harness.driver).await;
    let deployments: Api<Deployment> = Api::namespaced(client, "default");
    let ready = async || ready_cell(&harness.driver, "nginx").await;
    wait_until("nginx ready before scaling", ready, |cell| {
        cell.as_deref() == Some("3/3")
    })
    .await;
    deployments
        .patch(
            "nginx",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"spec": {"replicas": 5}})),
        )
        .await
        .expect("scaled");
    let scaled = Instant::now();
    let shown = wait_until_within("READY shows 5 wanted", PATIENCE, ready, |cell| {
        cell.as_deref().is_some_and(|t| t.ends_with("/5"))
    })
    .await;
    println!(
        "READY cell showed {shown:?} {:?} after the scale",
        scaled.elapsed()
    );
    // The controllers then make all five ready, and the cell follows.
    wait_until("all five ready", ready, |cell| {
        cell.as_deref() == Some("5/5")
    })
    .await;
    harness.stop().await;
}

on_both_backends!(views_recover_after_the_server_stops_answering_for_eight_seconds);
async fn views_recover_after_the_server_stops_answering_for_eight_seconds(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let config_maps = keep_and_drop(&harness, "live-frozen").await;
    let frozen = Arc::new(AtomicBool::new(false));
    let port = start_test_proxy(harness.cluster_addr(), ProxyMode::Freezable(frozen.clone())).await;
    harness
        .driver
        .goto(format!(
            "http://127.0.0.1:{port}{}#/list/core/v1/configmaps?ns=live-frozen",
            harness.ui_prefix()
        ))
        .await
        .expect("page loads");
    wait_live(&harness.driver).await;
    wait_names(&harness.driver, "listed", |n| made_here(n).len() == 2).await;
    mark_page(&harness.driver).await;

    frozen.store(true, Ordering::SeqCst);
    // While the server is stopped, the cluster changes (written directly, not through it).
    config_maps
        .delete("drop", &DeleteParams::default())
        .await
        .expect("deleted");
    for name in ["new-1", "new-2"] {
        config_maps
            .create(&PostParams::default(), &config_map(name))
            .await
            .expect("created");
    }
    tokio::time::sleep(Duration::from_secs(8)).await;
    frozen.store(false, Ordering::SeqCst);

    let expected: BTreeSet<String> = ["keep", "new-1", "new-2"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (names, took) = wait_names(
        &harness.driver,
        "the list equals the cluster after the stop",
        |names| {
            made_here(names)
                .into_iter()
                .cloned()
                .collect::<BTreeSet<_>>()
                == expected
                && made_here(names).len() == 3
        },
    )
    .await;
    println!("recovered {took:?} after the server answered again: {names:?}");
    assert_not_reloaded(&harness.driver).await;
    wait_live(&harness.driver).await;
    // And it is still live.
    config_maps
        .create(&PostParams::default(), &config_map("after"))
        .await
        .expect("created");
    wait_names(&harness.driver, "live again", |n| {
        n.iter().any(|n| n == "after") && made_here(n).len() == 4
    })
    .await;
    harness.stop().await;
}

on_both_backends!(silent_websockets_fall_back_to_chunked_http_watches);
/// Behind a proxy whose WebSockets open and then say nothing, object watches move to
/// chunked HTTP and the object page stays live.
async fn silent_websockets_fall_back_to_chunked_http_watches(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let client = harness.kube_client();
    harness.create_namespace("live-silent").await;
    let config_maps: Api<ConfigMap> = Api::namespaced(client, "live-silent");
    config_maps
        .create(&PostParams::default(), &config_map("watched"))
        .await
        .expect("created");
    let port = start_test_proxy(harness.cluster_addr(), ProxyMode::SilentWebSockets).await;
    harness
        .driver
        .goto(format!(
            "http://127.0.0.1:{port}{}#/obj/core/v1/configmaps/live-silent/watched",
            harness.ui_prefix()
        ))
        .await
        .expect("page loads");
    wait_until_within(
        "the watch moves to HTTP",
        PATIENCE,
        async || text_at(&harness.driver, ".stream-transport").await,
        |transport| transport == "HTTP stream",
    )
    .await;
    wait_live(&harness.driver).await;
    // Only an HTTP watch can bring this change through the silent proxy.
    label_and_see(&harness, &config_maps, "watched", "blue").await;
    harness.stop().await;
}

on_both_backends!(a_watch_moved_to_http_by_a_failed_socket_goes_back_to_the_socket);
/// A WebSocket that fails before saying anything (a 500 on its upgrade, as a busy server or
/// proxy answers now and then) is followed by a watch over HTTP, where a refusal would come
/// with its words. That watch is brief and the next one is a WebSocket again: a quiet
/// resource's HTTP watch would otherwise hold one of the browser's six connections to the
/// server, shared by every tab, for the watch's full five minutes.
async fn a_watch_moved_to_http_by_a_failed_socket_goes_back_to_the_socket(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let client = harness.kube_client();
    harness.create_namespace("live-brief").await;
    let config_maps: Api<ConfigMap> = Api::namespaced(client, "live-brief");
    config_maps
        .create(&PostParams::default(), &config_map("quiet"))
        .await
        .expect("created");
    let mode = ProxyMode::fail_first(
        "/api/v1/namespaces/live-brief/configmaps",
        &[("GET", 500, "Content-Type: text/plain\r\n", "busy")],
    );
    harness
        .open_through_proxy(mode.clone(), "#/obj/core/v1/configmaps/live-brief/quiet")
        .await;
    wait_until_within(
        "the watch moves to HTTP after the failed socket",
        PATIENCE,
        async || text_at(&harness.driver, ".stream-transport").await,
        |transport| transport == "HTTP stream",
    )
    .await;
    assert_eq!(mode.answers_left(), 0, "the socket's upgrade met the 500");
    let started = Instant::now();
    wait_until_within(
        "the next watch is a WebSocket again",
        Duration::from_secs(60),
        async || text_at(&harness.driver, ".stream-transport").await,
        |transport| transport == "WebSocket",
    )
    .await;
    println!(
        "back on a WebSocket {:.1} s after the HTTP watch was seen",
        started.elapsed().as_secs_f64()
    );
    // The HTTP watch, which the browser times once it has ended, had asked to end soon.
    let watches: Vec<String> = harness
        .driver
        .execute(
            "return performance.getEntriesByType('resource').map(e => e.name)\
               .filter(n => n.includes('/live-brief/configmaps') && n.includes('watch=true'));",
            vec![],
        )
        .await
        .expect("resource timing")
        .convert()
        .expect("a list of URLs");
    assert!(
        watches.iter().any(|url| url.contains("timeoutSeconds=20")),
        "the HTTP watch asked to be ended soon: {watches:?}"
    );
    wait_live(&harness.driver).await;
    // Live on the socket: a change shows.
    label_and_see(&harness, &config_maps, "quiet", "green").await;
    harness.stop().await;
}

on_both_backends!(twelve_live_tabs_leave_room_for_a_new_list);
/// Twelve tabs each with a live object page (about ten watches each: the object and the
/// kinds it may own) take none of the browser's six HTTP/1.1 connections to the server, so
/// a thirteenth tab's list still loads at once and stays live.
async fn twelve_live_tabs_leave_room_for_a_new_list(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let client = harness.kube_client();
    harness.create_namespace("live-many").await;
    let config_maps: Api<ConfigMap> = Api::namespaced(client, "live-many");
    for index in 0..12 {
        config_maps
            .create(
                &PostParams::default(),
                &config_map(&format!("view-{index}")),
            )
            .await
            .expect("created");
    }
    for index in 0..12 {
        if index > 0 {
            let tab = harness.driver.new_tab().await.expect("new tab");
            harness.driver.switch_to_window(tab).await.expect("switch");
        }
        harness
            .open(&format!("#/obj/core/v1/configmaps/live-many/view-{index}"))
            .await;
        wait_live(&harness.driver).await;
        assert_eq!(
            text_at(&harness.driver, ".stream-transport").await,
            "WebSocket"
        );
    }
    let tab = harness.driver.new_tab().await.expect("new tab");
    harness.driver.switch_to_window(tab).await.expect("switch");
    let started = Instant::now();
    harness.open("#/list/core/v1/configmaps?ns=live-many").await;
    wait_live(&harness.driver).await;
    println!(
        "a list in a 13th tab was live after {:?}",
        started.elapsed()
    );
    config_maps
        .create(&PostParams::default(), &config_map("thirteenth"))
        .await
        .expect("created");
    wait_names(&harness.driver, "the new list is live", |n| {
        n.iter().any(|n| n == "thirteenth") && made_here(n).len() == 13
    })
    .await;
    harness.stop().await;
}

/// Real cluster only: kube-apiserver itself killed and started again on the same etcd (the
/// demo cluster runs inside the test's process; its stop is the frozen proxy above). While it
/// is down kubectl proxy answers 502s; the list says Reconnecting, keeps its rows, and once the
/// server is back resumes from its resourceVersion and shows what changed meanwhile.
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_list_follows_kube_apiserver_through_a_restart() {
    let mut harness = Harness::start_on(Backend::Real).await;
    let config_maps = keep_and_drop(&harness, "live-restart").await;
    harness
        .open("#/list/core/v1/configmaps?ns=live-restart")
        .await;
    wait_live(&harness.driver).await;
    wait_names(&harness.driver, "listed", |n| made_here(n).len() == 2).await;
    mark_page(&harness.driver).await;

    let plane = harness.control_plane().expect("a real control plane");
    tokio::task::block_in_place(|| plane.stop_api_server());
    wait_for(&harness.driver, ".stream-status[data-phase=reconnecting]").await;
    assert_eq!(
        made_here(&shown_names(&harness.driver).await).len(),
        2,
        "the rows stay while the server is away"
    );
    let plane = harness.control_plane().expect("a real control plane");
    tokio::task::block_in_place(|| plane.start_api_server())
        .unwrap_or_else(|e| panic!("kube-apiserver starts again: {e}"));
    config_maps
        .delete("drop", &DeleteParams::default())
        .await
        .expect("deleted");
    config_maps
        .create(&PostParams::default(), &config_map("after"))
        .await
        .expect("created");
    let (names, took) = wait_names(
        &harness.driver,
        "the list equals the cluster after the restart",
        |names| {
            made_here(names)
                .into_iter()
                .cloned()
                .collect::<BTreeSet<_>>()
                == ["after", "keep"].iter().map(|s| s.to_string()).collect()
        },
    )
    .await;
    println!("followed the restart {took:?} after the writes: {names:?}");
    assert_not_reloaded(&harness.driver).await;
    wait_live(&harness.driver).await;
    harness.screenshot("live-after-apiserver-restart").await;
    harness.stop().await;
}
