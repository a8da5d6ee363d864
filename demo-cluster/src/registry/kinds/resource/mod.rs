//! resource.k8s.io: the dynamic resource allocation kinds.

pub(crate) mod deviceclasses;
pub(crate) mod devicetaintrules;
pub(crate) mod resourceclaims;
pub(crate) mod resourceclaimtemplates;
pub(crate) mod resourceslices;
