//! admissionregistration.k8s.io/v1 MutatingWebhookConfigurations: stored, never called (no
//! admission runs here); kubectl's columns, the validating ones' too.

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, count, named, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "admissionregistration.k8s.io",
        "mutatingwebhookconfigurations",
        "MutatingWebhookConfiguration",
        false,
    )
    .categories(&["api-extensions"])
    .build()
}

pub(crate) const SCHEMA: SchemaOf =
    |generator, _| schema_of::<MutatingWebhookConfiguration>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, count("Webhooks", 0), column("Age", 0)];

fn cells(o: &Value) -> Vec<Value> {
    let webhooks = o["webhooks"].as_array().map(Vec::len).unwrap_or(0);
    named(o, [json!(webhooks), age(o)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_webhooks_column_counts_the_configured_webhooks() {
        let config = json!({"metadata": {"name": "policy"},
            "webhooks": [{"name": "a.example.com"}, {"name": "b.example.com"}]});
        assert_eq!(cells(&config)[..2], [json!("policy"), json!(2)]);
        assert_eq!(cells(&json!({"metadata": {"name": "none"}}))[1], 0);
        assert_eq!(COLUMNS[1].kind, "integer");
    }
}
