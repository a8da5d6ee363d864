//! End-to-end tests of the bulk actions on a list's selected rows (issue #48 item 3): a
//! bulk delete by a user whose Role names only some of the pods (`resourceNames`: the
//! others refused in the server's words), a bulk label on Deployments, and the viewer
//! seeing the bar's actions disabled with the reason. On the demo cluster and on
//! kube-apiserver.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{wait_until, Backend, Harness};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::rbac::v1::{Role, RoleBinding};
use kube::api::{Api, ListParams, PostParams};
use serde_json::json;
use thirtyfour::prelude::*;

/// The names of the list's rows, as drawn.
async fn row_names(harness: &Harness) -> Vec<String> {
    common::texts_at(&harness.driver, "tr.vt-row td.name-cell a", None).await
}

/// Clicks what `css` finds once it is there and enabled.
async fn click_enabled(harness: &Harness, css: &str) {
    wait_until(
        &format!("{css}, enabled"),
        async || match harness.driver.find(By::Css(css)).await {
            Ok(element) if element.is_enabled().await.unwrap_or(false) => {
                element.click().await.is_ok()
            }
            _ => false,
        },
        |clicked| *clicked,
    )
    .await;
}

/// The text at `css` (empty while it is not there).
async fn text_at(harness: &Harness, css: &str) -> String {
    common::texts_at(&harness.driver, css, None)
        .await
        .into_iter()
        .next()
        .unwrap_or_default()
}

/// The preview's or the results' rows: (name, state, text).
async fn object_rows(harness: &Harness, state_attribute: &str) -> Vec<(String, String, String)> {
    harness
        .driver
        .execute(
            &format!(
                "return Array.from(document.querySelectorAll('.bulk-objects tbody tr'))
                   .map(r => [r.dataset.name, r.getAttribute('{state_attribute}') || '', r.textContent]);"
            ),
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<Vec<(String, String, String)>>().ok())
        .unwrap_or_default()
}

async fn waits_for_rows(harness: &Harness, count: usize) {
    wait_until(
        &format!("{count} rows"),
        async || row_names(harness).await,
        |names| names.len() == count,
    )
    .await;
}

/// 12 pods; the user's Role names 10 of them: the preview marks 2 as not the user's to
/// delete (in the server's words, from the dry run), the run deletes 10 and refuses 2.
async fn bulk_delete_honours_resource_names(backend: Backend) {
    let harness = Harness::start_as_viewer(backend).await;
    let client = harness.kube_client();
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    for i in 1..=12 {
        let pod: Pod = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("bulk-{i}"), "labels": {"bulk": "yes"}},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]},
        }))
        .expect("a pod");
        pods.create(&PostParams::default(), &pod)
            .await
            .expect("pod created");
    }
    let names: Vec<String> = (1..=10).map(|i| format!("bulk-{i}")).collect();
    let role: Role = serde_json::from_value(json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "bulk-delete"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["delete"],
                   "resourceNames": names}],
    }))
    .expect("a Role");
    Api::<Role>::namespaced(client.clone(), "default")
        .create(&PostParams::default(), &role)
        .await
        .expect("Role created");
    let binding: RoleBinding = serde_json::from_value(json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "bulk-delete"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "bulk-delete"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "viewers"}],
    }))
    .expect("a RoleBinding");
    Api::<RoleBinding>::namespaced(client.clone(), "default")
        .create(&PostParams::default(), &binding)
        .await
        .expect("RoleBinding created");

    harness
        .open("#/list/core/v1/pods?ns=default&l=bulk%3Dyes")
        .await;
    waits_for_rows(&harness, 12).await;
    // One row's box, then the bar's "Select all 12 matching the filter".
    click_enabled(&harness, "tr.vt-row td.vt-select input").await;
    wait_until(
        "1 selected",
        async || text_at(&harness, ".bulk-count").await,
        |text| text == "1 selected",
    )
    .await;
    let select_all = text_at(&harness, ".bulk-select-all").await;
    assert_eq!(select_all, "Select all 12 matching the filter");
    click_enabled(&harness, ".bulk-select-all").await;
    wait_until(
        "12 selected",
        async || text_at(&harness, ".bulk-count").await,
        |text| text == "12 selected",
    )
    .await;
    click_enabled(&harness, ".bulk-action[data-action='Delete']").await;
    click_enabled(&harness, ".bulk-params button[type='submit']").await;
    let denial = wait_until(
        "the preview: 2 of 12 you may not delete",
        async || text_at(&harness, ".bulk-preview .bulk-denial").await,
        |text| !text.is_empty(),
    )
    .await;
    assert_eq!(denial, "2 of 12 you may not delete");
    let planned = object_rows(&harness, "data-verdict").await;
    let denied: Vec<_> = planned.iter().filter(|(_, v, _)| v == "denied").collect();
    assert_eq!(
        denied.iter().map(|(n, ..)| n.as_str()).collect::<Vec<_>>(),
        ["bulk-11", "bulk-12"],
        "{planned:?}"
    );
    for (name, _, text) in &denied {
        assert!(text.contains("forbidden"), "{name}: {text}");
    }
    // The preview's dry run deleted nothing.
    let standing = pods
        .list(&ListParams::default().labels("bulk=yes"))
        .await
        .expect("listed")
        .items
        .into_iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .count();
    assert_eq!(standing, 12, "the dry run must not delete");
    harness.screenshot("bulk-delete-preview").await;
    click_enabled(&harness, ".bulk-confirm").await;
    let summary = wait_until(
        "10 done, 2 refused",
        async || text_at(&harness, ".bulk-summary").await,
        |text| !text.contains("under way") && !text.is_empty(),
    )
    .await;
    assert_eq!(summary, "10 done, 2 refused");
    let results = object_rows(&harness, "data-result").await;
    for (name, result, text) in &results {
        match name.as_str() {
            "bulk-11" | "bulk-12" => {
                assert_eq!(result, "refused", "{name}");
                assert!(
                    text.contains("forbidden") && text.contains(name.as_str()),
                    "the server's reason: {text}"
                );
            }
            _ => assert_eq!(result, "done", "{name}: {text}"),
        }
    }
    // The cluster agrees: 10 gone or going, 2 stay.
    let left = wait_until(
        "10 pods deleted",
        async || {
            pods.list(&ListParams::default().labels("bulk=yes"))
                .await
                .map(|l| {
                    l.items
                        .into_iter()
                        .filter(|p| p.metadata.deletion_timestamp.is_none())
                        .filter_map(|p| p.metadata.name)
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        },
        |left| left.len() == 2,
    )
    .await;
    assert!(
        left.contains(&"bulk-11".to_string()) && left.contains(&"bulk-12".to_string()),
        "{left:?}"
    );
    // The results stay until dismissed.
    harness.screenshot("bulk-delete-results").await;
    assert_eq!(
        text_at(&harness, ".bulk-summary").await,
        "10 done, 2 refused"
    );
    harness.stop().await;
}

on_both_backends!(bulk_delete_honours_resource_names);

/// The LABELS cell (`Show labels`) of each row, by name.
async fn labels_cells(harness: &Harness) -> Vec<(String, String)> {
    harness
        .driver
        .execute(
            "const heads = Array.from(document.querySelectorAll('table[role=grid] thead th:not(.vt-select)'))
               .map(th => th.textContent.replace(/[▲▼]/g, '').trim());
             const at = heads.indexOf('LABELS');
             return Array.from(document.querySelectorAll('table[role=grid] tbody tr.vt-row')).map(r => {
               const cells = r.querySelectorAll('td:not(.vt-select)');
               return [cells[0].textContent.trim(), at >= 0 && cells[at] ? cells[at].textContent.trim() : ''];
             });",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<Vec<(String, String)>>().ok())
        .unwrap_or_default()
}

/// Three Deployments chosen with a click and a Shift-click, labelled at once; the rows show
/// the new label live (the LABELS column), and the list chosen by the new label shows them.
async fn bulk_label_on_deployments(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    for name in ["lab-a", "lab-b", "lab-c", "lab-d"] {
        common::nginx_deployment(&harness, name, 1).await;
    }
    harness
        .open("#/list/apps/v1/deployments?ns=default&q=lab-&sort=Name&labels=1")
        .await;
    waits_for_rows(&harness, 4).await;
    let names = row_names(&harness).await;
    assert_eq!(names, ["lab-a", "lab-b", "lab-c", "lab-d"]);
    let boxes = "tr.vt-row td.vt-select input";
    // Found and clicked at once: a row is drawn again when its object changes (the
    // controllers write the Deployments' status meanwhile).
    harness
        .driver
        .execute(
            "document.querySelectorAll(arguments[0])[0].click();",
            vec![json!(boxes)],
        )
        .await
        .expect("click");
    // Shift-click the third row's box: the range from the first.
    harness
        .driver
        .execute(
            "const b = document.querySelectorAll(arguments[0])[2];
             b.dispatchEvent(new MouseEvent('click', {bubbles: true, shiftKey: true}));",
            vec![json!(boxes)],
        )
        .await
        .expect("shift-click");
    wait_until(
        "3 selected",
        async || text_at(&harness, ".bulk-count").await,
        |text| text == "3 selected",
    )
    .await;
    click_enabled(&harness, ".bulk-action[data-action='Label']").await;
    let key = harness
        .driver
        .find(By::Css(".bulk-params input[aria-label='Key']"))
        .await
        .expect("the key");
    key.send_keys("team").await.expect("typed");
    let value = harness
        .driver
        .find(By::Css(".bulk-params input[aria-label='Value']"))
        .await
        .expect("the value");
    value.send_keys("ops").await.expect("typed");
    click_enabled(&harness, ".bulk-params button[type='submit']").await;
    click_enabled(&harness, ".bulk-confirm").await;
    wait_until(
        "3 done",
        async || text_at(&harness, ".bulk-summary").await,
        |text| text == "3 done, 0 refused",
    )
    .await;
    let deployments: Api<Deployment> = Api::namespaced(harness.kube_client(), "default");
    let labelled = deployments
        .list(&ListParams::default().labels("team=ops"))
        .await
        .expect("listed")
        .items
        .into_iter()
        .filter_map(|d| d.metadata.name)
        .collect::<Vec<_>>();
    assert_eq!(labelled, ["lab-a", "lab-b", "lab-c"]);
    // The rows show it, live, in the LABELS column.
    let cells = wait_until(
        "the new label on the three rows",
        async || labels_cells(&harness).await,
        |cells| {
            cells.len() == 4
                && cells.iter().all(|(name, labels)| {
                    labels.split(',').any(|l| l == "team=ops") == (name != "lab-d")
                })
        },
    )
    .await;
    assert!(
        cells.contains(&("lab-d".to_string(), "<none>".to_string())),
        "kubectl's word for no labels: {cells:?}"
    );
    // The rows stay selected through their update (the selection follows the uids).
    let selected =
        common::texts_at(&harness.driver, "tr.vt-row.selected td.name-cell a", None).await;
    assert_eq!(selected, ["lab-a", "lab-b", "lab-c"]);
    harness.screenshot("bulk-label-results").await;
    // The list chosen by the new label shows them.
    let selector = harness
        .driver
        .find(By::Css("input[aria-label='Label selector']"))
        .await
        .expect("the label selector");
    selector.send_keys("team=ops\n").await.expect("typed");
    wait_until(
        "the three labelled rows",
        async || row_names(&harness).await,
        |names| names == &["lab-a", "lab-b", "lab-c"],
    )
    .await;
    harness.stop().await;
}

on_both_backends!(bulk_label_on_deployments);

/// The viewer may select rows, but every action is disabled, with the reason.
async fn the_viewer_sees_bulk_actions_disabled(backend: Backend) {
    let harness = Harness::start_as_viewer(backend).await;
    common::nginx_deployment(&harness, "seen-a", 1).await;
    common::nginx_deployment(&harness, "seen-b", 1).await;
    harness
        .open("#/list/apps/v1/deployments?ns=default&q=seen-")
        .await;
    waits_for_rows(&harness, 2).await;
    // Space on the active row, after Shift+Down from the first: both rows.
    let grid = harness
        .driver
        .find(By::Css(".vt-scroll"))
        .await
        .expect("grid");
    harness
        .driver
        .execute("document.querySelector('.vt-scroll').focus();", vec![])
        .await
        .expect("focused");
    grid.send_keys(Key::Down).await.expect("down");
    grid.send_keys(Key::Shift + Key::Down)
        .await
        .expect("shift-down");
    wait_until(
        "2 selected",
        async || text_at(&harness, ".bulk-count").await,
        |text| text == "2 selected",
    )
    .await;
    let actions = wait_until(
        "the bar's actions disabled with their reasons",
        async || {
            harness
                .driver
                .execute(
                    "return Array.from(document.querySelectorAll('.bulk-action'))
                       .map(b => [b.textContent, b.disabled, b.title]);",
                    vec![],
                )
                .await
                .ok()
                .and_then(|r| r.convert::<Vec<(String, bool, String)>>().ok())
                .unwrap_or_default()
        },
        |actions| actions.len() == 5 && actions.iter().all(|(_, disabled, _)| *disabled),
    )
    .await;
    for (label, _, reason) in &actions {
        assert!(
            reason.starts_with("You may not") && reason.contains("deployments"),
            "{label}: {reason}"
        );
    }
    let note = text_at(&harness, ".bulk-bar .bulk-denied-note").await;
    assert!(
        note.starts_with("You may not delete any of the 2 selected"),
        "{note}"
    );
    harness.screenshot("bulk-viewer-disabled").await;
    // Escape clears the selection, and the bar goes.
    grid.send_keys(Key::Escape).await.expect("escape");
    wait_until(
        "the bar gone",
        async || {
            harness
                .driver
                .find_all(By::Css(".bulk-bar"))
                .await
                .map(|b| b.len())
                .unwrap_or(1)
        },
        |n| *n == 0,
    )
    .await;
    harness.stop().await;
}

on_both_backends!(the_viewer_sees_bulk_actions_disabled);
