//! The accessibility audit: every page of the dashboard (overview, API hierarchy, lists, each
//! object tab with the editor, Event objects, replay, permissions, create, the palette and the
//! cheat sheet), in the light and the dark theme, audited by axe-core (pinned in
//! tests/a11y/package-lock.json, injected by the test, never shipped): no serious or critical
//! violation, colour contrast included.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{wait_for, Harness};
use thirtyfour::prelude::*;

/// axe-core's script, installed by `cargo xtask setup` (`npm ci` in tests/a11y).
fn axe_script() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/a11y/node_modules/axe-core/axe.min.js"
    );
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{path}: {e}: run `cargo xtask setup` (npm ci in tests/a11y)"))
}

/// The serious and critical violations on the page as shown now, one line each with the
/// first elements they concern.
async fn violations(harness: &Harness, axe: &str) -> Vec<String> {
    let present = harness
        .driver
        .execute("return typeof window.axe !== 'undefined';", vec![])
        .await
        .ok()
        .and_then(|r| r.convert::<bool>().ok())
        .unwrap_or(false);
    if !present {
        harness
            .driver
            .execute(&format!("{axe}\nreturn true;"), vec![])
            .await
            .expect("axe-core injected");
    }
    // axe-core's result, checked for its shape: a result without its lists (a failed or
    // changed axe) is an error, never "no violations"; and a run that checked nothing
    // (no rule passed) audited nothing.
    let found = harness
        .driver
        .execute(
            "return axe.run(document, {resultTypes: ['violations']}).then(result => {
                if (!result || !Array.isArray(result.violations) || !Array.isArray(result.passes)) {
                    return {malformed: JSON.stringify(result).slice(0, 300)};
                }
                return {
                    passes: result.passes.length,
                    violations: result.violations
                        .filter(v => v.impact === 'serious' || v.impact === 'critical')
                        .map(v => v.impact + ' ' + v.id + ': ' + v.help + ' — ' +
                            v.nodes.slice(0, 4).map(n => n.target.join(' ') + ' (' +
                                (n.failureSummary || '').replace(/\\s+/g, ' ').slice(0, 160) + ')').join('; ')),
                };
            });",
            vec![],
        )
        .await
        .expect("axe-core ran");
    let result: AxeResult = found
        .convert()
        .unwrap_or_else(|e| panic!("axe-core's result is not a result: {e}: {:?}", found.json()));
    match result {
        AxeResult::Malformed { malformed } => panic!("axe-core's result is malformed: {malformed}"),
        AxeResult::Ran { passes, violations } => {
            assert!(passes > 0, "axe-core checked nothing on the page");
            violations
        }
    }
}

/// What the audit script returns.
#[derive(serde::Deserialize)]
#[serde(untagged, deny_unknown_fields)]
enum AxeResult {
    Ran {
        passes: usize,
        violations: Vec<String>,
    },
    Malformed {
        malformed: String,
    },
}

/// Waits for the page's content, then until it has settled: every live view on it is live
/// (its first list loaded, following changes), web fonts are loaded, and the page has not
/// changed for 300 ms (live data may change it later, as a user would see it).
async fn settle(harness: &Harness, css: &str) {
    wait_for(&harness.driver, css).await;
    let settled = harness
        .driver
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const deadline = performance.now() + 20000;
             let changed = performance.now();
             const observer = new MutationObserver(() => { changed = performance.now(); });
             observer.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
             document.fonts.ready.then(() => {
                 const check = () => {
                     const phases = Array.from(document.querySelectorAll('.stream-status'))
                         .map(s => s.dataset.phase);
                     const live = phases.every(p => p === 'live');
                     const quiet = performance.now() - changed >= 300;
                     if (live && quiet) { observer.disconnect(); done('settled'); }
                     else if (performance.now() > deadline) {
                         observer.disconnect();
                         done('not settled: phases ' + JSON.stringify(phases) + (quiet ? '' : ', still changing'));
                     } else { setTimeout(check, 50); }
                 };
                 check();
             });",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<String>().ok())
        .unwrap_or_else(|| "no answer".into());
    assert_eq!(settled, "settled", "{css}");
}

/// The light theme's page background (`--bg` in style/main.css).
const LIGHT_BACKGROUND: &str = "rgb(246, 247, 249)";

/// The pages audited, each with what shows it is drawn.
const PAGES: &[(&str, &str)] = &[
    ("#/", ".overview-page"),
    ("#/api", "[role=treeitem]"),
    ("#/r/apps/v1/deployments", "[role=treeitem]"),
    ("#/list/core/v1/pods?ns=default", "tr.vt-row"),
    ("#/list/apps/v1/deployments", "tr.vt-row"),
    (
        "#/obj/apps/v1/deployments/default/nginx",
        ".object-page .props",
    ),
    (
        "#/obj/apps/v1/deployments/default/nginx?tab=timeline",
        ".object-page",
    ),
    (
        "#/obj/apps/v1/deployments/default/nginx?tab=activity",
        ".activity-panel",
    ),
    (
        "#/obj/apps/v1/deployments/default/nginx?tab=yaml",
        ".object-page pre",
    ),
    (
        "#/obj/apps/v1/deployments/default/nginx?tab=edit",
        ".code-editor .cm-content",
    ),
    (
        "#/obj/apps/v1/deployments/default/nginx?tab=blame",
        ".object-page",
    ),
    (
        "#/obj/apps/v1/deployments/default/nginx?tab=events",
        ".event-timeline",
    ),
    (
        "#/obj/apps/v1/deployments/default/nginx?tab=versions",
        ".object-page",
    ),
    ("#/events", ".event-table"),
    ("#/permissions?ns=default", ".permissions-matrix"),
    (
        "#/create/apps/v1/deployments?ns=default",
        ".code-editor .cm-content",
    ),
    ("#/replay", ".replay-page"),
    ("#/map?ns=default", ".map-node"),
];

async fn audit(harness: &Harness, theme: &str) -> Vec<String> {
    let axe = axe_script();
    let mut problems = Vec::new();
    for (fragment, ready) in PAGES {
        harness.open(fragment).await;
        settle(harness, ready).await;
        for violation in violations(harness, &axe).await {
            problems.push(format!("{theme} {fragment}: {violation}"));
        }
    }
    // The palette and the cheat sheet, open over the hierarchy.
    harness.open("#/api").await;
    settle(harness, "[role=treeitem]").await;
    let keys = |k: &'static str| async move {
        harness
            .driver
            .action_chain()
            .send_keys(k)
            .perform()
            .await
            .expect("keys");
    };
    keys(":").await;
    let input = wait_for(&harness.driver, ".palette input").await;
    input.send_keys("po").await.expect("typed");
    settle(harness, ".palette li[role=option]").await;
    for violation in violations(harness, &axe).await {
        problems.push(format!("{theme} palette: {violation}"));
    }
    input.send_keys(Key::Escape).await.expect("Escape");
    keys("?").await;
    settle(harness, ".cheat-sheet").await;
    for violation in violations(harness, &axe).await {
        problems.push(format!("{theme} cheat sheet: {violation}"));
    }
    problems
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_passes_axe_core_in_both_themes() {
    let mut problems = Vec::new();
    for dark in [false, true] {
        let harness = if dark {
            Harness::start_dark().await
        } else {
            Harness::start().await
        };
        let theme = if dark { "dark" } else { "light" };
        // The theme audited is the one asked for: the page's background as drawn.
        harness.open("#/").await;
        settle(&harness, ".overview-page").await;
        let (prefers_dark, background) = harness
            .driver
            .execute(
                "return [matchMedia('(prefers-color-scheme: dark)').matches,
                         getComputedStyle(document.body).backgroundColor];",
                vec![],
            )
            .await
            .ok()
            .and_then(|r| r.convert::<(bool, String)>().ok())
            .expect("the page's colour scheme");
        assert_eq!(prefers_dark, dark, "the browser prefers the {theme} theme");
        assert_eq!(
            background,
            if dark {
                "rgb(15, 18, 22)"
            } else {
                LIGHT_BACKGROUND
            },
            "the page is drawn in the {theme} theme"
        );
        problems.extend(audit(&harness, theme).await);
        harness.stop().await;
    }
    assert!(
        problems.is_empty(),
        "{} serious or critical accessibility violation(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
