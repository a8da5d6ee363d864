//! What is wrong with one object, from its own status and the Event objects about it: a small
//! table of kind-specific rules (pods, workloads, jobs, claims, nodes) on a generic core (a
//! `Ready` or `Available` condition that is not `True`, which custom resources follow too).

use serde_json::Value;

use super::scheduling::parse_scheduling_failure;
use super::{Evidence, Finding, Health, Subject};
use crate::object::events::EventRecord;
use crate::object::page::terminating;
use crate::object::pointer::Pointer;
use crate::time::age::{parse_timestamp, EpochMillis};

/// Waiting reasons of a container that will not get better by waiting.
const FAILING_WAIT_REASONS: [&str; 6] = [
    "ImagePullBackOff",
    "ErrImagePull",
    "InvalidImageName",
    "CrashLoopBackOff",
    "CreateContainerConfigError",
    "CreateContainerError",
];

/// A deletion this much past its grace period is stuck (a finalizer, a gone node).
const STUCK_TERMINATING_MS: EpochMillis = 60_000;

fn text<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.at(pointer).and_then(Value::as_str)
}

fn number(value: &Value, pointer: &str) -> Option<i64> {
    value.at(pointer).and_then(Value::as_i64)
}

fn conditions(object: &Value) -> impl Iterator<Item = &Value> {
    object
        .at("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn condition<'a>(object: &'a Value, type_: &str) -> Option<&'a Value> {
    conditions(object).find(|c| text(c, "/type") == Some(type_))
}

fn condition_evidence(condition: &Value) -> Evidence {
    Evidence::Condition {
        type_: text(condition, "/type").unwrap_or_default().to_string(),
        status: text(condition, "/status").unwrap_or_default().to_string(),
        reason: text(condition, "/reason").unwrap_or_default().to_string(),
        message: text(condition, "/message").unwrap_or_default().to_string(),
        since: text(condition, "/lastTransitionTime").map(str::to_string),
    }
}

fn event_evidence(event: &EventRecord) -> Evidence {
    Evidence::Event {
        reason: event.reason.clone(),
        message: event.message.clone(),
        count: event.count,
        last_seen_ms: event.last_seen_ms,
        warning: event.event_type.is_warning(),
    }
}

/// The newest Warning Event about `subject` with one of `reasons`.
fn warning<'a>(
    events: &'a [EventRecord],
    subject: &Subject,
    reasons: &[&str],
) -> Option<&'a EventRecord> {
    events
        .iter()
        .filter(|e| e.event_type.is_warning() && subject.is_regarded_by(e))
        .filter(|e| reasons.contains(&e.reason.as_str()))
        .max_by_key(|e| e.last_seen_ms)
}

/// Every finding about `object` alone, at wall-clock time `now`.
pub fn object_findings(object: &Value, events: &[EventRecord], now: EpochMillis) -> Vec<Finding> {
    let Some(subject) = Subject::of(object) else {
        return Vec::new();
    };
    let mut findings = match subject.kind.as_str() {
        "Pod" => pod_findings(object, &subject, events),
        "Deployment" => deployment_findings(object, &subject),
        "ReplicaSet" | "ReplicationController" => replica_set_findings(object, &subject, events),
        "StatefulSet" | "DaemonSet" => rollout_findings(object, &subject),
        "Job" => job_findings(object, &subject, events),
        "PersistentVolumeClaim" => claim_findings(object, &subject, events),
        "Node" => node_findings(object, &subject),
        _ => generic_findings(object, &subject),
    };
    if let Some(stuck) = stuck_terminating(object, &subject, now) {
        findings.push(stuck);
    }
    findings
}

fn finding(subject: &Subject, health: Health, sentence: String, check: String) -> Finding {
    Finding {
        subject: subject.clone(),
        health,
        sentence,
        evidence: Vec::new(),
        check,
        rule: "",
    }
}

fn describe_check(subject: &Subject) -> String {
    subject.kubectl("describe")
}

fn pod_findings(pod: &Value, subject: &Subject, events: &[EventRecord]) -> Vec<Finding> {
    let mut findings = Vec::new();
    if let Some(scheduled) = condition(pod, "PodScheduled") {
        if text(scheduled, "/status") == Some("False")
            && text(scheduled, "/reason") == Some("Unschedulable")
        {
            let message = text(scheduled, "/message").unwrap_or_default();
            let why = parse_scheduling_failure(message)
                .map(|f| f.summary())
                .unwrap_or_else(|| message.to_string());
            let mut f = finding(
                subject,
                Health::Failing,
                format!("cannot be scheduled: {why}"),
                format!(
                    "kubectl get events -n {} --field-selector involvedObject.name={},reason=FailedScheduling",
                    subject.namespace.as_deref().unwrap_or("default"),
                    subject.name
                ),
            );
            f.rule = "unschedulable";
            f.evidence.push(condition_evidence(scheduled));
            if let Some(event) = warning(events, subject, &["FailedScheduling"]) {
                f.evidence.push(event_evidence(event));
            }
            findings.push(f);
        }
    }
    let statuses = ["/status/initContainerStatuses", "/status/containerStatuses"]
        .into_iter()
        .flat_map(|p| pod.at(p).and_then(Value::as_array).into_iter().flatten());
    for status in statuses {
        let container = text(status, "/name").unwrap_or_default();
        let restarts = number(status, "/restartCount").unwrap_or(0);
        let Some(reason) = text(status, "/state/waiting/reason") else {
            continue;
        };
        if !FAILING_WAIT_REASONS.contains(&reason) {
            continue;
        }
        let message = text(status, "/state/waiting/message").unwrap_or_default();
        let image = text(status, "/image").unwrap_or_default();
        let last = status.at("/lastState/terminated");
        let (sentence, rule, check) = match reason {
            "CrashLoopBackOff" => {
                let exit = last.and_then(|t| number(t, "/exitCode"));
                let why = last.and_then(|t| text(t, "/reason")).unwrap_or("Error");
                let exit_text = exit.map(|c| format!(" with code {c}")).unwrap_or_default();
                (
                    format!(
                        "container {container} keeps crashing: it exited{exit_text} ({why}) and was restarted {restarts} {}",
                        if restarts == 1 { "time" } else { "times" }
                    ),
                    "crash-loop",
                    format!("{} --previous -c {container}", subject.kubectl("logs")),
                )
            }
            "ImagePullBackOff" | "ErrImagePull" | "InvalidImageName" => (
                format!("container {container} cannot pull its image {image}"),
                "image-pull",
                describe_check(subject),
            ),
            _ => (
                format!("container {container} cannot be created: {message}"),
                "container-config",
                describe_check(subject),
            ),
        };
        let mut f = finding(subject, Health::Failing, sentence, check);
        f.rule = rule;
        f.evidence.push(Evidence::ContainerState {
            container: container.to_string(),
            reason: reason.to_string(),
            message: message.to_string(),
            exit_code: last.and_then(|t| number(t, "/exitCode")),
            last_reason: last.and_then(|t| text(t, "/reason")).map(str::to_string),
            restarts,
        });
        let why = match rule {
            "crash-loop" => warning(events, subject, &["BackOff"]),
            // The Event that says why the pull failed, not the kubelet's later
            // "Error: ImagePullBackOff".
            "image-pull" => events
                .iter()
                .filter(|e| subject.is_regarded_by(e) && e.event_type.is_warning())
                .filter(|e| e.message.starts_with("Failed to pull image"))
                .max_by_key(|e| e.last_seen_ms)
                .or_else(|| {
                    warning(
                        events,
                        subject,
                        &["Failed", "InspectFailed", "ErrImageNeverPull"],
                    )
                }),
            _ => warning(events, subject, &["Failed"]),
        };
        f.evidence.extend(why.map(event_evidence));
        findings.push(f);
    }
    if findings.is_empty() {
        if let Some(event) = warning(events, subject, &["Unhealthy"]) {
            let ready = condition(pod, "Ready");
            if ready.is_some_and(|c| text(c, "/status") != Some("True")) {
                let mut f = finding(
                    subject,
                    Health::Warning,
                    format!("is not ready: {}", event.message),
                    describe_check(subject),
                );
                f.rule = "probe";
                f.evidence.extend(ready.map(condition_evidence));
                f.evidence.push(event_evidence(event));
                findings.push(f);
            }
        }
    }
    if findings.is_empty() && text(pod, "/status/phase") == Some("Failed") {
        let reason = text(pod, "/status/reason").unwrap_or("Failed");
        let mut f = finding(
            subject,
            Health::Failing,
            format!(
                "failed ({reason}): {}",
                text(pod, "/status/message").unwrap_or_default()
            ),
            describe_check(subject),
        );
        f.rule = "pod-failed";
        findings.push(f);
    }
    findings
}

fn deployment_findings(deployment: &Value, subject: &Subject) -> Vec<Finding> {
    let mut findings = Vec::new();
    if let Some(progressing) = condition(deployment, "Progressing") {
        if text(progressing, "/status") == Some("False") {
            let mut f = finding(
                subject,
                Health::Failing,
                format!(
                    "its rollout is stuck: {}",
                    text(progressing, "/message").unwrap_or_default()
                ),
                subject.kubectl("rollout status"),
            );
            f.rule = "rollout-stuck";
            f.evidence.push(condition_evidence(progressing));
            findings.push(f);
        }
    }
    findings.extend(replica_failure(deployment, subject, &[]));
    if findings.is_empty() {
        findings.extend(rollout_findings(deployment, subject));
    }
    findings
}

fn replica_set_findings(set: &Value, subject: &Subject, events: &[EventRecord]) -> Vec<Finding> {
    let mut findings: Vec<Finding> = replica_failure(set, subject, events).into_iter().collect();
    if findings.is_empty() {
        findings.extend(rollout_findings(set, subject));
    }
    findings
}

/// A controller that cannot create its pods (quota, admission, PodSecurity): its
/// `ReplicaFailure` condition, with the FailedCreate Event when there is one.
fn replica_failure(workload: &Value, subject: &Subject, events: &[EventRecord]) -> Option<Finding> {
    let failure =
        condition(workload, "ReplicaFailure").filter(|c| text(c, "/status") == Some("True"))?;
    let mut f = finding(
        subject,
        Health::Failing,
        format!(
            "cannot create its pods: {}",
            text(failure, "/message").unwrap_or_default()
        ),
        describe_check(subject),
    );
    f.rule = "replica-failure";
    f.evidence.push(condition_evidence(failure));
    f.evidence
        .extend(warning(events, subject, &["FailedCreate"]).map(event_evidence));
    Some(f)
}

/// Fewer pods ready than wanted: progressing (the owned pods say why, if anything is wrong).
fn rollout_findings(workload: &Value, subject: &Subject) -> Vec<Finding> {
    let (wanted, ready) = if subject.kind == "DaemonSet" {
        (
            number(workload, "/status/desiredNumberScheduled").unwrap_or(0),
            number(workload, "/status/numberReady").unwrap_or(0),
        )
    } else {
        (
            number(workload, "/spec/replicas").unwrap_or(1),
            number(workload, "/status/readyReplicas").unwrap_or(0),
        )
    };
    if ready >= wanted {
        return Vec::new();
    }
    let mut f = finding(
        subject,
        Health::Progressing,
        format!("{ready} of {wanted} pods are ready"),
        subject.kubectl("get"),
    );
    f.rule = "not-all-ready";
    f.evidence.push(Evidence::Field {
        path: "status".into(),
        value: format!("{ready}/{wanted} ready"),
    });
    vec![f]
}

fn job_findings(job: &Value, subject: &Subject, events: &[EventRecord]) -> Vec<Finding> {
    let Some(failed) = condition(job, "Failed").filter(|c| text(c, "/status") == Some("True"))
    else {
        return Vec::new();
    };
    let mut f = finding(
        subject,
        Health::Failing,
        format!(
            "failed ({}): {}",
            text(failed, "/reason").unwrap_or("Failed"),
            text(failed, "/message").unwrap_or_default()
        ),
        describe_check(subject),
    );
    f.rule = "job-failed";
    f.evidence.push(condition_evidence(failed));
    if let Some(event) = warning(
        events,
        subject,
        &["BackoffLimitExceeded", "DeadlineExceeded"],
    ) {
        f.evidence.push(event_evidence(event));
    }
    vec![f]
}

fn claim_findings(claim: &Value, subject: &Subject, events: &[EventRecord]) -> Vec<Finding> {
    if text(claim, "/status/phase") != Some("Pending") {
        return Vec::new();
    }
    let waiting = events
        .iter()
        .filter(|e| subject.is_regarded_by(e) && e.reason == "WaitForFirstConsumer")
        .max_by_key(|e| e.last_seen_ms);
    let failed = warning(events, subject, &["ProvisioningFailed"]);
    let no_class = claim
        .at("/spec/storageClassName")
        .is_none_or(Value::is_null)
        && failed.is_none();
    let (health, sentence, rule) = match (waiting, failed) {
        (_, Some(event)) => (
            Health::Failing,
            format!("cannot be provisioned: {}", event.message),
            "claim-provisioning",
        ),
        (Some(_), None) => (
            Health::Progressing,
            "waits for a pod to use it before a volume is provisioned (WaitForFirstConsumer)"
                .to_string(),
            "claim-waits-for-consumer",
        ),
        (None, None) if no_class => (
            Health::Warning,
            "is Pending with no StorageClass: it waits for a matching PersistentVolume".to_string(),
            "claim-no-class",
        ),
        (None, None) => (
            Health::Warning,
            "is Pending: no volume is bound to it yet".to_string(),
            "claim-pending",
        ),
    };
    let mut f = finding(subject, health, sentence, describe_check(subject));
    f.rule = rule;
    f.evidence.extend(waiting.or(failed).map(event_evidence));
    vec![f]
}

fn node_findings(node: &Value, subject: &Subject) -> Vec<Finding> {
    let mut findings = Vec::new();
    if let Some(ready) = condition(node, "Ready") {
        if text(ready, "/status") != Some("True") {
            let mut f = finding(
                subject,
                Health::Failing,
                format!(
                    "is not ready: {}",
                    text(ready, "/message").unwrap_or("its kubelet stopped posting status")
                ),
                describe_check(subject),
            );
            f.rule = "node-not-ready";
            f.evidence.push(condition_evidence(ready));
            findings.push(f);
        }
    }
    for pressure in [
        "MemoryPressure",
        "DiskPressure",
        "PIDPressure",
        "NetworkUnavailable",
    ] {
        if let Some(c) = condition(node, pressure).filter(|c| text(c, "/status") == Some("True")) {
            let mut f = finding(
                subject,
                Health::Warning,
                format!(
                    "reports {pressure}: {}",
                    text(c, "/message").unwrap_or_default()
                ),
                describe_check(subject),
            );
            f.rule = "node-pressure";
            f.evidence.push(condition_evidence(c));
            findings.push(f);
        }
    }
    if node.at("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
        let mut f = finding(
            subject,
            Health::Warning,
            "is cordoned: no new pod is scheduled to it".into(),
            format!("kubectl uncordon {}", subject.name),
        );
        f.rule = "node-cordoned";
        findings.push(f);
    }
    findings
}

/// Any kind, custom resources included: a `Ready` condition that is False fails; an
/// `Available` one that is False warns.
fn generic_findings(object: &Value, subject: &Subject) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (type_, health) in [("Ready", Health::Failing), ("Available", Health::Warning)] {
        if let Some(c) = condition(object, type_).filter(|c| text(c, "/status") == Some("False")) {
            let reason = text(c, "/reason").unwrap_or_default();
            let message = text(c, "/message").unwrap_or_default();
            let mut f = finding(
                subject,
                health,
                format!("is not {}: {reason} {message}", type_.to_lowercase())
                    .trim_end()
                    .to_string(),
                describe_check(subject),
            );
            f.rule = "condition-false";
            f.evidence.push(condition_evidence(c));
            findings.push(f);
        }
    }
    findings
}

fn stuck_terminating(object: &Value, subject: &Subject, now: EpochMillis) -> Option<Finding> {
    let deletion = terminating(object)?;
    let since = parse_timestamp(&deletion.since)?;
    let grace_ms = number(object, "/metadata/deletionGracePeriodSeconds").unwrap_or(0) * 1000;
    if now - since < grace_ms + STUCK_TERMINATING_MS {
        return None;
    }
    let why = match deletion.waiting_for.strip_prefix("finalizers: ") {
        Some(finalizers) => format!("finalizers hold it: {finalizers}"),
        None => "its node has not confirmed it stopped (is the node gone?)".to_string(),
    };
    let mut f = finding(
        subject,
        Health::Warning,
        format!("is stuck terminating: {why}"),
        format!(
            "{} -o jsonpath='{{.metadata.finalizers}}'",
            subject.kubectl("get")
        ),
    );
    f.rule = "stuck-terminating";
    f.evidence.push(Evidence::Field {
        path: "metadata.deletionTimestamp".into(),
        value: deletion.since,
    });
    Some(f)
}
