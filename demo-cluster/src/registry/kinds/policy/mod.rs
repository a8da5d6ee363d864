//! policy/v1: PodDisruptionBudgets.

pub(crate) mod poddisruptionbudgets;
