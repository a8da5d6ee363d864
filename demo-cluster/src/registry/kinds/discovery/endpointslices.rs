//! discovery.k8s.io/v1 EndpointSlices: kubectl's columns (address type, the first three
//! ports and addresses, `+ N more...` for the rest).

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::discovery::v1::EndpointSlice;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("discovery.k8s.io", "endpointslices", "EndpointSlice", true).build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<EndpointSlice>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[
    NAME,
    column("AddressType", 0),
    column("Ports", 0),
    column("Endpoints", 0),
    column("Age", 0),
];

/// How many items a cell lists before `+ N more...`.
const SHOWN: usize = 3;

/// kube-apiserver's `listWithMoreString`: the first three, then how many more; `<unset>`
/// when empty.
fn list_with_more(items: Vec<String>) -> String {
    let total = items.len();
    let shown = items.into_iter().take(SHOWN).collect::<Vec<_>>().join(",");
    if total > SHOWN {
        format!("{shown} + {} more...", total - SHOWN)
    } else if shown.is_empty() {
        "<unset>".to_string()
    } else {
        shown
    }
}

fn cells(o: &Value) -> Vec<Value> {
    let ports = o["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|port| match (&port["port"], &port["name"]) {
            (number, _) if number.is_number() => value_text(number),
            (_, name) if name.is_string() => value_text(name),
            _ => "*".to_string(),
        })
        .collect();
    let addresses = o["endpoints"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|e| e["addresses"].as_array().into_iter().flatten())
        .map(value_text)
        .collect();
    named(
        o,
        [
            json!(value_text(&o["addressType"])),
            json!(list_with_more(ports)),
            json!(list_with_more(addresses)),
            age(o),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_list_three_ports_and_addresses_then_how_many_more() {
        let slice = json!({
            "metadata": {"name": "web-abcde"}, "addressType": "IPv4",
            "ports": [{"port": 80}, {"name": "metrics"}],
            "endpoints": [{"addresses": ["10.0.0.1"]}, {"addresses": ["10.0.0.2", "10.0.0.3"]},
                          {"addresses": ["10.0.0.4"]}, {"addresses": ["10.0.0.5"]}],
        });
        let row = cells(&slice);
        assert_eq!(row[1], "IPv4");
        assert_eq!(row[2], "80,metrics");
        assert_eq!(row[3], "10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...");
        let empty = json!({"metadata": {"name": "none"}, "addressType": "IPv4"});
        assert_eq!(cells(&empty)[2], "<unset>");
    }
}
