//! coordination.k8s.io/v1 Leases: kubectl's columns.

use serde_json::Value;

use super::printing::{age, c, named, or_none, s, Col, Printer, NAME};
use super::Printed;

pub static LEASES: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, c("Holder", 0), c("Age", 0)];

fn cells(o: &Value) -> Vec<Value> {
    named(o, [or_none(s(&o["spec"]["holderIdentity"])), age(o)])
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
