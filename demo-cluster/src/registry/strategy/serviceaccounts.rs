//! core/v1 ServiceAccounts: kubectl's columns.

use serde_json::{json, Value};

use super::printing::{age, c, count, named, Col, Printer, NAME};
use super::Printed;

pub static SERVICE_ACCOUNTS: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, count("Secrets", 0), c("Age", 0)];

fn cells(o: &Value) -> Vec<Value> {
    let secrets = o["secrets"].as_array().map(Vec::len).unwrap_or(0);
    named(o, [json!(secrets), age(o)])
}
