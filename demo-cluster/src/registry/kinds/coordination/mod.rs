//! coordination.k8s.io: Leases.

pub(crate) mod leases;
