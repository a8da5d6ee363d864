//! Kinds served from another kind's storage: events.k8s.io/v1 Events live in the core/v1 Event
//! store (as in kube-apiserver), so both APIs see the same objects. Each kind's strategy says
//! how its objects are stored and served (the Event field renaming is in `kinds/events/events.rs`).

use serde_json::Value;

use super::kinds::ResourceDef;
use super::strategy;

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
