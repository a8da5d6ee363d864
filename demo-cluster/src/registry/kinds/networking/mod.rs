//! networking.k8s.io: Ingresses and their classes, NetworkPolicies, Service CIDRs and IP addresses.

pub(crate) mod ingressclasses;
pub(crate) mod ingresses;
pub(crate) mod ipaddresses;
pub(crate) mod networkpolicies;
pub(crate) mod servicecidrs;
