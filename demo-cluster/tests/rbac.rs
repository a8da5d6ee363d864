//! The demo cluster with `--token-auth-file` held to kube-apiserver with the same flag and
//! RBAC: envtest's control plane (its `admin` token in `system:masters`, its `viewer` in the
//! group `viewers`, bound to `view` in `default`) and a demo cluster started with
//! `tokens.example.csv` (the same two users) and the example certificate, each behind a
//! `kubectl proxy` that holds no credentials (so every request carries its own
//! `Authorization` header, or none), are sent the same requests as the viewer, the admin,
//! nobody and an unknown token. Status codes must agree, and every refusal's Status (message,
//! reason, details, code) byte for byte; the review kinds' answers must agree (rules reviews
//! as sets of rules); and `kubectl auth can-i --list` and `kubectl auth whoami` print the same
//! on both.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use demo_cluster::{start, Config};
use kube::Client;
use serde_json::{json, Value};

mod common;

use common::raw::{self, client_for, Reply};

/// Who sends a request.
#[derive(Clone, Copy, Debug)]
enum Who {
    Viewer,
    Admin,
    Anonymous,
    UnknownToken,
}

impl Who {
    fn token(self) -> Option<&'static str> {
        match self {
            Who::Viewer => Some(envtest::VIEWER_TOKEN),
            Who::Admin => Some(envtest::ADMIN_TOKEN),
            Who::Anonymous => None,
            Who::UnknownToken => Some("not-a-token-anyone-has"),
        }
    }
}

/// One request, as sent.
#[derive(Clone, Debug)]
struct Req {
    method: &'static str,
    path: String,
    body: Option<Value>,
    content_type: &'static str,
}

fn get(path: impl Into<String>) -> Req {
    Req {
        method: "GET",
        path: path.into(),
        body: None,
        content_type: "application/json",
    }
}

fn with_body(method: &'static str, path: impl Into<String>, body: Value) -> Req {
    Req {
        method,
        path: path.into(),
        body: Some(body),
        content_type: "application/json",
    }
}

async fn send(client: &Client, who: Who, req: &Req) -> Reply {
    let mut builder = http::Request::builder()
        .method(req.method)
        .uri(req.path.as_str())
        .header("user-agent", "atlas-rbac/1.0")
        .header("content-type", req.content_type);
    if let Some(token) = who.token() {
        builder = builder.header("authorization", format!("Bearer {token}"));
    }
    let body = req
        .body
        .as_ref()
        .map(|b| b.to_string().into_bytes())
        .unwrap_or_default();
    raw::send(
        client,
        builder,
        body,
        &format!("{} {}", req.method, req.path),
    )
    .await
}

/// What runs for the test, stopped when it drops.
struct Sides {
    _plane: envtest::ControlPlane,
    _proxies: Vec<envtest::KubectlProxy>,
    _scratch: tempfile::TempDir,
    /// The servers themselves, for kubectl.
    real_server: String,
    demo_server: String,
    /// Credential-less `kubectl proxy`s in front of them.
    real: Client,
    demo: Client,
}

fn manifest_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

/// A kubeconfig for `server` whose user has no token: `kubectl proxy` then passes each
/// request's own `Authorization` on (the dummy basic credentials only stop kubectl from asking
/// for a password; both servers take a request without a bearer token as anonymous).
fn credential_less_kubeconfig(dir: &Path, name: &str, server: &str) -> PathBuf {
    let path = dir.join(format!("{name}.kubeconfig"));
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: {server}\n    insecure-skip-tls-verify: true\n\
             contexts:\n- name: c\n  context: {{cluster: c, user: u}}\ncurrent-context: c\n\
             users:\n- name: u\n  user: {{username: nobody, password: nobody}}\n"
        ),
    )
    .expect("kubeconfig written");
    path
}

/// The demo cluster with the example tokens and certificate, on a runtime of its own (the
/// test blocks on kubectl meanwhile).
fn start_demo() -> String {
    common::start_on_own_runtime(Config {
        listen: "127.0.0.1:0".parse().expect("loopback address"),
        empty: true,
        controllers: false,
        token_auth_file: Some(manifest_file("tokens.example.csv")),
        tls_cert_file: Some(manifest_file("tls.example.crt")),
        tls_private_key_file: Some(manifest_file("tls.example.key")),
        ..Config::default()
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Waits until the aggregated `view`, `edit` and `admin` have their rules (the controller
/// fills them a few seconds after the control plane starts; the demo seeds them filled).
fn wait_for_aggregated_roles(plane: &envtest::ControlPlane) {
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    loop {
        let filled = plane
            .kubectl_ok(&[
                "get",
                "clusterroles",
                "view",
                "edit",
                "admin",
                "--output=jsonpath={range .items[*]}{.rules[0].verbs}{\"\\n\"}{end}",
            ])
            .is_ok_and(|out| out.lines().filter(|l| !l.trim().is_empty()).count() == 3);
        if filled {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "kube-apiserver's view, edit and admin got no rules within 90 s"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn start_sides() -> Sides {
    let tokens = std::fs::read_to_string(manifest_file("tokens.example.csv")).expect("tokens");
    assert!(
        tokens.contains(&format!("{},admin,1,system:masters", envtest::ADMIN_TOKEN))
            && tokens.contains(&format!("{},viewer,2,viewers", envtest::VIEWER_TOKEN)),
        "tokens.example.csv has envtest's users"
    );
    // With kube-controller-manager: its clusterrole-aggregation controller gives `view`,
    // `edit` and `admin` their rules.
    let plane = envtest::ControlPlane::start(envtest::Options {
        controllers: true,
        nodes: 0,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    wait_for_aggregated_roles(&plane);
    let demo_server = start_demo();
    let scratch = tempfile::tempdir().expect("scratch");
    let mut proxies = vec![];
    let mut clients = vec![];
    for (name, server) in [("real", plane.server_url()), ("demo", demo_server.clone())] {
        let kubeconfig = credential_less_kubeconfig(scratch.path(), name, &server);
        let proxy = envtest::KubectlProxy::start(
            &kubeconfig,
            None,
            &scratch.path().join(format!("{name}-cache")),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        clients.push(client_for(&proxy.url()));
        proxies.push(proxy);
    }
    let demo = clients.pop().expect("the demo's client");
    let real = clients.pop().expect("the real side's client");
    Sides {
        real_server: plane.server_url(),
        _plane: plane,
        _proxies: proxies,
        _scratch: scratch,
        demo_server,
        real,
        demo,
    }
}

/// A refusal as clients read it.
fn status_fields(reply: &Reply) -> Value {
    match reply.json_if_any() {
        Some(status) => json!({
            "kind": status["kind"], "status": status["status"], "message": status["message"],
            "reason": status["reason"], "details": status["details"], "code": status["code"],
        }),
        None => json!({"text": reply.text()}),
    }
}

impl Sides {
    /// Sends `req` as `who` to both; a difference in code, or in a refusal's Status, is
    /// described in `found`.
    async fn compare(&self, who: Who, req: &Req, found: &mut Vec<String>) -> (Reply, Reply) {
        let real = send(&self.real, who, req).await;
        let demo = send(&self.demo, who, req).await;
        let what = format!("{who:?} {} {}", req.method, req.path);
        if real.status != demo.status {
            found.push(format!(
                "{what}: real {} {} / demo {} {}",
                real.status,
                real.text(),
                demo.status,
                demo.text()
            ));
        } else if real.status >= 400 {
            let (real_status, demo_status) = (status_fields(&real), status_fields(&demo));
            if real_status != demo_status {
                found.push(format!("{what}: real {real_status} / demo {demo_status}"));
            }
        }
        (real, demo)
    }

    /// Creates a review as `who` on both and returns both statuses (both must be 201).
    async fn review(
        &self,
        who: Who,
        path: &str,
        body: Value,
        found: &mut Vec<String>,
    ) -> Option<(Value, Value)> {
        let (real, demo) = self
            .compare(who, &with_body("POST", path, body), found)
            .await;
        if real.status != 201 || demo.status != 201 {
            found.push(format!(
                "{who:?} POST {path}: not created ({})",
                real.text()
            ));
            return None;
        }
        let status = |reply: &Reply| {
            reply
                .json_if_any()
                .map(|v| v["status"].clone())
                .unwrap_or_default()
        };
        Some((status(&real), status(&demo)))
    }
}

/// What the admin adds on both sides: the viewer may read one Secret in `default` (a rule with
/// `resourceNames`), and in the namespace `team` a binding names a ClusterRole that does not
/// exist (refusals there carry RBAC's error as their reason).
fn policy() -> Vec<Req> {
    let rbac = "/apis/rbac.authorization.k8s.io/v1/namespaces";
    let group =
        json!([{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "viewers"}]);
    vec![
        with_body(
            "POST",
            "/api/v1/namespaces",
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}),
        ),
        with_body(
            "POST",
            format!("{rbac}/default/roles"),
            json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "password-reader"},
            "rules": [{"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["db-password"], "verbs": ["get", "list", "watch"]}]}),
        ),
        with_body(
            "POST",
            format!("{rbac}/default/rolebindings"),
            json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "viewers-password-reader"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "password-reader"},
            "subjects": group.clone()}),
        ),
        with_body(
            "POST",
            format!("{rbac}/team/rolebindings"),
            json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "viewers-missing-role"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "no-such-role"},
            "subjects": group}),
        ),
    ]
}

/// The requests compared for each sender, with the codes kube-apiserver gives (checked too,
/// so the corpus keeps meaning what it says).
fn requests() -> Vec<(Who, Req, u16)> {
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    let scale = Req {
        content_type: "application/merge-patch+json",
        ..with_body(
            "PATCH",
            "/apis/apps/v1/namespaces/default/deployments/web/scale",
            json!({"spec": {"replicas": 3}}),
        )
    };
    let sar = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
        "spec": {"user": "viewer", "resourceAttributes": {"namespace": "default", "verb": "get", "resource": "pods"}}});
    let lsar = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "LocalSubjectAccessReview",
        "spec": {"groups": ["viewers"], "resourceAttributes": {"namespace": "default", "verb": "get", "resource": "secrets"}}});
    use Who::*;
    vec![
        (Viewer, get("/api/v1/pods"), 403),
        (Admin, get("/api/v1/pods"), 200),
        (Viewer, get("/api/v1/namespaces/default/pods"), 200),
        (Viewer, get("/api/v1/namespaces/kube-system/pods"), 403),
        (
            Viewer,
            get("/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1"),
            200,
        ),
        (Viewer, get("/api/v1/pods?watch=1"), 403),
        (
            Admin,
            get("/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1"),
            200,
        ),
        (
            Viewer,
            get("/api/v1/namespaces/default/secrets/db-password"),
            404,
        ),
        (Viewer, get("/api/v1/namespaces/default/secrets/other"), 403),
        (Viewer, get("/api/v1/namespaces/default/secrets"), 403),
        (
            Viewer,
            get("/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Dother"),
            403,
        ),
        (Viewer, get("/api/v1/namespaces/team/pods"), 403),
        (
            Viewer,
            get("/api/v1/namespaces/team/secrets/db-password"),
            403,
        ),
        (
            Admin,
            get("/api/v1/namespaces/default/secrets/db-password"),
            404,
        ),
        (
            Viewer,
            get("/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Ddb-password"),
            200,
        ),
        (
            Viewer,
            with_body("POST", "/api/v1/namespaces/default/pods", pod.clone()),
            403,
        ),
        (
            Admin,
            with_body("POST", "/api/v1/namespaces/default/pods?dryRun=All", pod),
            201,
        ),
        (Viewer, scale.clone(), 403),
        (Admin, scale, 404),
        (
            Viewer,
            get("/apis/apps/v1/namespaces/default/deployments/web/scale"),
            404,
        ),
        (
            Viewer,
            get("/api/v1/namespaces/default/pods/web-1/log"),
            404,
        ),
        (
            Viewer,
            get("/api/v1/namespaces/default/pods/web-1/status"),
            404,
        ),
        (
            Viewer,
            with_body(
                "POST",
                "/api/v1/namespaces/default/pods/web-1/exec?command=ls",
                json!({}),
            ),
            403,
        ),
        (
            Viewer,
            Req {
                method: "DELETE",
                ..get("/api/v1/namespaces/default/pods")
            },
            403,
        ),
        (
            Viewer,
            Req {
                method: "DELETE",
                ..get("/api/v1/namespaces/default/pods/web-1")
            },
            403,
        ),
        (Viewer, get("/api/v1/namespaces"), 403),
        (Admin, get("/api/v1/namespaces"), 200),
        (Viewer, get("/api/v1/namespaces/default"), 200),
        (Viewer, get("/api/v1/namespaces/kube-system"), 403),
        (
            Viewer,
            get("/apis/rbac.authorization.k8s.io/v1/clusterroles"),
            403,
        ),
        (Viewer, get("/apis/apps/v1/deployments"), 403),
        (
            Viewer,
            get("/apis/apps/v1/namespaces/default/deployments"),
            200,
        ),
        (
            Viewer,
            get("/apis/stable.example.com/v1/namespaces/default/crontabs"),
            403,
        ),
        // Discovery and the other paths outside the resource API.
        (Viewer, get("/api"), 200),
        (Viewer, get("/apis"), 200),
        (Viewer, get("/api/v1"), 200),
        (Viewer, get("/apis/apps/v1"), 200),
        (Viewer, get("/version"), 200),
        (Viewer, get("/openapi/v3"), 200),
        (Viewer, get("/healthz"), 200),
        (Viewer, get("/metrics"), 403),
        (Viewer, get("/no/such/path"), 403),
        (Viewer, with_body("POST", "/healthz", json!({})), 403),
        (Anonymous, get("/api"), 403),
        (Anonymous, get("/api/v1/namespaces/default/pods"), 403),
        (Anonymous, get("/version"), 200),
        (Anonymous, get("/healthz"), 200),
        (Anonymous, get("/healthz/"), 403),
        (Anonymous, get("/readyz"), 200),
        (UnknownToken, get("/api/v1/namespaces/default/pods"), 401),
        (UnknownToken, get("/healthz"), 401),
        // The review kinds themselves.
        (
            Viewer,
            with_body(
                "POST",
                "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                sar.clone(),
            ),
            403,
        ),
        (
            Admin,
            with_body(
                "POST",
                "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                sar,
            ),
            201,
        ),
        (
            Viewer,
            with_body(
                "POST",
                "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews",
                lsar,
            ),
            403,
        ),
        (
            Anonymous,
            with_body(
                "POST",
                "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}),
            ),
            403,
        ),
        (
            Viewer,
            with_body(
                "POST",
                "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": {}}),
            ),
            400,
        ),
    ]
}

/// The access questions asked through SelfSubjectAccessReviews (their `spec`).
fn access_questions() -> Vec<Value> {
    let resource =
        |verb: &str, group: &str, resource: &str, sub: &str, namespace: &str, name: &str| {
            json!({"resourceAttributes": {"verb": verb, "group": group, "resource": resource,
            "subresource": sub, "namespace": namespace, "name": name}})
        };
    vec![
        resource("list", "", "pods", "", "default", ""),
        resource("list", "", "pods", "", "", ""),
        resource("watch", "", "pods", "", "kube-system", ""),
        resource("get", "", "secrets", "", "default", "db-password"),
        resource("get", "", "secrets", "", "default", "other"),
        resource("list", "", "secrets", "", "default", ""),
        resource("list", "", "pods", "", "team", ""),
        resource("create", "", "pods", "", "default", ""),
        resource("patch", "apps", "deployments", "scale", "default", "web"),
        resource("get", "apps", "deployments", "scale", "default", "web"),
        resource("get", "", "pods", "log", "default", "web-1"),
        resource("create", "", "pods", "exec", "default", "web-1"),
        resource("get", "", "namespaces", "", "default", "default"),
        resource(
            "create",
            "authorization.k8s.io",
            "selfsubjectrulesreviews",
            "",
            "",
            "",
        ),
        json!({"nonResourceAttributes": {"verb": "get", "path": "/api"}}),
        json!({"nonResourceAttributes": {"verb": "get", "path": "/metrics"}}),
        json!({"nonResourceAttributes": {"verb": "get", "path": "/.well-known/openid-configuration"}}),
    ]
}

/// A rules review's rules as a set (kube-apiserver visits bindings in no fixed order).
fn rule_set(status: &Value, field: &str) -> BTreeSet<String> {
    status[field]
        .as_array()
        .into_iter()
        .flatten()
        .map(Value::to_string)
        .collect()
}

/// `kubectl` against `server` with `token`: (exit status, stdout, stderr).
fn kubectl(server: &str, token: &str, home: &Path, args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new("kubectl")
        .args([
            "--server",
            server,
            "--insecure-skip-tls-verify",
            "--token",
            token,
        ])
        .arg(format!("--cache-dir={}", home.join("cache").display()))
        .args(args)
        .env("HOME", home)
        .env("KUBECONFIG", home.join("no-kubeconfig"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("kubectl runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup`"
)]
async fn token_users_are_answered_as_kube_apiserver_answers_them() {
    let sides = tokio::task::spawn_blocking(start_sides)
        .await
        .expect("both sides start");
    let mut found = vec![];

    // The default ServiceAccount kube-controller-manager creates (the demo runs without
    // controllers): kube-apiserver refuses pods without it. Created on both, whoever is first.
    let account = with_body(
        "POST",
        "/api/v1/namespaces/default/serviceaccounts",
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}}),
    );
    send(&sides.real, Who::Admin, &account).await;
    send(&sides.demo, Who::Admin, &account).await;
    for req in policy() {
        let (real, _) = sides.compare(Who::Admin, &req, &mut found).await;
        assert_eq!(real.status, 201, "{}: {}", req.path, real.text());
    }

    for (who, req, expected) in requests() {
        let (real, _) = sides.compare(who, &req, &mut found).await;
        if real.status != expected {
            found.push(format!(
                "{who:?} {} {}: kube-apiserver answered {}, the corpus expects {expected}: {}",
                req.method,
                req.path,
                real.status,
                real.text()
            ));
        }
    }

    for who in [Who::Viewer, Who::Admin] {
        let ssr = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"});
        if let Some((real, demo)) = sides
            .review(
                who,
                "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                ssr,
                &mut found,
            )
            .await
        {
            if real["userInfo"] != demo["userInfo"] {
                found.push(format!(
                    "{who:?} SelfSubjectReview: real {real} / demo {demo}"
                ));
            }
        }
        for spec in access_questions() {
            let ssar = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": spec});
            if let Some((real, demo)) = sides
                .review(
                    who,
                    "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                    ssar,
                    &mut found,
                )
                .await
            {
                if real != demo {
                    found.push(format!(
                        "{who:?} SelfSubjectAccessReview {spec}: real {real} / demo {demo}"
                    ));
                }
            }
        }
        for namespace in ["default", "kube-system", "team"] {
            let ssrr = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview",
                "spec": {"namespace": namespace}});
            if let Some((real, demo)) = sides
                .review(
                    who,
                    "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                    ssrr,
                    &mut found,
                )
                .await
            {
                for field in ["resourceRules", "nonResourceRules"] {
                    let (real_rules, demo_rules) = (rule_set(&real, field), rule_set(&demo, field));
                    if real_rules != demo_rules {
                        found.push(format!(
                            "{who:?} SelfSubjectRulesReview in {namespace}: {field} only real {:?}, only demo {:?}",
                            real_rules.difference(&demo_rules).collect::<Vec<_>>(),
                            demo_rules.difference(&real_rules).collect::<Vec<_>>()
                        ));
                    }
                }
                for field in ["incomplete", "evaluationError"] {
                    if real[field] != demo[field] {
                        found.push(format!("{who:?} SelfSubjectRulesReview in {namespace}: {field} real {} / demo {}", real[field], demo[field]));
                    }
                }
            }
        }
    }

    // Subject access reviews about the viewer, asked by the admin.
    let subjects = [
        json!({"user": "viewer", "groups": ["viewers"], "resourceAttributes": {"namespace": "default", "verb": "get", "resource": "pods"}}),
        json!({"user": "viewer", "resourceAttributes": {"namespace": "default", "verb": "get", "resource": "pods"}}),
        json!({"user": "viewer", "groups": ["viewers", "system:authenticated"], "nonResourceAttributes": {"verb": "get", "path": "/apis/apps"}}),
        json!({"user": "someone", "groups": ["system:masters"], "resourceAttributes": {"verb": "delete", "resource": "nodes"}}),
    ];
    for spec in subjects {
        let sar = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec});
        if let Some((real, demo)) = sides
            .review(
                Who::Admin,
                "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                sar,
                &mut found,
            )
            .await
        {
            if real != demo {
                found.push(format!(
                    "SubjectAccessReview {spec}: real {real} / demo {demo}"
                ));
            }
        }
    }
    for verb_resource in [("get", "secrets"), ("list", "configmaps")] {
        let lsar = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "LocalSubjectAccessReview",
            "spec": {"groups": ["viewers"], "resourceAttributes": {"namespace": "default", "verb": verb_resource.0, "resource": verb_resource.1}}});
        if let Some((real, demo)) = sides
            .review(
                Who::Admin,
                "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews",
                lsar,
                &mut found,
            )
            .await
        {
            if real != demo {
                found.push(format!(
                    "LocalSubjectAccessReview {verb_resource:?}: real {real} / demo {demo}"
                ));
            }
        }
    }

    // kubectl, holding each token itself.
    let home = tempfile::tempdir().expect("kubectl's home");
    let commands: [&[&str]; 5] = [
        &["auth", "can-i", "--list", "-n", "default"],
        &["auth", "can-i", "--list", "-n", "team"],
        &["auth", "whoami"],
        &["auth", "can-i", "create", "pods", "-n", "default"],
        &["get", "pods", "--all-namespaces"],
    ];
    for token in [envtest::VIEWER_TOKEN, envtest::ADMIN_TOKEN] {
        for args in commands {
            let real = kubectl(&sides.real_server, token, home.path(), args);
            let demo = kubectl(&sides.demo_server, token, home.path(), args);
            // `get pods` lists what each side holds; only its refusal is compared.
            let listed = args[0] == "get" && real.0 && demo.0;
            if real != demo && !listed {
                found.push(format!(
                    "kubectl {} as {token}: real {real:?} / demo {demo:?}",
                    args.join(" ")
                ));
            }
        }
    }

    assert!(
        found.is_empty(),
        "{} differences from kube-apiserver:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// Without a control plane to compare with: the demo alone, over plain HTTP, with the example
/// tokens (the answers the test above holds to kube-apiserver's).
#[tokio::test]
async fn the_demo_alone_authenticates_and_authorizes_by_token() {
    let cluster = start(Config {
        listen: "127.0.0.1:0".parse().expect("loopback address"),
        empty: true,
        controllers: false,
        token_auth_file: Some(manifest_file("tokens.example.csv")),
        ..Config::default()
    })
    .await
    .expect("the demo cluster starts");
    let client = client_for(&cluster.url());
    let message = |reply: &Reply| {
        reply
            .json_if_any()
            .and_then(|status| status["message"].as_str().map(String::from))
            .unwrap_or_default()
    };
    let all_pods = get("/api/v1/pods");
    let refused = send(&client, Who::Viewer, &all_pods).await;
    assert_eq!(refused.status, 403);
    assert_eq!(
        message(&refused),
        "pods is forbidden: User \"viewer\" cannot list resource \"pods\" in API group \"\" at the cluster scope"
    );
    assert_eq!(send(&client, Who::Admin, &all_pods).await.status, 200);
    let default_pods = get("/api/v1/namespaces/default/pods");
    assert_eq!(send(&client, Who::Viewer, &default_pods).await.status, 200);
    let anonymous = send(&client, Who::Anonymous, &default_pods).await;
    assert_eq!(anonymous.status, 403);
    assert!(message(&anonymous).contains("User \"system:anonymous\""));
    let unknown = send(&client, Who::UnknownToken, &default_pods).await;
    assert_eq!(
        (unknown.status, message(&unknown)),
        (401, "Unauthorized".into())
    );
    assert_eq!(
        send(&client, Who::Anonymous, &get("/healthz")).await.status,
        200
    );

    let ssr = with_body(
        "POST",
        "/apis/authentication.k8s.io/v1/selfsubjectreviews",
        json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}),
    );
    let review = send(&client, Who::Viewer, &ssr)
        .await
        .json_if_any()
        .unwrap_or_default();
    assert_eq!(
        review["status"]["userInfo"],
        json!({"username": "viewer", "uid": "2", "groups": ["viewers", "system:authenticated"]})
    );
    let ssar = with_body(
        "POST",
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": {"namespace": "default", "verb": "list", "resource": "pods"}}}),
    );
    let review = send(&client, Who::Viewer, &ssar)
        .await
        .json_if_any()
        .unwrap_or_default();
    assert_eq!(
        review["status"],
        json!({"allowed": true, "reason": "RBAC: allowed by RoleBinding \"viewers-view/default\" of ClusterRole \"view\" to Group \"viewers\""})
    );
    cluster.shutdown().await.expect("clean shutdown");
}
