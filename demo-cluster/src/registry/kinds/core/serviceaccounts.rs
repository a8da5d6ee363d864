//! core/v1 ServiceAccounts: kube-apiserver's columns (NAME, AGE: v1.36 prints no SECRETS
//! count, as token Secrets are no longer listed).

use serde_json::Value;

use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, named, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::ServiceAccount;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new(
        "",
        "serviceaccounts",
        "serviceaccount",
        "ServiceAccount",
        true,
    )
    .short(&["sa"])
    .sub_in(
        "token",
        Some(("authentication.k8s.io", "v1")),
        "TokenRequest",
        &["create"],
    )
    .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<ServiceAccount>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, column("Age", 0)];

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
