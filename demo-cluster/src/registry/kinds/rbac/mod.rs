//! rbac.authorization.k8s.io: Roles, ClusterRoles and their bindings, and the strategy they
//! share.

pub(crate) mod clusterrolebindings;
pub(crate) mod clusterroles;
pub(crate) mod rolebindings;
pub(crate) mod roles;

use serde_json::Value;

use crate::registry::strategy::printing::Printer;
use crate::registry::strategy::{NameRule, Strategy};

/// RBAC kinds: only their printer, and names that are any path segment (kube-apiserver's
/// `ValidateRBACName`), as the bootstrap roles' `system:` names need.
pub struct RbacPrinted(pub Printer);

impl Strategy for RbacPrinted {
    fn default_fields(&self, obj: &mut Value) {
        // Roles' and ClusterRoles' `rules` are serialised even when unset (no omitempty).
        let is_role = matches!(obj["kind"].as_str(), Some("Role" | "ClusterRole"));
        if let (true, Some(m)) = (is_role, obj.as_object_mut()) {
            m.entry("rules").or_insert(Value::Null);
        }
    }

    fn name_rule(&self) -> NameRule {
        NameRule::PathSegment
    }

    fn printer(&self) -> Option<Printer> {
        Some(self.0)
    }
}
