//! core/v1 Namespaces: the `kubernetes` finalizer and name label, Active then Terminating,
//! deletion held by `spec.finalizers` (the namespace controller's), DNS label names.

use serde_json::{json, Value};

use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::{default_field, ensure_object};
use crate::registry::strategy::printing::{age, column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::{CreateContext, NameRule, Strategy};
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::Namespace;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("", "namespaces", "namespace", "Namespace", false)
        .short(&["ns"])
        .verbs(&[
            "create", "delete", "get", "list", "patch", "update", "watch",
        ])
        .sub("finalize", "Namespace", &["update"])
        .status()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<Namespace>(generator);

pub(crate) static STRATEGY: Namespaces = Namespaces;

pub struct Namespaces;

fn label_with_name(obj: &mut Value, name: Value) {
    ensure_object(&mut obj["metadata"], "labels")
        .insert("kubernetes.io/metadata.name".into(), name);
}

impl Strategy for Namespaces {
    fn field_selectors(&self) -> &'static [&'static str] {
        &["status.phase"]
    }

    fn prepare_for_create(&self, obj: &mut Value, _: &CreateContext) {
        let name = obj["metadata"]["name"].clone();
        label_with_name(obj, name);
        let spec = ensure_object(obj, "spec");
        default_field(spec, "finalizers", json!(["kubernetes"]));
        obj["status"] = json!({"phase": "Active"});
    }

    fn prepare_for_update(&self, old: &Value, new: &mut Value) {
        label_with_name(new, old["metadata"]["name"].clone());
    }

    /// `namespaces/finalize` writes `spec.finalizers` only (the namespace controller's last
    /// step, and how stuck namespaces are released by hand).
    fn prepare_subresource_update(&self, sub: &str, old: &Value, new: &mut Value) -> bool {
        if sub != "finalize" {
            return false;
        }
        let finalizers = new["spec"]["finalizers"].take();
        let rv = new["metadata"]["resourceVersion"].take();
        *new = old.clone();
        new["spec"]["finalizers"] = finalizers;
        new["metadata"]["resourceVersion"] = rv;
        true
    }

    fn name_rule(&self) -> NameRule {
        NameRule::Label
    }

    fn deletion_waits(&self, obj: &Value) -> bool {
        !crate::registry::string_list(&obj["spec"]["finalizers"]).is_empty()
    }

    fn mark_terminating(&self, obj: &mut Value) {
        obj["status"]["phase"] = json!("Terminating");
    }

    fn printer(&self) -> Option<Printer> {
        Some(PRINTER)
    }
}

const PRINTER: Printer = Printer::new(COLUMNS, cells);

const COLUMNS: &[Col] = &[NAME, column("Status", 0), column("Age", 0)];

fn cells(o: &Value) -> Vec<Value> {
    let phase = if o["metadata"]["deletionTimestamp"].is_string() {
        "Terminating".to_string()
    } else {
        value_text(&o["status"]["phase"])
    };
    named(o, [json!(phase), age(o)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kinds::ResourceDef;

    fn namespaces_def() -> ResourceDef {
        crate::registry::strategy::builtin_def("", "namespaces")
    }

    fn created(name: &str) -> Value {
        let mut ns = json!({"metadata": {"name": name}, "status": {"phase": "Terminating"}});
        let ctx = CreateContext::without_service_ips();
        crate::registry::strategy::prepare_for_create(&namespaces_def(), &mut ns, &ctx);
        ns
    }

    #[test]
    fn create_labels_the_name_adds_the_finalizer_and_is_active() {
        let ns = created("team-a");
        assert_eq!(
            ns["metadata"]["labels"]["kubernetes.io/metadata.name"],
            "team-a"
        );
        assert_eq!(ns["spec"]["finalizers"], json!(["kubernetes"]));
        assert_eq!(ns["status"]["phase"], "Active");
        assert!(Namespaces.deletion_waits(&ns));

        let mut relabelled = ns.clone();
        relabelled["metadata"]["labels"] = json!({"kubernetes.io/metadata.name": "other"});
        crate::registry::strategy::prepare_for_update(&namespaces_def(), &ns, &mut relabelled, "");
        assert_eq!(
            relabelled["metadata"]["labels"]["kubernetes.io/metadata.name"],
            "team-a"
        );
        let dotted = json!({"metadata": {"name": "team.a"}});
        let causes = crate::registry::strategy::validate(&namespaces_def(), &dotted);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "metadata.name");
    }

    #[test]
    fn finalize_writes_only_the_finalizers() {
        let old = created("team-a");
        let mut new = old.clone();
        new["spec"]["finalizers"] = json!([]);
        new["metadata"]["labels"] = json!({"extra": "x"});
        new["status"]["phase"] = json!("Gone");
        assert!(Namespaces.prepare_subresource_update("finalize", &old, &mut new));
        assert_eq!(new["spec"]["finalizers"], json!([]));
        assert_eq!(new["metadata"]["labels"], old["metadata"]["labels"]);
        assert_eq!(new["status"], old["status"]);
        assert!(!Namespaces.deletion_waits(&new));
        assert!(!Namespaces.prepare_subresource_update("status", &old, &mut new));
    }

    #[test]
    fn the_printer_shows_status() {
        let printer = Namespaces.printer().unwrap();
        let names: Vec<&str> = printer.columns.iter().map(|c| c.name).collect();
        assert_eq!(names, ["Name", "Status", "Age"]);
        let mut ns = created("team-a");
        assert_eq!(
            (printer.cells)(&ns)[..2],
            [json!("team-a"), json!("Active")]
        );
        Namespaces.mark_terminating(&mut ns);
        assert_eq!((printer.cells)(&ns)[1], "Terminating");
        let mut deleting = created("team-b");
        deleting["metadata"]["deletionTimestamp"] = json!("2024-01-01T00:00:00Z");
        assert_eq!((printer.cells)(&deleting)[1], "Terminating");
    }
}
