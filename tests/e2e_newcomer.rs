//! End-to-end tests of finding one's way as a newcomer: the `:` palette goes to lists (`:po`
//! Enter), to definitions (Shift+Enter), to namespaces (`:ns NAME`) and to loaded objects by
//! name; `g` then a letter jumps to the common lists, and does nothing while the editor has
//! focus; `?` lists every shortcut.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{texts_at, wait_for, wait_until, Backend, Harness};
use thirtyfour::prelude::*;

/// Types `keys` into whatever has focus (the page body when nothing does).
async fn type_keys(harness: &Harness, keys: &str) {
    harness
        .driver
        .action_chain()
        .send_keys(keys)
        .perform()
        .await
        .expect("keys typed");
}

async fn palette(harness: &Harness, query: &str) -> WebElement {
    type_keys(harness, ":").await;
    let input = wait_for(&harness.driver, ".palette input").await;
    input.send_keys(query).await.expect("query typed");
    wait_until(
        "the palette shows its matches",
        async || {
            harness
                .driver
                .find_all(By::Css(".palette li[role=option]"))
                .await
                .map(|found| found.len())
                .unwrap_or(0)
        },
        |count| *count > 0,
    )
    .await;
    input
}

/// Waits until the page's route is what `arrived` wants.
async fn arrives(harness: &Harness, what: &str, arrived: impl Fn(&String) -> bool) {
    wait_until(what, async || harness.hash().await, arrived).await;
}

/// The palette's input as it is now: a handle found before went stale once in CI under load
/// (the palette drawn again in between); the query typed is in the palette either way, as
/// its matches show.
async fn palette_input(harness: &Harness) -> WebElement {
    wait_for(&harness.driver, ".palette input").await
}

/// Types `query` into the palette and chooses the first entry (Shift+Enter when `shift`).
async fn choose_in_palette(harness: &Harness, query: &str, shift: bool) {
    palette(harness, query).await;
    let input = palette_input(harness).await;
    let sent = if shift {
        input.send_keys(Key::Shift + Key::Enter).await
    } else {
        input.send_keys(Key::Enter).await
    };
    sent.expect("the entry chosen");
}

async fn the_palette_and_shortcuts_go_where_people_expect(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    harness.nginx_rolled_out().await;
    harness.open("#/api?ns=default").await;
    wait_for(&harness.driver, "[role=treeitem]").await;

    // `:po` Enter: the pods list, in the namespace in view.
    choose_in_palette(&harness, "po", false).await;
    arrives(
        &harness,
        ":po Enter opens the pods list in default",
        |hash| hash == "#/list/core/v1/pods?ns=default",
    )
    .await;
    wait_for(&harness.driver, "table[role=grid]").await;

    // Shift+Enter: the Pod resource's definition in the API explorer.
    choose_in_palette(&harness, "po", true).await;
    arrives(&harness, ":po Shift+Enter opens the definition", |hash| {
        hash.starts_with("#/r/core/v1/pods")
    })
    .await;

    // `:ns kube-system`: the same view in that namespace.
    choose_in_palette(&harness, "ns kube-system", false).await;
    arrives(&harness, ":ns kube-system switches namespace", |hash| {
        hash.contains("ns=kube-system")
    })
    .await;

    // `g p`, `g d`, `g e` from the page.
    harness
        .driver
        .find(By::Css("h1"))
        .await
        .expect("a heading")
        .click()
        .await
        .expect("focus the page");
    type_keys(&harness, "gd").await;
    arrives(&harness, "g d opens deployments", |hash| {
        hash == "#/list/apps/v1/deployments?ns=kube-system"
    })
    .await;
    wait_for(&harness.driver, "table[role=grid]").await;
    choose_in_palette(&harness, "ns default", false).await;
    arrives(&harness, ":ns default switches back", |hash| {
        hash == "#/list/apps/v1/deployments?ns=default"
    })
    .await;
    wait_for(&harness.driver, "table[role=grid]").await;
    type_keys(&harness, "gp").await;
    arrives(&harness, "g p opens pods", |hash| {
        hash == "#/list/core/v1/pods?ns=default"
    })
    .await;

    // Loaded objects by name: a pod of the list just shown.
    let name = wait_until(
        "the pods list shows nginx's pods",
        async || common::texts_at(&harness.driver, "tr.vt-row td.name-cell a", None).await,
        |names| names.iter().any(|n| n.starts_with("nginx-")),
    )
    .await
    .into_iter()
    .find(|n| n.starts_with("nginx-"))
    .unwrap_or_default();
    palette(&harness, &name).await;
    // The matches follow the typing: the first becomes the pod once the whole name is in.
    wait_until(
        "the palette's first match is the pod",
        async || common::texts_at(&harness.driver, ".palette li[role=option] .mono", None).await,
        |entries| entries.first() == Some(&name),
    )
    .await;
    palette_input(&harness)
        .await
        .send_keys(Key::Enter)
        .await
        .expect("Enter");
    arrives(&harness, "a loaded object's name opens its page", |hash| {
        hash.starts_with("#/obj/core/v1/pods/default/nginx-")
    })
    .await;

    // Shortcuts never fire while the editor has focus.
    let object_hash = harness.hash().await;
    harness
        .open(&format!(
            "{}?tab=edit",
            object_hash.split('?').next().unwrap_or_default()
        ))
        .await;
    let editor = wait_for(&harness.driver, ".cm-content").await;
    let typed_in_editor = async || {
        texts_at(&harness.driver, ".cm-content", None)
            .await
            .first()
            .map(|text| text.matches("gp").count())
    };
    let before = wait_until("the editor shows the YAML", typed_in_editor, |n| {
        n.is_some()
    })
    .await;
    editor.click().await.expect("focus the editor");
    type_keys(&harness, "gp").await;
    // The keys went into the text (once their keydowns were handled, a shortcut would have
    // fired), and the page stayed on the editor.
    wait_until(
        "g p typed in the editor lands in its text",
        typed_in_editor,
        |n| *n == before.map(|b| b + 1),
    )
    .await;
    let hash = harness.hash().await;
    assert!(
        hash.contains("tab=edit"),
        "g p typed in the editor stays in the editor: {hash}"
    );

    // `?` lists the shortcuts.
    harness
        .driver
        .find(By::Css("h1"))
        .await
        .expect("a heading")
        .click()
        .await
        .expect("focus the page");
    type_keys(&harness, "?").await;
    // Read by script, not through a found element: the sheet may be drawn again meanwhile.
    let listed = ["g p", "Go to pods", "g o", "Shift", "Palette"];
    let text = wait_until(
        "the cheat sheet lists the shortcuts",
        async || {
            harness
                .driver
                .execute(
                    "const sheet = document.querySelector('.cheat-sheet'); return sheet ? sheet.innerText : '';",
                    vec![],
                )
                .await
                .ok()
                .and_then(|answer| answer.json().as_str().map(str::to_string))
                .unwrap_or_default()
        },
        |text| listed.iter().all(|line| text.contains(line)),
    )
    .await;
    for line in listed {
        assert!(
            text.contains(line),
            "the cheat sheet lists {line:?}: {text}"
        );
    }
    harness.screenshot("cheat-sheet").await;
    harness
        .driver
        .action_chain()
        .send_keys(Key::Escape)
        .perform()
        .await
        .expect("Escape");
    wait_until(
        "Escape closes the cheat sheet",
        async || {
            harness
                .driver
                .execute(
                    "const sheet = document.querySelector('.cheat-sheet'); return !!sheet && sheet.checkVisibility();",
                    vec![],
                )
                .await
                .ok()
                .and_then(|answer| answer.json().as_bool())
                .unwrap_or(true)
        },
        |shown| !shown,
    )
    .await;
    harness.stop().await;
}

on_both_backends!(the_palette_and_shortcuts_go_where_people_expect);
