//! What the user may do: RBAC rules and how they cover a request ([`rule`]).

pub mod rule;

pub use rule::{PolicyRule, ResourceRequest};
