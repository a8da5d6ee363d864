//! What the OIDC tests share: a browser played by the test (cookies kept, redirects followed
//! by hand, the issuer's approval given in-process), a control plane with an admin and a
//! viewer, and kube-atlas signing users in with the test issuer.

use std::collections::BTreeMap;
use std::time::Duration;

use super::oidc_issuer::{TestIssuer, CLIENT_ID, CLIENT_SECRET};
use super::team::{ask, Answer, TeamAtlas, TeamPlane};

pub const PODS: &str = "/clusters/in-cluster/api/v1/namespaces/default/pods";
pub const CONFIGMAPS: &str = "/clusters/in-cluster/api/v1/namespaces/default/configmaps";
pub const SECRETS: &str = "/clusters/in-cluster/api/v1/namespaces/default/secrets";

/// A browser: its cookies for kube-atlas, kept from each answer's `Set-Cookie`.
pub struct Browser {
    pub addr: std::net::SocketAddr,
    pub origin: String,
    pub cookies: BTreeMap<String, String>,
    /// Every body it was answered, to check that no token is in any.
    pub bodies: Vec<String>,
}

impl Browser {
    pub fn new(atlas: &TeamAtlas) -> Browser {
        Browser {
            addr: atlas.addr,
            origin: atlas.origin(),
            cookies: BTreeMap::new(),
            bodies: Vec::new(),
        }
    }

    pub fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    pub async fn request(&mut self, method: &str, path: &str, body: &str) -> Answer {
        let cookie = self.cookie_header();
        let origin = self.origin.clone();
        let mut headers = vec![("origin", origin.as_str()), ("cookie", cookie.as_str())];
        if !body.is_empty() {
            headers.push(("content-type", "application/json"));
        }
        let answer = ask(self.addr, method, path, &headers, body).await;
        for set in answer.headers.get_all(http::header::SET_COOKIE) {
            let text = set.to_str().expect("a cookie is text");
            let pair = text.split(';').next().unwrap_or_default();
            let (name, value) = pair.split_once('=').expect("name=value");
            if text.contains("Max-Age=0") {
                self.cookies.remove(name);
            } else {
                self.cookies.insert(name.to_string(), value.to_string());
            }
        }
        self.bodies.push(answer.body.clone());
        answer
    }

    pub async fn get(&mut self, path: &str) -> Answer {
        self.request("GET", path, "").await
    }

    /// Clicks "Sign in with …" and goes through the issuer as `user`: the final answer (the
    /// callback's).
    pub async fn sign_in_with(&mut self, issuer: &TestIssuer, user: &str) -> Answer {
        let page = self.get("/kube-atlas/sign-in").await;
        assert_eq!(page.status, 200, "{}", page.body);
        assert!(
            page.body.contains(r#"href="/kube-atlas/oidc/start""#),
            "{}",
            page.body
        );
        let start = self.get("/kube-atlas/oidc/start").await;
        assert_eq!(start.status, 303, "{}", start.body);
        let to_issuer = location(&start);
        assert!(to_issuer.starts_with(&issuer.url()), "{to_issuer}");
        for asked in [
            "code_challenge_method=S256",
            "code_challenge=",
            "nonce=",
            "state=",
        ] {
            assert!(to_issuer.contains(asked), "{asked} in {to_issuer}");
        }
        issuer.sign_in_next_as(user);
        let back = issuer.authorize(&to_issuer);
        let path = back
            .strip_prefix(&self.origin)
            .unwrap_or_else(|| panic!("back to kube-atlas: {back}"));
        self.get(path).await
    }
}

pub fn location(answer: &Answer) -> String {
    answer
        .headers
        .get(http::header::LOCATION)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// How kube-atlas's users reach the cluster.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// kube-apiserver takes the issuer's ID tokens (`--oidc-*`): they are the bearer.
    IdTokens,
    /// It does not: kube-atlas's ServiceAccount `default/kube-atlas` impersonates the users,
    /// allowed for `alice`, `victor` and the groups `admins` and `developers` only.
    Impersonation,
}

/// What kube-atlas's ServiceAccount may do with `--impersonate`: act as these users and
/// groups, and nothing else.
const IMPERSONATOR: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kube-atlas-impersonates
rules:
- apiGroups: [\"\"]
  resources: [users]
  verbs: [impersonate]
  resourceNames: [alice, victor]
- apiGroups: [\"\"]
  resources: [groups]
  verbs: [impersonate]
  resourceNames: [admins, developers]
";

/// A control plane with the controllers (they fill the aggregated `view` ClusterRole):
/// `alice` (group `admins`) is cluster-admin, `victor` has `view` in `default`. Its
/// kube-apiserver takes `authenticator`'s ID tokens when given, else kube-atlas's
/// ServiceAccount may impersonate them.
pub fn start_plane(authenticator: Option<envtest::OidcAuthenticator>) -> TeamPlane {
    let options = envtest::Options {
        controllers: true,
        nodes: 0,
    };
    let plane = match &authenticator {
        Some(authenticator) => envtest::ControlPlane::start_with_oidc(options, authenticator),
        None => envtest::ControlPlane::start(options),
    }
    .unwrap_or_else(|e| panic!("a control plane starts: {e}"));
    let kubectl = |args: &[&str]| super::team::kubectl(&plane, args);
    kubectl(&[
        "create",
        "clusterrolebinding",
        "admins-are-cluster-admins",
        "--clusterrole=cluster-admin",
        "--group=admins",
    ]);
    kubectl(&[
        "create",
        "rolebinding",
        "victor-views",
        "--clusterrole=view",
        "--user=victor",
        "--namespace=default",
    ]);
    let service_account_token = if authenticator.is_some() {
        // kube-atlas only looks whether the token file is there.
        "never-read".to_string()
    } else {
        let role = plane.dir().join("impersonator.yaml");
        std::fs::write(&role, IMPERSONATOR).expect("the role");
        kubectl(&["apply", "-f", &role.display().to_string()]);
        super::team::dashboard_service_account(&plane, "kube-atlas-impersonates")
    };
    let within = Duration::from_secs(60);
    let allowed = |args: &[&str]| super::team::wait_until_allowed(&plane, args, within);
    allowed(&["list", "secrets", "--as=alice", "--as-group=admins"]);
    allowed(&["list", "pods", "--as=victor"]);
    TeamPlane::new(plane, service_account_token)
}

/// The issuer (users `alice` in `admins`, `victor` in `developers`, `mallory` in `admins`),
/// the control plane, and kube-atlas signing users in with the issuer in `mode`.
pub async fn start_all(
    token_lifetime: Duration,
    mode: Mode,
) -> (TestIssuer, TeamPlane, TeamAtlas, tempfile::TempDir) {
    let issuer = TestIssuer::start(
        token_lifetime,
        &[
            ("alice", &["admins"]),
            ("victor", &["developers"]),
            ("mallory", &["admins"]),
        ],
    )
    .await;
    let authenticator = (mode == Mode::IdTokens).then(|| issuer.authenticator());
    let plane = tokio::task::spawn_blocking(move || start_plane(authenticator))
        .await
        .expect("the control plane");
    let scratch = tempfile::tempdir().expect("a folder");
    std::fs::write(
        scratch.path().join("index.html"),
        "<html><head><title>Kube Atlas</title></head><body></body></html>",
    )
    .expect("index.html");
    let secret_file = scratch.path().join("client-secret");
    std::fs::write(&secret_file, format!("{CLIENT_SECRET}\n")).expect("the secret");
    let issuer_url = issuer.url();
    let ca_file = issuer.ca_file.display().to_string();
    let www = scratch.path().display().to_string();
    let secret = secret_file.display().to_string();
    let mut flags = vec![
        "--www",
        &www,
        "--oidc-issuer-url",
        &issuer_url,
        "--oidc-client-id",
        CLIENT_ID,
        "--oidc-client-secret-file",
        &secret,
        "--oidc-ca-file",
        &ca_file,
        "--oidc-scopes",
        "profile,groups,offline_access",
    ];
    if mode == Mode::Impersonation {
        flags.extend([
            "--impersonate",
            "--oidc-username-claim",
            "preferred_username",
            "--oidc-groups-claim",
            "groups",
        ]);
    }
    let atlas = TeamAtlas::start(&plane, &flags);
    (issuer, plane, atlas, scratch)
}

/// No token the issuer gave out is in `texts`.
pub fn assert_no_token_in(issuer: &TestIssuer, texts: &[String], what: &str) {
    let tokens = issuer.issued_tokens();
    assert!(!tokens.is_empty(), "the issuer issued tokens");
    for token in tokens {
        // The signature part is enough to tell an ID token.
        let tail = &token[token.len().saturating_sub(24)..];
        for text in texts {
            assert!(!text.contains(tail), "a token in {what}: {text}");
        }
    }
}

pub fn configmap(name: &str) -> String {
    format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}"}}}}"#)
}
