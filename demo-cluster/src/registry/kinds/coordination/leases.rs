//! coordination.k8s.io/v1 Leases: kubectl's columns.

use serde_json::Value;

use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{
    age, column, named, or_none, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::coordination::v1::Lease;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("coordination.k8s.io", "leases", "lease", "Lease", true).build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<Lease>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, column("Holder", 0), column("Age", 0)];

fn cells(o: &Value) -> Vec<Value> {
    named(
        o,
        [or_none(value_text(&o["spec"]["holderIdentity"])), age(o)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_holder_is_printed_or_none() {
        let lease = json!({"metadata": {"name": "kube-scheduler"},
            "spec": {"holderIdentity": "node-1_abc", "leaseDurationSeconds": 15}});
        assert_eq!(
            cells(&lease)[..2],
            [json!("kube-scheduler"), json!("node-1_abc")]
        );
        let free = json!({"metadata": {"name": "free"}, "spec": {}});
        assert_eq!(cells(&free)[1], "<none>");
    }
}
