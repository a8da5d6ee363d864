//! admissionregistration.k8s.io/v1 Mutating- and ValidatingWebhookConfigurations: stored,
//! never called (no admission runs here); kubectl's columns.

use serde_json::{json, Value};

use super::printing::{age, c, count, named, Col, Printer, NAME};
use super::Printed;

pub static WEBHOOK_CONFIGURATIONS: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, count("Webhooks", 0), c("Age", 0)];

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
