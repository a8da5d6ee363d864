//! Discovery model against real kube-apiserver documents in ../shared/fixtures/discovery.
//!
//! The legacy files are not one snapshot (see ../shared/fixtures/SOURCES.md), so the
//! legacy-vs-aggregated comparison removes exactly the differences documented there and
//! nothing else.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "support/synthetic_crds.rs"]
mod synthetic_crds;

use synthetic_crds::{synthetic_crd_groups, synthetic_crd_list, with_synthetic_crds};

use kube_atlas_model::{
    api::discovery::parse_aggregated,
    api::discovery::parse_api_versions,
    api::discovery::parse_group_list,
    api::discovery::tree_from_aggregated,
    api::discovery::LegacyWalkPlan,
    api::discovery::{group_version_path, parse_group},
    api::endpoints::kind_to_resource,
    api::endpoints::resolve_user_input,
    api::endpoints::Endpoint,
    api::endpoints::NameArg,
    api::endpoints::NamespaceArg,
    api::endpoints::Operation,
    api::endpoints::DEFAULT_PROXY_BASE,
    api::tree::Discovery,
    api::tree::GroupVersionRef,
    navigation::resource_search::filter_tree,
    navigation::resource_search::palette_matches,
    navigation::resource_search::MatchRank,
    ApiTree, ResourceId,
};

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/fixtures/discovery"
);

/// The fixtures folder. Tests that call this are `#[ignore]`d by the build script when the
/// folder is absent (and never under CI), so reaching here without it is a failure.
fn fixtures() -> PathBuf {
    let dir = PathBuf::from(DIR);
    assert!(
        dir.join("aggregated_v2.json").is_file(),
        "the shared discovery fixtures are missing at {DIR}"
    );
    dir
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("reading {name}: {e}"))
}

/// Fixture file name for a legacy path (`/apis/apps/v1` -> `apis__apps__v1.json`).
fn file_for(path: &str) -> String {
    format!("{}.json", path.trim_start_matches('/').replace('/', "__"))
}

fn aggregated(dir: &Path) -> Discovery {
    let list = parse_aggregated(&read(dir, "aggregated_v2.json")).expect("aggregated_v2.json");
    tree_from_aggregated(None, list)
}

/// Runs the legacy walk over the fixture files; absent files are recorded as 404s.
fn legacy(dir: &Path) -> (Discovery, BTreeSet<GroupVersionRef>) {
    let api = parse_api_versions(&read(dir, "api.json")).expect("api.json");
    let apis = parse_group_list(&read(dir, "apis.json")).expect("apis.json");
    let plan = LegacyWalkPlan::new(Some(&api), &apis);
    let mut builder = plan.builder();
    let mut missing = BTreeSet::new();
    for req in &plan.requests {
        match std::fs::read_to_string(dir.join(file_for(&req.url))) {
            Ok(body) => builder.add_body(&req.group, &req.version, &body),
            Err(_) => {
                missing.insert(GroupVersionRef::new(req.group.clone(), req.version.clone()));
                builder.add_failure(&req.group, &req.version, "404 Not Found");
            }
        }
    }
    (builder.finish(), missing)
}

/// Full tree a real client would see: core from `/api/v1` plus aggregated `/apis`.
fn combined(dir: &Path) -> ApiTree {
    let (legacy, _) = legacy(dir);
    let mut tree = aggregated(dir).tree;
    let core = legacy.tree.core().expect("core group").clone();
    tree.merge_group(core);
    tree
}

#[test]
#[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
fn aggregated_counts_match_sources_notes() {
    let dir = fixtures();
    let d = aggregated(&dir);
    assert!(d.errors.is_empty(), "{:?}", d.errors);
    let c = d.tree.counts();
    assert_eq!(c.groups, 23);
    assert_eq!(c.group_versions, 35);
    assert_eq!(c.resources, 83);
    assert_eq!(c.subresources, 40);
    let pairs: BTreeSet<(String, String)> = d
        .tree
        .resources()
        .map(|r| (r.group.name.clone(), r.resource.plural.clone()))
        .collect();
    assert_eq!(pairs.len(), 62);
    // No core group in the /apis document.
    assert!(d.tree.core().is_none());
}

#[test]
#[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
fn legacy_walk_matches_aggregated_within_documented_differences() {
    let dir = fixtures();
    let agg = aggregated(&dir).tree;
    let (leg, missing) = legacy(&dir);

    // The walk requests every group-version of apis.json (same list as aggregated) plus /api/v1.
    let agg_gvs: BTreeSet<GroupVersionRef> = agg
        .groups
        .iter()
        .flat_map(|g| {
            g.versions
                .iter()
                .map(|v| GroupVersionRef::new(g.name.clone(), v.version.clone()))
        })
        .collect();
    let api = parse_api_versions(&read(&dir, "api.json")).unwrap();
    let apis = parse_group_list(&read(&dir, "apis.json")).unwrap();
    let plan = LegacyWalkPlan::new(Some(&api), &apis);
    let planned: BTreeSet<GroupVersionRef> = plan
        .requests
        .iter()
        .filter(|r| !r.group.is_empty())
        .map(|r| GroupVersionRef::new(r.group.clone(), r.version.clone()))
        .collect();
    assert_eq!(planned, agg_gvs);
    assert_eq!(plan.requests[0].url, "/api/v1");
    assert_eq!(plan.requests.len(), 36);

    // Missing files are partial failures, not fatal: exactly those GVs fail.
    assert_eq!(
        leg.errors
            .failed_group_versions()
            .into_iter()
            .collect::<BTreeSet<_>>(),
        missing
    );
    assert_eq!(missing.len(), 14, "{missing:?}");
    assert!(leg
        .errors
        .entries
        .iter()
        .all(|e| e.message == "404 Not Found"));

    // Restrict the aggregated tree to what the legacy walk could load.
    let mut expected = agg.clone();
    let expected_groups = std::sync::Arc::make_mut(&mut expected.groups);
    for g in expected_groups.iter_mut() {
        let name = g.name.clone();
        g.versions
            .retain(|v| !missing.contains(&GroupVersionRef::new(name.clone(), v.version.clone())));
    }
    expected_groups.retain(|g| !g.versions.is_empty());

    // Documented DIFFERS entries, each of which must really be present in aggregated form.
    let mut remove_resource = |group: &str, plural: &str| {
        let v = expected_groups
            .iter_mut()
            .find(|g| g.name == group)
            .and_then(|g| g.versions.iter_mut().find(|v| v.version == "v1"))
            .unwrap_or_else(|| panic!("{group}/v1"));
        let before = v.resources.len();
        v.resources.retain(|r| r.plural != plural);
        assert_eq!(
            before,
            v.resources.len() + 1,
            "{group} {plural} documented but absent"
        );
    };
    // storage: the legacy file lacks csinodes/status.
    // certificates: legacy has podcertificaterequests but no clustertrustbundles.
    remove_resource("certificates.k8s.io", "clustertrustbundles");
    // resource.k8s.io v1: legacy has no devicetaintrules.
    remove_resource("resource.k8s.io", "devicetaintrules");
    let csinodes = expected_groups
        .iter_mut()
        .find(|g| g.name == "storage.k8s.io")
        .and_then(|g| g.versions.iter_mut().find(|v| v.version == "v1"))
        .and_then(|v| v.resources.iter_mut().find(|r| r.plural == "csinodes"))
        .expect("storage csinodes");
    assert!(csinodes.subresource("status").is_some());
    csinodes.subresources.retain(|s| s.name != "status");

    // Core is only in the legacy walk (aggregated_v2.json covers /apis only).
    let mut got = leg.tree.clone();
    assert!(got.remove_group("").is_some());

    // Compare group by group first for a readable failure, then the whole tree.
    assert_eq!(
        got.groups.iter().map(|g| &g.name).collect::<Vec<_>>(),
        expected.groups.iter().map(|g| &g.name).collect::<Vec<_>>()
    );
    for (a, b) in got.groups.iter().zip(expected.groups.iter()) {
        assert_eq!(a, b, "group {}", a.name);
    }
    assert_eq!(got, expected);
}

#[test]
#[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
fn group_documents_differ_only_as_documented() {
    let dir = fixtures();
    let agg = aggregated(&dir).tree;
    // Versions each apis__{group}.json adds (+) or lacks (-) relative to aggregated_v2.json.
    let documented: BTreeMap<&str, (&[&str], &[&str])> = BTreeMap::from([
        ("coordination.k8s.io", (&["v1alpha1"][..], &[][..])),
        ("storage.k8s.io", (&["v1alpha1"][..], &[][..])),
        ("flowcontrol.apiserver.k8s.io", (&["v1beta3"][..], &[][..])),
        ("scheduling.k8s.io", (&[][..], &["v1beta1", "v1alpha3"][..])),
    ]);
    let mut checked = 0;
    for g in agg.groups.iter() {
        let Ok(body) = std::fs::read_to_string(dir.join(format!("apis__{}.json", g.name))) else {
            continue;
        };
        let doc = parse_group(&body).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(doc.name, g.name);
        let file: BTreeSet<&str> = doc.versions.iter().map(|v| v.version.as_str()).collect();
        let tree: BTreeSet<&str> = g.versions.iter().map(|v| v.version.as_str()).collect();
        let extra: Vec<&str> = file.difference(&tree).copied().collect();
        let lacking: Vec<&str> = tree.difference(&file).copied().collect();
        let (want_extra, want_lacking) = documented
            .get(g.name.as_str())
            .copied()
            .unwrap_or((&[], &[]));
        assert_eq!(
            extra.iter().copied().collect::<BTreeSet<_>>(),
            want_extra.iter().copied().collect(),
            "{} extra",
            g.name
        );
        assert_eq!(
            lacking.iter().copied().collect::<BTreeSet<_>>(),
            want_lacking.iter().copied().collect(),
            "{} lacking",
            g.name
        );
        let preferred = doc.preferred_version.as_ref().map(|p| p.version.as_str());
        assert_eq!(
            preferred,
            g.preferred_version.as_deref(),
            "{} preferred",
            g.name
        );
        checked += 1;
    }
    // Every group with a file except resource.k8s.io and the three newest groups.
    assert_eq!(checked, 19);
}

#[test]
#[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
fn subresources_attached_with_cross_group_kinds() {
    let dir = fixtures();
    let (leg, _) = legacy(&dir);
    for tree in [&aggregated(&dir).tree, &leg.tree] {
        let deploy = tree
            .find(&ResourceId::new("apps", "v1", "deployments"))
            .expect("deployments");
        let names: Vec<&str> = deploy
            .resource
            .subresources
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(names, ["scale", "status"]);
        let scale = deploy.resource.subresource("scale").unwrap();
        assert_eq!(scale.kind, "Scale");
        assert_eq!(
            scale.kind_group_version,
            Some(GroupVersionRef::new("autoscaling", "v1"))
        );
        assert_eq!(scale.verbs, ["get", "patch", "update"]);
        let status = deploy.resource.subresource("status").unwrap();
        assert_eq!(
            (status.kind.as_str(), status.kind_group_version.as_ref()),
            ("Deployment", None)
        );
        assert_eq!(deploy.resource.short_names, ["deploy"]);
        assert_eq!(deploy.resource.categories, ["all"]);
        assert!(deploy.resource.namespaced);
        // No subresource leaks into the top-level resource list.
        assert!(tree.resources().all(|r| !r.resource.plural.contains('/')));
    }
}

#[test]
#[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
fn preferred_versions_and_version_order() {
    let dir = fixtures();
    let tree = aggregated(&dir).tree;
    let versions = |g: &str| -> Vec<String> {
        tree.group(g)
            .unwrap()
            .versions
            .iter()
            .map(|v| v.version.clone())
            .collect()
    };
    assert_eq!(
        versions("resource.k8s.io"),
        ["v1", "v1beta2", "v1beta1", "v1alpha3"]
    );
    assert_eq!(
        versions("admissionregistration.k8s.io"),
        ["v1", "v1beta1", "v1alpha1"]
    );
    assert_eq!(versions("autoscaling"), ["v2", "v1"]);
    assert_eq!(
        tree.group("autoscaling")
            .unwrap()
            .preferred_version
            .as_deref(),
        Some("v2")
    );
    assert_eq!(
        tree.group("internal.apiserver.k8s.io")
            .unwrap()
            .preferred_version
            .as_deref(),
        Some("v1alpha1")
    );
    for g in tree.groups.iter() {
        let preferred: Vec<&str> = g
            .versions
            .iter()
            .filter(|v| v.preferred)
            .map(|v| v.version.as_str())
            .collect();
        assert_eq!(
            preferred,
            [g.preferred_version.as_deref().unwrap()],
            "{}",
            g.name
        );
        assert!(g.versions.iter().all(|v| !v.freshness_stale));
    }
    // Discovery order of groups is kept.
    assert_eq!(tree.groups[0].name, "apiregistration.k8s.io");
    assert_eq!(tree.groups[22].name, "lifecycle.k8s.io");
}

#[test]
#[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
fn core_group_from_api_v1() {
    let dir = fixtures();
    let (leg, _) = legacy(&dir);
    let core = leg.tree.core().expect("core");
    assert_eq!(leg.tree.groups[0].name, "", "core first");
    assert_eq!(core.display_name(), "core");
    assert_eq!(core.preferred_version.as_deref(), Some("v1"));
    let pods = leg
        .tree
        .find(&ResourceId::parse("core/v1/pods").unwrap())
        .expect("pods");
    assert_eq!(pods.resource.short_names, ["po"]);
    let subs: Vec<&str> = pods
        .resource
        .subresources
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(
        subs,
        [
            "attach",
            "binding",
            "checkpoint",
            "ephemeralcontainers",
            "eviction",
            "exec",
            "log",
            "portforward",
            "proxy",
            "status"
        ]
    );
    let sub = |name: &str| pods.resource.subresource(name).unwrap();
    assert_eq!(sub("eviction").kind, "Eviction");
    assert_eq!(
        sub("eviction").kind_group_version,
        Some(GroupVersionRef::new("policy", "v1"))
    );
    assert_eq!(sub("binding").kind, "Binding");
    assert_eq!(sub("binding").verbs, ["create"]);
    assert_eq!(
        (sub("log").kind.as_str(), sub("log").verbs.as_slice()),
        ("Pod", &["get".to_string()][..])
    );
    assert_eq!(sub("exec").kind, "PodExecOptions");
    let token = leg
        .tree
        .find(&ResourceId::new("", "v1", "serviceaccounts"))
        .unwrap();
    assert_eq!(
        token
            .resource
            .subresource("token")
            .unwrap()
            .kind_group_version,
        Some(GroupVersionRef::new("authentication.k8s.io", "v1"))
    );
    let ns = leg
        .tree
        .find(&ResourceId::new("", "v1", "namespaces"))
        .unwrap();
    assert!(!ns.resource.namespaced);
    assert!(ns.resource.subresource("finalize").is_some());
    // bindings is also a top-level resource, distinct from pods/binding.
    assert!(leg
        .tree
        .find(&ResourceId::new("", "v1", "bindings"))
        .is_some());
}

#[test]
#[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
fn mapping_and_commands_on_real_tree() {
    let dir = fixtures();
    let tree = combined(&dir);
    assert_eq!(tree.groups[0].name, "");
    let key = |input: &str| {
        resolve_user_input(&tree, input)
            .map(|r| r.id().key())
            .unwrap_or_else(|e| e.to_string())
    };
    assert_eq!(key("po"), "core/v1/pods");
    assert_eq!(key("deploy"), "apps/v1/deployments");
    assert_eq!(
        key("crd"),
        "apiextensions.k8s.io/v1/customresourcedefinitions"
    );
    assert_eq!(key("deployments.apps"), "apps/v1/deployments");
    assert_eq!(key("deployment.v1.apps"), "apps/v1/deployments");
    assert_eq!(key("hpa"), "autoscaling/v2/horizontalpodautoscalers");
    assert_eq!(
        key("horizontalpodautoscalers.v1.autoscaling"),
        "autoscaling/v1/horizontalpodautoscalers"
    );
    assert_eq!(key("ev"), "core/v1/events");
    assert_eq!(key("events.events.k8s.io"), "events.k8s.io/v1/events");
    assert_eq!(key("ing"), "networking.k8s.io/v1/ingresses");
    assert_eq!(
        key("ingresses.networking.k8s.io"),
        "networking.k8s.io/v1/ingresses"
    );
    assert_eq!(key("cronjob"), "batch/v1/cronjobs");
    assert_eq!(key("svc"), "core/v1/services");
    // Only in a non-preferred version: still found.
    assert_eq!(
        key("resourcepoolstatusrequests"),
        "resource.k8s.io/v1alpha3/resourcepoolstatusrequests"
    );

    let r = kind_to_resource(&tree, "policy", "v1", "PodDisruptionBudget").unwrap();
    assert_eq!(r.resource.plural, "poddisruptionbudgets");

    let deploy = resolve_user_input(&tree, "deploy").unwrap();
    let list = Endpoint {
        op: Operation::List,
        method: Operation::List.method(),
        path: deploy.collection_path(NamespaceArg::Named("default")),
        subresource: None,
    };
    assert_eq!(
        list.curl(DEFAULT_PROXY_BASE),
        "curl -s http://127.0.0.1:8001/apis/apps/v1/namespaces/default/deployments"
    );
    assert_eq!(
        deploy.kubectl_command(
            Operation::List,
            NamespaceArg::Named("default"),
            NameArg::Placeholder
        ),
        "kubectl get deployments.apps -n default"
    );
    assert_eq!(
        deploy
            .endpoints(NamespaceArg::Placeholder, NameArg::Placeholder)
            .len(),
        8
    );
    let scale: Vec<String> = deploy
        .subresource_endpoints(NamespaceArg::Named("default"), NameArg::Named("web"))
        .iter()
        .filter(|e| e.subresource.as_deref() == Some("scale"))
        .map(|e| format!("{} {}", e.method, e.path))
        .collect();
    assert_eq!(
        scale,
        [
            "GET /apis/apps/v1/namespaces/default/deployments/web/scale",
            "PUT /apis/apps/v1/namespaces/default/deployments/web/scale",
            "PATCH /apis/apps/v1/namespaces/default/deployments/web/scale",
        ]
    );
    assert_eq!(group_version_path("", "v1"), "/api/v1");
}

#[test]
#[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
fn filter_and_palette_on_real_tree() {
    let dir = fixtures();
    let tree = combined(&dir);
    let top = palette_matches(&tree, ":deploy");
    assert_eq!(top[0].id.key(), "apps/v1/deployments");
    assert_eq!(top[0].rank, MatchRank::Exact);
    let po = palette_matches(&tree, ":po");
    assert_eq!(po[0].id.key(), "core/v1/pods");
    assert!(po.windows(2).all(|w| w[0].rank <= w[1].rank));
    let f = filter_tree(&tree, "storage");
    let names: Vec<&str> = f
        .groups
        .iter()
        .map(|g| tree.groups[g.group].name.as_str())
        .collect();
    assert!(names.contains(&"storage.k8s.io") && names.contains(&"storagemigration.k8s.io"));
    let f = filter_tree(&tree, "all");
    let all = f.apply(&tree);
    assert!(all
        .find(&ResourceId::new("apps", "v1", "deployments"))
        .is_some());
    assert!(all.find(&ResourceId::new("", "v1", "pods")).is_some());
}

#[test]
#[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
fn fixture_plus_synthetic_crds() {
    let dir = fixtures();
    let body = with_synthetic_crds(&read(&dir, "aggregated_v2.json"), 300).unwrap();
    let d = tree_from_aggregated(None, parse_aggregated(&body).unwrap());
    assert!(d.errors.is_empty());
    assert_eq!(d.tree.groups.len(), 323);
    assert_eq!(d.tree.counts().resources, 83 + 1200);
    let wg = resolve_user_input(&d.tree, "wg299").unwrap();
    assert_eq!(
        wg.id().key(),
        "group299.synthetic.example.com/v1/widget299s"
    );
}

#[test]
fn synthetic_groups_parse_into_a_tree() {
    let body = synthetic_crd_groups(300);
    let list = parse_aggregated(&body).unwrap();
    let d = tree_from_aggregated(None, list);
    assert!(d.errors.is_empty());
    let c = d.tree.counts();
    assert_eq!(
        (c.groups, c.group_versions, c.resources, c.subresources),
        (300, 600, 1200, 1200)
    );
    let g = &d.tree.groups[7];
    assert_eq!(g.name, "group7.synthetic.example.com");
    assert_eq!(g.preferred_version.as_deref(), Some("v1"));
    let w = &g.versions[0].resources[0];
    assert_eq!(
        (w.kind.as_str(), w.short_names[0].as_str()),
        ("Widget7", "wg7")
    );
    assert_eq!(synthetic_crd_list(0).items.len(), 0);
    let merged = with_synthetic_crds(&synthetic_crd_groups(2), 3).unwrap();
    assert_eq!(parse_aggregated(&merged).unwrap().items.len(), 5);
}
