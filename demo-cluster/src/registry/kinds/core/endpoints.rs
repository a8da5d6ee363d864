//! core/v1 Endpoints: kubectl's columns (address:port pairs).

use serde_json::Value;

use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{
    age, column, named, or_none, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::Endpoints;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("", "endpoints", "endpoints", "Endpoints", true)
        .short(&["ep"])
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<Endpoints>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, column("Endpoints", 0), column("Age", 0)];

fn cells(o: &Value) -> Vec<Value> {
    let mut endpoints = vec![];
    for subset in o["subsets"].as_array().into_iter().flatten() {
        for a in subset["addresses"].as_array().into_iter().flatten() {
            for p in subset["ports"].as_array().into_iter().flatten() {
                endpoints.push(format!(
                    "{}:{}",
                    value_text(&a["ip"]),
                    value_text(&p["port"])
                ));
            }
        }
    }
    named(o, [or_none(endpoints.join(",")), age(o)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn endpoints_print_address_port_pairs_or_none() {
        let ep = json!({"metadata": {"name": "web"}, "subsets": [
            {"addresses": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}], "ports": [{"port": 8080}]}]});
        assert_eq!(
            cells(&ep)[..2],
            [json!("web"), json!("10.0.0.1:8080,10.0.0.2:8080")]
        );
        let empty = json!({"metadata": {"name": "none"}});
        assert_eq!(cells(&empty)[1], "<none>");
    }
}
