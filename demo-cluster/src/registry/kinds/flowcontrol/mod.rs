//! flowcontrol.apiserver.k8s.io: API priority and fairness (stored, not enforced).

pub(crate) mod flowschemas;
pub(crate) mod prioritylevelconfigurations;
