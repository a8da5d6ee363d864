//! Compares every served resource's discovery entry with real kube-apiserver documents
//! (shared fixtures, read in place and skipped when absent).

use std::collections::BTreeSet;
use std::path::PathBuf;

use demo_cluster::http::discovery;
use demo_cluster::{build_registry, Config, Tuning};
use serde_json::Value;

fn fixture(name: &str) -> Option<Value> {
    let path = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/fixtures/discovery"
    ))
    .join(name);
    match std::fs::read(&path) {
        Ok(bytes) => Some(serde_json::from_slice(&bytes).expect("fixture is JSON")),
        Err(_) => {
            eprintln!("notice: fixture {} not found; skipping", path.display());
            None
        }
    }
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
fn legacy_resource_lists_match_kube_apiserver() {
    let registry = build_registry(&Config::default(), &Tuning::default()).unwrap();
    let mut gvs: Vec<(String, String)> = vec![];
    for d in registry.defs() {
        if !gvs.contains(&(d.group.clone(), d.version.clone())) {
            gvs.push((d.group.clone(), d.version.clone()));
        }
    }
    let mut compared = 0;
    for (g, v) in gvs {
        let Some(real) = fixture(&fixture_name(&g, &v)) else {
            return;
        };
        let ours = discovery::resource_list(&registry, &g, &v).unwrap();
        assert_eq!(ours["groupVersion"], real["groupVersion"]);
        for entry in ours["resources"].as_array().unwrap() {
            let name = entry["name"].as_str().unwrap();
            let theirs = real["resources"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["name"] == name)
                .unwrap_or_else(|| panic!("{g}/{v} {name} is not served by kube-apiserver"));
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
    assert!(compared > 30, "compared {compared} entries");
}

#[test]
fn aggregated_discovery_matches_kube_apiserver() {
    let Some(real) = fixture("aggregated_v2.json") else {
        return;
    };
    let registry = build_registry(&Config::default(), &Tuning::default()).unwrap();
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
}

#[test]
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
    let Some(real) = fixture("api__v1.json") else {
        return;
    };
    // Every core subresource we serve exists in the real server.
    for r in items[0]["versions"][0]["resources"].as_array().unwrap() {
        for s in r["subresources"].as_array().into_iter().flatten() {
            let name = format!(
                "{}/{}",
                r["resource"].as_str().unwrap(),
                s["subresource"].as_str().unwrap()
            );
            assert!(
                real["resources"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|x| x["name"] == name.as_str()),
                "{name}"
            );
        }
    }
}
