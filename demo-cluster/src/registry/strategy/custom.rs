//! Custom resources, whatever their plural: any path-segment name, status per the CRD's
//! subresources (see `Strategy::status`), printer columns from the CRD (`http::table`).

use super::{NameRule, Strategy};

pub struct CustomResources;

impl Strategy for CustomResources {
    fn name_rule(&self) -> NameRule {
        NameRule::PathSegment
    }
}

#[cfg(test)]
mod tests {
    use super::super::{of, prepare_for_create, validate, CreateContext, StatusPolicy};
    use super::*;
    use crate::registry::kinds::ResourceDef;
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
