//! core/v1 Events: stored in this shape for events.k8s.io/v1 too (as in kube-apiserver,
//! see `kinds::events::events`); kubectl's event columns, which both print from the core
//! field names.

use serde_json::{json, Value};

use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age_of, column, name_format, value_text, Col, Printer};
use crate::registry::strategy::Strategy;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::Event;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("", "events", "event", "Event", true)
        .short(&["ev"])
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<Event>(generator);

pub(crate) static STRATEGY: CoreEvents = CoreEvents;

pub struct CoreEvents;

impl Strategy for CoreEvents {
    fn field_selectors(&self) -> &'static [&'static str] {
        &[
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        ]
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(COLUMNS, cells))
    }
}

/// kubectl's event columns, the name last.
pub(crate) const COLUMNS: &[Col] = &[
    column("Last Seen", 0),
    column("Type", 0),
    column("Reason", 0),
    column("Object", 0),
    column("Subobject", 1),
    column("Source", 1),
    column("Message", 0),
    column("First Seen", 1),
    column("Count", 1),
    name_format("Name", 1),
];

pub(crate) fn cells(o: &Value) -> Vec<Value> {
    let involved = &o["involvedObject"];
    let last = if o["lastTimestamp"].is_string() {
        &o["lastTimestamp"]
    } else if o["eventTime"].is_string() {
        &o["eventTime"]
    } else {
        &o["metadata"]["creationTimestamp"]
    };
    let source = if o["source"]["component"].is_string() {
        value_text(&o["source"]["component"])
    } else {
        value_text(&o["reportingComponent"])
    };
    vec![
        age_of(last),
        json!(value_text(&o["type"])),
        json!(value_text(&o["reason"])),
        json!(format!(
            "{}/{}",
            value_text(&involved["kind"]).to_lowercase(),
            value_text(&involved["name"])
        )),
        json!(value_text(&involved["fieldPath"])),
        json!(source),
        json!(value_text(&o["message"])),
        age_of(&o["firstTimestamp"]),
        json!(o["count"].as_i64().unwrap_or(1)),
        o["metadata"]["name"].clone(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_events_print_type_reason_object_and_message() {
        let event = json!({"metadata": {"name": "web.17a"}, "type": "Warning",
            "reason": "BackOff", "message": "Back-off restarting failed container",
            "involvedObject": {"kind": "Pod", "name": "web", "fieldPath": "spec.containers{app}"},
            "source": {"component": "kubelet"}, "count": 5});
        let row = (CoreEvents.printer().unwrap().cells)(&event);
        assert_eq!(
            row[1..7],
            [
                json!("Warning"),
                json!("BackOff"),
                json!("pod/web"),
                json!("spec.containers{app}"),
                json!("kubelet"),
                json!("Back-off restarting failed container")
            ]
        );
        assert_eq!(row[8..], [json!(5), json!("web.17a")]);
        assert_eq!(row[0], "<unknown>");
    }
}
