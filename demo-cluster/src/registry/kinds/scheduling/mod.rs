//! scheduling.k8s.io: PriorityClasses.

pub(crate) mod priorityclasses;
