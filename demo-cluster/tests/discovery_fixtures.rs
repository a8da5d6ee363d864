//! Compares every served resource's discovery entry with real kube-apiserver documents
//! (shared fixtures, read in place). The build script marks these tests ignored when the
//! fixtures are absent, and never under CI, where they must be present.

use std::collections::BTreeSet;
use std::path::PathBuf;

use demo_cluster::http::discovery;
use demo_cluster::{build_registry, Config, Tuning};
use serde_json::Value;

/// Subresources kube-apiserver v1.36 serves that these (older) fixtures lack; checked against
/// a live v1.36 server by `tests/differential.rs`.
const NEWER_THAN_FIXTURES: &[&str] = &["pods/ephemeralcontainers", "pods/resize"];

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/fixtures/discovery"
    ))
    .join(name)
}

/// A fixture document, or an error naming the missing file.
fn fixture(name: &str) -> Result<Value, String> {
    let path = fixture_path(name);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

fn set(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn fixture_name(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api__{version}.json")
    } else {
        format!("apis__{group}__{version}.json")
    }
}

#[test]
#[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
fn legacy_resource_lists_match_kube_apiserver() {
    let registry = build_registry(&Config::default(), &Tuning::default()).unwrap();
    let mut gvs: Vec<(String, String)> = vec![];
    for d in registry.defs() {
        if !gvs.contains(&(d.group.clone(), d.version.clone())) {
            gvs.push((d.group.clone(), d.version.clone()));
        }
    }
    // Group-versions kube-apiserver serves itself; any other we serve is a CRD's (the At).
    let apis = fixture("apis.json").expect("the legacy group list");
    let built_in: BTreeSet<String> = apis["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["versions"].as_array().into_iter().flatten())
        .filter_map(|v| v["groupVersion"].as_str().map(String::from))
        .chain(["v1".to_string()])
        .collect();
    let aggregated = fixture("aggregated_v2.json").expect("the aggregated fixture");
    let in_aggregated = |g: &str, v: &str| {
        aggregated["items"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|group| {
                group["metadata"]["name"] == g
                    && group["versions"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|version| version["version"] == v)
            })
    };
    // The legacy documents are older snapshots than the aggregated one (SOURCES.md): a
    // resource the aggregated document lists at this version (and the aggregated comparison
    // checks field by field) may be missing from them.
    let resource_in_aggregated = |g: &str, v: &str, resource: &str| {
        aggregated["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|group| group["metadata"]["name"] == g)
            .flat_map(|group| group["versions"].as_array().into_iter().flatten())
            .filter(|version| version["version"] == v)
            .flat_map(|version| version["resources"].as_array().into_iter().flatten())
            .any(|r| {
                let name = r["resource"].as_str().unwrap_or_default();
                resource == name
                    || r["subresources"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|sub| {
                            sub["subresource"]
                                .as_str()
                                .is_some_and(|sub| resource == format!("{name}/{sub}"))
                        })
            })
    };
    let mut compared = 0;
    let mut custom = vec![];
    let mut uncovered = vec![];
    for (g, v) in gvs {
        let gv = if g.is_empty() {
            v.clone()
        } else {
            format!("{g}/{v}")
        };
        if !built_in.contains(&gv) {
            custom.push(gv);
            continue;
        }
        let real = match fixture(&fixture_name(&g, &v)) {
            Ok(real) => real,
            Err(error) => {
                // Some legacy documents were never saved; those group-versions must then be
                // checked by the aggregated comparison. Keep going either way, so one absent
                // file hides nothing of the rest.
                if !in_aggregated(&g, &v) {
                    uncovered.push(error);
                }
                continue;
            }
        };
        let ours = discovery::resource_list(&registry, &g, &v).unwrap();
        assert_eq!(ours["groupVersion"], real["groupVersion"]);
        for entry in ours["resources"].as_array().unwrap() {
            let name = entry["name"].as_str().unwrap();
            let Some(theirs) = real["resources"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["name"] == name)
            else {
                assert!(
                    NEWER_THAN_FIXTURES.contains(&name) || resource_in_aggregated(&g, &v, name),
                    "{g}/{v} {name} is not served by kube-apiserver"
                );
                continue;
            };
            for field in ["singularName", "namespaced", "kind", "group", "version"] {
                let norm = |x: &Value| {
                    if x.is_null() {
                        Value::String(String::new())
                    } else {
                        x.clone()
                    }
                };
                assert_eq!(
                    norm(&entry[field]),
                    norm(&theirs[field]),
                    "{g}/{v} {name} {field}"
                );
            }
            for field in ["verbs", "shortNames", "categories"] {
                assert_eq!(
                    set(&entry[field]),
                    set(&theirs[field]),
                    "{g}/{v} {name} {field}"
                );
            }
            compared += 1;
        }
    }
    assert!(
        uncovered.is_empty(),
        "built-in group-versions compared with no real document: {uncovered:#?}"
    );
    assert!(custom.len() <= 1, "only the At CRD is custom: {custom:?}");
    assert!(compared > 30, "compared {compared} entries");
}

#[test]
#[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
fn aggregated_discovery_matches_kube_apiserver() {
    let real = fixture("aggregated_v2.json").expect("the aggregated fixture");
    let mut compared_resources = 0;
    let mut compared_subresources = 0;
    // The fixture is kube-apiserver's without metrics-server: the demo's metrics API is held
    // to the stand-in metrics-server by `metrics_differential.rs`.
    let config = Config {
        metrics: false,
        ..Config::default()
    };
    let registry = build_registry(&config, &Tuning::default()).unwrap();
    let ours = discovery::aggregated(&registry, false, "v2");
    assert_eq!(ours["kind"], "APIGroupDiscoveryList");
    assert_eq!(ours["apiVersion"], "apidiscovery.k8s.io/v2");
    for group in ours["items"].as_array().unwrap() {
        let gname = group["metadata"]["name"].as_str().unwrap();
        let real_group = real["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["metadata"]["name"] == gname)
            .unwrap_or_else(|| panic!("group {gname}"));
        for version in group["versions"].as_array().unwrap() {
            let vname = version["version"].as_str().unwrap();
            assert_eq!(version["freshness"], "Current");
            let real_version = real_group["versions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|v| v["version"] == vname)
                .unwrap();
            for r in version["resources"].as_array().unwrap() {
                let rname = r["resource"].as_str().unwrap();
                let theirs = real_version["resources"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|x| x["resource"] == rname)
                    .unwrap_or_else(|| panic!("{gname} {rname}"));
                compared_resources += 1;
                for field in ["singularResource", "scope", "responseKind"] {
                    assert_eq!(r[field], theirs[field], "{gname}/{vname} {rname} {field}");
                }
                for field in ["verbs", "shortNames", "categories"] {
                    assert_eq!(
                        set(&r[field]),
                        set(&theirs[field]),
                        "{gname}/{vname} {rname} {field}"
                    );
                }
                for sub in r["subresources"].as_array().into_iter().flatten() {
                    compared_subresources += 1;
                    let sname = sub["subresource"].as_str().unwrap();
                    let real_sub = theirs["subresources"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .find(|s| s["subresource"] == sname)
                        .unwrap_or_else(|| panic!("{rname}/{sname} not real"));
                    assert_eq!(
                        sub["responseKind"], real_sub["responseKind"],
                        "{rname}/{sname}"
                    );
                    assert_eq!(
                        set(&sub["verbs"]),
                        set(&real_sub["verbs"]),
                        "{rname}/{sname}"
                    );
                }
            }
        }
    }
    assert!(
        compared_resources >= 10 && compared_subresources >= 5,
        "compared {compared_resources} resources, {compared_subresources} subresources"
    );
}

#[test]
#[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
fn core_aggregated_document_has_one_unnamed_group() {
    let registry = build_registry(&Config::default(), &Tuning::default()).unwrap();
    let core = discovery::aggregated(&registry, true, "v2");
    let items = core["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["metadata"]["name"], "");
    let pods = items[0]["versions"][0]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["resource"] == "pods")
        .unwrap();
    assert_eq!(pods["responseKind"]["kind"], "Pod");
    let real = fixture("api__v1.json").expect("the core fixture");
    // Every core subresource we serve exists in the real server.
    let mut checked = 0;
    for r in items[0]["versions"][0]["resources"].as_array().unwrap() {
        for s in r["subresources"].as_array().into_iter().flatten() {
            let name = format!(
                "{}/{}",
                r["resource"].as_str().unwrap(),
                s["subresource"].as_str().unwrap()
            );
            assert!(
                NEWER_THAN_FIXTURES.contains(&name.as_str())
                    || real["resources"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|x| x["name"] == name.as_str()),
                "{name}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 5, "checked {checked} core subresources");
}

#[test]
#[cfg_attr(not(have_fixtures), ignore = "../shared/fixtures not found")]
fn groups_list_versions_and_prefer_as_kube_apiserver() {
    let registry = build_registry(&Config::default(), &Tuning::default()).unwrap();
    let real = fixture("apis.json").expect("the group list");
    let ours = discovery::api_group_list(&registry);
    let versions = |group: &Value| -> Vec<String> {
        group["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v["version"].as_str().map(String::from))
            .collect()
    };
    let mut compared = 0;
    let mut last_position = 0;
    for group in ours["groups"].as_array().unwrap() {
        let name = group["name"].as_str().unwrap();
        let Some((position, theirs)) = real["groups"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .find(|(_, g)| g["name"] == name)
        else {
            continue; // A custom resource's group (the At).
        };
        assert_eq!(
            group["preferredVersion"], theirs["preferredVersion"],
            "{name}"
        );
        // Every version we serve is real, in kube-apiserver's order of preference.
        let real_versions = versions(theirs);
        let served: Vec<String> = real_versions
            .iter()
            .filter(|v| versions(group).contains(v))
            .cloned()
            .collect();
        assert_eq!(versions(group), served, "{name}");
        // kubectl resolves short names in discovery order: keep the real order of groups.
        assert!(
            position >= last_position,
            "{name} is out of kube-apiserver's order"
        );
        last_position = position;
        compared += 1;
    }
    assert!(compared >= 15, "compared {compared} groups");
}
