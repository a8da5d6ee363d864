//! scheduling.k8s.io/v1 PriorityClasses: a value below a billion (above is the system's),
//! value and preemption policy fixed at creation, kubectl's columns.

use serde_json::{json, Value};

use crate::errors::Cause;
use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::{default_field, immutable_fields};
use crate::registry::strategy::printing::{
    age, boolean, column, count, named, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::Strategy;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::scheduling::v1::PriorityClass;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "scheduling.k8s.io",
        "priorityclasses",
        "PriorityClass",
        false,
    )
    .short(&["pc"])
    .generation()
    .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<PriorityClass>(generator);

pub(crate) static STRATEGY: PriorityClasses = PriorityClasses;

pub struct PriorityClasses;

/// Values above this are reserved for `system-` classes.
const HIGHEST_USER_DEFINABLE_PRIORITY: i64 = 1_000_000_000;

impl Strategy for PriorityClasses {
    fn default_fields(&self, obj: &mut Value) {
        if let Some(m) = obj.as_object_mut() {
            default_field(m, "preemptionPolicy", json!("PreemptLowerPriority"));
        }
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        let name = obj["metadata"]["name"].as_str().unwrap_or_default();
        match obj["value"].as_i64() {
            None => vec![Cause::required("value")],
            Some(v) if v > HIGHEST_USER_DEFINABLE_PRIORITY && !name.starts_with("system-") => {
                vec![Cause::invalid(
                    "value",
                    &v.to_string(),
                    "maximum allowed value of a user defined priority is 1000000000",
                )]
            }
            Some(_) => vec![],
        }
    }

    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        immutable_fields(old, new, &[&["value"], &["preemptionPolicy"]])
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(COLUMNS, cells))
    }
}

const COLUMNS: &[Col] = &[
    NAME,
    count("Value", 0),
    boolean("Global-Default", 0),
    column("Age", 0),
    column("PreemptionPolicy", 0),
];

fn cells(o: &Value) -> Vec<Value> {
    named(
        o,
        [
            o["value"].clone(),
            json!(o["globalDefault"].as_bool().unwrap_or(false)),
            age(o),
            json!(value_text(&o["preemptionPolicy"])),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(causes: Vec<Cause>) -> Vec<String> {
        causes.into_iter().map(|c| c.field).collect()
    }

    #[test]
    fn user_values_stay_below_a_billion_and_are_immutable() {
        let mut high = json!({"metadata": {"name": "high"}, "value": 1_000_000});
        PriorityClasses.default_fields(&mut high);
        assert_eq!(high["preemptionPolicy"], "PreemptLowerPriority");
        assert!(PriorityClasses.validate(&high).is_empty());
        let too_high = json!({"metadata": {"name": "high"}, "value": 2_000_000_000});
        assert_eq!(fields(PriorityClasses.validate(&too_high)), ["value"]);
        let system = json!({"metadata": {"name": "system-node-critical"}, "value": 2_000_001_000});
        assert!(PriorityClasses.validate(&system).is_empty());
        assert_eq!(
            fields(PriorityClasses.validate(&json!({"metadata": {"name": "x"}}))),
            ["value"]
        );
        let mut changed = high.clone();
        changed["value"] = json!(5);
        changed["description"] = json!("now described");
        assert_eq!(
            fields(PriorityClasses.validate_update(&high, &changed)),
            ["value"]
        );
    }

    #[test]
    fn the_printer_shows_value_global_default_and_policy() {
        let pc = json!({"metadata": {"name": "high"}, "value": 1000, "globalDefault": true,
            "preemptionPolicy": "Never"});
        let row = cells(&pc);
        assert_eq!(row[..3], [json!("high"), json!(1000), json!(true)]);
        assert_eq!(row[4], "Never");
    }
}
