//! events.k8s.io: Events in their newer shape.

// `<group>/<resource>.rs` as every kind, though group and resource share the name here.
#[allow(clippy::module_inception)]
pub(crate) mod events;
