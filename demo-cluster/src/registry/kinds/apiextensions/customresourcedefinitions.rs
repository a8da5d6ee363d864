//! apiextensions.k8s.io/v1 CustomResourceDefinitions: accepted names and Established at
//! creation, the schema checks, serving changes after every write, the custom resources
//! deleted with their definition.

use serde_json::{json, Value};

use crate::errors::Cause;
use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::default_field;
use crate::registry::strategy::printing::{Printer, CREATED_AT};
use crate::registry::strategy::{CreateContext, Strategy};
use crate::registry::Registry;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition as CustomResourceDefinitionV1;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new(
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        "customresourcedefinition",
        "CustomResourceDefinition",
        false,
    )
    .short(&["crd", "crds"])
    .categories(&["api-extensions"])
    .generation()
    .status()
    .build()
}

pub(crate) const SCHEMA: SchemaOf =
    |generator, _| schema_of::<CustomResourceDefinitionV1>(generator);

pub(crate) static STRATEGY: CustomResourceDefinitions = CustomResourceDefinitions;

pub struct CustomResourceDefinitions;

impl Strategy for CustomResourceDefinitions {
    fn prepare_for_create(&self, obj: &mut Value, _: &CreateContext) {
        let names = obj["spec"]["names"].clone();
        let mut accepted = names.clone();
        if let (Some(m), Some(kind)) = (accepted.as_object_mut(), names["kind"].as_str()) {
            default_field(m, "listKind", json!(format!("{kind}List")));
            default_field(m, "singular", json!(kind.to_lowercase()));
        }
        if let Some(m) = obj
            .get_mut("spec")
            .and_then(|spec| spec.get_mut("names"))
            .and_then(Value::as_object_mut)
        {
            if let Some(kind) = names["kind"].as_str() {
                default_field(m, "listKind", json!(format!("{kind}List")));
                default_field(m, "singular", json!(kind.to_lowercase()));
            }
        }
        let stored: Vec<Value> = obj["spec"]["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|v| v["storage"].as_bool() == Some(true))
            .map(|v| v["name"].clone())
            .collect();
        let now = crate::registry::now();
        obj["status"] = json!({
            "acceptedNames": accepted,
            "storedVersions": stored,
            "conditions": [
                {"type": "NamesAccepted", "status": "True", "lastTransitionTime": now, "reason": "NoConflicts", "message": "no conflicts found"},
                {"type": "Established", "status": "True", "lastTransitionTime": now, "reason": "InitialNamesAccepted", "message": "the initial names have been accepted"}
            ]
        });
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        let mut causes = vec![];
        let spec = &obj["spec"];
        let group = spec["group"].as_str().unwrap_or_default();
        let plural = spec["names"]["plural"].as_str().unwrap_or_default();
        if group.is_empty() || !group.contains('.') {
            causes.push(Cause::invalid(
                "spec.group",
                group,
                "should be a domain with at least one dot",
            ));
        }
        if plural.is_empty() {
            causes.push(Cause::required("spec.names.plural"));
        }
        if spec["names"]["kind"].as_str().is_none_or(str::is_empty) {
            causes.push(Cause::required("spec.names.kind"));
        }
        let name = obj["metadata"]["name"].as_str().unwrap_or_default();
        if name != format!("{plural}.{group}") {
            causes.push(Cause::invalid(
                "metadata.name",
                name,
                "must be spec.names.plural+\".\"+spec.group",
            ));
        }
        if !matches!(spec["scope"].as_str(), Some("Namespaced" | "Cluster")) {
            causes.push(Cause::new(
                "FieldValueNotSupported",
                "spec.scope",
                "Unsupported value: supported values: \"Cluster\", \"Namespaced\"",
            ));
        }
        let versions = spec["versions"].as_array().cloned().unwrap_or_default();
        if versions.is_empty() {
            causes.push(Cause::required("spec.versions"));
        }
        let storage = versions
            .iter()
            .filter(|v| v["storage"].as_bool() == Some(true))
            .count();
        if !versions.is_empty() && storage != 1 {
            causes.push(Cause::invalid(
                "spec.versions",
                "",
                "must have exactly one version marked as storage version",
            ));
        }
        causes
    }

    fn after_write(&self, registry: &Registry) {
        registry.refresh_crds();
    }

    /// The custom resources go with their definition.
    fn before_delete(&self, registry: &Registry, crd: &Value) {
        let group = crd["spec"]["group"].as_str().unwrap_or_default();
        let plural = crd["spec"]["names"]["plural"].as_str().unwrap_or_default();
        for (key, _) in registry.store.dump_keys() {
            if key.group == group && key.resource == plural {
                let _ = registry.store.delete(&key, None);
            }
        }
    }

    fn printer(&self) -> Option<Printer> {
        Some(CREATED_AT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd() -> Value {
        json!({"metadata": {"name": "widgets.example.com"}, "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1beta1", "served": true, "storage": false},
                         {"name": "v1", "served": true, "storage": true}]}})
    }

    #[test]
    fn create_accepts_the_names_and_is_established() {
        let mut obj = crd();
        let ctx = CreateContext::without_service_ips();
        CustomResourceDefinitions.prepare_for_create(&mut obj, &ctx);
        assert_eq!(obj["spec"]["names"]["listKind"], "WidgetList");
        assert_eq!(obj["spec"]["names"]["singular"], "widget");
        let status = &obj["status"];
        assert_eq!(status["acceptedNames"], obj["spec"]["names"]);
        assert_eq!(status["storedVersions"], json!(["v1"]));
        let established = status["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["type"] == "Established")
            .unwrap();
        assert_eq!(established["status"], "True");
    }

    #[test]
    fn validation_checks_name_group_scope_and_one_storage_version() {
        let fields = |obj: &Value| -> Vec<String> {
            CustomResourceDefinitions
                .validate(obj)
                .into_iter()
                .map(|c| c.field)
                .collect()
        };
        assert!(fields(&crd()).is_empty());
        let mut bad = crd();
        bad["metadata"]["name"] = json!("widgets");
        bad["spec"]["scope"] = json!("Global");
        bad["spec"]["versions"][0]["storage"] = json!(true);
        assert_eq!(
            fields(&bad),
            ["metadata.name", "spec.scope", "spec.versions"]
        );
        let mut dotless = crd();
        dotless["metadata"]["name"] = json!("widgets.example");
        dotless["spec"]["group"] = json!("example");
        assert_eq!(fields(&dotless), ["spec.group"]);
    }
}
