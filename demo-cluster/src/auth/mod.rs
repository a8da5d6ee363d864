//! Authentication and authorization, off unless the server is given a token file
//! (`--token-auth-file`, as kube-apiserver's flag): then a request's bearer token names its user
//! ([`token_file`]), a request without one is `system:anonymous`, and kube-apiserver's RBAC
//! authorizer decides over the stored roles and bindings ([`rbac`]) what each may do, from the
//! attributes kube-apiserver derives from the request ([`request_info`]).
//!
//! Without a token file every request is the demo's all-powerful user and nothing is checked.
//! This module reads the store only; the HTTP layer and the review kinds call it.

pub mod rbac;
pub mod request_info;
pub mod token_file;

use std::sync::Arc;

use serde_json::{json, Value};

/// The group kube-apiserver adds to every authenticated user.
pub const AUTHENTICATED_GROUP: &str = "system:authenticated";
/// The anonymous user's only group.
pub const UNAUTHENTICATED_GROUP: &str = "system:unauthenticated";
/// Who a request without credentials is.
pub const ANONYMOUS_USER: &str = "system:anonymous";
/// Members may do everything, whatever RBAC says (kube-apiserver's privileged group).
pub const PRIVILEGED_GROUP: &str = "system:masters";

/// Who made a request (kube-apiserver's `user.Info`, without `extra`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserInfo {
    pub name: String,
    pub uid: String,
    pub groups: Vec<String>,
}

impl UserInfo {
    pub fn anonymous() -> UserInfo {
        UserInfo {
            name: ANONYMOUS_USER.into(),
            uid: String::new(),
            groups: vec![UNAUTHENTICATED_GROUP.into()],
        }
    }

    /// The `userInfo` of a SelfSubjectReview or the `user` of a TokenReview: an empty uid is
    /// left out, as Go's `omitempty` does.
    pub fn to_json(&self) -> Value {
        let mut info = json!({"username": self.name});
        if !self.uid.is_empty() {
            info["uid"] = json!(self.uid);
        }
        if !self.groups.is_empty() {
            info["groups"] = json!(self.groups);
        }
        info
    }

    pub fn in_group(&self, group: &str) -> bool {
        self.groups.iter().any(|g| g == group)
    }
}

/// The user a request was authenticated as and the users the server knows, kept in the
/// request's extensions for the handlers (the review kinds answer for them). Absent when the
/// server checks nothing.
#[derive(Debug, Clone)]
pub struct RequestUser {
    pub user: Arc<UserInfo>,
    pub tokens: Arc<token_file::TokenFile>,
}
