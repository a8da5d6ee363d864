//! apps/v1 ControllerRevisions: kubectl's columns (the controlling set as
//! `statefulset.apps/<name>`, the revision number).

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::apps::v1::ControllerRevision;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("apps", "controllerrevisions", "ControllerRevision", true).build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<ControllerRevision>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[
    NAME,
    column("Controller", 0),
    column("Revision", 0),
    column("Age", 0),
];

/// The controller as `<kind>.<group>/<name>`, lower-cased as kubectl names resources.
fn controller(o: &Value) -> String {
    let owner = o["metadata"]["ownerReferences"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["controller"].as_bool() == Some(true));
    let Some(owner) = owner else {
        return "<none>".to_string();
    };
    let api_version = value_text(&owner["apiVersion"]);
    let kind = value_text(&owner["kind"]).to_lowercase();
    let kind = match api_version.split_once('/') {
        Some((group, _)) => format!("{kind}.{group}"),
        None => kind,
    };
    format!("{kind}/{}", value_text(&owner["name"]))
}

fn cells(o: &Value) -> Vec<Value> {
    named(o, [json!(controller(o)), o["revision"].clone(), age(o)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_controller_is_named_with_its_group() {
        let revision = json!({"metadata": {"name": "db-5d8f", "ownerReferences": [
            {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "controller": true}]},
            "revision": 2});
        assert_eq!(cells(&revision)[1], "statefulset.apps/db");
        assert_eq!(cells(&revision)[2], 2);
        assert_eq!(cells(&json!({"metadata": {"name": "x"}}))[1], "<none>");
    }
}
