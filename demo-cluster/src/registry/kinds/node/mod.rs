//! node.k8s.io: RuntimeClasses.

pub(crate) mod runtimeclasses;
