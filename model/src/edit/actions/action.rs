//! One day-two action ([`Action`]) on one object: whether it applies to the object's kind,
//! the exact request kubectl sends for it ([`Action::request`]), the permission it needs
//! ([`Action::question`]) and the kubectl command it is ([`Action::kubectl`]).

use serde_json::{json, Value};

use super::jobs::{job_from_cronjob, rerun_job};
use super::target::{ActionOptions, Target};
use crate::api::endpoints::shell_quote;
use crate::api::request::{ApiRequest, PatchType, PropagationPolicy};
use crate::edit::quick::{metadata_entry_patch, MetadataMap};
use crate::object::meta::ObjectMeta;
use crate::permissions::{Question, Scope};
use crate::time::age::format_timestamp;
use crate::time::clock::Wall;

/// The pod template annotation `kubectl rollout restart` sets.
pub const RESTARTED_AT: &str = "kubectl.kubernetes.io/restartedAt";

/// An edit of one label or annotation, as `kubectl label` / `kubectl annotate` take it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetadataEdit {
    /// `key=value`: refused where the key has another value (kubectl without `--overwrite`).
    Add { key: String, value: String },
    /// `key=value --overwrite`.
    Change { key: String, value: String },
    /// `key-`: refused where there is no such key (kubectl sends nothing then).
    Remove { key: String },
}

/// A day-two action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// `kubectl rollout restart`: the pod template's restartedAt annotation set to `at`
    /// (RFC 3339, seconds: `2026-12-07T04:22:48Z`).
    Restart {
        at: String,
    },
    /// `kubectl rollout pause` / `resume` (Deployments).
    Pause,
    Resume,
    /// A CronJob's `spec.suspend` set / cleared.
    Suspend,
    Unsuspend,
    /// `kubectl create job {job_name} --from=cronjob/x`.
    Trigger {
        job_name: String,
    },
    /// A copy of a Job, named `job_name`, without what the job controller set.
    Rerun {
        job_name: String,
    },
    /// `kubectl cordon` / `uncordon`.
    Cordon,
    Uncordon,
    /// The `pods/eviction` subresource (policy/v1), as `kubectl drain` evicts.
    Evict,
    /// `kubectl delete` with `--cascade` (`Background` is kubectl's default).
    Delete {
        propagation: PropagationPolicy,
    },
    Label(MetadataEdit),
    Annotate(MetadataEdit),
    /// `kubectl scale --replicas=N` (the scale subresource).
    Scale {
        replicas: u32,
    },
}

/// Why an action does not apply to an object, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotApplicable(pub String);

impl Action {
    /// `kubectl rollout restart` now: `at` is the wall clock, stamped as kubectl stamps it.
    pub fn restart(at: impl Into<Wall>) -> Action {
        Action::Restart {
            at: format_timestamp(at.into().epoch_millis()),
        }
    }

    /// A short name for buttons, results and sentences ("restart", "delete").
    pub fn verb(&self) -> &'static str {
        match self {
            Action::Restart { .. } => "restart",
            Action::Pause => "pause",
            Action::Resume => "resume",
            Action::Suspend => "suspend",
            Action::Unsuspend => "resume",
            Action::Trigger { .. } => "trigger",
            Action::Rerun { .. } => "re-run",
            Action::Cordon => "cordon",
            Action::Uncordon => "uncordon",
            Action::Evict => "evict",
            Action::Delete { .. } => "delete",
            Action::Label(_) => "label",
            Action::Annotate(_) => "annotate",
            Action::Scale { .. } => "scale",
        }
    }

    /// Whether the action applies to objects of `kind` (the bar shows only the actions
    /// that apply to every selected row).
    pub fn applies_to(&self, kind: &str) -> bool {
        match self {
            Action::Restart { .. } => matches!(kind, "Deployment" | "StatefulSet" | "DaemonSet"),
            Action::Pause | Action::Resume => kind == "Deployment",
            Action::Suspend | Action::Unsuspend | Action::Trigger { .. } => kind == "CronJob",
            Action::Rerun { .. } => kind == "Job",
            Action::Cordon | Action::Uncordon => kind == "Node",
            Action::Evict => kind == "Pod",
            Action::Scale { .. } => matches!(
                kind,
                "Deployment" | "StatefulSet" | "ReplicaSet" | "ReplicationController"
            ),
            Action::Delete { .. } | Action::Label(_) | Action::Annotate(_) => true,
        }
    }

    /// The request kubectl sends for this action on `target`, whose live state is `object`
    /// (read for Trigger, Re-run, Label and Annotate); Err with why it does not apply.
    pub fn request(
        &self,
        target: &Target,
        object: &Value,
        options: &ActionOptions,
    ) -> Result<ApiRequest, NotApplicable> {
        if !self.applies_to(&target.kind) {
            return Err(NotApplicable(format!(
                "{} does not apply to a {}",
                self.verb(),
                target.kind
            )));
        }
        let strategic = |body: Value, manager: Option<&str>| {
            let request =
                ApiRequest::patch(&target.path(), PatchType::StrategicMerge, body.to_string());
            options.finish(request, manager, true, false)
        };
        Ok(match self {
            Action::Restart { at } => strategic(
                json!({"spec": {"template": {"metadata": {"annotations": {RESTARTED_AT: at}}}}}),
                Some("kubectl-rollout"),
            ),
            Action::Pause => strategic(json!({"spec": {"paused": true}}), Some("kubectl-rollout")),
            Action::Resume => strategic(json!({"spec": {"paused": null}}), Some("kubectl-rollout")),
            Action::Suspend => strategic(json!({"spec": {"suspend": true}}), Some("kubectl-patch")),
            Action::Unsuspend => {
                strategic(json!({"spec": {"suspend": false}}), Some("kubectl-patch"))
            }
            Action::Cordon => strategic(json!({"spec": {"unschedulable": true}}), None),
            Action::Uncordon => strategic(json!({"spec": {"unschedulable": null}}), None),
            Action::Trigger { job_name } => {
                let job = job_from_cronjob(object, job_name).map_err(NotApplicable)?;
                create_job(target, job, options)
            }
            Action::Rerun { job_name } => {
                let job = rerun_job(object, job_name).map_err(NotApplicable)?;
                create_job(target, job, options)
            }
            Action::Evict => {
                let body = eviction(target);
                let request =
                    ApiRequest::create(&target.subresource_path("eviction"), body.to_string());
                options.finish(request, None, false, false)
            }
            Action::Delete { propagation } => {
                let mut request = ApiRequest::delete(&target.path());
                request.body = Some(json!({"propagationPolicy": propagation.as_str()}).to_string());
                options.finish(request, None, false, false)
            }
            Action::Label(edit) => {
                metadata_request(target, object, MetadataMap::Labels, edit, options)?
            }
            Action::Annotate(edit) => {
                metadata_request(target, object, MetadataMap::Annotations, edit, options)?
            }
            Action::Scale { replicas } => {
                let body = json!({"spec": {"replicas": replicas}}).to_string();
                let request =
                    ApiRequest::patch(&target.subresource_path("scale"), PatchType::Merge, body);
                options.finish(request, None, true, false)
            }
        })
    }

    /// The permission the action needs on `target`.
    pub fn question(&self, target: &Target) -> Question {
        let scope = Scope::of(target.namespace.as_deref());
        match self {
            Action::Delete { .. } => {
                Question::new(scope, "delete", &target.group, &target.resource).named(&target.name)
            }
            Action::Evict => Question::new(scope, "create", "", "pods")
                .subresource("eviction")
                .named(&target.name),
            Action::Trigger { .. } | Action::Rerun { .. } => {
                Question::new(scope, "create", "batch", "jobs")
            }
            Action::Scale { .. } => Question::new(scope, "patch", &target.group, &target.resource)
                .subresource("scale")
                .named(&target.name),
            _ => Question::new(scope, "patch", &target.group, &target.resource).named(&target.name),
        }
    }

    /// The kubectl command that does the same, to show and copy.
    pub fn kubectl(&self, target: &Target) -> String {
        let name = shell_quote(&target.kubectl_name()).into_owned();
        let ns = target.namespace_flag();
        match self {
            Action::Restart { .. } => format!("kubectl rollout restart {name}{ns}"),
            Action::Pause => format!("kubectl rollout pause {name}{ns}"),
            Action::Resume => format!("kubectl rollout resume {name}{ns}"),
            Action::Suspend => {
                format!("kubectl patch {name}{ns} -p '{{\"spec\":{{\"suspend\":true}}}}'")
            }
            Action::Unsuspend => {
                format!("kubectl patch {name}{ns} -p '{{\"spec\":{{\"suspend\":false}}}}'")
            }
            Action::Trigger { job_name } => format!(
                "kubectl create job {} --from={name}{ns}",
                shell_quote(job_name)
            ),
            Action::Rerun { job_name } => rerun_command(target, job_name),
            Action::Cordon => format!("kubectl cordon {}", shell_quote(&target.name)),
            Action::Uncordon => format!("kubectl uncordon {}", shell_quote(&target.name)),
            Action::Evict => format!(
                "kubectl create --raw {} -f - <<< {}",
                shell_quote(&target.subresource_path("eviction")),
                shell_quote(&eviction(target).to_string())
            ),
            Action::Delete { propagation } => {
                let cascade = match propagation {
                    PropagationPolicy::Background => "",
                    PropagationPolicy::Foreground => " --cascade=foreground",
                    PropagationPolicy::Orphan => " --cascade=orphan",
                };
                format!("kubectl delete {name}{ns}{cascade}")
            }
            Action::Label(edit) => format!("kubectl label {name}{ns} {}", edit_words(edit)),
            Action::Annotate(edit) => format!("kubectl annotate {name}{ns} {}", edit_words(edit)),
            Action::Scale { replicas } => format!("kubectl scale {name}{ns} --replicas={replicas}"),
        }
    }
}

/// The policy/v1 Eviction kubectl sends (Go's zero `creationTimestamp` and empty
/// `deleteOptions` included).
fn eviction(target: &Target) -> Value {
    json!({"kind": "Eviction", "apiVersion": "policy/v1",
           "metadata": {"name": target.name, "namespace": target.namespace,
                        "creationTimestamp": null},
           "deleteOptions": {}})
}

fn create_job(target: &Target, job: Value, options: &ActionOptions) -> ApiRequest {
    let request = ApiRequest::create(&target.sibling_collection("jobs"), job.to_string());
    options.finish(request, Some("kubectl-create"), true, true)
}

fn metadata_request(
    target: &Target,
    object: &Value,
    map: MetadataMap,
    edit: &MetadataEdit,
    options: &ActionOptions,
) -> Result<ApiRequest, NotApplicable> {
    let meta = ObjectMeta::of_object(object);
    let entries = match map {
        MetadataMap::Labels => &meta.labels,
        MetadataMap::Annotations => &meta.annotations,
    };
    let what = &map.field()[..map.field().len() - 1];
    let (key, value) = match edit {
        MetadataEdit::Add { key, value } => match entries.get(key) {
            Some(old) if old != value => {
                return Err(NotApplicable(format!(
                    "'{key}' already has a value ({old}), and --overwrite is false"
                )))
            }
            _ => (key, Some(value.as_str())),
        },
        MetadataEdit::Change { key, value } => (key, Some(value.as_str())),
        MetadataEdit::Remove { key } if !entries.contains_key(key) => {
            return Err(NotApplicable(format!("{what} \"{key}\" not found.")))
        }
        MetadataEdit::Remove { key } => (key, None),
    };
    let body = metadata_entry_patch(map, key, value).to_string();
    let manager = match map {
        MetadataMap::Labels => "kubectl-label",
        MetadataMap::Annotations => "kubectl-annotate",
    };
    let request = ApiRequest::patch(&target.path(), PatchType::Merge, body);
    Ok(options.finish(request, Some(manager), true, false))
}

fn edit_words(edit: &MetadataEdit) -> String {
    match edit {
        MetadataEdit::Add { key, value } => shell_quote(&format!("{key}={value}")).into_owned(),
        MetadataEdit::Change { key, value } => {
            format!("{} --overwrite", shell_quote(&format!("{key}={value}")))
        }
        MetadataEdit::Remove { key } => shell_quote(&format!("{key}-")).into_owned(),
    }
}

/// Re-run by hand: the Job read, cleaned with jq as [`rerun_job`] does, created again.
fn rerun_command(target: &Target, job_name: &str) -> String {
    let labels = r#"["controller-uid","job-name","batch.kubernetes.io/controller-uid","batch.kubernetes.io/job-name"]"#;
    let filter = format!(
        "del(.status, .metadata.uid, .metadata.resourceVersion, .metadata.generation, \
         .metadata.creationTimestamp, .metadata.managedFields, .metadata.ownerReferences, \
         .metadata.annotations[\"kubectl.kubernetes.io/last-applied-configuration\"], \
         .spec.selector, .spec.manualSelector, .metadata.labels{labels}, \
         .spec.template.metadata.labels{labels}) | .metadata.name = \"{job_name}\""
    );
    format!(
        "kubectl get {}{} -o json | jq {} | kubectl create -f -",
        shell_quote(&target.kubectl_name()),
        target.namespace_flag(),
        shell_quote(&filter)
    )
}
