//! What the user may do: RBAC rules and how they cover a request ([`rule`]), the review APIs'
//! answers kept and asked as questions ([`review`]), a 403 read back into the question it
//! refused ([`forbidden`]), and the "what can I do here" table ([`matrix`]).

pub mod forbidden;
pub mod matrix;
pub mod review;
pub mod rule;

pub use forbidden::Forbidden;
pub use review::{
    access_review_answer, rules_review_request, self_subject_review_request, Grant, Lookup,
    Permission, Permissions, Question, RulesReview, Scope, UserInfo,
};
pub use rule::{PolicyRule, ResourceRequest};
