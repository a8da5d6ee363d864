//! `--impersonate` (issue #51): a real kube-apiserver that knows nothing of the test issuer;
//! kube-atlas checks the users' ID tokens itself and acts for them with its own
//! ServiceAccount, which may impersonate `alice`, `victor` and the groups `admins` and
//! `developers` only.

mod support;

use std::time::Duration;

use support::oidc::{
    assert_no_token_in, configmap, location, start_all, Browser, Mode, CONFIGMAPS, PODS, SECRETS,
};

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kube_atlas_acts_for_the_users_it_may_impersonate_and_no_one_else() {
    let (issuer, plane, atlas, _scratch) =
        start_all(Duration::from_secs(300), Mode::Impersonation).await;
    // The ServiceAccount by itself may do nothing but impersonate.
    let token = plane.service_account_token.clone();
    assert_eq!(plane.can_i(&token, "list", "pods"), "no");
    assert_eq!(plane.can_i(&token, "get", "configmaps"), "no");

    let mut alice = Browser::new(&atlas);
    let signed_in = alice.sign_in_with(&issuer, "alice").await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    assert_eq!(location(&signed_in), "/");
    let who = alice.get("/kube-atlas/session").await;
    let who: serde_json::Value = serde_json::from_str(&who.body).expect("JSON");
    assert_eq!(who["user"], "alice");
    assert_eq!(who["groups"], serde_json::json!(["admins"]));
    let secrets = alice
        .get("/clusters/in-cluster/api/v1/namespaces/kube-system/secrets")
        .await;
    assert_eq!(secrets.status, 200, "alice lists secrets: {}", secrets.body);
    let created = alice
        .request("POST", CONFIGMAPS, &configmap("made-by-alice"))
        .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let mut victor = Browser::new(&atlas);
    let signed_in = victor.sign_in_with(&issuer, "victor").await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    assert_eq!(victor.get(PODS).await.status, 200, "view in default");
    assert_eq!(
        victor.get(SECRETS).await.status,
        403,
        "view reads no secrets"
    );
    // The page cannot name whom kube-atlas impersonates: its own headers stay behind.
    let cookie = victor.cookie_header();
    let origin = victor.origin.clone();
    let forged = support::team::ask(
        atlas.addr,
        "DELETE",
        &format!("{CONFIGMAPS}/made-by-alice"),
        &[
            ("origin", &origin),
            ("cookie", &cookie),
            ("impersonate-user", "alice"),
            ("impersonate-group", "admins"),
        ],
        "",
    )
    .await;
    assert_eq!(forged.status, 403, "victor as alice: {}", forged.body);
    assert!(forged.body.contains("victor"), "{}", forged.body);
    assert_eq!(
        alice
            .get(&format!("{CONFIGMAPS}/made-by-alice"))
            .await
            .status,
        200,
        "still there"
    );

    // mallory's ID token is valid and says `admins`, but kube-atlas may not act as mallory.
    let mut mallory = Browser::new(&atlas);
    let refused = mallory.sign_in_with(&issuer, "mallory").await;
    assert_eq!(refused.status, 401, "{}", refused.body);
    assert!(
        refused.body.contains("kube-atlas may not act as mallory"),
        "{}",
        refused.body
    );
    assert!(!mallory.cookies.contains_key("kube-atlas-session"));
    assert_eq!(mallory.get(PODS).await.status, 401);

    // Sign-out ends it as for any session.
    let signed_out = victor.request("POST", "/kube-atlas/sign-out", "").await;
    assert_eq!(signed_out.status, 303);
    let replayed = support::team::ask(atlas.addr, "GET", PODS, &[("cookie", &cookie)], "").await;
    assert_eq!(replayed.status, 401);

    let mut texts = alice.bodies.clone();
    texts.extend(victor.bodies.clone());
    texts.extend(mallory.bodies.clone());
    texts.push(atlas.output());
    assert_no_token_in(&issuer, &texts, "a page or the log");
    for text in &texts {
        assert!(
            !text.contains(&token),
            "the ServiceAccount's token leaked: {text}"
        );
    }
}
