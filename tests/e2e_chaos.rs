//! End-to-end: faults and hostile input. The page's Content-Security-Policy refuses injected
//! scripts. The dashboard on a demo cluster in chaos mode (`--chaos`): Watch streams are cut
//! at random and resumes answered 410 Expired while objects come and go; the live list must
//! end equal to the server's state (no duplicate, no ghost, no missing row), and its status
//! line must have said it relisted. Writes go straight to the cluster's registry, so the
//! writer is not subject to the faults the page is.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::{shown_names, wait_for, wait_until_within, Harness};
use demo_cluster::registry::{DeleteOptions, WriteOptions};
use thirtyfour::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_list_converges_to_the_server_while_watches_are_cut_and_expired() {
    let spec = "drop-watch=0.15,expire=0.3,latency=20ms";
    let harness = Harness::start_config(demo_cluster::Config {
        speed: 20.0,
        chaos: Some(spec.parse().expect("chaos spec")),
        seed: 5,
        ..Default::default()
    })
    .await;
    harness.create_namespace("chaos").await;
    let registry = harness.registry();
    let configmaps = registry.builtin("", "configmaps").expect("configmaps");
    let create = |name: &str| {
        registry
            .create(
                &configmaps,
                "chaos",
                serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": name}, "data": {"round": "0"}}),
                &WriteOptions::default(),
            )
            .expect("configmap created");
    };
    for i in 0..10 {
        create(&format!("before-{i:02}"));
    }
    harness.open("#/list/core/v1/configmaps?ns=chaos").await;
    wait_for(&harness.driver, ".stream-status[data-phase=live]").await;

    // Objects come, change and go while the page's watches are cut and expired.
    for round in 0..20 {
        create(&format!("during-{round:02}"));
        if round % 3 == 0 {
            registry
                .delete(
                    &configmaps,
                    "chaos",
                    &format!("before-{:02}", round / 3),
                    &DeleteOptions::default(),
                )
                .expect("configmap deleted");
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    let expected: BTreeSet<String> = registry
        .list(&configmaps, Some("chaos"))
        .0
        .into_iter()
        .filter_map(|o| {
            o.pointer("/metadata/name")
                .and_then(|n| n.as_str())
                .map(str::to_string)
        })
        .collect();
    assert_eq!(expected.len(), 10 - 7 + 20, "the server's own count");
    let shown = wait_until_within(
        "the list equals the server's state",
        Duration::from_secs(60),
        async || shown_names(&harness.driver).await,
        |names| {
            names.len() == expected.len()
                && names.iter().cloned().collect::<BTreeSet<_>>() == expected
        },
    )
    .await;
    assert_eq!(shown.len(), expected.len(), "no duplicate rows");
    // The page said what happened: the status line counts relists after 410s.
    let status = harness
        .driver
        .find(By::Css(".stream-status"))
        .await
        .expect("status line")
        .text()
        .await
        .unwrap_or_default();
    harness.screenshot("chaos-list").await;
    assert!(status.to_lowercase().contains("relist"), "{status}");
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_carries_a_content_security_policy_that_refuses_injected_scripts() {
    let harness = Harness::start().await;
    harness.open("#/list/core/v1/namespaces").await;
    // The app itself starts and talks to its API under the policy (WebSocket watch included).
    wait_for(&harness.driver, ".stream-status[data-phase=live]").await;
    let outcome = harness
        .driver
        .execute_async(
            r#"const done = arguments[arguments.length - 1];
               const policy = document.querySelector('meta[http-equiv="Content-Security-Policy"]');
               const violations = [];
               document.addEventListener('securitypolicyviolation', e => violations.push(e.violatedDirective));
               // An inline script, and an inline event handler, as injected markup would carry.
               const script = document.createElement('script');
               script.textContent = 'window.__injected = "script";';
               document.head.appendChild(script);
               const holder = document.createElement('div');
               holder.innerHTML = '<img src="data:," onerror="window.__injected = \'handler\'">';
               document.body.appendChild(holder);
               setTimeout(() => done({
                   policy: policy ? policy.content : null,
                   injected: window.__injected || null,
                   violations,
               }), 500);"#,
            vec![],
        )
        .await
        .expect("script runs")
        .json()
        .clone();
    let policy = outcome["policy"].as_str().unwrap_or_default();
    assert!(
        policy.contains("script-src 'self' 'wasm-unsafe-eval'")
            && policy.contains("connect-src 'self'"),
        "{outcome}"
    );
    assert!(
        outcome["injected"].is_null(),
        "an injected script ran: {outcome}"
    );
    assert!(
        outcome["violations"].as_array().is_some_and(|v| v
            .iter()
            .any(|d| d.as_str().is_some_and(|d| d.starts_with("script-src")))),
        "the browser reported the refusal: {outcome}"
    );
    harness.stop().await;
}
