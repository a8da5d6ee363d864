//! End-to-end tests of the Terminal tab: a shell in a pod's container through xterm.js, on
//! the demo cluster (its simulated shell, served directly) and on kube-apiserver (its own
//! exec path to the stand-in kubelet's streaming server, behind kube-atlas; `kubectl proxy`
//! refuses exec by default, and that refusal is explained). Typing goes to xterm.js's input
//! as a user's keys do; what is checked is the text xterm.js draws.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use common::{wait_until, Backend, Harness};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams};
use serde_json::json;
use thirtyfour::prelude::*;

/// The text on the shown terminal's screen, row by row, as xterm.js draws it.
async fn screen(driver: &WebDriver) -> String {
    driver
        .execute(
            "const s = Array.from(document.querySelectorAll('.terminal-session'))
               .find(s => s.style.display !== 'none');
             const rows = s && s.querySelector('.xterm-rows');
             return rows ? Array.from(rows.children).map(r => r.textContent.trimEnd()).join('\\n') : '';",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<String>().ok())
        .unwrap_or_default()
}

/// The shown session's phase, size and status line.
async fn session(driver: &WebDriver) -> (String, String, String, String) {
    driver
        .execute(
            "const s = Array.from(document.querySelectorAll('.terminal-session'))
               .find(s => s.style.display !== 'none');
             if (!s) return ['', '', '', ''];
             return [s.dataset.phase || '', s.dataset.cols || '', s.dataset.rows || '',
                     s.querySelector('.terminal-phase').textContent];",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<(String, String, String, String)>().ok())
        .unwrap_or_default()
}

/// Waits until the shown session is in `phase`: its phase, size and status line.
async fn session_in_phase(
    harness: &Harness,
    what: &str,
    phase: &str,
) -> (String, String, String, String) {
    wait_until(
        what,
        async || session(&harness.driver).await,
        |(now, ..)| now == phase,
    )
    .await
}

/// Types `text` into the shown terminal, as keys.
async fn type_keys(driver: &WebDriver, text: &str) {
    let input = driver
        .find_all(By::Css(".terminal-session .xterm-helper-textarea"))
        .await
        .expect("terminal inputs");
    for element in input {
        if element.is_displayed().await.unwrap_or(false)
            || element.is_enabled().await.unwrap_or(false)
        {
            // The hidden sessions' inputs are inside display:none; the shown one takes focus.
            if driver
                .execute(
                    "return arguments[0].closest('.terminal-session').style.display !== 'none';",
                    vec![element.to_json().expect("element")],
                )
                .await
                .ok()
                .and_then(|r| r.convert::<bool>().ok())
                .unwrap_or(false)
            {
                element.send_keys(text).await.expect("typed");
                return;
            }
        }
    }
    panic!("no shown terminal to type into");
}

async fn running_pod(harness: &Harness, name: &str) {
    running_pod_with(harness, name, json!({"name": "app", "image": "nginx:1.27"})).await
}

async fn running_pod_with(harness: &Harness, name: &str, container: serde_json::Value) {
    common::running_pod(harness, name, json!({"containers": [container]})).await;
}

/// The dashboard where exec can work: the demo cluster serves it; on the real control plane
/// kube-atlas passes it (kubectl proxy would refuse it).
async fn start(backend: Backend) -> Harness {
    match backend {
        Backend::Demo => Harness::start_on(backend).await,
        Backend::Real => Harness::start_on(backend).await.behind_kube_atlas().await,
    }
}

async fn a_shell_in_a_pod(backend: Backend) {
    let harness = start(backend).await;
    running_pod(&harness, "shell-demo").await;
    harness
        .open("#/obj/core/v1/pods/default/shell-demo?tab=terminal")
        .await;
    // The default shell (bash, else sh); the status line names what runs.
    let (_, _, _, status) = session_in_phase(&harness, "a shell opens", "open").await;
    wait_until(
        "the prompt",
        async || screen(&harness.driver).await,
        |text| text.contains("/ #"),
    )
    .await;
    eprintln!("status: {status}");

    type_keys(&harness.driver, "hostname\n").await;
    wait_until(
        "hostname prints the pod's name",
        async || screen(&harness.driver).await,
        |text| text.lines().any(|l| l.trim() == "shell-demo"),
    )
    .await;

    // Copy: a double-click selects the word, *Copy* puts it on the clipboard.
    harness
        .driver
        .cdp()
        .send_raw(
            "Browser.grantPermissions",
            json!({"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]}),
        )
        .await
        .expect("clipboard permissions");
    let rows = harness
        .driver
        .find_all(By::Css(".terminal-session .xterm-rows > div"))
        .await
        .expect("rows");
    let mut row_of_name = None;
    for row in rows {
        if row.text().await.unwrap_or_default().trim() == "shell-demo" {
            row_of_name = Some(row);
        }
    }
    let row = row_of_name.expect("the row with the pod's name");
    let width = row.rect().await.expect("the row's size").width;
    harness
        .driver
        .action_chain()
        .move_to_element_with_offset(&row, (12.0 - width / 2.0) as i64, 0)
        .double_click()
        .perform()
        .await
        .expect("the word selected");
    common::click_live(
        &harness.driver,
        ".terminal-session .terminal-status button[title^='Copy']",
    )
    .await;
    let copied = harness
        .driver
        .execute_async(
            "const done = arguments[arguments.length - 1];
             navigator.clipboard.readText().then(done, e => done('error: ' + e));",
            vec![],
        )
        .await
        .expect("the clipboard read")
        .convert::<String>()
        .unwrap_or_default();
    assert_eq!(copied, "shell-demo");

    // The terminal's size reaches the process, before and after the window changes.
    let (_, cols, rows, _) = session(&harness.driver).await;
    type_keys(&harness.driver, "stty size\n").await;
    wait_until(
        "stty size says the terminal's rows and columns",
        async || screen(&harness.driver).await,
        |text| text.lines().any(|l| l.trim() == format!("{rows} {cols}")),
    )
    .await;
    harness
        .driver
        .set_window_rect(0, 0, 1000, 700)
        .await
        .expect("window resized");
    let (_, new_cols, new_rows, _) = wait_until(
        "the terminal follows the window",
        async || session(&harness.driver).await,
        |(_, c, r, _)| (c.as_str(), r.as_str()) != (cols.as_str(), rows.as_str()) && !c.is_empty(),
    )
    .await;
    type_keys(&harness.driver, "stty size\n").await;
    wait_until(
        "stty size follows the resize",
        async || screen(&harness.driver).await,
        |text| {
            text.lines()
                .any(|l| l.trim() == format!("{new_rows} {new_cols}"))
        },
    )
    .await;

    // HTML from the container is text on the screen (both shells split on spaces only).
    type_keys(&harness.driver, "echo <b>bold</b>\n").await;
    wait_until(
        "markup shown as typed",
        async || screen(&harness.driver).await,
        |text| text.lines().any(|l| l.trim() == "<b>bold</b>"),
    )
    .await;

    // Ctrl-C reaches the process: sleep ends long before its 30 seconds.
    type_keys(&harness.driver, "sleep 30\n").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let prompts_before = screen(&harness.driver).await.matches("/ #").count();
    harness
        .driver
        .action_chain()
        .key_down(Key::Control)
        .send_keys("c")
        .key_up(Key::Control)
        .perform()
        .await
        .expect("Ctrl-C");
    common::wait_until_within(
        "Ctrl-C interrupts sleep 30: a new prompt",
        Duration::from_secs(10),
        async || screen(&harness.driver).await,
        |text| text.matches("/ #").count() > prompts_before,
    )
    .await;

    // Pasted text reaches the process as typed text does (the browser's paste event, as
    // Ctrl+V or the context menu give it).
    harness
        .driver
        .execute(
            "const input = Array.from(document.querySelectorAll('.terminal-session'))
               .find(s => s.style.display !== 'none').querySelector('.xterm-helper-textarea');
             const data = new DataTransfer();
             data.setData('text/plain', 'echo pasted-text\\r');
             input.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true}));",
            vec![],
        )
        .await
        .expect("pasted");
    wait_until(
        "the pasted command ran",
        async || screen(&harness.driver).await,
        |text| text.lines().any(|l| l.trim() == "pasted-text"),
    )
    .await;

    // A command that is not there says so.
    type_keys(&harness.driver, "nosuchcommand\n").await;
    wait_until(
        "not found",
        async || screen(&harness.driver).await,
        |text| text.contains("nosuchcommand: not found"),
    )
    .await;
    harness.screenshot("terminal-session").await;

    // The exit code is the session's end.
    type_keys(&harness.driver, "exit 3\n").await;
    let (_, _, _, said) =
        session_in_phase(&harness, "the session ends with the exit code", "ended").await;
    assert_eq!(said, "Exited with code 3");
    harness.stop().await;
}

on_both_backends!(a_shell_in_a_pod);

/// Two sessions at once, a typed command, attach, and the pod going away.
async fn sessions_attach_and_a_pod_that_goes(backend: Backend) {
    let harness = start(backend).await;
    // Started with stdin and no TTY: attach types lines into it (`kubectl attach -i`).
    running_pod_with(
        &harness,
        "busy",
        json!({"name": "app", "image": "nginx:1.27", "stdin": true}),
    )
    .await;
    harness
        .open("#/obj/core/v1/pods/default/busy?tab=terminal&attach=app")
        .await;
    // Attached to the main process: its ticks arrive, and lines typed are answered.
    wait_until(
        "the attached process's ticks",
        async || screen(&harness.driver).await,
        |text| text.lines().any(|l| l.starts_with("busy: tick")),
    )
    .await;
    // Typed once the stream has carried a tick (kube-apiserver joins the attach's streams
    // towards the kubelet as the first output arrives).
    wait_until(
        "a second tick",
        async || screen(&harness.driver).await,
        |text| text.contains("busy: tick 2"),
    )
    .await;
    type_keys(&harness.driver, "hello\n").await;
    // Every screen seen is kept: the answer may scroll off behind later ticks.
    let mut seen = String::new();
    wait_until(
        "the typed line echoed, and the process's answer",
        async || {
            seen.push_str(&screen(&harness.driver).await);
            seen.clone()
        },
        |seen| seen.contains("\nhello") && seen.contains("received: hello"),
    )
    .await;

    // A second session, a typed command, in its own tab.
    let command = harness
        .driver
        .find(By::Css("input[aria-label='Command']"))
        .await
        .expect("the command field");
    command.send_keys("seq 3").await.expect("typed");
    common::click_live(&harness.driver, ".terminal-toolbar button[type=submit]").await;
    let (_, _, _, said) = session_in_phase(&harness, "seq 3 runs and ends", "ended").await;
    assert_eq!(said, "Exited with code 0");
    // xterm.js draws what it was given on its next frame, which may follow the status line.
    wait_until(
        "seq 3's output on the screen",
        async || screen(&harness.driver).await,
        |text| text.contains("1\n2\n3"),
    )
    .await;
    let tabs = common::texts_at(&harness.driver, ".terminal-tab .link", None).await;
    assert_eq!(tabs, ["app: attached", "app: seq 3"], "one tab per session");

    // Back to the attached session; the pod is deleted under it.
    common::click_live(&harness.driver, ".terminal-tab:first-child .link").await;
    let pods: Api<Pod> = Api::namespaced(harness.kube_client(), "default");
    pods.delete("busy", &DeleteParams::default().grace_period(0))
        .await
        .expect("pod deleted");
    let (_, _, _, said) =
        session_in_phase(&harness, "the session ends with the pod", "ended").await;
    assert!(said.contains("The pod was deleted"), "{said}");
    harness.stop().await;
}

on_both_backends!(sessions_attach_and_a_pod_that_goes);

/// The viewer may not exec: the tab is there, disabled, with the reason.
async fn the_viewer_sees_the_terminal_disabled(backend: Backend) {
    let harness = Harness::start_as_viewer(backend).await;
    running_pod(&harness, "web").await;
    harness.open("#/obj/core/v1/pods/default/web").await;
    let reason = wait_until(
        "the Terminal tab disabled with its reason",
        async || {
            harness
                .driver
                .execute(
                    "const t = Array.from(document.querySelectorAll('.tabs a'))
                       .find(a => a.textContent === 'Terminal');
                     return t && t.getAttribute('aria-disabled') === 'true' ? t.title : '';",
                    vec![],
                )
                .await
                .ok()
                .and_then(|r| r.convert::<String>().ok())
                .unwrap_or_default()
        },
        |reason| !reason.is_empty(),
    )
    .await;
    assert!(reason.contains("exec"), "{reason}");
    harness.stop().await;
}

on_both_backends!(the_viewer_sees_the_terminal_disabled);

/// Behind a default `kubectl proxy`, exec is refused; the tab says why and what to do.
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_proxys_refusal_is_explained() {
    let harness = Harness::start_on(Backend::Real).await;
    running_pod(&harness, "web").await;
    harness
        .open("#/obj/core/v1/pods/default/web?tab=terminal")
        .await;
    let (_, _, _, said) = session_in_phase(&harness, "the refusal, explained", "refused").await;
    assert!(
        said.contains("kubectl proxy refuses exec") && said.contains("kube-atlas"),
        "{said}"
    );
    harness.screenshot("terminal-refused").await;
    harness.stop().await;
}

/// A debug container (`kubectl debug -it POD --image=busybox --target=app`): added through
/// `pods/ephemeralcontainers`, followed until it runs, then attached in a session of its own.
async fn a_debug_container_is_added_and_attached(backend: Backend) {
    let harness = start(backend).await;
    running_pod(&harness, "needs-debugging").await;
    harness
        .open("#/obj/core/v1/pods/default/needs-debugging?tab=terminal")
        .await;
    session_in_phase(&harness, "the first shell opens", "open").await;
    common::click_live(&harness.driver, ".debug-container summary").await;
    let target = harness
        .driver
        .find(By::Css("select[aria-label='Debug target']"))
        .await
        .expect("the target picker");
    target
        .find(By::Css("option[value='app']"))
        .await
        .expect("the app container offered")
        .click()
        .await
        .expect("target chosen");
    common::click_live(&harness.driver, ".debug-form button").await;
    let tabs = wait_until(
        "a session attached to the debug container",
        async || common::texts_at(&harness.driver, ".terminal-tab .link", None).await,
        |tabs| {
            tabs.iter()
                .any(|t| t.starts_with("debugger-") && t.ends_with(": attached"))
        },
    )
    .await;
    eprintln!("sessions: {tabs:?}");
    session_in_phase(&harness, "the debug session opens", "open").await;
    // The pod's spec names it, targeting the app container, as kubectl debug does.
    let pods: Api<Pod> = Api::namespaced(harness.kube_client(), "default");
    let pod = pods.get("needs-debugging").await.expect("the pod");
    let added = pod
        .spec
        .and_then(|s| s.ephemeral_containers)
        .unwrap_or_default();
    assert_eq!(added.len(), 1, "{added:?}");
    assert_eq!(added[0].image.as_deref(), Some("busybox"));
    assert_eq!(added[0].target_container_name.as_deref(), Some("app"));
    assert_eq!((added[0].stdin, added[0].tty), (Some(true), Some(true)));
    harness.screenshot("terminal-debug-container").await;
    harness.stop().await;
}

on_both_backends!(a_debug_container_is_added_and_attached);

/// A connection cut under a session (a proxy restarting): "Connection lost", and *Reconnect*
/// opens a new session.
async fn a_lost_connection_offers_reconnect(backend: Backend) {
    let harness = start(backend).await;
    running_pod(&harness, "cut").await;
    let cut = std::sync::Arc::new(tokio::sync::Notify::new());
    harness
        .open_ui_through_proxy(
            common::ProxyMode::Droppable(cut.clone()),
            "#/obj/core/v1/pods/default/cut?tab=terminal",
        )
        .await;
    wait_until(
        "the prompt",
        async || screen(&harness.driver).await,
        |text| text.contains("/ #"),
    )
    .await;
    cut.notify_waiters();
    let (_, _, _, said) = session_in_phase(&harness, "the session ends as lost", "ended").await;
    assert_eq!(said, "Connection lost");
    common::click_live(&harness.driver, ".terminal-status button").await;
    session_in_phase(&harness, "a new session after Reconnect", "open").await;
    type_keys(&harness.driver, "hostname\n").await;
    wait_until(
        "the new session answers",
        async || screen(&harness.driver).await,
        |text| text.lines().any(|l| l.trim() == "cut"),
    )
    .await;
    harness.stop().await;
}

on_both_backends!(a_lost_connection_offers_reconnect);
