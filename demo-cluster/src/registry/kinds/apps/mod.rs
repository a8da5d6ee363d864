//! apps/v1: the workload controllers' kinds and their revisions.

pub(crate) mod controllerrevisions;
pub(crate) mod daemonsets;
pub(crate) mod deployments;
pub(crate) mod replicasets;
pub(crate) mod statefulsets;
