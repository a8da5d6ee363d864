//! End-to-end tests: the release build in headless Chromium against a fresh demo cluster.
//! Run by `cargo xtask test` (feature `e2e`), after `dist/` is built.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use common::Harness;
use thirtyfour::prelude::*;

const PAGE_TIMEOUT: Duration = Duration::from_secs(20);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_shows_the_served_api_groups() {
    let harness = Harness::start().await;
    harness
        .driver
        .goto(harness.url("/"))
        .await
        .expect("page loads");
    let groups = harness
        .driver
        .query(By::Css(".group-list .group"))
        .wait(PAGE_TIMEOUT, Duration::from_millis(100))
        .all_from_selector_required()
        .await
        .expect("the API groups are listed");
    let mut names = Vec::new();
    for group in &groups {
        names.push(
            group
                .attr("data-group")
                .await
                .ok()
                .flatten()
                .unwrap_or_default(),
        );
    }
    for expected in ["core", "apps", "batch"] {
        assert!(
            names.iter().any(|n| n == expected),
            "group {expected} not shown; shown: {names:?}"
        );
    }
    harness.screenshot("api-groups").await;
    harness.stop().await;
}
