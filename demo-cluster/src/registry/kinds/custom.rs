//! Custom resources, whatever their plural: their definitions, one per served version of a
//! stored CustomResourceDefinition, and their strategy: any path-segment name, status per
//! the CRD's subresources (see `Strategy::status`), printer columns from the CRD
//! (`http::table`).

use serde_json::Value;

use super::builder::{strings, ResourceDefBuilder, STATUS_VERBS};
use super::{version_priority, PrinterColumn, ResourceDef, ScalePaths, SubresourceDef};
use crate::registry::strategy::{NameRule, Strategy};

pub struct CustomResources;

impl Strategy for CustomResources {
    fn name_rule(&self) -> NameRule {
        NameRule::PathSegment
    }
}

/// Resource definitions for every served version of a stored CRD.
pub fn defs_from_crd(crd: &Value) -> Vec<ResourceDef> {
    let spec = &crd["spec"];
    let names = &spec["names"];
    let (Some(group), Some(plural), Some(kind)) = (
        spec["group"].as_str(),
        names["plural"].as_str(),
        names["kind"].as_str(),
    ) else {
        return vec![];
    };
    if crd["metadata"]["deletionTimestamp"].is_string() {
        return vec![];
    }
    let str_list = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut out = vec![];
    for version in spec["versions"].as_array().into_iter().flatten() {
        if version["served"].as_bool() != Some(true) {
            continue;
        }
        let Some(vname) = version["name"].as_str() else {
            continue;
        };
        let mut def = ResourceDefBuilder::new(
            group,
            plural,
            names["singular"].as_str().unwrap_or(&kind.to_lowercase()),
            kind,
            spec["scope"].as_str() != Some("Cluster"),
        )
        .build();
        def.version = vname.into();
        def.list_kind = names["listKind"]
            .as_str()
            .map(String::from)
            .unwrap_or(format!("{kind}List"));
        def.short_names = str_list(&names["shortNames"]);
        def.categories = str_list(&names["categories"]);
        def.builtin = false;
        def.tracks_generation = true;
        def.storage_version = spec["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|v| v["storage"].as_bool() == Some(true))
            .and_then(|v| v["name"].as_str())
            .map(String::from);
        let subs = &version["subresources"];
        if subs["status"].is_object() {
            def.subresources.push(SubresourceDef {
                name: "status".into(),
                group: None,
                version: None,
                kind: kind.into(),
                verbs: strings(STATUS_VERBS),
            });
        }
        if let Some(scale) = subs["scale"].as_object() {
            def.subresources.push(SubresourceDef {
                name: "scale".into(),
                group: Some("autoscaling".into()),
                version: Some("v1".into()),
                kind: "Scale".into(),
                verbs: strings(STATUS_VERBS),
            });
            def.scale = Some(ScalePaths {
                spec_replicas: scale
                    .get("specReplicasPath")
                    .and_then(Value::as_str)
                    .unwrap_or(".spec.replicas")
                    .into(),
                status_replicas: scale
                    .get("statusReplicasPath")
                    .and_then(Value::as_str)
                    .unwrap_or(".status.replicas")
                    .into(),
                label_selector: scale
                    .get("labelSelectorPath")
                    .and_then(Value::as_str)
                    .map(String::from),
            });
        }
        let columns = version["additionalPrinterColumns"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        def.printer_columns = columns
            .iter()
            .filter_map(|c| {
                Some(PrinterColumn {
                    name: c["name"].as_str()?.into(),
                    column_type: c["type"].as_str().unwrap_or("string").into(),
                    format: c["format"].as_str().unwrap_or("").into(),
                    description: c["description"].as_str().unwrap_or("").into(),
                    priority: c["priority"].as_i64().unwrap_or(0),
                    json_path: c["jsonPath"].as_str()?.into(),
                })
            })
            .collect();
        if def.printer_columns.is_empty() {
            def.printer_columns.push(PrinterColumn {
                name: "Age".into(),
                column_type: "date".into(),
                format: "".into(),
                description: "".into(),
                priority: 0,
                json_path: ".metadata.creationTimestamp".into(),
            });
        }
        out.push(def);
    }
    out.sort_by_key(|d| std::cmp::Reverse(version_priority(&d.version)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kinds::ResourceDef;
    use crate::registry::strategy::{
        of, prepare_for_create, validate, CreateContext, StatusPolicy,
    };
    use serde_json::json;

    /// A custom resource `pods.example.com`, sharing the built-in Pods' plural.
    fn custom_pods(with_status: bool) -> ResourceDef {
        let mut def = crate::registry::strategy::builtin_def("", "pods");
        def.group = "example.com".into();
        def.storage_group = "example.com".into();
        def.builtin = false;
        def.subresources
            .retain(|s| with_status && s.name == "status");
        def
    }

    #[test]
    fn a_custom_resource_gets_none_of_the_built_in_behaviour_of_its_plural() {
        let def = custom_pods(false);
        assert_eq!(of(&def).name_rule(), NameRule::PathSegment);
        assert_eq!(of(&def).status(&def), StatusPolicy::None);
        assert!(of(&def).printer().is_none());
        let mut obj = json!({"metadata": {"name": "Mixed_Case"}, "spec": {"size": 1},
            "status": {"phase": "Ready"}});
        let ctx = CreateContext::without_service_ips();
        prepare_for_create(&def, &mut obj, &ctx);
        assert_eq!(obj["status"], json!({"phase": "Ready"}));
        assert!(obj["spec"].get("restartPolicy").is_none());
        assert!(validate(&def, &obj).is_empty());
        let causes = validate(&def, &json!({"metadata": {"name": ".."}}));
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "metadata.name");
    }

    #[test]
    fn a_status_subresource_resets_status_on_create() {
        let def = custom_pods(true);
        assert_eq!(of(&def).status(&def), StatusPolicy::Subresource);
        let mut obj = json!({"metadata": {"name": "a"}, "status": {"phase": "Ready"}});
        let ctx = CreateContext::without_service_ips();
        prepare_for_create(&def, &mut obj, &ctx);
        assert!(obj.get("status").is_none());
    }
}
