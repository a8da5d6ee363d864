//! Events: core/v1 and events.k8s.io/v1 share one store, in the core shape (as in
//! kube-apiserver); both print kubectl's event columns from the core field names.

use serde_json::{json, Map, Value};

use super::printing::{age_of, c, name_format, s, Col, Printer};
use super::{ResourceDef, Strategy};

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

/// kubectl's event columns, the name last.
const COLUMNS: &[Col] = &[
    c("Last Seen", 0),
    c("Type", 0),
    c("Reason", 0),
    c("Object", 0),
    c("Subobject", 1),
    c("Source", 1),
    c("Message", 0),
    c("First Seen", 1),
    c("Count", 1),
    name_format("Name", 1),
];

fn cells(o: &Value) -> Vec<Value> {
    let involved = &o["involvedObject"];
    let last = if o["lastTimestamp"].is_string() {
        &o["lastTimestamp"]
    } else if o["eventTime"].is_string() {
        &o["eventTime"]
    } else {
        &o["metadata"]["creationTimestamp"]
    };
    let source = if o["source"]["component"].is_string() {
        s(&o["source"]["component"])
    } else {
        s(&o["reportingComponent"])
    };
    vec![
        age_of(last),
        json!(s(&o["type"])),
        json!(s(&o["reason"])),
        json!(format!(
            "{}/{}",
            s(&involved["kind"]).to_lowercase(),
            s(&involved["name"])
        )),
        json!(s(&involved["fieldPath"])),
        json!(source),
        json!(s(&o["message"])),
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
