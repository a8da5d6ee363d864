//! The create-only review kinds of `authentication.k8s.io` and `authorization.k8s.io`: never
//! stored, answered at once. Without a token file the demo has one user, who may do everything
//! (as a kubeadm cluster's `kubernetes-admin` in `system:masters`): requests carry no
//! credentials, so every request is that user, and every token names it (but a service
//! account token issued here, which names its account). With one (`--token-auth-file`) the
//! reviews answer for the request's user, or the user a subject access review names, with
//! the RBAC authorizer's decisions and rules, as kube-apiserver does.

//!
//! This module is what the six kinds share: who asks ([`Asker`]), the strategy that answers a
//! create ([`Review`]) and the demo's user; each kind's answer is in its own module.

use serde_json::{json, Value};

use crate::auth::request_info::Attributes;
use crate::auth::{rbac, RequestUser, UserInfo};
use crate::errors::ApiResult;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::Strategy;
use crate::registry::{Registry, WriteOptions};

pub const DEMO_USER: &str = "kubernetes-admin";
pub const DEMO_GROUPS: &[&str] = &["system:masters", "system:authenticated"];

/// Why an access review is allowed (kube-apiserver puts its authorizer's reason here).
const ALLOWED_REASON: &str = "the demo cluster allows every request";

/// Who asks a review, and where the authorizer reads roles and bindings.
pub(crate) struct Asker<'a> {
    pub(crate) registry: &'a Registry,
    /// `None` without a token file: the demo's all-powerful user.
    pub(crate) user: Option<&'a RequestUser>,
}

impl Asker<'_> {
    /// The access review's status for `user` asking `attributes`.
    pub(crate) fn decide(&self, user: &UserInfo, attributes: &Attributes) -> Value {
        if self.user.is_none() {
            return allowed();
        }
        let decision = rbac::authorize(&self.registry.store, user, attributes);
        let mut status = json!({"allowed": decision.allowed});
        if !decision.reason.is_empty() {
            status["reason"] = json!(decision.reason);
        }
        status
    }
}

pub(crate) type Answer = fn(&Asker, &ResourceDef, &str, &Value) -> ApiResult<Value>;

/// A review kind's strategy: its create is answered with the computed status.
pub struct Review(pub(crate) Answer);

impl Strategy for Review {
    fn answer_create(
        &self,
        registry: &Registry,
        def: &ResourceDef,
        namespace: &str,
        body: &Value,
        opts: &WriteOptions,
    ) -> Option<ApiResult<Value>> {
        let asker = Asker {
            registry,
            user: opts.user.as_ref(),
        };
        Some((self.0)(&asker, def, namespace, body).map(|status| {
            let mut review = body.clone();
            review["status"] = status;
            review
        }))
    }
}

pub(crate) fn user_info() -> Value {
    json!({"username": DEMO_USER, "groups": DEMO_GROUPS})
}

pub(crate) fn allowed() -> Value {
    json!({"allowed": true, "reason": ALLOWED_REASON})
}
