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
    // No session: the sign-in page.
    sign_in_as_viewer(&harness, |path| {
        assert!(path.ends_with("/kube-atlas/sign-in"), "{path}")
    })
    .await;
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

/// Signs in as the viewer on the sign-in page the dashboard sends a new browser to
/// (`on_sign_in_page` sees its path).
async fn sign_in_as_viewer(harness: &Harness, on_sign_in_page: impl FnOnce(&str)) {
    let driver = &harness.driver;
    driver.goto(harness.url("/")).await.expect("the page loads");
    let token_field = wait_for(driver, "textarea#token").await;
    let url = driver.current_url().await.expect("a URL");
    on_sign_in_page(url.path());
    token_field
        .send_keys(envtest::VIEWER_TOKEN)
        .await
        .expect("the token typed");
    wait_for(driver, "button[type=submit]")
        .await
        .click()
        .await
        .expect("submitted");
    wait_for(driver, ".signed-in-user").await;
}

/// Ends the session elsewhere (its cookie's POST to sign-out, as another tab's *Sign out*
/// sends it); answers the status line.
async fn sign_out_elsewhere(harness: &Harness, cookie: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let origin = harness.url("");
    let origin = origin.trim_end_matches('/');
    let host = origin.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(host)
        .await
        .expect("kube-atlas answers");
    let request = format!(
        "POST /kube-atlas/sign-out HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\n\
         Cookie: {cookie}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .await
        .expect("the sign-out sent");
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .await
        .expect("the answer read");
    answer.lines().next().unwrap_or_default().to_string()
}

/// A page left open when its session ends elsewhere (signed out in another tab, or a sign-in
/// that expired): its next request meets a 401, and it goes to the sign-in page once,
/// instead of showing the cluster's refusal on every view.
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_page_whose_session_ended_goes_to_sign_in() {
    let harness = Harness::start_real_quiet()
        .await
        .behind_kube_atlas_for_a_team()
        .await;
    let driver = &harness.driver;
    sign_in_as_viewer(&harness, |_| {}).await;
    harness.open("#/list/core/v1/pods?ns=default").await;
    wait_for(driver, ".conn[data-state=connected]").await;
    let cookie = driver
        .get_named_cookie(kube_atlas_server::session::COOKIE_NAME)
        .await
        .expect("the session cookie (HttpOnly: WebDriver sees it, the page does not)");
    let said = sign_out_elsewhere(&harness, &format!("{}={}", cookie.name, cookie.value)).await;
    assert!(said.contains(" 303 "), "signed out elsewhere: {said}");
    // The page's next request: an object it reads over HTTP.
    driver
        .execute(
            "location.hash = '#/obj/core/v1/configmaps/default/kube-root-ca.crt';",
            vec![],
        )
        .await
        .expect("navigated");
    wait_until(
        "the page goes to the sign-in page",
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
    wait_for(driver, "textarea#token").await;
    harness.stop().await;
}
