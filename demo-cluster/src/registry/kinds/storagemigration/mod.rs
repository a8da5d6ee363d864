//! storagemigration.k8s.io: StorageVersionMigrations.

pub(crate) mod storageversionmigrations;
