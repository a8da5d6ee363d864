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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_secrets_column_counts_listed_secrets() {
        let sa = json!({"metadata": {"name": "builder"},
            "secrets": [{"name": "builder-token"}, {"name": "builder-dockercfg"}]});
        assert_eq!(cells(&sa)[..2], [json!("builder"), json!(2)]);
        assert_eq!(cells(&json!({"metadata": {"name": "default"}}))[1], 0);
        assert_eq!(COLUMNS[1].kind, "integer");
    }
}
