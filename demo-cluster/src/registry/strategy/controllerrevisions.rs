//! apps/v1 ControllerRevisions: kubectl's columns (the controlling set as
//! `statefulset.apps/<name>`, the revision number).

use serde_json::{json, Value};

use super::printing::{age, c, named, s, Col, Printer, NAME};
use super::Printed;

pub static CONTROLLER_REVISIONS: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, c("Controller", 0), c("Revision", 0), c("Age", 0)];

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
    let api_version = s(&owner["apiVersion"]);
    let kind = s(&owner["kind"]).to_lowercase();
    let kind = match api_version.split_once('/') {
        Some((group, _)) => format!("{kind}.{group}"),
        None => kind,
    };
    format!("{kind}/{}", s(&owner["name"]))
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
