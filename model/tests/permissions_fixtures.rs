//! The permissions model on what the review APIs really answer: the viewer of
//! `../shared/kubernetes` (group `viewers`, the `view` ClusterRole bound in namespace `default`)
//! as kube-apiserver v1.36 answers for it, its `view` role expanded by the clusterrole
//! aggregation controller, and as the demo cluster answers when run with the same tokens file.
//! Recorded by `cargo run -p demo-cluster --example record_permissions_fixtures`.

use kube_atlas_model::permissions::matrix::{permission_matrix, Cell, VERBS};
use kube_atlas_model::permissions::{
    access_review_answer, Permission, Permissions, Question, RulesReview, Scope, UserInfo,
};
use kube_atlas_model::ApiTree;
use serde_json::Value;

const BACKENDS: [&str; 2] = ["real", "demo"];

fn fixture(backend: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/permissions/{backend}/viewer.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn rules(backend: &str, namespace: &str) -> RulesReview {
    let key = format!("rules_{}", namespace.replace('-', "_"));
    RulesReview::from_answer(&fixture(backend)[key]).expect("a rules review")
}

fn known(backend: &str) -> Permissions {
    let mut permissions = Permissions::default();
    permissions.record_rules("default", rules(backend, "default"));
    permissions.record_rules("kube-system", rules(backend, "kube-system"));
    permissions
}

fn in_default(verb: &str, group: &str, resource: &str) -> Question {
    Question::new(Scope::of(Some("default")), verb, group, resource)
}

#[test]
fn the_viewer_reads_default_and_writes_nothing() {
    for backend in BACKENDS {
        let permissions = known(backend);
        let allowed = |q: Question| permissions.may(&q).is_allowed();
        for verb in ["get", "list", "watch"] {
            assert!(
                allowed(in_default(verb, "", "pods")),
                "{backend}: {verb} pods"
            );
            assert!(
                allowed(in_default(verb, "apps", "deployments")),
                "{backend}"
            );
            assert!(
                allowed(in_default(verb, "events.k8s.io", "events")),
                "{backend}"
            );
        }
        assert!(
            allowed(in_default("get", "", "pods").subresource("log")),
            "{backend}"
        );
        assert!(
            allowed(in_default("get", "apps", "deployments").subresource("scale")),
            "{backend}"
        );
        for (verb, group, resource, subresource) in [
            ("create", "", "pods", ""),
            ("delete", "apps", "deployments", ""),
            ("patch", "apps", "deployments", "scale"),
            ("update", "apps", "deployments", ""),
            ("create", "", "pods", "exec"),
        ] {
            let question = in_default(verb, group, resource).subresource(subresource);
            assert_eq!(
                permissions.may(&question),
                Permission::Denied,
                "{backend}: {question:?}"
            );
        }
        // `view` leaves Secrets out, as the aggregated role says.
        assert!(permissions
            .may(&in_default("get", "", "secrets"))
            .is_denied());
        // Elsewhere only what every authenticated user has: the review APIs themselves.
        let kube_system = Question::new(Scope::of(Some("kube-system")), "list", "", "pods");
        assert!(permissions.may(&kube_system).is_denied(), "{backend}");
        let review = Question::new(
            Scope::of(Some("kube-system")),
            "create",
            "authorization.k8s.io",
            "selfsubjectrulesreviews",
        );
        assert!(permissions.may(&review).is_allowed(), "{backend}");
    }
}

#[test]
fn discovery_urls_are_the_viewers_non_resource_rules() {
    for backend in BACKENDS {
        let rules = rules(backend, "default");
        let may_get = |path: &str| {
            rules
                .non_resource_rules
                .iter()
                .any(|r| r.allows_non_resource("get", path))
        };
        assert!(may_get("/apis/apps/v1"), "{backend}");
        assert!(may_get("/version"), "{backend}");
        assert!(!may_get("/metrics"), "{backend}");
    }
}

#[test]
fn access_reviews_and_whoami_read_the_same_on_both() {
    for backend in BACKENDS {
        let answers = fixture(backend);
        assert!(
            access_review_answer(&answers["list_pods_in_default"])
                .expect("an answer")
                .is_allowed(),
            "{backend}"
        );
        assert_eq!(
            access_review_answer(&answers["list_pods_everywhere"]).expect("an answer"),
            Permission::Denied,
            "{backend}"
        );
        let user = UserInfo::from_answer(&answers["whoami"]).expect("whoami");
        assert_eq!(user.username, "viewer", "{backend}");
        assert!(user.groups.contains(&"viewers".to_string()), "{backend}");
        assert!(user.groups.contains(&"system:authenticated".to_string()));
    }
}

/// The can-i table of one backend for a tree of the kinds both serve.
fn matrix(backend: &str, tree: &ApiTree) -> Vec<(String, Vec<Cell>)> {
    permission_matrix(tree, &rules(backend, "default"))
        .into_iter()
        .map(|row| (format!("{}/{}", row.group, row.resource), row.cells))
        .collect()
}

#[test]
#[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
fn both_backends_draw_the_same_table() {
    let tree = discovery_tree();
    let real = matrix("real", &tree);
    assert_eq!(real, matrix("demo", &tree));
    // The fixture is kube-apiserver's `/apis` (the named groups).
    let deployments = real
        .iter()
        .find(|(name, _)| name == "apps/deployments")
        .map(|(_, cells)| cells.clone())
        .expect("a deployments row");
    assert_eq!(VERBS[..4], ["get", "list", "watch", "create"]);
    assert_eq!(
        deployments[..4],
        [Cell::Allowed, Cell::Allowed, Cell::Allowed, Cell::Denied]
    );
    let scale = real
        .iter()
        .find(|(name, _)| name == "apps/deployments/scale")
        .map(|(_, cells)| cells.clone())
        .expect("a deployments/scale row");
    assert_eq!(scale[0], Cell::Allowed);
    assert_eq!(scale[5], Cell::Denied, "patch deployments/scale");
}

/// The API tree of kube-apiserver's aggregated discovery, from `../shared`'s fixtures.
fn discovery_tree() -> ApiTree {
    use kube_atlas_model::api::discovery::{parse_aggregated, tree_from_aggregated};
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/fixtures/discovery/aggregated_v2.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let list = parse_aggregated(&text).expect("aggregated discovery");
    tree_from_aggregated(None, list).tree
}
