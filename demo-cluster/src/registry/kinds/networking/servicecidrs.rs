//! networking.k8s.io/v1 ServiceCIDRs: kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::networking::v1::ServiceCIDR;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("networking.k8s.io", "servicecidrs", "ServiceCIDR", false)
        .status()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<ServiceCIDR>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(CIDR_COLUMNS, cidr_cells));

const CIDR_COLUMNS: &[Col] = &[NAME, column("CIDRs", 0), column("Age", 0)];

fn cidr_cells(o: &Value) -> Vec<Value> {
    let cidrs: Vec<String> = o["spec"]["cidrs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(value_text)
        .collect();
    named(o, [json!(cidrs.join(",")), age(o)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_cidrs_print_their_cidrs() {
        let cidr = json!({"metadata": {"name": "kubernetes"},
            "spec": {"cidrs": ["10.96.0.0/12", "fd00::/108"]}});
        assert_eq!(cidr_cells(&cidr)[1], "10.96.0.0/12,fd00::/108");
    }
}
