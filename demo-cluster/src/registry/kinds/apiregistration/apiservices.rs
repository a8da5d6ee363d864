//! apiregistration.k8s.io/v1 APIServices: kubectl's columns (kube-aggregator: NAME, SERVICE,
//! AVAILABLE, AGE).

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{
    age, column, named, reference, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("apiregistration.k8s.io", "apiservices", "APIService", false)
        .categories(&["api-extensions"])
        .status()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<APIService>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(API_SERVICE_COLUMNS, api_service_cells));

const API_SERVICE_COLUMNS: &[Col] = &[
    NAME,
    column("Service", 0),
    column("Available", 0),
    column("Age", 0),
];

fn api_service_cells(o: &Value) -> Vec<Value> {
    let service = reference(&o["spec"]["service"], "namespace", "name")
        .unwrap_or_else(|| "Local".to_string());
    let available = o["status"]["conditions"]
        .as_array()
        .and_then(|conditions| conditions.iter().find(|c| c["type"] == "Available"))
        .map(
            |c| match (value_text(&c["status"]), value_text(&c["reason"])) {
                (status, _) if status == "True" => status,
                (status, reason) if reason.is_empty() => status,
                (status, reason) => format!("{status} ({reason})"),
            },
        )
        .unwrap_or_else(|| "Unknown".to_string());
    named(o, [json!(service), json!(available), age(o)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_api_service_prints_its_service_and_availability() {
        let local = json!({"metadata": {"name": "v1.apps"}, "spec": {},
            "status": {"conditions": [{"type": "Available", "status": "True", "reason": "Local"}]}});
        assert_eq!(
            api_service_cells(&local)[1..3],
            [json!("Local"), json!("True")]
        );
        let down = json!({"metadata": {"name": "v1beta1.metrics.k8s.io"},
            "spec": {"service": {"namespace": "kube-system", "name": "metrics-server"}},
            "status": {"conditions": [{"type": "Available", "status": "False",
                "reason": "MissingEndpoints"}]}});
        assert_eq!(
            api_service_cells(&down)[1..3],
            [
                json!("kube-system/metrics-server"),
                json!("False (MissingEndpoints)")
            ]
        );
    }
}
