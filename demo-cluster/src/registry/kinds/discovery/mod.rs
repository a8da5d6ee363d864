//! discovery.k8s.io: EndpointSlices.

pub(crate) mod endpointslices;
