//! resource.k8s.io/v1 (dynamic resource allocation) DeviceClasses, ResourceClaims,
//! ResourceClaimTemplates and ResourceSlices: kubectl's columns.

use serde_json::{json, Value};

use super::printing::{age, c, named, s, Col, Printer, NAME};
use super::Printed;

/// Name and Age only (DeviceClasses, ResourceClaimTemplates).
pub static NAME_AND_AGE: Printed = Printed(Printer::new(AGE_COLUMNS, age_cells));
pub static RESOURCE_CLAIMS: Printed = Printed(Printer::new(CLAIM_COLUMNS, claim_cells));
pub static RESOURCE_SLICES: Printed = Printed(Printer::new(SLICE_COLUMNS, slice_cells));

const AGE_COLUMNS: &[Col] = &[NAME, c("Age", 0)];
const CLAIM_COLUMNS: &[Col] = &[NAME, c("State", 0), c("Age", 0)];
const SLICE_COLUMNS: &[Col] = &[
    NAME,
    c("Node", 0),
    c("Driver", 0),
    c("Pool", 0),
    c("Age", 0),
];

fn age_cells(o: &Value) -> Vec<Value> {
    named(o, [age(o)])
}

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

fn slice_cells(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    named(
        o,
        [
            json!(s(&spec["nodeName"])),
            json!(s(&spec["driver"])),
            json!(s(&spec["pool"]["name"])),
            age(o),
        ],
    )
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
