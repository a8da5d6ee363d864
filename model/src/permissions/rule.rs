//! One RBAC rule and whether it covers a request, with kube-apiserver's matching rules
//! (`rbac/v1` helpers): `*` for verbs, groups and resources; `pods/log` names a subresource and
//! `*/scale` that subresource of every resource; `resourceNames` restrict a rule to named
//! objects (so it never covers a request without a name, such as create or list);
//! `nonResourceURLs` match exactly or by a trailing `*` prefix.
//!
//! The same shape serves both sides: a Role's `rules` on a server that authorizes, and a
//! SelfSubjectRulesReview's `resourceRules`/`nonResourceRules` on the client that asks.

use serde::{Deserialize, Serialize};

/// `*`: every verb, group, resource or URL.
pub const ALL: &str = "*";

/// A `rbac.authorization.k8s.io/v1` PolicyRule, or an `authorization.k8s.io/v1` ResourceRule /
/// NonResourceRule (the same fields, fewer of them).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyRule {
    #[serde(default)]
    pub verbs: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub api_groups: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_names: Vec<String>,
    #[serde(
        default,
        rename = "nonResourceURLs",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub non_resource_urls: Vec<String>,
}

/// What a request on a resource asks, as an authorizer sees it (`ResourceAttributes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResourceRequest<'a> {
    pub verb: &'a str,
    /// `""` for the core group.
    pub group: &'a str,
    pub resource: &'a str,
    /// `""` for the resource itself; `status`, `scale`, `log`...
    pub subresource: &'a str,
    /// `""` when the request names no object (create, list, watch of a collection).
    pub name: &'a str,
}

impl<'a> ResourceRequest<'a> {
    pub fn new(verb: &'a str, group: &'a str, resource: &'a str) -> Self {
        ResourceRequest {
            verb,
            group,
            resource,
            ..ResourceRequest::default()
        }
    }

    pub fn subresource(self, subresource: &'a str) -> Self {
        ResourceRequest {
            subresource,
            ..self
        }
    }

    pub fn named(self, name: &'a str) -> Self {
        ResourceRequest { name, ..self }
    }
}

impl PolicyRule {
    /// Whether this rule covers a request on a resource.
    pub fn allows(&self, request: &ResourceRequest) -> bool {
        has(&self.verbs, request.verb)
            && has(&self.api_groups, request.group)
            && self.covers_resource(request.resource, request.subresource)
            && (self.resource_names.is_empty()
                || (!request.name.is_empty()
                    && self.resource_names.iter().any(|n| n == request.name)))
    }

    /// Whether this rule covers a request for a URL outside the resource API (`/healthz`,
    /// `/version`, `/apis/*`).
    pub fn allows_non_resource(&self, verb: &str, path: &str) -> bool {
        has(&self.verbs, verb)
            && self.non_resource_urls.iter().any(|url| {
                url == ALL
                    || url == path
                    || url
                        .strip_suffix('*')
                        .is_some_and(|prefix| path.starts_with(prefix))
            })
    }

    /// Whether this is a rule on resources (rather than on non-resource URLs).
    pub fn is_resource_rule(&self) -> bool {
        !self.resources.is_empty() || !self.api_groups.is_empty()
    }

    fn covers_resource(&self, resource: &str, subresource: &str) -> bool {
        self.resources.iter().any(|rule| {
            if rule == ALL {
                return true;
            }
            if subresource.is_empty() {
                return rule == resource;
            }
            rule.strip_suffix(subresource)
                .and_then(|head| head.strip_suffix('/'))
                .is_some_and(|head| head == resource || head == ALL)
        })
    }
}

fn has(list: &[String], wanted: &str) -> bool {
    list.iter().any(|item| item == ALL || item == wanted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(verbs: &[&str], groups: &[&str], resources: &[&str]) -> PolicyRule {
        let owned = |items: &[&str]| items.iter().map(|s| s.to_string()).collect();
        PolicyRule {
            verbs: owned(verbs),
            api_groups: owned(groups),
            resources: owned(resources),
            ..PolicyRule::default()
        }
    }

    #[test]
    fn a_rule_covers_its_verbs_groups_and_resources() {
        let read_pods = rule(&["get", "list", "watch"], &[""], &["pods"]);
        assert!(read_pods.allows(&ResourceRequest::new("list", "", "pods")));
        assert!(!read_pods.allows(&ResourceRequest::new("delete", "", "pods")));
        assert!(!read_pods.allows(&ResourceRequest::new("list", "apps", "pods")));
        assert!(!read_pods.allows(&ResourceRequest::new("list", "", "secrets")));
    }

    #[test]
    fn wildcards_cover_everything_including_subresources() {
        let admin = rule(&["*"], &["*"], &["*"]);
        assert!(admin.allows(&ResourceRequest::new("delete", "apps", "deployments")));
        assert!(admin.allows(&ResourceRequest::new("get", "", "pods").subresource("log")));
    }

    #[test]
    fn a_subresource_is_named_whole_or_for_every_resource() {
        let logs = rule(&["get"], &[""], &["pods/log"]);
        assert!(logs.allows(&ResourceRequest::new("get", "", "pods").subresource("log")));
        assert!(!logs.allows(&ResourceRequest::new("get", "", "pods")));
        assert!(!logs.allows(&ResourceRequest::new("get", "", "pods").subresource("exec")));

        let scale_anything = rule(&["update"], &["*"], &["*/scale"]);
        let scale = ResourceRequest::new("update", "apps", "deployments").subresource("scale");
        assert!(scale_anything.allows(&scale));
        assert!(!scale_anything.allows(&ResourceRequest::new("update", "apps", "deployments")));
        // A resource rule does not reach its subresources.
        let pods = rule(&["get"], &[""], &["pods"]);
        assert!(!pods.allows(&ResourceRequest::new("get", "", "pods").subresource("log")));
    }

    #[test]
    fn resource_names_restrict_to_named_objects() {
        let mut one = rule(&["get", "update", "list"], &[""], &["configmaps"]);
        one.resource_names = vec!["settings".into()];
        let get = ResourceRequest::new("get", "", "configmaps");
        assert!(one.allows(&get.named("settings")));
        assert!(!one.allows(&get.named("other")));
        // A list or a create names no object, so a named rule never covers it.
        assert!(!one.allows(&ResourceRequest::new("list", "", "configmaps")));
    }

    #[test]
    fn non_resource_urls_match_exactly_or_by_prefix() {
        let discovery = PolicyRule {
            verbs: vec!["get".into()],
            non_resource_urls: vec!["/apis/*".into(), "/version".into()],
            ..PolicyRule::default()
        };
        assert!(discovery.allows_non_resource("get", "/apis/apps/v1"));
        assert!(discovery.allows_non_resource("get", "/version"));
        assert!(!discovery.allows_non_resource("get", "/version/x"));
        assert!(!discovery.allows_non_resource("post", "/version"));
        assert!(!discovery.allows_non_resource("get", "/healthz"));
        assert!(!discovery.is_resource_rule());
    }

    #[test]
    fn rules_read_from_both_apis() {
        let rbac: PolicyRule = serde_json::from_value(serde_json::json!({
            "apiGroups": ["apps"], "resources": ["deployments/scale"], "verbs": ["patch"],
        }))
        .unwrap();
        assert!(
            rbac.allows(&ResourceRequest::new("patch", "apps", "deployments").subresource("scale"))
        );
        let review: PolicyRule = serde_json::from_value(serde_json::json!({
            "verbs": ["get"], "nonResourceURLs": ["/healthz"],
        }))
        .unwrap();
        assert!(review.allows_non_resource("get", "/healthz"));
    }
}
