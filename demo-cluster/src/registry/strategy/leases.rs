//! coordination.k8s.io/v1 Leases: kubectl's columns.

use serde_json::Value;

use super::printing::{age, c, named, or_none, s, Col, Printer, NAME};
use super::Printed;

pub static LEASES: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, c("Holder", 0), c("Age", 0)];

fn cells(o: &Value) -> Vec<Value> {
    named(o, [or_none(s(&o["spec"]["holderIdentity"])), age(o)])
}
