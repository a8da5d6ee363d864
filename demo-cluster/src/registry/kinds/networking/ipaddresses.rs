//! networking.k8s.io/v1 IPAddresses: kubectl's columns (the owner of the address).

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::networking::v1::IPAddress;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("networking.k8s.io", "ipaddresses", "IPAddress", false)
        .short(&["ip"])
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<IPAddress>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(ADDRESS_COLUMNS, address_cells));

const ADDRESS_COLUMNS: &[Col] = &[NAME, column("ParentRef", 0)];

/// The owner of an address as `<resource>[.<group>]/[<namespace>/]<name>`.
fn address_cells(o: &Value) -> Vec<Value> {
    let parent = &o["spec"]["parentRef"];
    if !parent.is_object() {
        return named(o, [json!("<none>")]);
    }
    let mut owner = value_text(&parent["resource"]).to_lowercase();
    if let Some(group) = parent["group"].as_str().filter(|g| !g.is_empty()) {
        owner = format!("{owner}.{}", group.to_lowercase());
    }
    if let Some(namespace) = parent["namespace"].as_str().filter(|n| !n.is_empty()) {
        owner = format!("{owner}/{namespace}");
    }
    named(
        o,
        [json!(format!("{owner}/{}", value_text(&parent["name"])))],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_print_their_parent() {
        let address = json!({"metadata": {"name": "10.96.0.1"}, "spec": {"parentRef": {
            "group": "", "resource": "services", "namespace": "default", "name": "kubernetes"}}});
        assert_eq!(address_cells(&address)[1], "services/default/kubernetes");
    }
}
