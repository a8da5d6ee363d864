//! The object an action is on ([`Target`]: its resource, kind, namespace and name, and the
//! paths built from them) and how its requests are sent ([`ActionOptions`]: whose field
//! manager, a server dry run).

use serde_json::Value;

use crate::api::endpoints::{encode_path_segment, split_api_version};
use crate::api::request::{ApiRequest, Verb};
use crate::object::meta::ObjectMeta;
use crate::ResourceId;

/// The built-in kinds the day-two actions know by kind: (kind, group, version, resource,
/// namespaced).
const BUILT_IN: &[(&str, &str, &str, &str, bool)] = &[
    ("Deployment", "apps", "v1", "deployments", true),
    ("StatefulSet", "apps", "v1", "statefulsets", true),
    ("DaemonSet", "apps", "v1", "daemonsets", true),
    ("ReplicaSet", "apps", "v1", "replicasets", true),
    ("CronJob", "batch", "v1", "cronjobs", true),
    ("Job", "batch", "v1", "jobs", true),
    ("Pod", "", "v1", "pods", true),
    ("Node", "", "v1", "nodes", false),
    (
        "ReplicationController",
        "",
        "v1",
        "replicationcontrollers",
        true,
    ),
];

/// One object an action is on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    /// `""` for the core group.
    pub group: String,
    pub version: String,
    /// The plural resource (`deployments`).
    pub resource: String,
    pub kind: String,
    /// `None` for cluster-scoped objects.
    pub namespace: Option<String>,
    pub name: String,
    /// Kept so a selection follows its objects while rows move (the server's uid).
    pub uid: Option<String>,
}

impl Target {
    /// A built-in kind the actions know (Deployment, StatefulSet, DaemonSet, ReplicaSet,
    /// CronJob, Job, Pod, Node, ReplicationController), read from the object's `apiVersion`,
    /// `kind` and metadata; None for other kinds (use [`Target::of_resource`]) and for a
    /// list's items, which carry no `kind`.
    pub fn of(object: &Value) -> Option<Target> {
        let kind = object.get("kind")?.as_str()?;
        let (group, version) = split_api_version(object.get("apiVersion")?.as_str()?);
        let &(kind, group, version, resource, namespaced) = BUILT_IN
            .iter()
            .find(|(k, g, v, ..)| *k == kind && *g == group && *v == version)?;
        let meta = ObjectMeta::of_object(object);
        if meta.name.is_empty() {
            return None;
        }
        Some(Target {
            group: group.into(),
            version: version.into(),
            resource: resource.into(),
            kind: kind.into(),
            namespace: meta.namespace.filter(|_| namespaced),
            name: meta.name,
            uid: meta.uid,
        })
    }

    /// An object of any kind, as a list of `resource` shows it (the list knows its resource
    /// and kind from discovery).
    pub fn of_resource(resource: &ResourceId, kind: &str, object: &Value) -> Target {
        let meta = ObjectMeta::of_object(object);
        Target {
            group: resource.group.clone(),
            version: resource.version.clone(),
            resource: resource.plural.clone(),
            kind: kind.into(),
            namespace: meta.namespace,
            name: meta.name,
            uid: meta.uid,
        }
    }

    /// `/api/v1` or `/apis/{group}/{version}`.
    fn prefix(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        }
    }

    /// The collection the object is in (`/apis/batch/v1/namespaces/demo/jobs`).
    pub fn collection_path(&self) -> String {
        match &self.namespace {
            Some(ns) => format!(
                "{}/namespaces/{}/{}",
                self.prefix(),
                encode_path_segment(ns),
                self.resource
            ),
            None => format!("{}/{}", self.prefix(), self.resource),
        }
    }

    /// The object's own path.
    pub fn path(&self) -> String {
        format!(
            "{}/{}",
            self.collection_path(),
            encode_path_segment(&self.name)
        )
    }

    /// One of its subresources (`.../pods/web-1/eviction`).
    pub fn subresource_path(&self, subresource: &str) -> String {
        format!("{}/{subresource}", self.path())
    }

    /// The same kind's collection in this namespace, for another resource of the same group
    /// (a CronJob's Jobs).
    pub(crate) fn sibling_collection(&self, resource: &str) -> String {
        Target {
            resource: resource.into(),
            ..self.clone()
        }
        .collection_path()
    }

    /// How kubectl names it: `deployment/web` for the built-in kinds, `widgets.example.com/w`
    /// for others (unambiguous whatever else is served).
    pub fn kubectl_name(&self) -> String {
        let known = BUILT_IN
            .iter()
            .any(|(k, g, ..)| *k == self.kind && *g == self.group);
        let kind = if known {
            self.kind.to_ascii_lowercase()
        } else if self.group.is_empty() {
            self.resource.clone()
        } else {
            format!("{}.{}", self.resource, self.group)
        };
        format!("{kind}/{}", self.name)
    }

    /// kubectl's namespace flag (`-n demo`), empty for cluster-scoped objects.
    pub fn namespace_flag(&self) -> String {
        match &self.namespace {
            Some(ns) => format!(" -n {}", crate::api::endpoints::shell_quote(ns)),
            None => String::new(),
        }
    }
}

/// Whose field manager a write names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Manager {
    /// kubectl's own, exactly as kubectl sends it (`kubectl-rollout`, `kubectl-label`, or
    /// none where kubectl sends none): what the recorded fixtures are compared with.
    Kubectl,
    /// This one on every PATCH and POST that writes an object (the app's `kube-atlas`), so
    /// the object's managedFields and timeline name the dashboard, not kubectl.
    Named(String),
}

/// How an action's requests are sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionOptions {
    pub manager: Manager,
    /// `dryRun=All`: the server checks and answers, stores nothing (the bulk preview).
    pub dry_run: bool,
}

impl ActionOptions {
    /// Exactly kubectl's requests.
    pub fn kubectl() -> ActionOptions {
        ActionOptions {
            manager: Manager::Kubectl,
            dry_run: false,
        }
    }

    /// Writes named by `manager`.
    pub fn named(manager: &str) -> ActionOptions {
        ActionOptions {
            manager: Manager::Named(manager.into()),
            dry_run: false,
        }
    }

    /// The same, as a server dry run.
    pub fn dry_run(mut self) -> ActionOptions {
        self.dry_run = true;
        self
    }

    /// Adds the query kubectl sends: `fieldManager` (kubectl's name, or `None` where kubectl
    /// sends none; `writes` is false for requests that write no object, as an eviction),
    /// `fieldValidation=Strict` on creates, then `dryRun`.
    pub(crate) fn finish(
        &self,
        mut request: ApiRequest,
        kubectl_manager: Option<&str>,
        writes: bool,
        strict: bool,
    ) -> ApiRequest {
        let manager = match &self.manager {
            Manager::Kubectl => kubectl_manager,
            Manager::Named(name) => Some(name.as_str()).filter(|_| writes),
        };
        if let Some(manager) = manager {
            request = request.query("fieldManager", manager);
        }
        if strict {
            request = request.query("fieldValidation", "Strict");
        }
        if self.dry_run {
            request = dry_run(request);
        }
        request
    }
}

/// `request` as a server dry run. kube-apiserver reads a DELETE's options from its body when
/// there is one (the query is then ignored: a `?dryRun=All` beside a body deletes for real),
/// and an eviction's from its `deleteOptions`; so `dryRun: ["All"]` goes there too.
pub fn dry_run(request: ApiRequest) -> ApiRequest {
    let mut request = request.query("dryRun", "All");
    let eviction = request.path.ends_with("/eviction");
    if request.verb == Verb::Delete || eviction {
        let body = request
            .body
            .as_deref()
            .and_then(|b| serde_json::from_str::<Value>(b).ok());
        if let Some(mut body) = body {
            let options = if eviction {
                &mut body["deleteOptions"]
            } else {
                &mut body
            };
            if options.is_object() || options.is_null() {
                options["dryRun"] = serde_json::json!(["All"]);
                request.body = Some(body.to_string());
            }
        }
    }
    request
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn built_in_kinds_give_their_paths_and_kubectl_names() {
        let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment",
                            "metadata": {"name": "web", "namespace": "demo", "uid": "u1"}});
        let target = Target::of(&deploy).expect("a deployment");
        assert_eq!(
            target.path(),
            "/apis/apps/v1/namespaces/demo/deployments/web"
        );
        assert_eq!(target.kubectl_name(), "deployment/web");
        assert_eq!(target.namespace_flag(), " -n demo");
        assert_eq!(target.uid.as_deref(), Some("u1"));
        let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}});
        let node = Target::of(&node).expect("a node");
        assert_eq!(node.subresource_path("status"), "/api/v1/nodes/n1/status");
        assert_eq!(node.namespace_flag(), "");
        let odd =
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
        assert_eq!(Target::of(&odd), None);
        let widget = Target::of_resource(
            &ResourceId::new("example.com", "v1", "widgets"),
            "Widget",
            &odd,
        );
        assert_eq!(widget.kubectl_name(), "widgets.example.com/w");
        assert_eq!(widget.path(), "/apis/example.com/v1/widgets/w");
    }

    #[test]
    fn names_are_escaped_in_paths() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": "a/b?c", "namespace": "demo"}});
        let target = Target::of(&pod).expect("a pod");
        assert_eq!(target.path(), "/api/v1/namespaces/demo/pods/a%2Fb%3Fc");
    }
}
