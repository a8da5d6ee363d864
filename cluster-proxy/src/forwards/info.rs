//! What the page sends to start a forward and what it reads of one: defined once, in the
//! model, for the page and kube-atlas alike.

pub use kube_atlas_model::api::forwards::{ForwardInfo, ForwardRequest};
