//! apiextensions.k8s.io: CustomResourceDefinitions.

pub(crate) mod customresourcedefinitions;
