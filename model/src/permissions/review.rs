//! What the API says the user may do, and the questions to ask it:
//! - a SelfSubjectRulesReview lists the rules that hold in one namespace (kube-apiserver
//!   refuses one without a namespace), answering every question about that namespace at once;
//! - a SelfSubjectAccessReview answers one question, the only way to ask about the cluster
//!   scope (listing across namespaces, cluster-scoped kinds) or where the rules are
//!   `incomplete` (an authorizer such as a webhook cannot list its rules);
//! - [`Permissions`] keeps both and answers "may I?" as yes, no or unknown.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::rule::{PolicyRule, ResourceRequest};
use crate::object::pointer::Pointer;

/// Where a request is made.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Cluster-scoped kinds, and namespaced kinds across every namespace.
    Cluster,
    Namespace(String),
}

impl Scope {
    /// The scope of a request in `namespace` (None or empty: the cluster).
    pub fn of(namespace: Option<&str>) -> Scope {
        match namespace {
            Some(ns) if !ns.is_empty() => Scope::Namespace(ns.to_string()),
            _ => Scope::Cluster,
        }
    }

    pub fn namespace(&self) -> Option<&str> {
        match self {
            Scope::Cluster => None,
            Scope::Namespace(ns) => Some(ns),
        }
    }

    /// "in namespace default", "across all namespaces" (`namespaced` kinds) or "in the
    /// cluster".
    pub fn describe(&self, namespaced: bool) -> String {
        match self {
            Scope::Namespace(ns) => format!("in namespace {ns}"),
            Scope::Cluster if namespaced => "across all namespaces".into(),
            Scope::Cluster => "in the cluster".into(),
        }
    }
}

/// One question: may the user `verb` this resource (subresource, object) here?
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Question {
    pub scope: Scope,
    pub verb: String,
    pub group: String,
    pub resource: String,
    pub subresource: String,
    pub name: String,
}

impl Question {
    pub fn new(scope: Scope, verb: &str, group: &str, resource: &str) -> Question {
        Question {
            scope,
            verb: verb.into(),
            group: group.into(),
            resource: resource.into(),
            subresource: String::new(),
            name: String::new(),
        }
    }

    pub fn subresource(mut self, subresource: &str) -> Question {
        self.subresource = subresource.into();
        self
    }

    pub fn named(mut self, name: &str) -> Question {
        self.name = name.into();
        self
    }

    fn request(&self) -> ResourceRequest<'_> {
        ResourceRequest::new(&self.verb, &self.group, &self.resource)
            .subresource(&self.subresource)
            .named(&self.name)
    }

    /// `deployments`, `deployments/scale`, `deployments.apps` style names as kubectl prints
    /// them in `can-i`.
    pub fn resource_phrase(&self) -> String {
        let mut phrase = self.resource.clone();
        if !self.subresource.is_empty() {
            phrase.push('/');
            phrase.push_str(&self.subresource);
        }
        phrase
    }

    /// Why a control is disabled, in words: "You may not update deployments/scale in
    /// namespace default."
    pub fn denial(&self, namespaced: bool) -> String {
        let object = if self.name.is_empty() {
            String::new()
        } else {
            format!(" \"{}\"", self.name)
        };
        format!(
            "You may not {} {}{object} {}.",
            self.verb,
            self.resource_phrase(),
            self.scope.describe(namespaced)
        )
    }

    /// The SelfSubjectAccessReview that asks this question.
    pub fn access_review(&self) -> Value {
        let mut attributes = json!({
            "verb": self.verb,
            "group": self.group,
            "resource": self.resource,
        });
        let fields = [("subresource", &self.subresource), ("name", &self.name)];
        for (field, value) in fields {
            if !value.is_empty() {
                attributes[field] = json!(value);
            }
        }
        if let Some(ns) = self.scope.namespace() {
            attributes["namespace"] = json!(ns);
        }
        json!({
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": attributes},
        })
    }
}

/// The answer to a [`Question`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Permission {
    /// Allowed, with what grants it: a rule of the rules review, or the access review's reason.
    Allowed(Grant),
    Denied,
    /// Not known (yet): the rules are incomplete or not asked for. Controls stay enabled and
    /// the server decides.
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Grant {
    Rule(PolicyRule),
    /// An access review's `status.reason` (kube-apiserver names the binding and role).
    Reason(String),
}

impl Permission {
    pub fn is_denied(&self) -> bool {
        *self == Permission::Denied
    }

    pub fn is_allowed(&self) -> bool {
        matches!(self, Permission::Allowed(_))
    }
}

/// A SelfSubjectRulesReview's answer for one namespace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RulesReview {
    pub resource_rules: Vec<PolicyRule>,
    pub non_resource_rules: Vec<PolicyRule>,
    /// Some authorizer could not list its rules: a missing rule does not mean no.
    pub incomplete: bool,
    pub evaluation_error: Option<String>,
}

/// The SelfSubjectRulesReview that asks for the rules in `namespace`.
pub fn rules_review_request(namespace: &str) -> Value {
    json!({
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectRulesReview",
        "spec": {"namespace": namespace},
    })
}

impl RulesReview {
    /// Reads the server's answer (the review with its `status`).
    pub fn from_answer(answer: &Value) -> Result<RulesReview, String> {
        let status = answer
            .get("status")
            .filter(|s| s.is_object())
            .ok_or("the rules review has no status")?;
        let rules = |field: &str| -> Result<Vec<PolicyRule>, String> {
            match status.get(field) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(list) => serde_json::from_value(list.clone())
                    .map_err(|e| format!("the rules review's {field} do not read: {e}")),
            }
        };
        Ok(RulesReview {
            resource_rules: rules("resourceRules")?,
            non_resource_rules: rules("nonResourceRules")?,
            incomplete: status["incomplete"].as_bool().unwrap_or(false),
            evaluation_error: status["evaluationError"]
                .as_str()
                .filter(|e| !e.is_empty())
                .map(str::to_string),
        })
    }

    /// Whether the rules allow a request in their namespace.
    pub fn answer(&self, request: &ResourceRequest) -> Permission {
        match self.resource_rules.iter().find(|rule| rule.allows(request)) {
            Some(rule) => Permission::Allowed(Grant::Rule(rule.clone())),
            None if self.incomplete => Permission::Unknown,
            None => Permission::Denied,
        }
    }
}

/// Reads a SelfSubjectAccessReview's answer.
pub fn access_review_answer(answer: &Value) -> Result<Permission, String> {
    let status = answer
        .get("status")
        .filter(|s| s.is_object())
        .ok_or("the access review has no status")?;
    let reason = status["reason"].as_str().unwrap_or_default().to_string();
    Ok(
        match (status["allowed"].as_bool(), status["denied"].as_bool()) {
            (Some(true), _) => Permission::Allowed(Grant::Reason(reason)),
            // Not allowed is no for RBAC alone; `denied` says so outright. An evaluation error
            // leaves it open.
            (_, Some(true)) => Permission::Denied,
            _ if status["evaluationError"]
                .as_str()
                .is_some_and(|e| !e.is_empty()) =>
            {
                Permission::Unknown
            }
            _ => Permission::Denied,
        },
    )
}

/// What the dashboard knows of the user's permissions: rules per namespace, and single
/// answers. Cleared per namespace when the server forbids something the rules allowed, or
/// on a reload.
#[derive(Clone, Debug, Default)]
pub struct Permissions {
    rules: HashMap<String, RulesReview>,
    answers: HashMap<Question, Permission>,
}

/// What to ask the server so a question can be answered.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Lookup {
    Rules(String),
    Access(Question),
}

impl Permissions {
    /// The answer to `question` from what is known.
    pub fn may(&self, question: &Question) -> Permission {
        if let Some(answer) = self.answers.get(question) {
            return answer.clone();
        }
        match &question.scope {
            Scope::Namespace(ns) => self.rules.get(ns).map_or(Permission::Unknown, |rules| {
                rules.answer(&question.request())
            }),
            Scope::Cluster => Permission::Unknown,
        }
    }

    /// What to ask so `question` gets an answer (None: it has one, or none can be had).
    pub fn lookup(&self, question: &Question) -> Option<Lookup> {
        if self.answers.contains_key(question) {
            return None;
        }
        match &question.scope {
            Scope::Namespace(ns) => match self.rules.get(ns) {
                None => Some(Lookup::Rules(ns.clone())),
                Some(rules) if rules.answer(&question.request()) == Permission::Unknown => {
                    Some(Lookup::Access(question.clone()))
                }
                Some(_) => None,
            },
            Scope::Cluster => Some(Lookup::Access(question.clone())),
        }
    }

    pub fn rules(&self, namespace: &str) -> Option<&RulesReview> {
        self.rules.get(namespace)
    }

    pub fn record_rules(&mut self, namespace: &str, review: RulesReview) {
        self.rules.insert(namespace.to_string(), review);
    }

    pub fn record_answer(&mut self, question: Question, answer: Permission) {
        self.answers.insert(question, answer);
    }

    /// Forgets everything (permissions may have changed: a 403 where the rules said yes, a
    /// reload).
    pub fn forget(&mut self) {
        self.rules.clear();
        self.answers.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn viewer_rules() -> RulesReview {
        RulesReview::from_answer(&json!({"status": {
            "resourceRules": [
                {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["pods", "pods/log"]},
                {"verbs": ["get", "list", "watch"], "apiGroups": ["apps"], "resources": ["deployments", "deployments/scale"]},
            ],
            "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/api", "/api/*"]}],
            "incomplete": false,
        }}))
        .unwrap()
    }

    #[test]
    fn complete_rules_answer_yes_and_no() {
        let mut permissions = Permissions::default();
        let ns = Scope::of(Some("default"));
        let list_pods = Question::new(ns.clone(), "list", "", "pods");
        assert_eq!(permissions.may(&list_pods), Permission::Unknown);
        assert_eq!(
            permissions.lookup(&list_pods),
            Some(Lookup::Rules("default".into()))
        );
        permissions.record_rules("default", viewer_rules());
        assert!(permissions.may(&list_pods).is_allowed());
        assert_eq!(permissions.lookup(&list_pods), None);
        let scale = Question::new(ns.clone(), "patch", "apps", "deployments")
            .subresource("scale")
            .named("web");
        assert!(permissions.may(&scale).is_denied());
        assert_eq!(
            scale.denial(true),
            "You may not patch deployments/scale \"web\" in namespace default."
        );
        // Another namespace has no rules yet.
        let elsewhere = Question::new(Scope::of(Some("kube-system")), "list", "", "pods");
        assert_eq!(permissions.may(&elsewhere), Permission::Unknown);
    }

    #[test]
    fn incomplete_rules_leave_it_to_an_access_review() {
        let mut rules = viewer_rules();
        rules.incomplete = true;
        let mut permissions = Permissions::default();
        permissions.record_rules("default", rules);
        let delete = Question::new(Scope::of(Some("default")), "delete", "", "pods");
        assert_eq!(permissions.may(&delete), Permission::Unknown);
        assert_eq!(
            permissions.lookup(&delete),
            Some(Lookup::Access(delete.clone()))
        );
        let answer = access_review_answer(
            &json!({"status": {"allowed": true, "reason": "webhook says yes"}}),
        )
        .unwrap();
        permissions.record_answer(delete.clone(), answer);
        assert_eq!(
            permissions.may(&delete),
            Permission::Allowed(Grant::Reason("webhook says yes".into()))
        );
    }

    #[test]
    fn the_cluster_scope_is_asked_one_question_at_a_time() {
        let mut permissions = Permissions::default();
        let everywhere = Question::new(Scope::Cluster, "list", "", "pods");
        assert_eq!(
            permissions.lookup(&everywhere),
            Some(Lookup::Access(everywhere.clone()))
        );
        assert_eq!(
            everywhere.access_review()["spec"]["resourceAttributes"],
            json!({"verb": "list", "group": "", "resource": "pods"})
        );
        let no = access_review_answer(&json!({"status": {"allowed": false}})).unwrap();
        permissions.record_answer(everywhere.clone(), no);
        assert!(permissions.may(&everywhere).is_denied());
        assert_eq!(
            everywhere.denial(true),
            "You may not list pods across all namespaces."
        );
        permissions.forget();
        assert_eq!(permissions.may(&everywhere), Permission::Unknown);
    }

    #[test]
    fn a_review_without_status_is_an_error_not_a_no() {
        assert!(RulesReview::from_answer(&json!({"kind": "Status"})).is_err());
        assert!(access_review_answer(&json!({})).is_err());
        assert!(RulesReview::from_answer(&json!({"status": {"resourceRules": "x"}})).is_err());
    }
}

/// Who the server says the user is (a SelfSubjectReview's `status.userInfo`, what `kubectl
/// auth whoami` prints).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserInfo {
    pub username: String,
    pub uid: Option<String>,
    pub groups: Vec<String>,
}

/// The SelfSubjectReview that asks who the user is.
pub fn self_subject_review_request() -> Value {
    json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
}

impl UserInfo {
    pub fn from_answer(answer: &Value) -> Result<UserInfo, String> {
        let info = answer
            .at("/status/userInfo")
            .filter(|i| i.is_object())
            .ok_or("the self subject review has no userInfo")?;
        Ok(UserInfo {
            username: info["username"].as_str().unwrap_or_default().to_string(),
            uid: info["uid"].as_str().map(str::to_string),
            groups: info["groups"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
        })
    }
}

#[cfg(test)]
mod user_tests {
    use super::*;

    #[test]
    fn who_the_server_says_the_user_is() {
        let answer = json!({"kind": "SelfSubjectReview", "status": {"userInfo": {
            "username": "viewer", "uid": "2", "groups": ["viewers", "system:authenticated"]}}});
        let user = UserInfo::from_answer(&answer).unwrap();
        assert_eq!(user.username, "viewer");
        assert_eq!(user.groups, ["viewers", "system:authenticated"]);
        assert!(UserInfo::from_answer(&json!({"status": {}})).is_err());
    }
}
