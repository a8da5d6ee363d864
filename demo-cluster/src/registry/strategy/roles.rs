//! rbac.authorization.k8s.io/v1 Roles and ClusterRoles: kubectl's columns.

use super::printing::CREATED_AT;
use super::Printed;

pub static ROLES: Printed = Printed(CREATED_AT);
