//! policy/v1 PodDisruptionBudgets: one of minAvailable and maxUnavailable, kubectl's
//! columns. Stored only: evictions (`pods/eviction`) do not consult them here.

use serde_json::{json, Value};

use crate::errors::Cause;
use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{
    age, column, count, int, named, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::Strategy;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "policy",
        "poddisruptionbudgets",
        "PodDisruptionBudget",
        true,
    )
    .short(&["pdb"])
    .generation()
    .status()
    .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<PodDisruptionBudget>(generator);

pub(crate) static STRATEGY: PodDisruptionBudgets = PodDisruptionBudgets;

pub struct PodDisruptionBudgets;

impl Strategy for PodDisruptionBudgets {
    fn validate(&self, obj: &Value) -> Vec<Cause> {
        let spec = &obj["spec"];
        if !spec["minAvailable"].is_null() && !spec["maxUnavailable"].is_null() {
            vec![Cause::invalid(
                "spec",
                "",
                "minAvailable and maxUnavailable cannot be both set",
            )]
        } else {
            vec![]
        }
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(COLUMNS, cells))
    }
}

const COLUMNS: &[Col] = &[
    NAME,
    column("Min Available", 0),
    column("Max Unavailable", 0),
    count("Allowed Disruptions", 0),
    column("Age", 0),
];

fn cells(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let or_na = |v: &Value| {
        if v.is_null() {
            "N/A".to_string()
        } else {
            value_text(v)
        }
    };
    named(
        o,
        [
            json!(or_na(&spec["minAvailable"])),
            json!(or_na(&spec["maxUnavailable"])),
            json!(int(&o["status"]["disruptionsAllowed"])),
            age(o),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_available_and_max_unavailable_are_exclusive() {
        let both = json!({"metadata": {"name": "web"},
            "spec": {"minAvailable": 1, "maxUnavailable": "25%"}});
        let causes = PodDisruptionBudgets.validate(&both);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "spec");
        let one = json!({"metadata": {"name": "web"}, "spec": {"maxUnavailable": "25%"}});
        assert!(PodDisruptionBudgets.validate(&one).is_empty());
    }

    #[test]
    fn the_printer_shows_the_budget_and_allowed_disruptions() {
        let pdb = json!({"metadata": {"name": "web"}, "spec": {"minAvailable": "50%"},
            "status": {"disruptionsAllowed": 2}});
        let row = (PodDisruptionBudgets.printer().unwrap().cells)(&pdb);
        assert_eq!(
            row[..4],
            [json!("web"), json!("50%"), json!("N/A"), json!(2)]
        );
        let fresh = json!({"metadata": {"name": "db"}, "spec": {"maxUnavailable": 1}});
        assert_eq!(cells(&fresh)[1..4], [json!("N/A"), json!("1"), json!(0)]);
    }
}
