//! Kinds served from another kind's storage: events.k8s.io/v1 Events live in the core/v1 Event
//! store (as in kube-apiserver), so both APIs see the same objects.

use serde_json::{Map, Value};

use super::kinds::ResourceDef;
use super::strategy;

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

/// Whether `from_storage` changes objects served through `def`.
pub fn reshapes(def: &ResourceDef) -> bool {
    strategy::of(def).reshapes(def)
}

/// The stored shape of an object received through `def`.
pub fn to_storage(def: &ResourceDef, obj: Value) -> Value {
    strategy::of(def).stored_shape(def, obj)
}

/// The shape `def` serves for a stored object (apiVersion/kind are stamped by the caller).
pub fn from_storage(def: &ResourceDef, obj: Value) -> Value {
    strategy::of(def).served_shape(def, obj)
}

/// An events.k8s.io/v1 Event in the core/v1 shape it is stored in.
pub fn core_event(obj: Value) -> Value {
    let mut core = rename(obj, false);
    core["apiVersion"] = Value::String("v1".into());
    core["kind"] = Value::String("Event".into());
    core
}

/// A stored core/v1 Event in the events.k8s.io/v1 shape.
pub fn events_v1_event(core: Value) -> Value {
    rename(core, true)
}
