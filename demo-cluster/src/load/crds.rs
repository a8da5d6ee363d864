//! Load-mode CustomResourceDefinitions: `widget{i}s.load{i}.example.com` (kind `Widget{i}`),
//! each in its own group with printer columns, created through the Registry exactly as a CRD
//! sent to the API is (the registry then serves it in both discovery forms), plus a few
//! objects of each so their lists and Tables have rows.

use serde_json::{json, Value};

use super::rng::Rng;
use crate::registry::{Registry, WriteOptions, CRD_GROUP, CRD_RESOURCE};

pub const GROUP_SUFFIX: &str = ".example.com";
pub const VERSION: &str = "v1";
const WIDGETS_PER_CRD: usize = 3;
/// Writes the widgets' status, as their operator would.
const OPERATOR: &str = "widget-operator";
const COLORS: &[&str] = &["red", "green", "blue", "amber", "violet"];

/// Group, kind and plural of the `i`th load CRD.
pub fn names(i: usize) -> (String, String, String) {
    (
        format!("load{i}{GROUP_SUFFIX}"),
        format!("Widget{i}"),
        format!("widget{i}s"),
    )
}

fn crd(i: usize) -> Value {
    let (group, kind, plural) = names(i);
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {
            "group": group, "scope": "Namespaced",
            "names": {"kind": kind, "listKind": format!("{kind}List"), "plural": plural,
                      "singular": kind.to_lowercase(), "shortNames": [format!("wg{i}")],
                      "categories": ["all", "load"]},
            "versions": [{
                "name": VERSION, "served": true, "storage": true,
                "subresources": {"status": {}},
                "additionalPrinterColumns": [
                    {"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
                    {"name": "Color", "type": "string", "jsonPath": ".spec.color"},
                    {"name": "Phase", "type": "string", "jsonPath": ".status.phase"},
                    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}],
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "description": format!("{kind} is a load-mode custom resource."),
                    "properties": {
                        "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                        "metadata": {"type": "object"},
                        "spec": {"type": "object", "properties": {
                            "size": {"type": "integer", "minimum": 0},
                            "color": {"type": "string"}}},
                        "status": {"type": "object", "properties": {
                            "phase": {"type": "string"}}}}}}
            }]
        }
    })
}

fn writer(manager: &str, subresource: &str) -> WriteOptions {
    WriteOptions {
        field_manager: manager.into(),
        subresource: subresource.into(),
        ..Default::default()
    }
}

/// Creates `count` CRDs and their widgets in `namespace`; returns how many CRDs exist now.
pub fn load_crds(registry: &Registry, count: usize, namespace: &str, rng: &mut Rng) -> usize {
    let Some(crds) = registry.builtin(CRD_GROUP, CRD_RESOURCE) else {
        return 0;
    };
    let mut created = 0;
    for i in 0..count {
        if registry
            .create(&crds, "", crd(i), &writer("kubectl-client-side-apply", ""))
            .is_err()
        {
            continue;
        }
        created += 1;
        create_widgets(registry, i, namespace, rng);
    }
    created
}

fn create_widgets(registry: &Registry, i: usize, namespace: &str, rng: &mut Rng) {
    let (group, kind, plural) = names(i);
    let Some(def) = registry.resolve(&group, VERSION, &plural) else {
        return;
    };
    for n in 0..WIDGETS_PER_CRD {
        let name = format!("widget-{n}");
        let color = COLORS[rng.below(COLORS.len())];
        let widget = json!({
            "apiVersion": format!("{group}/{VERSION}"), "kind": kind,
            "metadata": {"name": name},
            "spec": {"size": rng.between(1, 10), "color": color},
        });
        if registry
            .create(
                &def,
                namespace,
                widget,
                &writer("kubectl-client-side-apply", ""),
            )
            .is_err()
        {
            continue;
        }
        let phase = if n == 0 { "Pending" } else { "Ready" };
        let _ = registry.update_with(&def, namespace, &name, &writer(OPERATOR, "status"), |w| {
            w["status"] = json!({"phase": phase});
            Ok(())
        });
    }
}
