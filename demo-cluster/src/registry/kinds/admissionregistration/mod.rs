//! admissionregistration.k8s.io: webhook configurations and admission policies (stored, never run).

pub(crate) mod mutatingadmissionpolicies;
pub(crate) mod mutatingadmissionpolicybindings;
pub(crate) mod mutatingwebhookconfigurations;
pub(crate) mod validatingadmissionpolicies;
pub(crate) mod validatingadmissionpolicybindings;
pub(crate) mod validatingwebhookconfigurations;
