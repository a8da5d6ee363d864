//! rbac.authorization.k8s.io/v1 Roles and ClusterRoles: kubectl's columns, `system:` names.

use super::printing::CREATED_AT;
use super::RbacPrinted;

pub static ROLES: RbacPrinted = RbacPrinted(CREATED_AT);
