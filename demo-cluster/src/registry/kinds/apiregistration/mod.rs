//! apiregistration.k8s.io: APIServices.

pub(crate) mod apiservices;
