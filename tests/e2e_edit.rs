//! End-to-end tests of editing: the release build in headless Chromium against the demo
//! cluster, with the kube crate writing "at the same time" as the user. Text goes into the
//! CodeMirror editor as a user puts it there: select all (Ctrl+A) and paste.
//! - a ConfigMap created from the create page; edited while the kube crate changes another
//!   key: the save meets a 409, the edit is reapplied onto the latest, both changes land;
//! - the same key changed on both sides: the user is asked and their pick is saved;
//! - server-side apply conflicts name the other manager; Force apply takes the field;
//! - delete with Foreground propagation; scale a Deployment and its ReplicaSet follows;
//! - malformed YAML shows its line and sends nothing; a reload brings an unsaved draft back.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{logged_requests, wait_for, wait_until, Backend, Harness, ProxyMode, SHUTTING_DOWN};
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use serde_json::json;
use thirtyfour::prelude::*;

/// The editor's text, line by line as CodeMirror draws it (small documents: all drawn).
async fn editor_text(driver: &WebDriver) -> String {
    driver
        .execute(
            "return Array.from(document.querySelectorAll('.code-editor .cm-line')).map(l => l.textContent).join('\\n');",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<String>().ok())
        .unwrap_or_default()
}

/// Replaces the editor's text as a user does: select all, paste.
async fn paste_into_editor(driver: &WebDriver, text: &str) {
    let content = wait_for(driver, ".code-editor .cm-content").await;
    content.click().await.expect("focus the editor");
    content
        .send_keys(Key::Control + "a")
        .await
        .expect("select all");
    driver
        .execute(
            "const el = document.querySelector('.code-editor .cm-content');
             const data = new DataTransfer();
             data.setData('text/plain', arguments[0]);
             el.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true}));",
            vec![serde_json::Value::String(text.to_string())],
        )
        .await
        .expect("paste");
}

/// The editor's text with `from` replaced by `to` (which must be there).
async fn edit_text(driver: &WebDriver, from: &str, to: &str) {
    let text = wait_until(
        "the editor shows the object",
        async || editor_text(driver).await,
        |t| t.contains(from),
    )
    .await;
    paste_into_editor(driver, &text.replacen(from, to, 1)).await;
    wait_until(
        "the editor took the change",
        async || editor_text(driver).await,
        |t| t.contains(to),
    )
    .await;
}

/// Clicks Review until the server answers the review itself: a controller's status write
/// between opening the editor and reviewing makes the dry run a 409, which reapplies the
/// edit onto the latest (as a save does) and asks for another review.
async fn review(driver: &WebDriver) {
    for _ in 0..5 {
        click_button(driver, "Review").await;
        let answer = wait_until(
            "the review's answer",
            async || {
                for css in [".review", ".write-error", ".reapplied"] {
                    if driver.find(By::Css(css)).await.is_ok() {
                        return Some(css);
                    }
                }
                None
            },
            Option::is_some,
        )
        .await;
        if answer != Some(".reapplied") {
            return;
        }
    }
    panic!("the object kept changing under every review");
}

async fn click_button(driver: &WebDriver, name: &str) {
    let xpath = format!("//button[normalize-space(.)='{name}' and not(@disabled)]");
    let button = driver
        .query(By::XPath(&xpath))
        .wait(
            std::time::Duration::from_secs(30),
            std::time::Duration::from_millis(100),
        )
        .first()
        .await
        .unwrap_or_else(|e| panic!("no enabled button {name}: {e}"));
    button.click().await.expect("click");
}

async fn config_data(
    api: &Api<ConfigMap>,
    name: &str,
) -> Option<std::collections::BTreeMap<String, String>> {
    api.get(name).await.ok().and_then(|c| c.data)
}

fn deployment(name: &str, replicas: i32) -> Deployment {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                         "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}}
        }
    }))
    .expect("deployment")
}

/// A ConfigMap `name` with `data`, created in a new `namespace`, open in the editor.
async fn editing_a_config_map(
    harness: &Harness,
    namespace: &str,
    name: &str,
    data: serde_json::Value,
) -> Api<ConfigMap> {
    harness.create_namespace(namespace).await;
    let configs: Api<ConfigMap> = Api::namespaced(harness.kube_client(), namespace);
    let config: ConfigMap =
        serde_json::from_value(serde_json::json!({"metadata": {"name": name}, "data": data}))
            .expect("configmap");
    configs
        .create(&PostParams::default(), &config)
        .await
        .expect("configmap");
    harness
        .open(&format!(
            "#/obj/core/v1/configmaps/{namespace}/{name}?tab=edit"
        ))
        .await;
    configs
}

async fn replicas_of(deployments: &Api<Deployment>) -> Option<i32> {
    deployments
        .get("web")
        .await
        .ok()
        .and_then(|d| d.spec.replicas)
}

/// A Deployment `web` (1 replica) created in a new `namespace` by `manager`, open in the
/// editor.
async fn editing_a_deployment(
    harness: &Harness,
    namespace: &str,
    manager: Option<&str>,
) -> Api<Deployment> {
    harness.create_namespace(namespace).await;
    let deployments: Api<Deployment> = Api::namespaced(harness.kube_client(), namespace);
    let params = PostParams {
        field_manager: manager.map(str::to_string),
        ..Default::default()
    };
    deployments
        .create(&params, &deployment("web", 1))
        .await
        .expect("deployment");
    harness
        .open(&format!(
            "#/obj/apps/v1/deployments/{namespace}/web?tab=edit"
        ))
        .await;
    deployments
}

on_both_backends!(a_configmap_created_then_edited_during_a_concurrent_write_keeps_both_changes);
async fn a_configmap_created_then_edited_during_a_concurrent_write_keeps_both_changes(
    backend: Backend,
) {
    let harness = Harness::start_on(backend).await;
    harness.create_namespace("edit").await;
    let configs: Api<ConfigMap> = Api::namespaced(harness.kube_client(), "edit");

    // Create from the create page, which starts from a ConfigMap template.
    harness.open("#/create/core/v1/configmaps?ns=edit").await;
    wait_until(
        "the template is in the editor",
        async || editor_text(&harness.driver).await,
        |t| t.contains("kind: ConfigMap"),
    )
    .await;
    paste_into_editor(
        &harness.driver,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  color: blue\n  size: small\n\
         ---\napiVersion: v1\nkind: Secret\nmetadata:\n  generateName: token-\nstringData:\n  key: s3cret\n",
    )
    .await;
    click_button(&harness.driver, "Create").await;
    // One result per document: the ConfigMap, and a Secret named by the server.
    let results = wait_until(
        "a result per document",
        async || {
            harness
                .driver
                .find_all(By::Css(".create-result[data-result=created]"))
                .await
                .map(|r| r.len())
                .unwrap_or(0)
        },
        |n| *n == 2,
    )
    .await;
    assert_eq!(results, 2);
    let secrets: Api<k8s_openapi::api::core::v1::Secret> =
        Api::namespaced(harness.kube_client(), "edit");
    let generated = secrets
        .list(&ListParams::default())
        .await
        .expect("secrets")
        .items
        .into_iter()
        .filter_map(|s| s.metadata.name)
        .filter(|n| n.starts_with("token-") && n.len() > "token-".len())
        .count();
    assert_eq!(generated, 1, "generateName gave the Secret a name");
    let data = config_data(&configs, "settings").await.expect("created");
    assert_eq!(data.get("color").map(String::as_str), Some("blue"));

    // Edit one key; meanwhile someone else changes another.
    harness
        .open("#/obj/core/v1/configmaps/edit/settings?tab=edit")
        .await;
    edit_text(&harness.driver, "color: blue", "color: green").await;
    configs
        .patch(
            "settings",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"data": {"size": "large"}})),
        )
        .await
        .expect("concurrent write");
    // The page's watch sees it: the editor says so and keeps the user's text.
    wait_for(&harness.driver, ".server-changed").await;
    assert!(editor_text(&harness.driver).await.contains("color: green"));
    click_button(&harness.driver, "Save").await;
    // 409: reapplied onto the latest, both changes in the text, nothing saved yet.
    wait_for(&harness.driver, ".reapplied").await;
    harness.screenshot("edit-conflict-reapplied").await;
    let text = editor_text(&harness.driver).await;
    assert!(
        text.contains("color: green") && text.contains("size: large"),
        "{text}"
    );
    assert_eq!(
        config_data(&configs, "settings")
            .await
            .and_then(|d| d.get("color").cloned()),
        Some("blue".into()),
        "nothing was overwritten by the failed save"
    );
    click_button(&harness.driver, "Save").await;
    wait_for(&harness.driver, ".saved").await;
    let data = config_data(&configs, "settings")
        .await
        .expect("still there");
    assert_eq!(data.get("color").map(String::as_str), Some("green"));
    assert_eq!(data.get("size").map(String::as_str), Some("large"));

    // The same key on both sides: the user is asked, sees both values, and picks.
    edit_text(&harness.driver, "size: large", "size: medium").await;
    configs
        .patch(
            "settings",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"data": {"size": "huge"}})),
        )
        .await
        .expect("concurrent write to the same key");
    wait_for(&harness.driver, ".server-changed").await;
    click_button(&harness.driver, "Save").await;
    let row = wait_for(
        &harness.driver,
        ".conflicts tr.conflict[data-path='data.size']",
    )
    .await;
    let shown = row.text().await.unwrap_or_default();
    assert!(
        shown.contains("medium") && shown.contains("huge"),
        "{shown}"
    );
    harness.screenshot("edit-conflict-same-field").await;
    click_button(&harness.driver, "Use these values").await;
    click_button(&harness.driver, "Save").await;
    wait_for(&harness.driver, ".saved").await;
    let data = config_data(&configs, "settings")
        .await
        .expect("still there");
    assert_eq!(
        data.get("size").map(String::as_str),
        Some("medium"),
        "the user's pick"
    );
    assert_eq!(data.get("color").map(String::as_str), Some("green"));
    harness.stop().await;
}

on_both_backends!(apply_conflicts_name_the_owner_and_force_takes_the_field);
async fn apply_conflicts_name_the_owner_and_force_takes_the_field(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let deployments = editing_a_deployment(&harness, "apply", Some("kubectl")).await;
    edit_text(&harness.driver, "replicas: 1", "replicas: 4").await;
    click_button(&harness.driver, "Apply").await;
    let conflict = wait_for(&harness.driver, ".apply-conflicts .apply-conflict").await;
    let text = conflict.text().await.unwrap_or_default();
    assert!(
        text.contains("replicas") && text.contains("kubectl"),
        "{text}"
    );
    harness.screenshot("edit-apply-conflict").await;
    assert_eq!(
        replicas_of(&deployments).await,
        Some(1),
        "a conflict writes nothing"
    );
    click_button(&harness.driver, "Force apply").await;
    wait_for(&harness.driver, ".saved").await;
    let stored = deployments.get("web").await.expect("deployment");
    assert_eq!(stored.spec.replicas, Some(4));
    let owner_of_replicas = stored
        .metadata
        .managed_fields
        .unwrap_or_default()
        .into_iter()
        .find(|m| {
            m.fields_v1
                .as_ref()
                .is_some_and(|f| f.0.pointer("/f:spec/f:replicas").is_some())
        })
        .and_then(|m| m.manager);
    assert_eq!(owner_of_replicas.as_deref(), Some("kube-atlas"));
    harness.stop().await;
}

/// A finalizer of the test's own, holding an object until the test lets it go.
const HOLD: &str = "kube-atlas.test/hold";

on_both_backends!(scale_and_delete_with_foreground_propagation);
async fn scale_and_delete_with_foreground_propagation(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    harness.create_namespace("ops").await;
    let client = harness.kube_client();
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "ops");
    let replica_sets: Api<ReplicaSet> = Api::namespaced(client.clone(), "ops");
    deployments
        .create(&PostParams::default(), &deployment("web", 1))
        .await
        .expect("deployment");
    harness.open("#/obj/apps/v1/deployments/ops/web").await;
    let replicas = wait_for(&harness.driver, "input.replicas").await;
    replicas.send_keys("3").await.expect("type replicas");
    click_button(&harness.driver, "Scale").await;
    wait_until(
        "the ReplicaSet follows the scale",
        async || {
            replica_sets
                .list(&ListParams::default())
                .await
                .map(|l| {
                    l.items
                        .iter()
                        .filter_map(|rs| rs.spec.replicas)
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        },
        |r| r.contains(&3),
    )
    .await;

    // Quick label edits: set one, then remove it.
    let label_of = async || {
        deployments
            .get("web")
            .await
            .ok()
            .and_then(|d| d.metadata.labels)
            .and_then(|l| l.get("tier").cloned())
    };
    wait_for(
        &harness.driver,
        ".metadata-editor[data-map=labels] input.entry",
    )
    .await
    .send_keys("tier=front")
    .await
    .expect("type a label");
    click_button(&harness.driver, "Set label").await;
    wait_until("the label is set", label_of, |l| {
        l.as_deref() == Some("front")
    })
    .await;
    wait_for(&harness.driver, "button[aria-label='Remove label tier']")
        .await
        .click()
        .await
        .expect("remove the label");
    wait_until("the label is removed", label_of, Option::is_none).await;

    // A finalizer of the test's own holds the ReplicaSets, so the window in which a
    // foreground delete keeps the Deployment is as long as the test needs to look at it.
    let held_sets: Vec<String> = replica_sets
        .list(&ListParams::default())
        .await
        .expect("the ReplicaSets")
        .items
        .into_iter()
        .filter_map(|rs| rs.metadata.name)
        .collect();
    assert!(!held_sets.is_empty(), "the Deployment owns a ReplicaSet");
    for name in &held_sets {
        replica_sets
            .patch(
                name,
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {"finalizers": [HOLD]}})),
            )
            .await
            .expect("hold the ReplicaSet");
    }

    click_button(&harness.driver, "Delete").await;
    let dialog = wait_for(&harness.driver, "[role=dialog]").await;
    let text = dialog.text().await.unwrap_or_default();
    assert!(
        text.contains("Deployment web"),
        "the confirmation names the object: {text}"
    );
    dialog
        .find(By::Css("input[value=Foreground]"))
        .await
        .expect("foreground choice")
        .click()
        .await
        .expect("choose foreground");
    harness.screenshot("edit-delete-confirm").await;
    click_button(&harness.driver, "Delete Deployment web").await;
    // The DELETE asked for it.
    let path = "/apis/apps/v1/namespaces/ops/deployments/web";
    let deletes = wait_until(
        "the DELETE is in the request log",
        async || {
            logged_requests(&harness.driver)
                .await
                .into_iter()
                .filter(|(method, _, logged)| method == "DELETE" && logged.starts_with(path))
                .map(|(_, _, logged)| logged)
                .collect::<Vec<_>>()
        },
        |deletes| !deletes.is_empty(),
    )
    .await;
    assert!(
        deletes
            .iter()
            .all(|d| d.contains("propagationPolicy=Foreground")),
        "the DELETE carried propagationPolicy=Foreground: {deletes:?}"
    );
    // What Foreground does: the garbage collector deletes the dependents first (each
    // ReplicaSet is marked for deletion, held by the test's finalizer), while the Deployment
    // stays, marked and carrying `foregroundDeletion`, until they are gone.
    wait_until(
        "the ReplicaSets are being deleted",
        async || {
            replica_sets
                .list(&ListParams::default())
                .await
                .map(|l| {
                    l.items
                        .iter()
                        .map(|rs| rs.metadata.deletion_timestamp.is_some())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        },
        |marked| marked.len() == held_sets.len() && marked.iter().all(|m| *m),
    )
    .await;
    let owner_state = async || match deployments.get_opt("web").await {
        Ok(Some(d)) => format!(
            "present: deletionTimestamp {}, finalizers {:?}",
            d.metadata.deletion_timestamp.is_some(),
            d.metadata.finalizers.unwrap_or_default()
        ),
        Ok(None) => "gone".to_string(),
        Err(e) => format!("error: {e}"),
    };
    let waiting = "present: deletionTimestamp true, finalizers [\"foregroundDeletion\"]";
    let state = owner_state().await;
    assert_eq!(
        state, waiting,
        "the Deployment waits for its ReplicaSets, marked, with the foregroundDeletion finalizer"
    );
    // The dependents go; then the owner goes.
    for name in &held_sets {
        // The garbage collector moves the other finalizers meanwhile (a list read a moment
        // ago may hold one it has since removed, which may not be added back): read and
        // write again until the write lands.
        let mut attempts = 0;
        loop {
            let kept: Vec<String> = replica_sets
                .get(name)
                .await
                .expect("the held ReplicaSet")
                .metadata
                .finalizers
                .unwrap_or_default()
                .into_iter()
                .filter(|f| f != HOLD)
                .collect();
            let released = replica_sets
                .patch(
                    name,
                    &PatchParams::default(),
                    &Patch::Merge(json!({"metadata": {"finalizers": kept}})),
                )
                .await;
            attempts += 1;
            match released {
                Ok(_) => break,
                Err(error) if attempts < 10 => {
                    eprintln!("releasing {name} again: {error}");
                    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                }
                Err(error) => panic!("release the ReplicaSet: {error}"),
            }
        }
    }
    wait_until(
        "its ReplicaSets go",
        async || {
            replica_sets
                .list(&ListParams::default())
                .await
                .map(|l| l.items.len())
                .unwrap_or(usize::MAX)
        },
        |n| *n == 0,
    )
    .await;
    wait_until("then the Deployment goes", owner_state, |state| {
        state == "gone"
    })
    .await;
    harness.stop().await;
}

on_both_backends!(malformed_yaml_sends_nothing_and_a_reload_brings_the_draft_back);
async fn malformed_yaml_sends_nothing_and_a_reload_brings_the_draft_back(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let configs = editing_a_config_map(
        &harness,
        "drafts",
        "notes",
        serde_json::json!({"text": "hello"}),
    )
    .await;
    edit_text(&harness.driver, "text: hello", "text: [unclosed").await;
    let problem = wait_for(&harness.driver, ".edit-problem").await;
    let message = problem.text().await.unwrap_or_default();
    assert!(message.contains("line"), "the line is named: {message}");
    let save = harness
        .driver
        .find(By::XPath("//button[normalize-space(.)='Save']"))
        .await
        .expect("save button");
    assert!(
        save.attr("disabled").await.ok().flatten().is_some(),
        "nothing can be sent"
    );
    wait_for(
        &harness.driver,
        ".cm-lint-marker-error, .cm-lintRange-error",
    )
    .await;
    harness.screenshot("edit-malformed-yaml").await;

    // A valid unsaved edit: leaving for another page asks first; staying keeps it.
    edit_text(&harness.driver, "text: [unclosed", "text: draft kept").await;
    harness
        .driver
        .find(By::Css(".breadcrumb a"))
        .await
        .expect("breadcrumb")
        .click()
        .await
        .expect("click away");
    let question = wait_until(
        "leaving asks first",
        async || harness.driver.get_alert_text().await.ok(),
        Option::is_some,
    )
    .await
    .unwrap_or_default();
    assert!(question.contains("not saved"), "{question}");
    harness.driver.dismiss_alert().await.expect("stay");
    let url = harness.driver.current_url().await.expect("url").to_string();
    assert!(url.contains("tab=edit"), "still on the editor: {url}");
    assert!(editor_text(&harness.driver)
        .await
        .contains("text: draft kept"));
    // It survives a reload too (the browser asks first; the test agrees to reload).
    let _ =
        tokio::time::timeout(std::time::Duration::from_secs(10), harness.driver.refresh()).await;
    if harness.driver.get_alert_text().await.is_ok() {
        harness.driver.accept_alert().await.ok();
    }
    wait_for(&harness.driver, ".draft-restored").await;
    wait_until(
        "the draft is back in the editor",
        async || editor_text(&harness.driver).await,
        |t| t.contains("text: draft kept"),
    )
    .await;
    assert_eq!(
        config_data(&configs, "notes")
            .await
            .and_then(|d| d.get("text").cloned()),
        Some("hello".into()),
        "a draft is not a save"
    );
    harness.stop().await;
}

/// A save that the server fails (503) is not sent again behind the user's back (it may have
/// been stored): the error is shown, the edit stays in the editor, and saving again works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_save_is_not_repeated_and_keeps_the_edit() {
    let harness = Harness::start_quiet().await;
    harness.create_namespace("failing").await;
    let configs: Api<ConfigMap> = Api::namespaced(harness.kube_client(), "failing");
    let config: ConfigMap = serde_json::from_value(
        serde_json::json!({"metadata": {"name": "settings"}, "data": {"mode": "steady"}}),
    )
    .expect("configmap");
    configs
        .create(&PostParams::default(), &config)
        .await
        .expect("configmap");
    let path = "/api/v1/namespaces/failing/configmaps/settings";
    let mode = ProxyMode::fail_first(
        path,
        &[(
            "PUT",
            503,
            "Content-Type: application/json\r\n",
            SHUTTING_DOWN,
        )],
    );
    harness
        .open_through_proxy(
            mode.clone(),
            "#/obj/core/v1/configmaps/failing/settings?tab=edit",
        )
        .await;
    edit_text(&harness.driver, "mode: steady", "mode: changed").await;
    click_button(&harness.driver, "Save").await;
    let error = wait_for(&harness.driver, ".write-error").await;
    let message = error.text().await.unwrap_or_default();
    assert!(message.contains("shutting down"), "{message}");
    assert_eq!(mode.answers_left(), 0);
    assert!(
        editor_text(&harness.driver).await.contains("mode: changed"),
        "the edit is still there"
    );
    assert_eq!(
        config_data(&configs, "settings")
            .await
            .and_then(|d| d.get("mode").cloned()),
        Some("steady".into()),
        "nothing was stored"
    );
    let puts = logged_requests(&harness.driver)
        .await
        .into_iter()
        .filter(|(method, _, logged)| method == "PUT" && logged.starts_with(path))
        .count();
    assert_eq!(puts, 1, "the failed write was sent once");
    // The user decides to try again, and it lands.
    click_button(&harness.driver, "Save").await;
    wait_for(&harness.driver, ".notice.saved").await;
    assert_eq!(
        config_data(&configs, "settings")
            .await
            .and_then(|d| d.get("mode").cloned()),
        Some("changed".into())
    );
    harness.stop().await;
}

on_both_backends!(review_shows_the_dry_run_and_the_servers_causes_at_their_lines);
async fn review_shows_the_dry_run_and_the_servers_causes_at_their_lines(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let deployments = editing_a_deployment(&harness, "review", None).await;
    // Invalid: the server's 422 cause is shown, and marked at the replicas line.
    edit_text(&harness.driver, "replicas: 1", "replicas: -1").await;
    review(&harness.driver).await;
    let error = wait_for(&harness.driver, ".write-error").await;
    let text = error.text().await.unwrap_or_default();
    assert!(
        text.contains("422") && text.contains("spec.replicas"),
        "{text}"
    );
    wait_for(&harness.driver, ".cm-lintRange-error").await;
    let marked = harness
        .driver
        .execute(
            "return Array.from(document.querySelectorAll('.cm-line')).filter(l => l.querySelector('.cm-lintRange-error')).map(l => l.textContent);",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<Vec<String>>().ok())
        .unwrap_or_default();
    assert!(
        marked.iter().any(|l| l.contains("replicas: -1")),
        "the cause is marked at its line: {marked:?}"
    );
    harness.screenshot("edit-invalid-field").await;
    // Unknown fields are refused (strict validation), not dropped.
    edit_text(&harness.driver, "replicas: -1", "replicas: 2\n  bogus: 1").await;
    review(&harness.driver).await;
    wait_until(
        "the unknown field is reported",
        async || match harness.driver.find(By::Css(".write-error")).await {
            Ok(e) => e.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        },
        |t| t.contains("bogus"),
    )
    .await;
    // Valid: the dry run's changes and the side-by-side diff; nothing stored.
    edit_text(&harness.driver, "replicas: 2\n  bogus: 1", "replicas: 2").await;
    review(&harness.driver).await;
    let review = wait_for(&harness.driver, ".review").await;
    let shown = review.text().await.unwrap_or_default();
    assert!(shown.contains("spec.replicas: 1 → 2"), "{shown}");
    wait_for(&harness.driver, ".review .merge-view").await;
    harness.screenshot("edit-review").await;
    assert_eq!(
        replicas_of(&deployments).await,
        Some(1),
        "a review stores nothing"
    );
    harness.stop().await;
}

on_both_backends!(an_object_held_by_a_finalizer_shows_terminating_until_it_goes);
async fn an_object_held_by_a_finalizer_shows_terminating_until_it_goes(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    harness.create_namespace("held").await;
    let configs: Api<ConfigMap> = Api::namespaced(harness.kube_client(), "held");
    let config: ConfigMap = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "kept", "finalizers": ["example.com/hold"]}, "data": {"a": "1"}
    }))
    .expect("configmap");
    configs
        .create(&PostParams::default(), &config)
        .await
        .expect("configmap");
    harness.open("#/obj/core/v1/configmaps/held/kept").await;
    click_button(&harness.driver, "Delete").await;
    click_button(&harness.driver, "Delete ConfigMap kept").await;
    let note = wait_for(&harness.driver, ".terminating").await;
    let text = note.text().await.unwrap_or_default();
    assert!(text.contains("example.com/hold"), "{text}");
    harness.screenshot("edit-terminating").await;
    // The finalizer's owner lets go: the object goes, and the page says so.
    configs
        .patch(
            "kept",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"metadata": {"finalizers": null}})),
        )
        .await
        .expect("finalizer removed");
    wait_for(&harness.driver, ".object-page p.warning[role=alert]").await;
    assert!(configs.get_opt("kept").await.expect("read").is_none());
    harness.stop().await;
}

on_both_backends!(a_big_object_is_checked_once_typing_pauses_and_saves);
async fn a_big_object_is_checked_once_typing_pauses_and_saves(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    // Past the size where every key is checked at once (100,000 bytes of text).
    let configs = editing_a_config_map(
        &harness,
        "big",
        "large",
        serde_json::json!({"note": "hello", "payload": "x".repeat(150_000)}),
    )
    .await;
    // Typed as a user types, at the end of the note's line (the editor draws only the
    // part of a long text in view, so the whole text is not read back here).
    let line = harness
        .driver
        .query(By::XPath(
            "//div[contains(@class,'cm-line')][contains(., 'note: hello')]",
        ))
        .wait(
            std::time::Duration::from_secs(30),
            std::time::Duration::from_millis(100),
        )
        .first()
        .await
        .expect("the note's line");
    line.click().await.expect("click the line");
    line.send_keys(Key::End).await.expect("end of line");
    line.send_keys(": b").await.expect("type");
    // A colon typed in the editor is text, not the palette's shortcut.
    assert!(
        harness.driver.find(By::Css(".palette")).await.is_err(),
        "the palette opened while typing YAML"
    );
    let problem = wait_for(&harness.driver, ".edit-problem").await;
    assert!(problem.text().await.unwrap_or_default().contains("line"));
    line.send_keys(Key::Backspace + Key::Backspace + Key::Backspace)
        .await
        .expect("erase");
    line.send_keys(" world").await.expect("type");
    click_button(&harness.driver, "Save").await;
    wait_for(&harness.driver, ".saved").await;
    let data = config_data(&configs, "large").await.expect("still there");
    assert_eq!(data.get("note").map(String::as_str), Some("hello world"));
    assert_eq!(data.get("payload").map(String::len), Some(150_000));
    harness.stop().await;
}

on_both_backends!(an_open_edit_survives_a_discovery_refresh);
/// Someone adds a CRD while the user edits: discovery refreshes (the tree shows the new
/// group) and the open editor stays as it was, the unsaved edit in it, not built again.
async fn an_open_edit_survives_a_discovery_refresh(backend: Backend) {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

    let harness = Harness::start_on(backend).await;
    editing_a_config_map(
        &harness,
        "survives",
        "settings",
        serde_json::json!({"mode": "calm"}),
    )
    .await;
    edit_text(&harness.driver, "mode: calm", "mode: edited here").await;
    let editor = wait_for(&harness.driver, ".code-editor .cm-content").await;

    let crds: Api<CustomResourceDefinition> = Api::all(harness.kube_client());
    let crd: CustomResourceDefinition = serde_json::from_value(serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.refresh.kube-atlas.dev"},
        "spec": {
            "group": "refresh.kube-atlas.dev",
            "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object",
                    "x-kubernetes-preserve-unknown-fields": true}}}]
        }
    }))
    .expect("CRD");
    crds.create(&PostParams::default(), &crd)
        .await
        .expect("CRD created");
    wait_for(&harness.driver, "[data-key='g:refresh.kube-atlas.dev']").await;

    let text = editor
        .text()
        .await
        .expect("the same editor is still in the page");
    assert!(text.contains("mode: edited here"), "{text}");
    harness.stop().await;
}
