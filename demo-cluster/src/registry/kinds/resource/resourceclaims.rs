//! resource.k8s.io/v1 ResourceClaims (dynamic resource allocation): kubectl's columns (the
//! claim's state).

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, named, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::resource::v1::ResourceClaim;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("resource.k8s.io", "resourceclaims", "ResourceClaim", true)
        .status()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<ResourceClaim>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(CLAIM_COLUMNS, claim_cells));

const CLAIM_COLUMNS: &[Col] = &[NAME, column("State", 0), column("Age", 0)];

/// kube-apiserver's claim state: deleted, pending or allocated, and reserved when in use.
fn claim_state(o: &Value) -> String {
    let deleting = o["metadata"]["deletionTimestamp"].is_string();
    let status = &o["status"];
    let mut states = vec![];
    if deleting {
        states.push("deleted");
    }
    if status["allocation"].is_null() {
        if !deleting {
            states.push("pending");
        }
    } else {
        states.push("allocated");
        if status["reservedFor"]
            .as_array()
            .is_some_and(|r| !r.is_empty())
        {
            states.push("reserved");
        }
    }
    states.join(",")
}

fn claim_cells(o: &Value) -> Vec<Value> {
    named(o, [json!(claim_state(o)), age(o)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_are_pending_until_allocated_and_reserved_when_used() {
        let pending = json!({"metadata": {"name": "c"}});
        assert_eq!(claim_state(&pending), "pending");
        let used = json!({"metadata": {"name": "c"},
            "status": {"allocation": {}, "reservedFor": [{"name": "pod"}]}});
        assert_eq!(claim_state(&used), "allocated,reserved");
    }
}
