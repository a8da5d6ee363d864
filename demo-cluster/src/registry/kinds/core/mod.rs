//! The legacy (core, `/api/v1`) group's kinds.

pub(crate) mod bindings;
pub(crate) mod componentstatuses;
pub(crate) mod configmaps;
pub(crate) mod endpoints;
pub(crate) mod events;
pub(crate) mod limitranges;
pub(crate) mod namespaces;
pub(crate) mod nodes;
pub(crate) mod persistentvolumeclaims;
pub(crate) mod persistentvolumes;
pub(crate) mod pods;
pub(crate) mod podtemplates;
pub(crate) mod replicationcontrollers;
pub(crate) mod resourcequotas;
pub(crate) mod secrets;
pub(crate) mod serviceaccounts;
pub(crate) mod services;
