//! End-to-end tests of browsing: lists with the server's columns, selectors, big lists with
//! paging, object pages with owners, and server text shown as text. The release build in
//! headless Chromium against a fresh seeded demo cluster (`cargo xtask test`, feature `e2e`).

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use common::{wait_for, Backend, Harness};
use futures::{stream, StreamExt};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod};
use kube::api::{Api, ListParams, PostParams};
use kube_atlas::model::watch::key::{FIRST_PAGE_SIZE, PAGE_SIZE};
use thirtyfour::prelude::*;

/// Generous on a busy 2-core machine ([`common::PATIENCE`]).
const PAGE_TIMEOUT: Duration = common::PATIENCE;
const POLL: Duration = Duration::from_millis(100);

/// Waits until the element at `css` has text satisfying `check`; returns the text.
async fn wait_for_text(driver: &WebDriver, css: &str, check: impl Fn(&str) -> bool) -> String {
    let deadline = std::time::Instant::now() + PAGE_TIMEOUT;
    let mut last = String::new();
    while std::time::Instant::now() < deadline {
        if let Ok(element) = driver.find(By::Css(css)).await {
            last = element.text().await.unwrap_or_default();
            if check(&last) {
                return last;
            }
        }
        tokio::time::sleep(POLL).await;
    }
    panic!("`{css}` never satisfied the check; last text: {last:?}");
}

/// The column headers of the list grid, as shown (upper case), without the row-selection
/// column.
async fn headers(driver: &WebDriver) -> Vec<String> {
    let cells = driver
        .find_all(By::Css("table[role=grid] thead th:not(.vt-select)"))
        .await
        .expect("header cells");
    let mut out = Vec::new();
    for cell in cells {
        out.push(cell.text().await.unwrap_or_default().trim().to_string());
    }
    out
}

/// The rows in the DOM: each row's cell texts (without the selection box), read in one script so a live row redrawn
/// meanwhile (an age ticking) cannot go stale between reads.
async fn rows(driver: &WebDriver) -> Vec<Vec<String>> {
    let snapshot = driver
        .execute(
            "return Array.from(document.querySelectorAll('table[role=grid] tbody tr.vt-row'))\
             .map(r => Array.from(r.querySelectorAll('td:not(.vt-select)')).map(td => td.innerText));",
            vec![],
        )
        .await
        .expect("rows");
    serde_json::from_value(snapshot.json().clone()).expect("rows of texts")
}

/// Waits until loading finished with `count` rows loaded.
async fn wait_loaded(driver: &WebDriver, count: usize) -> String {
    let expected = format!("{count} loaded");
    wait_for_text(driver, ".list-count", |t| t.starts_with(&expected)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_show_the_servers_columns_for_built_in_and_custom_kinds() {
    let harness = Harness::start().await;
    let driver = &harness.driver;
    let configmaps: Api<ConfigMap> = Api::namespaced(harness.kube_client(), "default");
    let settings: ConfigMap = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "settings"}, "data": {"a": "1", "b": "2"}
    }))
    .expect("configmap");
    configmaps
        .create(&PostParams::default(), &settings)
        .await
        .expect("created");

    // ConfigMaps: DATA and AGE, as `kubectl get configmaps`.
    harness.open("#/list/core/v1/configmaps?ns=default").await;
    wait_loaded(driver, 1).await;
    assert_eq!(headers(driver).await, ["NAME", "DATA", "AGE"]);
    let settings_row = &rows(driver).await[0];
    assert_eq!(settings_row[0], "settings");
    assert_eq!(settings_row[1], "2");
    assert!(
        settings_row[2].ends_with('s'),
        "an age in seconds: {settings_row:?}"
    );
    let data_cell = wait_for(
        driver,
        "table[role=grid] tbody tr.vt-row td:not(.vt-select):nth-child(3)",
    )
    .await;
    assert!(
        !data_cell
            .class_name()
            .await
            .ok()
            .flatten()
            .unwrap_or_default()
            .contains("numeric"),
        "DATA is aligned as the server declares it: kube-apiserver v1.36 declares it a string \
         (held by demo-cluster/tests/differential.rs), so it is left-aligned as text"
    );

    // Deployments across all namespaces: a NAMESPACE column, then kubectl's columns.
    harness.open("#/list/apps/v1/deployments").await;
    // 4 workloads, and 3 in `troubled` (the seeded failures).
    wait_loaded(driver, 7).await;
    assert_eq!(
        headers(driver).await,
        [
            "NAME",
            "NAMESPACE",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "AGE",
            "HEALTH"
        ]
    );
    let shown = rows(driver).await;
    let nginx = shown
        .iter()
        .find(|r| r[0] == "nginx")
        .unwrap_or_else(|| panic!("nginx listed: {shown:?}"));
    assert_eq!(nginx[1], "default");
    assert!(nginx[2].ends_with("/3"), "READY like 3/3: {nginx:?}");
    // Wide adds the priority-1 columns, as `kubectl get -o wide`.
    driver
        .find(By::Css("input[aria-label='Wide']"))
        .await
        .expect("Wide checkbox")
        .click()
        .await
        .expect("click Wide");
    wait_for(driver, "table[role=grid] thead th[title='Images']").await;
    let wide = headers(driver).await;
    assert!(
        wide.ends_with(&[
            "CONTAINERS".to_string(),
            "IMAGES".into(),
            "SELECTOR".into(),
            "HEALTH".into()
        ]),
        "{wide:?}"
    );
    assert!(driver
        .current_url()
        .await
        .expect("url")
        .as_str()
        .contains("wide=1"));
    harness.screenshot("list-deployments").await;

    // A custom resource: the CRD's additionalPrinterColumns (Command is priority 1).
    harness
        .open("#/list/cnat.programming-kubernetes.info/v1alpha1/ats?ns=demo")
        .await;
    wait_loaded(driver, 1).await;
    assert_eq!(headers(driver).await, ["NAME", "SCHEDULE", "PHASE", "AGE"]);
    let at = rows(driver).await;
    assert_eq!(at[0][0], "example-at");
    assert!(
        ["PENDING", "RUNNING", "DONE"].contains(&at[0][2].as_str()),
        "{at:?}"
    );
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selectors_narrow_the_list_and_bad_ones_are_caught_before_sending() {
    let harness = Harness::start().await;
    let driver = &harness.driver;
    harness.open("#/list/core/v1/pods").await;
    wait_for(driver, "table[role=grid] tbody tr.vt-row").await;
    let everything = wait_for_text(driver, ".list-count", |t| t.ends_with(" loaded")).await;
    let all: usize = everything
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a count");

    let selector = driver
        .find(By::Css("input[aria-label='Label selector']"))
        .await
        .expect("label selector input");
    selector.send_keys("app=nginx").await.expect("type");
    selector.send_keys(Key::Enter).await.expect("enter");
    wait_loaded(driver, 3).await;
    assert!(all > 3, "the selector narrowed {all} pods");
    let shown = rows(driver).await;
    assert_eq!(shown.len(), 3);
    assert!(
        shown.iter().all(|r| r[0].starts_with("nginx-")),
        "{shown:?}"
    );
    let url = driver.current_url().await.expect("url").to_string();
    assert!(url.contains("l=app%3Dnginx"), "{url}");

    // Field selectors go to the server too. The seeded Job's pod finishes within seconds;
    // wait until the server has it, so the narrowed list cannot be empty.
    let pods: Api<Pod> = Api::all(harness.kube_client());
    let finished_on_server = common::wait_until(
        "a pod has finished (the seeded Job pi's)",
        async || {
            pods.list(&ListParams::default().fields("status.phase=Succeeded"))
                .await
                .map(|l| {
                    l.items
                        .into_iter()
                        .filter_map(|p| p.metadata.name)
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        },
        |names| names.iter().any(|n| n.starts_with("pi-")),
    )
    .await;
    harness
        .open("#/list/core/v1/pods?f=status.phase%3DSucceeded")
        .await;
    wait_for_text(driver, ".list-count", |t| t.ends_with(" loaded")).await;
    // How many pods have finished depends on how long the CronJob has run: what holds is
    // that the ones the server had finished are shown, and every row shown is one (STATUS
    // Completed), none of the running ones.
    let finished = rows(driver).await;
    let shown_names: Vec<&str> = finished.iter().map(|r| r[0].as_str()).collect();
    assert!(
        finished_on_server
            .iter()
            .all(|n| shown_names.contains(&n.as_str())),
        "the finished pods {finished_on_server:?} are shown: {finished:?}"
    );
    assert!(
        !finished.is_empty()
            && finished
                .iter()
                .all(|r| r.iter().any(|cell| cell == "Completed")),
        "{finished:?}"
    );
    assert!(
        finished.len() < all,
        "the field selector narrowed {all} pods: {finished:?}"
    );

    // A malformed selector is reported where it is wrong, and nothing is sent.
    harness.open("#/list/core/v1/pods?l=app%20in%20nginx").await;
    let error = wait_for(driver, "#label-selector-error").await;
    let text = error.text().await.expect("error text");
    assert!(text.contains("column"), "{text}");
    assert!(text.contains('('), "{text}");
    assert!(driver.find(By::Css("table[role=grid]")).await.is_err());
    // The server's own rejection (an unknown field) is shown with its message.
    harness
        .open("#/list/core/v1/pods?f=spec.color%3Dblue")
        .await;
    let rejected = wait_for(driver, ".list-page .error[role=alert]").await;
    let text = rejected.text().await.expect("error text");
    assert!(
        text.contains("400") && text.contains("spec.color"),
        "{text}"
    );
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_thousand_pods_page_in_and_stay_virtualized() {
    const PODS: usize = 5_000;
    let harness = Harness::start().await;
    let client = harness.kube_client();
    let namespaces: Api<Namespace> = Api::all(client.clone());
    namespaces
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({"metadata": {"name": "bulk"}}))
                .expect("namespace"),
        )
        .await
        .expect("namespace created");
    let pods: Api<Pod> = Api::namespaced(client, "bulk");
    let created = stream::iter(0..PODS)
        .map(|i| {
            let pods = pods.clone();
            async move {
                // Bound to a node that does not exist: no kubelet works on them.
                let pod: Pod = serde_json::from_value(serde_json::json!({
                    "metadata": {"name": format!("p-{i:04}"), "labels": {"batch": "bulk"}},
                    "spec": {"nodeName": "parked", "containers": [{"name": "c", "image": "busybox"}]}
                }))
                .expect("pod");
                pods.create(&PostParams::default(), &pod).await
            }
        })
        .buffer_unordered(16)
        .filter(|result| std::future::ready(result.is_ok()))
        .count()
        .await;
    assert_eq!(created, PODS);

    let driver = &harness.driver;
    harness.open("#/list/core/v1/pods?ns=bulk").await;
    wait_loaded(driver, PODS).await;
    // A first page of 100 (drawn sooner), then pages of PAGE_SIZE with continue tokens: 6
    // requests for the list, as the browser saw them.
    let requests = driver
        .execute(
            "return performance.getEntriesByType('resource').map(e => e.name)\
               .filter(n => n.includes('/api/v1/namespaces/bulk/pods'));",
            vec![],
        )
        .await
        .expect("resource timing");
    let urls: Vec<String> = requests.convert().expect("a list of URLs");
    let (first, next) = (FIRST_PAGE_SIZE as usize, PAGE_SIZE as usize);
    assert_eq!(urls.len(), 1 + (PODS - first).div_ceil(next), "{urls:?}");
    assert!(
        urls[0].contains(&format!("limit={first}")) && !urls[0].contains("continue="),
        "{urls:?}"
    );
    assert!(
        urls[1..]
            .iter()
            .all(|u| u.contains(&format!("limit={next}")) && u.contains("continue=")),
        "{urls:?}"
    );
    // Only the rows in view exist in the DOM.
    let in_dom = rows(driver).await.len();
    assert!(in_dom > 10 && in_dom < 120, "{in_dom} rows in the DOM");
    let grid = driver
        .find(By::Css("table[role=grid]"))
        .await
        .expect("grid");
    assert_eq!(
        grid.attr("aria-rowcount").await.ok().flatten().as_deref(),
        Some("5001")
    );
    // Keyboard: End goes to the last row, Enter opens it.
    let scroller = driver.find(By::Css(".vt-scroll")).await.expect("scroller");
    scroller.send_keys(Key::End).await.expect("End");
    wait_for(driver, "tr.vt-row.active a[href*='p-4999']").await;
    scroller.send_keys(Key::Enter).await.expect("Enter");
    wait_for_text(driver, ".object-page h1", |t| t == "p-4999").await;
    assert!(driver
        .current_url()
        .await
        .expect("url")
        .as_str()
        .ends_with("#/obj/core/v1/pods/bulk/p-4999"));
    harness.stop().await;
}

on_both_backends!(a_list_opened_by_its_link_asks_its_first_page_while_the_app_starts);
/// A list opened from its address (a bookmark, a shared link) asks for its first page as the
/// app starts, beside discovery, not after it: once, taken by the list. A namespace given
/// for a cluster-scoped kind makes the early guess wrong: the list still shows the server's
/// rows, asked for as usual.
async fn a_list_opened_by_its_link_asks_its_first_page_while_the_app_starts(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let driver = &harness.driver;
    let first_pages_asked = |collection: &'static str| async move {
        let script = format!(
            "const asked = performance.getEntriesByType('resource')\
               .filter(e => new URL(e.name).pathname === '{collection}' && e.name.includes('limit=100'))\
               .map(e => e.startTime);\
             const parsed = performance.getEntriesByName('kube-atlas:discovery-parsed')[0];\
             return {{ asked, parsed: parsed ? parsed.startTime : null }};"
        );
        driver
            .execute(&script, vec![])
            .await
            .expect("resource timing")
            .json()
            .clone()
    };
    for (address, collection) in [
        ("#/list/core/v1/namespaces", "/api/v1/namespaces"),
        // Namespaces are cluster-scoped: the `ns` is left aside once discovery says so.
        ("#/list/core/v1/namespaces?ns=default", "/api/v1/namespaces"),
    ] {
        // A new page each time (only the fragment differs, which alone would not load one).
        driver.goto("about:blank").await.expect("blank");
        harness.open(address).await;
        common::wait_until_within(
            &format!("the namespaces listed at {address}"),
            PAGE_TIMEOUT,
            async || common::shown_names(driver).await,
            |names| {
                names.iter().any(|n| n == "default") && names.iter().any(|n| n == "kube-system")
            },
        )
        .await;
        let timing = first_pages_asked(collection).await;
        let asked: Vec<f64> = timing["asked"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(serde_json::Value::as_f64)
            .collect();
        assert_eq!(
            asked.len(),
            1,
            "{address}: the first page asked once: {timing}"
        );
        let parsed = timing["parsed"].as_f64().expect("discovery parsed");
        if address.contains("ns=") {
            assert!(
                asked[0] > parsed,
                "{address}: asked once discovery said where: {timing}"
            );
        } else {
            assert!(
                asked[0] < parsed,
                "{address}: asked before discovery was in: {timing}"
            );
        }
    }
    harness.stop().await;
}

on_both_backends!(object_pages_show_conditions_and_the_owner_chain_both_ways);
async fn object_pages_show_conditions_and_the_owner_chain_both_ways(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let driver = &harness.driver;
    // The seeded nginx Deployment runs 3 pods through a ReplicaSet; on the real cluster it is
    // made (and rolled out by the real controllers) before the page opens.
    harness.nginx_rolled_out().await;
    harness
        .open("#/list/core/v1/pods?ns=default&l=app%3Dnginx")
        .await;
    wait_loaded(driver, 3).await;
    let pod_link = wait_for(driver, "tr.vt-row td.name-cell a").await;
    let pod_name = pod_link.text().await.expect("pod name");
    pod_link.click().await.expect("open the pod");
    wait_for_text(driver, ".object-page h1", |t| t == pod_name).await;

    // Conditions as a table.
    let ready = wait_for(driver, "table.conditions tr.condition[data-type='Ready']").await;
    let ready_text = ready.text().await.expect("condition");
    assert!(ready_text.contains("True"), "{ready_text}");

    // Up: the ReplicaSet, then the Deployment.
    let replica_set = wait_for(driver, ".owner-level li.owner[data-kind='ReplicaSet'] a").await;
    assert!(replica_set
        .text()
        .await
        .expect("text")
        .starts_with("ReplicaSet nginx-"));
    wait_for(driver, ".owner-level li.owner[data-kind='Deployment'] a").await;
    harness.screenshot("object-pod").await;

    // Follow the Deployment link, and see the ReplicaSet and the pods below it.
    driver
        .find(By::Css(".owner-level li.owner[data-kind='Deployment'] a"))
        .await
        .expect("deployment link")
        .click()
        .await
        .expect("open the deployment");
    wait_for_text(driver, ".object-page h1", |t| t == "nginx").await;
    wait_for(driver, ".owner-level li.owned[data-kind='ReplicaSet'] a").await;
    let owned_pods = driver
        .query(By::Css(".owner-level li.owned[data-kind='Pod'] a"))
        .wait(PAGE_TIMEOUT, POLL)
        .all_from_selector_required()
        .await
        .expect("owned pods");
    assert_eq!(owned_pods.len(), 3);
    let mut names = Vec::new();
    for pod in &owned_pods {
        names.push(pod.text().await.expect("text"));
    }
    assert!(names.contains(&format!("Pod {pod_name}")), "{names:?}");
    let available = wait_for(
        driver,
        "table.conditions tr.condition[data-type='Available']",
    )
    .await;
    assert!(available
        .text()
        .await
        .expect("text")
        .contains("MinimumReplicasAvailable"));
    harness.screenshot("object-deployment").await;

    // The YAML tab shows the object without managedFields until asked.
    harness
        .open("#/obj/apps/v1/deployments/default/nginx?tab=yaml")
        .await;
    let yaml = wait_for(driver, "pre.object-text").await;
    let text = yaml.text().await.expect("yaml");
    assert!(text.contains("kind: Deployment"), "{text}");
    assert!(!text.contains("managedFields"), "{text}");
    harness.stop().await;
}

on_both_backends!(html_from_the_server_is_shown_as_text_and_never_run);
async fn html_from_the_server_is_shown_as_text_and_never_run(backend: Backend) {
    const HOSTILE: &str = "<img src=x onerror=alert(1)>";
    let harness = Harness::start_on(backend).await;
    let configmaps: Api<ConfigMap> = Api::namespaced(harness.kube_client(), "default");
    let cm: ConfigMap = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "hostile", "annotations": {"note": HOSTILE},
                     "labels": {"kind": "x"}},
        "data": {"page": "<script>alert(2)</script>"}
    }))
    .expect("configmap");
    configmaps
        .create(&PostParams::default(), &cm)
        .await
        .expect("created");
    let driver = &harness.driver;
    harness
        .open("#/obj/core/v1/configmaps/default/hostile")
        .await;
    wait_for(driver, "[aria-label='Annotations']").await;
    // Read in one script: the live page may redraw between finding and reading.
    let text = driver
        .execute(
            "return document.querySelector(\"[aria-label='Annotations']\").textContent;",
            vec![],
        )
        .await
        .expect("annotations")
        .convert::<String>()
        .expect("text");
    assert!(text.contains(HOSTILE), "shown literally: {text}");
    // Nothing was interpreted: no image element, no alert.
    assert!(driver.find(By::Css(".object-page img")).await.is_err());
    assert!(
        driver.get_alert_text().await.is_err(),
        "an alert opened: the text was run"
    );
    harness
        .open("#/obj/core/v1/configmaps/default/hostile?tab=json")
        .await;
    let json = wait_for(driver, "pre.object-text").await;
    assert!(json
        .text()
        .await
        .expect("text")
        .contains("<script>alert(2)</script>"));
    assert!(driver.get_alert_text().await.is_err());
    harness.stop().await;
}
