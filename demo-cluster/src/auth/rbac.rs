//! kube-apiserver's authorizers as `--authorization-mode=Node,RBAC` chains them, for the
//! demo's users: members of `system:masters` may do everything; anyone else what the stored
//! ClusterRoleBindings (and, for a request in a namespace, that namespace's RoleBindings) grant
//! through their roles' rules. Nothing is cached: every decision reads the store, so a binding
//! written a moment ago counts at once.
//!
//! The reasons and messages are kube-apiserver's words (`rbac.go`, `rule.go` and the API
//! server's `forbiddenMessage`), since clients show them.

use kube_atlas_model::permissions::{PolicyRule, ResourceRequest};
use serde::Deserialize;
use serde_json::{json, Value};

use super::request_info::Attributes;
use super::{UserInfo, PRIVILEGED_GROUP};
use crate::storage::object::{ObjectKey, ObjectRef};
use crate::storage::store::Store;

const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

/// An authorizer's answer: allowed or not (kube-apiserver's RBAC never denies outright, it has
/// no opinion), and why, as the access reviews report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    /// `RBAC: allowed by ...` when a binding allowed it; when nothing did, the errors met on
    /// the way (a binding to a role that does not exist), else empty.
    pub reason: String,
}

/// May `user` do what `attributes` ask?
pub fn authorize(store: &Store, user: &UserInfo, attributes: &Attributes) -> Decision {
    if user.in_group(PRIVILEGED_GROUP) {
        // kube-apiserver's privileged-group authorizer runs first and gives no reason.
        return Decision {
            allowed: true,
            reason: String::new(),
        };
    }
    let mut errors = Vec::new();
    let mut allowed_by = None;
    visit_rules_for(
        store,
        user,
        &attributes.namespace,
        &mut |visit| match visit {
            Visit::Rule(source, rule) if rule_allows(attributes, rule) => {
                allowed_by = Some(source.to_string());
                false
            }
            Visit::Rule(..) => true,
            Visit::Error(error) => {
                errors.push(error);
                true
            }
        },
    );
    match allowed_by {
        Some(source) => Decision {
            allowed: true,
            reason: format!("RBAC: allowed by {source}"),
        },
        None => Decision {
            allowed: false,
            reason: if errors.is_empty() {
                String::new()
            } else {
                format!("RBAC: {}", aggregate(&errors))
            },
        },
    }
}

/// Every rule that applies to `user` in `namespace` (cluster bindings' rules, then the
/// namespace's bindings'), and the errors met resolving them: what a SelfSubjectRulesReview
/// reports.
pub fn rules_for(
    store: &Store,
    user: &UserInfo,
    namespace: &str,
) -> (Vec<PolicyRule>, Vec<String>) {
    let mut rules = Vec::new();
    let mut errors = Vec::new();
    visit_rules_for(store, user, namespace, &mut |visit| {
        match visit {
            Visit::Rule(_, rule) => rules.push(rule.clone()),
            Visit::Error(error) => errors.push(error),
        }
        true
    });
    (rules, errors)
}

/// A rules review's status from [`rules_for`]: the rules on resources, those on URLs, as the
/// review's `ResourceRule` and `NonResourceRule` serialise (empty lists left out but verbs).
pub fn rules_review_status(rules: &[PolicyRule], errors: &[String]) -> Value {
    let resource_rules: Vec<Value> = rules
        .iter()
        .filter(|rule| !rule.resources.is_empty())
        .map(|rule| {
            let mut out = json!({"verbs": rule.verbs});
            for (field, list) in [
                ("apiGroups", &rule.api_groups),
                ("resources", &rule.resources),
                ("resourceNames", &rule.resource_names),
            ] {
                if !list.is_empty() {
                    out[field] = json!(list);
                }
            }
            out
        })
        .collect();
    let non_resource_rules: Vec<Value> = rules
        .iter()
        .filter(|rule| !rule.non_resource_urls.is_empty())
        .map(|rule| json!({"verbs": rule.verbs, "nonResourceURLs": rule.non_resource_urls}))
        .collect();
    let mut status = json!({
        "resourceRules": resource_rules,
        "nonResourceRules": non_resource_rules,
        "incomplete": false,
    });
    if !errors.is_empty() {
        status["evaluationError"] = json!(aggregate(errors));
    }
    status
}

/// kube-apiserver's words for a refused request (before `: <reason>`, which
/// [`forbidden_text`] adds), with `&`, `<` and `>` escaped as it escapes them.
pub fn forbidden_message(user: &UserInfo, attributes: &Attributes) -> String {
    let message = if !attributes.resource_request {
        format!(
            "User {:?} cannot {} path {:?}",
            user.name, attributes.verb, attributes.path
        )
    } else {
        let resource = if attributes.subresource.is_empty() {
            attributes.resource.clone()
        } else {
            format!("{}/{}", attributes.resource, attributes.subresource)
        };
        let scope = if attributes.namespace.is_empty() {
            "at the cluster scope".to_string()
        } else {
            format!("in the namespace {:?}", attributes.namespace)
        };
        format!(
            "User {:?} cannot {} resource {:?} in API group {:?} {scope}",
            user.name, attributes.verb, resource, attributes.group
        )
    };
    message
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The text after `... is forbidden: `: the refusal and, when the authorizer gave one, its
/// reason.
pub fn forbidden_text(user: &UserInfo, attributes: &Attributes, reason: &str) -> String {
    let message = forbidden_message(user, attributes);
    if reason.is_empty() {
        message
    } else {
        format!("{message}: {reason}")
    }
}

/// Go's `utilerrors.NewAggregate(...).Error()`: one error as it is, several (duplicates
/// once) in brackets.
fn aggregate(errors: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for error in errors {
        if !seen.contains(&error.as_str()) {
            seen.push(error);
        }
    }
    match seen.as_slice() {
        [one] => one.to_string(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// RBAC's `RuleAllows`.
fn rule_allows(attributes: &Attributes, rule: &PolicyRule) -> bool {
    if attributes.resource_request {
        rule.allows(&ResourceRequest {
            verb: &attributes.verb,
            group: &attributes.group,
            resource: &attributes.resource,
            subresource: &attributes.subresource,
            name: &attributes.name,
        })
    } else {
        rule.allows_non_resource(&attributes.verb, &attributes.path)
    }
}

/// What [`visit_rules_for`] meets: a rule and the binding it came through, or an error.
enum Visit<'a> {
    Rule(&'a Source<'a>, &'a PolicyRule),
    Error(String),
}

/// The binding a rule applies through, described as kube-apiserver's reasons name it.
struct Source<'a> {
    binding: &'a Value,
    subject: &'a Value,
}

impl std::fmt::Display for Source<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
        let metadata = &self.binding["metadata"];
        let namespace = text(&metadata["namespace"]);
        let role_ref = &self.binding["roleRef"];
        let (kind, name) = (text(&role_ref["kind"]), text(&role_ref["name"]));
        let subject_kind = text(&self.subject["kind"]);
        let subject_name = text(&self.subject["name"]);
        let subject = if subject_kind == "ServiceAccount" {
            let subject_namespace = match text(&self.subject["namespace"]) {
                own if !own.is_empty() => own,
                _ => namespace.clone(),
            };
            format!(
                "{subject_kind} {:?}",
                format!("{subject_name}/{subject_namespace}")
            )
        } else {
            format!("{subject_kind} {subject_name:?}")
        };
        if namespace.is_empty() {
            write!(
                f,
                "ClusterRoleBinding {:?} of {kind} {name:?} to {subject}",
                text(&metadata["name"])
            )
        } else {
            write!(
                f,
                "RoleBinding {:?} of {kind} {name:?} to {subject}",
                format!("{}/{namespace}", text(&metadata["name"]))
            )
        }
    }
}

/// RBAC's `VisitRulesFor`: the rules of every ClusterRoleBinding naming `user`, then of every
/// RoleBinding in `namespace` naming it, each with its source, until `visit` says stop.
fn visit_rules_for(
    store: &Store,
    user: &UserInfo,
    namespace: &str,
    visit: &mut dyn FnMut(Visit) -> bool,
) {
    let (cluster_bindings, _) = store.list_refs(RBAC_GROUP, "clusterrolebindings", None);
    if !visit_bindings(store, user, "", &cluster_bindings, visit) || namespace.is_empty() {
        return;
    }
    let (bindings, _) = store.list_refs(RBAC_GROUP, "rolebindings", Some(namespace));
    visit_bindings(store, user, namespace, &bindings, visit);
}

/// Returns false once `visit` said stop.
fn visit_bindings(
    store: &Store,
    user: &UserInfo,
    namespace: &str,
    bindings: &[ObjectRef],
    visit: &mut dyn FnMut(Visit) -> bool,
) -> bool {
    for stored in bindings {
        let binding = stored.value();
        let Some(subject) = binding["subjects"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|subject| applies_to(user, subject, namespace))
        else {
            continue;
        };
        let role = match role_of(store, &binding["roleRef"], namespace) {
            Ok(role) => role,
            Err(error) => {
                if !visit(Visit::Error(error)) {
                    return false;
                }
                continue;
            }
        };
        let source = Source { binding, subject };
        for rule in role.value()["rules"].as_array().into_iter().flatten() {
            let Ok(rule) = PolicyRule::deserialize(rule) else {
                continue;
            };
            if !visit(Visit::Rule(&source, &rule)) {
                return false;
            }
        }
    }
    true
}

/// RBAC's `appliesToUser`: a User by name, a Group by membership, a ServiceAccount by its
/// username (its namespace defaulting to the binding's).
fn applies_to(user: &UserInfo, subject: &Value, namespace: &str) -> bool {
    let name = subject["name"].as_str().unwrap_or_default();
    match subject["kind"].as_str() {
        Some("User") => user.name == name,
        Some("Group") => user.in_group(name),
        Some("ServiceAccount") => {
            let account_namespace = subject["namespace"]
                .as_str()
                .filter(|ns| !ns.is_empty())
                .unwrap_or(namespace);
            !account_namespace.is_empty()
                && user.name == format!("system:serviceaccount:{account_namespace}:{name}")
        }
        _ => false,
    }
}

/// The role a binding refers to, or the error kube-apiserver's lister gives.
fn role_of(store: &Store, role_ref: &Value, namespace: &str) -> Result<ObjectRef, String> {
    let name = role_ref["name"].as_str().unwrap_or_default();
    let (resource, singular, role_namespace) = match role_ref["kind"].as_str() {
        Some("Role") => ("roles", "role", namespace),
        Some("ClusterRole") => ("clusterroles", "clusterrole", ""),
        other => {
            return Err(format!(
                "unsupported role reference kind: {:?}",
                other.unwrap_or_default()
            ))
        }
    };
    store
        .get_ref(&ObjectKey::new(RBAC_GROUP, resource, role_namespace, name))
        .ok_or_else(|| format!("{singular}.{RBAC_GROUP} {name:?} not found"))
}
