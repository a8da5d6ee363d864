//! Which pods a workload's logs cover. Deployments, StatefulSets, DaemonSets, ReplicaSets and
//! Jobs by their `spec.selector` (a label selector, as their controllers and kubectl read
//! it); a Service by its `spec.selector` map (without one it selects no pods: its endpoints
//! are kept by hand or by another controller); a CronJob by ownership: the pods of the Jobs
//! it owns.
//!
//! The view lists and watches the namespace's pods with [`PodCoverage::label_selector`] and
//! keeps those [`PodCoverage::covers`] says are the workload's.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::api::endpoints::encode_path_segment;
use crate::list::selector::LabelSelector;
use crate::object::meta::{controller_uid, ObjectMeta};

/// The kinds whose logs are read through their pods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WorkloadKind {
    Deployment,
    StatefulSet,
    DaemonSet,
    ReplicaSet,
    Job,
    CronJob,
    Service,
}

impl WorkloadKind {
    pub const ALL: [WorkloadKind; 7] = [
        WorkloadKind::Deployment,
        WorkloadKind::StatefulSet,
        WorkloadKind::DaemonSet,
        WorkloadKind::ReplicaSet,
        WorkloadKind::Job,
        WorkloadKind::CronJob,
        WorkloadKind::Service,
    ];

    /// The object's `kind`.
    pub fn kind(self) -> &'static str {
        match self {
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::StatefulSet => "StatefulSet",
            WorkloadKind::DaemonSet => "DaemonSet",
            WorkloadKind::ReplicaSet => "ReplicaSet",
            WorkloadKind::Job => "Job",
            WorkloadKind::CronJob => "CronJob",
            WorkloadKind::Service => "Service",
        }
    }

    pub fn from_kind(kind: &str) -> Option<WorkloadKind> {
        WorkloadKind::ALL.into_iter().find(|k| k.kind() == kind)
    }
}

/// How the pods are found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PodRule {
    /// The pods this selector matches.
    Labels(LabelSelector),
    /// A CronJob's: pods controlled by one of its Jobs. `pod_labels` (the job template's pod
    /// labels) only narrows the watch; ownership decides.
    JobsOf {
        cron_job_uid: String,
        pod_labels: LabelSelector,
        job_labels: LabelSelector,
    },
    /// No pods, and why (for the view to say).
    Nothing(String),
}

/// The pods of one workload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodCoverage {
    pub kind: Option<WorkloadKind>,
    pub name: String,
    pub namespace: String,
    pub rule: PodRule,
    /// A CronJob's Jobs, by uid (see [`PodCoverage::set_jobs`]).
    job_uids: BTreeSet<String>,
}

impl PodCoverage {
    /// Reads `workload` (the whole object); a kind that has no pods covers nothing.
    pub fn of(workload: &Value) -> PodCoverage {
        let meta = ObjectMeta::of_object(workload);
        let kind_text = workload["kind"].as_str().unwrap_or_default();
        let kind = WorkloadKind::from_kind(kind_text);
        let spec = &workload["spec"];
        let rule =
            match kind {
                None => {
                    PodRule::Nothing(format!(
                "Logs are read for Deployments, StatefulSets, DaemonSets, ReplicaSets, Jobs, \
                 CronJobs and Services, not for a {}",
                if kind_text.is_empty() { "kind unknown" } else { kind_text }
            ))
                }
                Some(WorkloadKind::Service) => service_rule(spec),
                Some(WorkloadKind::CronJob) => cron_job_rule(&meta, spec),
                Some(kind) => selector_rule(kind, &spec["selector"]),
            };
        PodCoverage {
            kind,
            name: meta.name,
            namespace: meta.namespace.unwrap_or_else(|| "default".to_string()),
            rule,
            job_uids: BTreeSet::new(),
        }
    }

    /// The pods of `namespace` a label selector matches (`kubectl logs -l app=web`): the logs
    /// of a list filtered by labels.
    pub fn of_label_selector(namespace: &str, selector: &str) -> PodCoverage {
        // An empty selector matches every pod: logs of a whole namespace are not asked here.
        let rule = if selector.trim().is_empty() {
            PodRule::Nothing("Choose pods by a label selector first".to_string())
        } else {
            match crate::list::selector::parse_label_selector(selector) {
                Ok(parsed) => PodRule::Labels(parsed),
                Err(error) => PodRule::Nothing(format!("Not a label selector: {error}")),
            }
        };
        PodCoverage {
            kind: None,
            name: selector.trim().to_string(),
            namespace: namespace.to_string(),
            rule,
            job_uids: BTreeSet::new(),
        }
    }

    /// Why no pods are covered, when none can be.
    pub fn nothing_reason(&self) -> Option<&str> {
        match &self.rule {
            PodRule::Nothing(reason) => Some(reason),
            _ => None,
        }
    }

    /// The namespace's pods: the collection to list and watch.
    pub fn pods_path(&self) -> String {
        format!(
            "/api/v1/namespaces/{}/pods",
            encode_path_segment(&self.namespace)
        )
    }

    /// The `labelSelector` of the pods' list and watch (`""`: all the namespace's pods);
    /// `None` when nothing is covered, so nothing need be asked.
    pub fn label_selector(&self) -> Option<String> {
        match &self.rule {
            PodRule::Labels(selector) => Some(selector.to_string()),
            PodRule::JobsOf { pod_labels, .. } => Some(pod_labels.to_string()),
            PodRule::Nothing(_) => None,
        }
    }

    /// For a CronJob: the Jobs' collection and label selector to watch, to learn its Jobs.
    pub fn jobs_watch(&self) -> Option<(String, String)> {
        let PodRule::JobsOf { job_labels, .. } = &self.rule else {
            return None;
        };
        let path = format!(
            "/apis/batch/v1/namespaces/{}/jobs",
            encode_path_segment(&self.namespace)
        );
        Some((path, job_labels.to_string()))
    }

    /// Takes the namespace's Jobs (a watch snapshot) and keeps those the CronJob controls;
    /// true when they changed. Nothing for other kinds.
    pub fn set_jobs<'a>(&mut self, jobs: impl IntoIterator<Item = &'a Value>) -> bool {
        let PodRule::JobsOf { cron_job_uid, .. } = &self.rule else {
            return false;
        };
        let uids: BTreeSet<String> = jobs
            .into_iter()
            .filter(|job| controller_uid(job) == Some(cron_job_uid.as_str()))
            .filter_map(|job| job["metadata"]["uid"].as_str().map(str::to_string))
            .collect();
        let changed = uids != self.job_uids;
        self.job_uids = uids;
        changed
    }

    /// Whether `pod` is one of the workload's.
    pub fn covers(&self, pod: &Value) -> bool {
        let pod_namespace = pod["metadata"]["namespace"].as_str();
        if pod_namespace.is_some_and(|ns| ns != self.namespace) {
            return false;
        }
        match &self.rule {
            PodRule::Labels(selector) => selector.matches(&ObjectMeta::of_object(pod).labels),
            PodRule::JobsOf { .. } => {
                controller_uid(pod).is_some_and(|owner| self.job_uids.contains(owner))
            }
            PodRule::Nothing(_) => false,
        }
    }
}

fn selector_rule(kind: WorkloadKind, selector: &Value) -> PodRule {
    let kind = kind.kind();
    if !selector.is_object() {
        return PodRule::Nothing(format!(
            "This {kind} has no selector, so no pods are its own"
        ));
    }
    match LabelSelector::from_api(selector) {
        // The API server refuses an empty selector for these kinds; one that got through
        // would match every pod of the namespace, which is not this workload's logs.
        Ok(selector) if selector.is_empty() => PodRule::Nothing(format!(
            "This {kind}'s selector is empty: it would match every pod in the namespace"
        )),
        Ok(selector) => PodRule::Labels(selector),
        Err(problem) => PodRule::Nothing(format!("This {kind}'s selector is not valid: {problem}")),
    }
}

fn service_rule(spec: &Value) -> PodRule {
    let selector = &spec["selector"];
    let empty = selector.as_object().is_none_or(|map| map.is_empty());
    if empty {
        return PodRule::Nothing(
            "This Service has no selector: its endpoints are set by hand or by another \
             controller, so no pods are its own"
                .to_string(),
        );
    }
    match LabelSelector::from_api(&json!({ "matchLabels": selector })) {
        Ok(selector) => PodRule::Labels(selector),
        Err(problem) => {
            PodRule::Nothing(format!("This Service's selector is not valid: {problem}"))
        }
    }
}

fn cron_job_rule(meta: &ObjectMeta, spec: &Value) -> PodRule {
    let Some(uid) = meta.uid.clone() else {
        return PodRule::Nothing("This CronJob has no uid, so its Jobs cannot be told".into());
    };
    // Labels of templates: a label selector of `matchLabels` only, which cannot fail; a
    // malformed template narrows nothing (ownership still decides).
    let labels_of = |template_labels: &Value| {
        LabelSelector::from_api(&json!({ "matchLabels": template_labels })).unwrap_or_default()
    };
    PodRule::JobsOf {
        cron_job_uid: uid,
        pod_labels: labels_of(&spec["jobTemplate"]["spec"]["template"]["metadata"]["labels"]),
        job_labels: labels_of(&spec["jobTemplate"]["metadata"]["labels"]),
    }
}
