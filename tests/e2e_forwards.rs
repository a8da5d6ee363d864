//! End-to-end tests of ports on object pages: *Forward* through kube-atlas (a link whose page
//! the pod answers, *Stop* from the header's list, a deleted pod ending its forward, in
//! words), *Open* through the API's proxy in a sandboxed frame (a page served by a pod gets
//! nothing of the API, neither a read nor a write), and what a viewer and a user of plain
//! `kubectl proxy` are told. Forwards run on both backends (kube-apiserver reaches the
//! stand-in kubelet on loopback); *Open* only on the demo cluster, since kube-apiserver's
//! `pods/proxy` would dial the pod's 10.244.x.y address.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{wait_for, wait_until, Backend, Harness};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams};
use serde_json::json;
use thirtyfour::prelude::*;

fn web_pod(image: &str, port: u16) -> serde_json::Value {
    json!({"containers": [{"name": "web", "image": image,
        "ports": [{"name": "http", "containerPort": port}]}]})
}

/// The `title` of the first element `css` finds.
async fn title_of(harness: &Harness, css: &str) -> String {
    wait_for(&harness.driver, css)
        .await
        .attr("title")
        .await
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Scrolls what `css` finds to the top of the view, for a screenshot of it.
async fn show(harness: &Harness, css: &str) {
    let element = wait_for(&harness.driver, css).await;
    harness
        .driver
        .execute(
            "arguments[0].scrollIntoView({block: 'center'});",
            vec![element.to_json().expect("an element")],
        )
        .await
        .expect("scrolled");
}

/// The text a browser tab shows at `url`, read in a tab of its own.
async fn page_text_in_new_tab(driver: &WebDriver, url: &str) -> String {
    let home = driver.window().await.expect("this tab");
    let other = driver.new_tab().await.expect("new tab");
    driver
        .switch_to_window(other)
        .await
        .expect("to the new tab");
    driver.goto(url).await.expect("the forwarded page loads");
    let text = driver
        .find(By::Css("body"))
        .await
        .expect("a body")
        .text()
        .await
        .unwrap_or_default();
    driver.close_window().await.expect("tab closed");
    driver.switch_to_window(home).await.expect("back");
    text
}

/// Whether anything accepts a connection on `url`'s loopback port.
async fn listens(url: &str) -> bool {
    let address = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    tokio::net::TcpStream::connect(address).await.is_ok()
}

async fn forward_shows_a_link_the_pod_answers_and_stops(backend: Backend) {
    let harness = Harness::start_on(backend).await.behind_kube_atlas().await;
    let pods = common::running_pod(&harness, "web", web_pod("nginx:1.27", 8080)).await;
    harness.open("#/obj/core/v1/pods/default/web").await;
    common::click_live(&harness.driver, ".ports-panel .forward-button").await;
    let link = wait_for(&harness.driver, ".ports-panel .forward-link").await;
    let url = link
        .attr("href")
        .await
        .ok()
        .flatten()
        .expect("the link's address");
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let page = format!("{}/status", url.trim_end_matches('/'));
    let answered = page_text_in_new_tab(&harness.driver, &page).await;
    assert!(
        answered.starts_with("Hello from pod default/web, port 8080: GET /status"),
        "{answered}"
    );
    // The list counts what went through: bytes each way.
    let bytes = wait_until(
        "the forward's bytes counted",
        async || {
            common::texts_at(
                &harness.driver,
                ".ports-panel .forward-row td.numeric",
                None,
            )
            .await
        },
        |cells| cells.get(1).is_some_and(|b| b != "0 / 0"),
    )
    .await;
    assert!(
        !bytes[1].starts_with("0 /"),
        "received from the pod: {bytes:?}"
    );

    // A local port already in use is refused, in words.
    let taken = url
        .trim_end_matches('/')
        .rsplit(':')
        .next()
        .expect("a port")
        .to_string();
    let local = wait_for(
        &harness.driver,
        ".ports-panel input[aria-label='Local port']",
    )
    .await;
    local.send_keys(&taken).await.expect("typed");
    common::click_live(&harness.driver, ".ports-panel .forward-button").await;
    let said = wait_until(
        "the taken port's refusal",
        async || common::texts_at(&harness.driver, ".ports-panel .error", None).await,
        |said| !said.is_empty(),
    )
    .await;
    assert!(
        said[0].contains(&format!("local port {taken} is already in use")),
        "{said:?}"
    );
    show(&harness, ".ports-panel").await;
    harness.screenshot("forward-pod").await;
    local.clear().await.expect("cleared");

    // Every forward in one place: the header's list, with Stop.
    harness
        .driver
        .execute("window.scrollTo(0, 0);", vec![])
        .await
        .expect("scrolled to the top");
    common::click_live(&harness.driver, ".forwards-menu > button").await;
    let listed = wait_for(&harness.driver, ".forwards-popover .forward-row").await;
    let row_text = listed.text().await.unwrap_or_default();
    assert!(row_text.contains("pod/web"), "{row_text}");
    harness.screenshot("forwards-list").await;

    common::click_live(&harness.driver, ".forwards-popover .forward-row button").await;
    wait_until(
        "the stopped forward's listener closes",
        async || listens(&url).await,
        |open| !open,
    )
    .await;
    common::click_live(&harness.driver, ".forwards-menu > button").await;

    // A pod that goes away ends its forward, and the page says so.
    common::click_live(&harness.driver, ".ports-panel .forward-button").await;
    wait_until(
        "a second forward",
        async || common::texts_at(&harness.driver, ".ports-panel .forward-link", None).await,
        |links| !links.is_empty(),
    )
    .await;
    pods.delete("web", &DeleteParams::default())
        .await
        .expect("pod deleted");
    let said = wait_until(
        "the forward ends with its reason",
        async || common::texts_at(&harness.driver, ".ports-panel .forward-ended", None).await,
        |said| {
            said.iter()
                .any(|s| s.contains("pod default/web was deleted"))
        },
    )
    .await;
    assert!(said.iter().all(|s| s.starts_with("Ended: ")), "{said:?}");
    harness.stop().await;
}

async fn the_viewer_sees_forward_and_open_disabled_with_the_reason(backend: Backend) {
    let harness = Harness::start_as_viewer(backend).await;
    common::running_pod(&harness, "web", web_pod("nginx:1.27", 8080)).await;
    harness.open("#/obj/core/v1/pods/default/web").await;
    wait_for(&harness.driver, ".ports-panel .forward-button").await;
    let forward = wait_until(
        "Forward disabled with the permission it needs",
        async || title_of(&harness, ".ports-panel .forward-button").await,
        |title| title.contains("portforward"),
    )
    .await;
    let open = wait_until(
        "Open disabled with the permission it needs",
        async || title_of(&harness, ".ports-panel .open-button").await,
        |title| title.contains("proxy"),
    )
    .await;
    for css in [".ports-panel .forward-button", ".ports-panel .open-button"] {
        let button = wait_for(&harness.driver, css).await;
        assert!(
            !button.is_enabled().await.unwrap_or(true),
            "{css} is disabled ({forward} / {open})"
        );
    }
    harness.stop().await;
}

on_both_backends!(
    forward_shows_a_link_the_pod_answers_and_stops,
    the_viewer_sees_forward_and_open_disabled_with_the_reason,
);

/// The text of the opened port's frame, once `ready` holds of it.
async fn frame_text(harness: &Harness, ready: impl Fn(&str) -> bool) -> String {
    wait_until(
        "the opened port's page",
        async || {
            let driver = &harness.driver;
            let Ok(frame) = driver.find(By::Css(".opened-port-frame")).await else {
                return String::new();
            };
            if frame.enter_frame().await.is_err() {
                return String::new();
            }
            let text = match driver.find(By::Css("body")).await {
                Ok(body) => body.text().await.unwrap_or_default(),
                Err(_) => String::new(),
            };
            driver.enter_parent_frame().await.expect("out of the frame");
            text
        },
        |text| ready(text),
    )
    .await
}

/// Under plain `kubectl proxy` (here the demo cluster serving the page itself) there is no
/// kube-atlas to listen on a port: Forward says so, and Open still shows the pod's answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_kube_atlas_forward_explains_and_open_shows_the_pods_answer() {
    let harness = Harness::start().await;
    common::running_pod(&harness, "web", web_pod("nginx:1.27", 80)).await;
    harness.open("#/obj/core/v1/pods/default/web").await;
    let title = title_of(&harness, ".ports-panel .forward-button").await;
    assert!(title.contains("needs kube-atlas"), "{title}");
    common::click_live(&harness.driver, ".ports-panel .open-button").await;
    let text = frame_text(&harness, |t| t.contains("Hello from pod")).await;
    assert!(
        text.starts_with("Hello from pod default/web, port 80: GET /"),
        "{text}"
    );
    show(&harness, ".opened-port").await;
    harness.screenshot("open-pod-port").await;
    harness.stop().await;
}

/// A pod's page that tries to read Secrets and create a ConfigMap with the dashboard's access
/// gets nothing: the frame's scripts run in an opaque origin.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_served_by_a_pod_cannot_read_or_write_through_the_api() {
    let harness = Harness::start().await;
    common::running_pod(
        &harness,
        "hostile",
        web_pod("kube-atlas/hostile-page:1", 80),
    )
    .await;
    harness.open("#/obj/core/v1/pods/default/hostile").await;
    common::click_live(&harness.driver, ".ports-panel .open-button").await;
    let text = frame_text(&harness, |t| t.contains("write as JSON")).await;
    for attempt in ["read", "write as a form", "write as JSON"] {
        assert!(
            text.contains(&format!("{attempt}: blocked")),
            "{attempt} got through: {text}"
        );
    }
    assert!(!text.contains("SecretList"), "{text}");
    let configmaps: Api<ConfigMap> = Api::namespaced(harness.kube_client(), "default");
    assert!(
        configmaps
            .get_opt("hostile-wrote")
            .await
            .expect("asked")
            .is_none(),
        "the pod's page wrote through the API: {text}"
    );
    harness.stop().await;
}
