//! networking.k8s.io/v1 Ingresses: kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{
    age, column, named, or_none, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::networking::v1::Ingress;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("networking.k8s.io", "ingresses", "Ingress", true)
        .short(&["ing"])
        .generation()
        .status()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<Ingress>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(INGRESS_COLUMNS, ingress_cells));

const INGRESS_COLUMNS: &[Col] = &[
    NAME,
    column("Class", 0),
    column("Hosts", 0),
    column("Address", 0),
    column("Ports", 0),
    column("Age", 0),
];

fn ingress_cells(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let rules = spec["rules"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let hosts: Vec<String> = rules.iter().map(|r| value_text(&r["host"])).collect();
    let hosts = if hosts.iter().all(String::is_empty) {
        "*".to_string()
    } else {
        hosts.join(",")
    };
    let addresses: Vec<String> = o["status"]["loadBalancer"]["ingress"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| {
            if i["ip"].is_string() {
                value_text(&i["ip"])
            } else {
                value_text(&i["hostname"])
            }
        })
        .collect();
    let ports = if spec["tls"].as_array().is_some_and(|t| !t.is_empty()) {
        "80, 443"
    } else {
        "80"
    };
    named(
        o,
        [
            or_none(value_text(&spec["ingressClassName"])),
            json!(hosts),
            json!(addresses.join(",")),
            json!(ports),
            age(o),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ingress_prints_class_hosts_address_and_ports() {
        let ingress = json!({"metadata": {"name": "web"}, "spec": {
            "ingressClassName": "nginx",
            "rules": [{"host": "a.example.com"}, {"host": "b.example.com"}],
            "tls": [{"hosts": ["a.example.com"], "secretName": "tls"}]},
            "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}, {"hostname": "lb.example.com"}]}}});
        let row = ingress_cells(&ingress);
        assert_eq!(
            row[..5],
            [
                json!("web"),
                json!("nginx"),
                json!("a.example.com,b.example.com"),
                json!("1.2.3.4,lb.example.com"),
                json!("80, 443")
            ]
        );
        let bare = json!({"metadata": {"name": "any"}, "spec": {"rules": [{"http": {}}]}});
        assert_eq!(
            ingress_cells(&bare)[1..5],
            [json!("<none>"), json!("*"), json!(""), json!("80")]
        );
    }
}
