//! events.k8s.io/v1 Events: stored in the core/v1 shape, in core's store (as in
//! kube-apiserver), renamed on the way in and out; printed with the core Events' columns.

use serde_json::{Map, Value};

use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::core::events::{cells, COLUMNS};
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::Printer;
use crate::registry::strategy::Strategy;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::events::v1::Event;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("events.k8s.io", "events", "event", "Event", true)
        .short(&["ev"])
        .stored_in("")
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<Event>(generator);

pub(crate) static STRATEGY: EventsV1 = EventsV1;

/// (core/v1 field, events.k8s.io/v1 field); the other fields have the same name in both.
const EVENT_FIELDS: &[(&str, &str)] = &[
    ("involvedObject", "regarding"),
    ("message", "note"),
    ("reportingComponent", "reportingController"),
    ("source", "deprecatedSource"),
    ("firstTimestamp", "deprecatedFirstTimestamp"),
    ("lastTimestamp", "deprecatedLastTimestamp"),
    ("count", "deprecatedCount"),
];

fn rename(obj: Value, from_core: bool) -> Value {
    let Value::Object(map) = obj else { return obj };
    let mut out = Map::new();
    for (k, v) in map {
        let renamed = EVENT_FIELDS
            .iter()
            .find(|(core, new)| if from_core { k == *core } else { k == *new })
            .map(|(core, new)| if from_core { *new } else { *core });
        out.insert(renamed.map(String::from).unwrap_or(k), v);
    }
    Value::Object(out)
}

/// An events.k8s.io/v1 Event in the core/v1 shape it is stored in.
fn core_event(obj: Value) -> Value {
    let mut core = rename(obj, false);
    core["apiVersion"] = Value::String("v1".into());
    core["kind"] = Value::String("Event".into());
    core
}

/// A stored core/v1 Event in the events.k8s.io/v1 shape.
fn events_v1_event(core: Value) -> Value {
    rename(core, true)
}

pub struct EventsV1;

impl Strategy for EventsV1 {
    fn field_selectors(&self) -> &'static [&'static str] {
        &[
            "regarding.kind",
            "regarding.namespace",
            "regarding.name",
            "regarding.uid",
            "reason",
            "reportingController",
            "type",
        ]
    }

    fn stored_shape(&self, _: &ResourceDef, obj: Value) -> Value {
        core_event(obj)
    }

    fn served_shape(&self, _: &ResourceDef, obj: Value) -> Value {
        events_v1_event(obj)
    }

    fn reshapes(&self, _: &ResourceDef) -> bool {
        true
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer {
            columns: COLUMNS,
            cells: |o| cells(&core_event(o.clone())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kinds::core::events::CoreEvents;
    use serde_json::json;

    #[test]
    fn events_v1_are_stored_in_the_core_shape_and_print_the_same() {
        let def = crate::registry::strategy::builtin_def("events.k8s.io", "events");
        let v1 = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": "web.17b"}, "type": "Normal", "reason": "Scheduled",
            "note": "Successfully assigned default/web to node-1",
            "regarding": {"kind": "Pod", "name": "web"},
            "reportingController": "default-scheduler"});
        assert!(EventsV1.reshapes(&def));
        let stored = EventsV1.stored_shape(&def, v1.clone());
        assert_eq!(stored["apiVersion"], "v1");
        assert_eq!(stored["involvedObject"]["name"], "web");
        assert_eq!(stored["message"], v1["note"]);
        assert_eq!(stored["reportingComponent"], "default-scheduler");
        let row = (EventsV1.printer().unwrap().cells)(&v1);
        assert_eq!(
            row[1..7],
            [
                json!("Normal"),
                json!("Scheduled"),
                json!("pod/web"),
                json!(""),
                json!("default-scheduler"),
                json!("Successfully assigned default/web to node-1")
            ]
        );
        let served = EventsV1.served_shape(&def, stored);
        assert_eq!(served["regarding"], v1["regarding"]);
        assert_eq!(served["note"], v1["note"]);
        assert!(EventsV1.field_selectors().contains(&"regarding.name"));
        assert!(CoreEvents
            .field_selectors()
            .contains(&"involvedObject.name"));
    }
}
