//! core/v1 Endpoints: kubectl's columns (address:port pairs).

use serde_json::Value;

use super::printing::{age, c, named, or_none, s, Col, Printer, NAME};
use super::Printed;

pub static ENDPOINTS: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, c("Endpoints", 0), c("Age", 0)];

fn cells(o: &Value) -> Vec<Value> {
    let mut endpoints = vec![];
    for subset in o["subsets"].as_array().into_iter().flatten() {
        for a in subset["addresses"].as_array().into_iter().flatten() {
            for p in subset["ports"].as_array().into_iter().flatten() {
                endpoints.push(format!("{}:{}", s(&a["ip"]), s(&p["port"])));
            }
        }
    }
    named(o, [or_none(endpoints.join(",")), age(o)])
}
