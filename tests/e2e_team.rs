//! kube-atlas for a team in a real browser: the page sends a browser without a session to the
//! sign-in page; the viewer pastes their token and the header says who is signed in; nothing
//! of the token reaches the page (its cookie is HttpOnly, the page's storage and HTML hold no
//! token); *Sign out* ends the session and the page goes back to sign in. On the real control
//! plane, kube-atlas holding no credentials of its own, as in a pod.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{wait_for, wait_until, Harness};
use thirtyfour::prelude::*;

/// The page's own view of itself: its URL, its cookies as script sees them, its storage and
/// its HTML, in one script.
async fn what_the_page_holds(driver: &WebDriver) -> serde_json::Value {
    driver
        .execute(
            "return {url: location.href, cookie: document.cookie, \
             storage: JSON.stringify(localStorage) + JSON.stringify(sessionStorage), \
             html: document.documentElement.outerHTML};",
            vec![],
        )
        .await
        .expect("the script runs")
        .json()
        .clone()
}

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_viewer_signs_in_sees_who_they_are_and_signs_out() {
    let harness = Harness::start_real_quiet()
        .await
        .behind_kube_atlas_for_a_team()
        .await;
    let driver = &harness.driver;
    driver.goto(harness.url("/")).await.expect("the page loads");
    // No session: the sign-in page.
    let token_field = wait_for(driver, "textarea#token").await;
    let url = driver.current_url().await.expect("a URL");
    assert!(url.path().ends_with("/kube-atlas/sign-in"), "{url}");
    token_field
        .send_keys(envtest::VIEWER_TOKEN)
        .await
        .expect("the token typed");
    wait_for(driver, "button[type=submit]")
        .await
        .click()
        .await
        .expect("submitted");
    // Signed in: the dashboard, whose header names the viewer.
    let user = wait_for(driver, ".signed-in-user").await;
    assert_eq!(user.text().await.expect("text"), "viewer");
    wait_for(driver, ".conn[data-state=connected]").await;
    harness.screenshot("team-signed-in").await;
    let held = what_the_page_holds(driver).await;
    for (what, value) in [
        ("cookie", &held["cookie"]),
        ("storage", &held["storage"]),
        ("html", &held["html"]),
    ] {
        let text = value.as_str().unwrap_or_default();
        assert!(
            !text.contains(envtest::VIEWER_TOKEN),
            "the token is in the page's {what}"
        );
    }
    assert!(
        !held["cookie"]
            .as_str()
            .unwrap_or_default()
            .contains("kube-atlas-session"),
        "the session cookie is readable by the page's script: {}",
        held["cookie"]
    );
    // Sign out: back to the sign-in page, and the dashboard asks to sign in again.
    wait_for(driver, "button.sign-out")
        .await
        .click()
        .await
        .expect("signed out");
    wait_for(driver, "textarea#token").await;
    driver.goto(harness.url("/")).await.expect("the page loads");
    wait_until(
        "the dashboard sends a signed-out browser to sign in",
        async || {
            driver
                .current_url()
                .await
                .map(|url| url.path().to_string())
                .unwrap_or_default()
        },
        |path| path.ends_with("/kube-atlas/sign-in"),
    )
    .await;
    harness.stop().await;
}
