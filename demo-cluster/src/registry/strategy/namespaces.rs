//! core/v1 Namespaces: the `kubernetes` finalizer and name label, Active then Terminating,
//! deletion held by `spec.finalizers` (the namespace controller's), DNS label names.

use serde_json::{json, Value};

use super::common::{default_field, ensure_object};
use super::printing::{age, c, named, s, Col, Printer, NAME};
use super::{CreateContext, NameRule, Strategy};

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

const COLUMNS: &[Col] = &[NAME, c("Status", 0), c("Age", 0)];

fn cells(o: &Value) -> Vec<Value> {
    let phase = if o["metadata"]["deletionTimestamp"].is_string() {
        "Terminating".to_string()
    } else {
        s(&o["status"]["phase"])
    };
    named(o, [json!(phase), age(o)])
}
