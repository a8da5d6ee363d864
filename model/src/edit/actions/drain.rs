//! What `kubectl drain NODE --ignore-daemonsets --delete-emptydir-data` decides about a
//! node's pods, as its filters do (`k8s.io/kubectl/pkg/drain/filters.go`): DaemonSet pods
//! are left (their controller would only recreate them) and mirror pods skipped (the kubelet
//! owns them); every other pod is evicted. Pods that finished go with no question asked;
//! a running pod with no controller (kubectl's `--force`) or with emptyDir data (its
//! `--delete-emptydir-data`) is listed and needs the user's consent, and without it kubectl
//! refuses the whole drain.

use serde_json::Value;

use super::target::Target;
use crate::object::meta::ObjectMeta;

/// The annotation the kubelet puts on the API's copy of a static pod.
pub const MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";

/// What the user must agree to before a pod is evicted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Consent {
    /// No controller will recreate it elsewhere (kubectl's `--force`).
    Unmanaged,
    /// Its emptyDir volumes' data is lost (kubectl's `--delete-emptydir-data`).
    LocalData,
}

impl Consent {
    /// kubectl's flag for it.
    pub fn flag(self) -> &'static str {
        match self {
            Consent::Unmanaged => "--force",
            Consent::LocalData => "--delete-emptydir-data",
        }
    }

    /// kubectl's words when it is missing.
    pub fn refusal(self) -> &'static str {
        match self {
            Consent::Unmanaged => {
                "cannot delete Pods that declare no controller (use --force to override)"
            }
            Consent::LocalData => {
                "cannot delete Pods with local storage (use --delete-emptydir-data to override)"
            }
        }
    }
}

/// Why a pod on the node is left alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// Managed by a DaemonSet (kubectl: "ignoring DaemonSet-managed Pods").
    DaemonSet,
    /// A mirror pod (the kubelet's static pod).
    Mirror,
}

/// One pod the drain evicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrainPod {
    pub target: Target,
    /// What the user must agree to first (empty: nothing).
    pub consents: Vec<Consent>,
}

/// What a drain of one node will do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrainPlan {
    pub node: String,
    /// Pods to evict, in the order given.
    pub evict: Vec<DrainPod>,
    /// Pods left on the node, and why.
    pub skipped: Vec<(Target, Skip)>,
}

fn finished(pod: &Value) -> bool {
    matches!(
        pod.pointer("/status/phase").and_then(Value::as_str),
        Some("Succeeded" | "Failed")
    )
}

fn has_empty_dir(pod: &Value) -> bool {
    pod.pointer("/spec/volumes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|volume| volume.get("emptyDir").is_some_and(|e| !e.is_null()))
}

/// The drain plan for `node` from pods (those not on the node are ignored, as kubectl lists
/// with `spec.nodeName=NODE`).
pub fn plan_drain(node: &str, pods: &[Value]) -> DrainPlan {
    let mut plan = DrainPlan {
        node: node.into(),
        evict: Vec::new(),
        skipped: Vec::new(),
    };
    for pod in pods {
        if pod.pointer("/spec/nodeName").and_then(Value::as_str) != Some(node) {
            continue;
        }
        let Some(target) = Target::of(pod) else {
            continue;
        };
        let meta = ObjectMeta::of_object(pod);
        let controller = meta.controller();
        if controller.is_some_and(|c| c.kind == "DaemonSet") && !finished(pod) {
            plan.skipped.push((target, Skip::DaemonSet));
            continue;
        }
        if meta.annotations.contains_key(MIRROR_ANNOTATION) {
            plan.skipped.push((target, Skip::Mirror));
            continue;
        }
        let mut consents = Vec::new();
        if !finished(pod) {
            if has_empty_dir(pod) {
                consents.push(Consent::LocalData);
            }
            if controller.is_none() {
                consents.push(Consent::Unmanaged);
            }
        }
        plan.evict.push(DrainPod { target, consents });
    }
    plan
}

impl DrainPlan {
    /// The consents this drain needs, each with the pods that need it.
    pub fn consents_needed(&self) -> Vec<(Consent, Vec<&Target>)> {
        [Consent::Unmanaged, Consent::LocalData]
            .into_iter()
            .filter_map(|consent| {
                let pods: Vec<&Target> = self
                    .evict
                    .iter()
                    .filter(|pod| pod.consents.contains(&consent))
                    .map(|pod| &pod.target)
                    .collect();
                (!pods.is_empty()).then_some((consent, pods))
            })
            .collect()
    }

    /// kubectl's refusal of the drain when a needed consent is not in `given` (it evicts
    /// nothing then): "cannot delete Pods that declare no controller (use --force to
    /// override): default/bare, default/lonely".
    pub fn refusal(&self, given: &[Consent]) -> Option<String> {
        let missing: Vec<String> = self
            .consents_needed()
            .into_iter()
            .filter(|(consent, _)| !given.contains(consent))
            .map(|(consent, pods)| {
                let mut names: Vec<String> = pods
                    .iter()
                    .map(|t| format!("{}/{}", t.namespace.as_deref().unwrap_or(""), t.name))
                    .collect();
                names.sort();
                format!("{}: {}", consent.refusal(), names.join(", "))
            })
            .collect();
        (!missing.is_empty()).then(|| missing.join("; "))
    }

    /// The pods to evict once `given` consents are in (all of them, or none: kubectl drains
    /// all or nothing).
    pub fn evictions(&self, given: &[Consent]) -> Vec<Target> {
        if self.refusal(given).is_some() {
            return Vec::new();
        }
        self.evict.iter().map(|pod| pod.target.clone()).collect()
    }

    /// The kubectl command for this drain with `given` consents.
    pub fn kubectl(&self, given: &[Consent]) -> String {
        let mut command = format!(
            "kubectl drain {} --ignore-daemonsets --delete-emptydir-data",
            crate::api::endpoints::shell_quote(&self.node)
        );
        if given.contains(&Consent::Unmanaged) {
            command.push_str(" --force");
        }
        command
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(name: &str, owner: Option<&str>, phase: &str, extra: Value) -> Value {
        let mut pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": name},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c"}]},
            "status": {"phase": phase}});
        if let Some(kind) = owner {
            pod["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": kind, "name": "o", "uid": "o", "controller": true}]);
        }
        if let Some(volumes) = extra.get("volumes") {
            pod["spec"]["volumes"] = volumes.clone();
        }
        if let Some(annotations) = extra.get("annotations") {
            pod["metadata"]["annotations"] = annotations.clone();
        }
        pod
    }

    #[test]
    fn daemonset_and_mirror_pods_stay_and_finished_pods_need_no_consent() {
        let scratch = json!({"volumes": [{"name": "s", "emptyDir": {}}]});
        let pods = vec![
            pod("agent", Some("DaemonSet"), "Running", json!({})),
            pod(
                "static",
                None,
                "Running",
                json!({"annotations": {MIRROR_ANNOTATION: "x"}}),
            ),
            pod("web", Some("ReplicaSet"), "Running", json!({})),
            pod("bare", None, "Running", json!({})),
            pod("cache", Some("ReplicaSet"), "Running", scratch.clone()),
            pod("done", None, "Succeeded", scratch),
            pod("old-agent", Some("DaemonSet"), "Failed", json!({})),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "elsewhere", "namespace": "default"},
                   "spec": {"nodeName": "node-2"}}),
        ];
        let plan = plan_drain("node-1", &pods);
        let skipped: Vec<(&str, Skip)> = plan
            .skipped
            .iter()
            .map(|(t, s)| (t.name.as_str(), *s))
            .collect();
        assert_eq!(
            skipped,
            [("agent", Skip::DaemonSet), ("static", Skip::Mirror)]
        );
        let evicted: Vec<(&str, Vec<Consent>)> = plan
            .evict
            .iter()
            .map(|p| (p.target.name.as_str(), p.consents.clone()))
            .collect();
        assert_eq!(
            evicted,
            [
                ("web", vec![]),
                ("bare", vec![Consent::Unmanaged]),
                ("cache", vec![Consent::LocalData]),
                ("done", vec![]),
                ("old-agent", vec![]),
            ]
        );
        assert_eq!(
            plan.refusal(&[Consent::LocalData]).as_deref(),
            Some("cannot delete Pods that declare no controller (use --force to override): default/bare")
        );
        assert!(
            plan.evictions(&[Consent::LocalData]).is_empty(),
            "all or nothing, as kubectl"
        );
        assert_eq!(
            plan.evictions(&[Consent::LocalData, Consent::Unmanaged])
                .len(),
            5
        );
        assert_eq!(
            plan.kubectl(&[Consent::Unmanaged]),
            "kubectl drain node-1 --ignore-daemonsets --delete-emptydir-data --force"
        );
    }
}
