//! core/v1 ServiceAccounts: kube-apiserver's columns (NAME, AGE: v1.36 prints no SECRETS
//! count, as token Secrets are no longer listed).

use serde_json::Value;

use super::printing::{age, c, named, Col, Printer, NAME};
use super::Printed;

pub static SERVICE_ACCOUNTS: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, c("Age", 0)];

fn cells(o: &Value) -> Vec<Value> {
    named(o, [age(o)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_name_and_age_are_printed() {
        let sa = json!({"metadata": {"name": "builder"},
            "secrets": [{"name": "builder-token"}, {"name": "builder-dockercfg"}]});
        assert_eq!(cells(&sa)[0], json!("builder"));
        assert_eq!(cells(&sa).len(), COLUMNS.len());
    }
}
