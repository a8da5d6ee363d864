//! Usage rules, where the metrics API gives evidence: a container near its memory limit that
//! was OOMKilled, a container at its CPU limit (a throttling candidate), and a node under
//! pressure with the pods that use it most. They take the metrics beside the object, so the
//! rules of [`super::rules`] (which read the object alone) are unchanged; a page that has
//! usage adds these findings to the diagnosis.

use serde_json::Value;

use super::{Evidence, Finding, Health, Subject};
use crate::metrics::decode::{NodeMetrics, PodMetrics, Usage};
use crate::metrics::resources::{
    node_allocatable, percent, usage_cell, Against, Amounts, PodResources, Resource,
    MEMORY_MARK_PERCENT,
};
use crate::object::pointer::Pointer;

/// At or over this share of its CPU limit a container is a throttling candidate (usage is an
/// average over the window: at the limit, the kernel has been holding it back).
pub const CPU_THROTTLE_PERCENT: f64 = 95.0;
/// At or over this share of allocatable a node is under pressure by its usage.
pub const NODE_PRESSURE_PERCENT: f64 = 90.0;
/// How many of a node's pods are named as its top consumers.
pub const TOP_CONSUMERS: usize = 3;

fn text<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.at(pointer).and_then(Value::as_str)
}

fn finding(subject: &Subject, sentence: String, check: String, rule: &'static str) -> Finding {
    Finding {
        subject: subject.clone(),
        health: Health::Warning,
        sentence,
        evidence: Vec::new(),
        check,
        rule,
    }
}

fn usage_evidence(resource: Resource, path: &str, usage: Usage, limits: Amounts) -> Evidence {
    Evidence::Field {
        path: path.to_string(),
        value: usage_cell(resource, usage, Amounts::default(), limits, Against::Limit).text,
    }
}

/// `120Mi of its 128Mi`.
fn of_its(resource: Resource, usage: Usage, limits: Amounts) -> String {
    let limit = resource.of_amounts(limits).unwrap_or_default();
    format!(
        "{} of its {}",
        resource.format(resource.of_usage(usage)),
        resource.format(limit)
    )
}

fn top_check(subject: &Subject) -> String {
    match &subject.namespace {
        Some(ns) => format!("kubectl top pod {} -n {ns} --containers", subject.name),
        None => format!("kubectl top node {}", subject.name),
    }
}

/// A pod's usage findings, from the pod and its latest sample.
pub fn pod_usage_findings(pod: &Value, metrics: &PodMetrics) -> Vec<Finding> {
    let Some(subject) = Subject::of(pod) else {
        return Vec::new();
    };
    let resources = PodResources::of(pod);
    let mut findings = Vec::new();
    for container in &metrics.containers {
        let Some(spec) = resources.container(&container.name) else {
            continue;
        };
        let name = &container.name;
        let usage = container.usage;
        let memory_percent = percent(
            Resource::Memory.of_usage(usage),
            Resource::Memory.of_amounts(spec.limits),
        );
        let status = pod
            .at("/status/containerStatuses")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|s| text(s, "/name") == Some(name.as_str()));
        let oom = status.and_then(|s| {
            ["/lastState/terminated", "/state/terminated"]
                .into_iter()
                .filter_map(|p| s.at(p))
                .find(|t| text(t, "/reason") == Some("OOMKilled"))
        });
        if let (Some(share), Some(killed), Some(status)) = (memory_percent, oom, status) {
            if share > MEMORY_MARK_PERCENT {
                let mut f = finding(
                    &subject,
                    format!(
                        "container {name} was OOMKilled and uses {} memory limit ({share:.0}%) again: it will be killed again unless the limit is raised or its use falls",
                        of_its(Resource::Memory, usage, spec.limits),
                    ),
                    top_check(&subject),
                    "oom-near-limit",
                );
                f.evidence.push(Evidence::ContainerState {
                    container: name.clone(),
                    reason: "OOMKilled".into(),
                    message: text(killed, "/message").unwrap_or_default().to_string(),
                    exit_code: killed.at("/exitCode").and_then(Value::as_i64),
                    last_reason: Some("OOMKilled".into()),
                    restarts: status
                        .at("/restartCount")
                        .and_then(Value::as_i64)
                        .unwrap_or(0),
                });
                f.evidence.push(usage_evidence(
                    Resource::Memory,
                    &format!("containers[{name}].usage.memory"),
                    usage,
                    spec.limits,
                ));
                findings.push(f);
            }
        }
        let cpu_percent = percent(
            Resource::Cpu.of_usage(usage),
            Resource::Cpu.of_amounts(spec.limits),
        );
        if let Some(share) = cpu_percent.filter(|p| *p >= CPU_THROTTLE_PERCENT) {
            let mut f = finding(
                &subject,
                format!(
                    "container {name} uses {} CPU limit ({share:.0}%): it is likely throttled",
                    of_its(Resource::Cpu, usage, spec.limits),
                ),
                top_check(&subject),
                "cpu-throttling",
            );
            f.evidence.push(usage_evidence(
                Resource::Cpu,
                &format!("containers[{name}].usage.cpu"),
                usage,
                spec.limits,
            ));
            findings.push(f);
        }
    }
    findings
}

/// A node's usage finding: under pressure (a pressure condition that is True, or usage at
/// [`NODE_PRESSURE_PERCENT`] of allocatable) with its top consumers, the pods bound to it
/// (`pods`, by `spec.nodeName`) that use most of the pressed resource.
pub fn node_usage_findings(
    node: &Value,
    usage: &NodeMetrics,
    pods: &[Value],
    pod_metrics: &[PodMetrics],
) -> Vec<Finding> {
    let Some(subject) = Subject::of(node) else {
        return Vec::new();
    };
    let allocatable = node_allocatable(node);
    let condition_true = |type_: &str| {
        node.at("/status/conditions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|c| text(c, "/type") == Some(type_) && text(c, "/status") == Some("True"))
    };
    let mut findings = Vec::new();
    for resource in [Resource::Memory, Resource::Cpu] {
        let used = resource.of_usage(usage.usage);
        let share = percent(used, resource.of_amounts(allocatable));
        let by_usage = share.is_some_and(|p| p >= NODE_PRESSURE_PERCENT);
        let by_condition = resource == Resource::Memory && condition_true("MemoryPressure");
        if !by_usage && !by_condition {
            continue;
        }
        let mut consumers: Vec<(String, f64)> = pods
            .iter()
            .filter(|p| text(p, "/spec/nodeName") == Some(subject.name.as_str()))
            .filter_map(|p| {
                let ns = text(p, "/metadata/namespace")?;
                let name = text(p, "/metadata/name")?;
                let m = pod_metrics
                    .iter()
                    .find(|m| m.namespace == ns && m.name == name)?;
                Some((format!("{ns}/{name}"), resource.of_usage(m.usage())))
            })
            .collect();
        consumers.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        consumers.truncate(TOP_CONSUMERS);
        let amount = usage_cell(
            resource,
            usage.usage,
            Amounts::default(),
            allocatable,
            Against::Allocatable,
        );
        let how = match share {
            Some(p) => format!("{} ({p:.0}%)", amount.text),
            None => amount.text.clone(),
        };
        let top = if consumers.is_empty() {
            "no pod on it reports usage".to_string()
        } else {
            let named: Vec<String> = consumers
                .iter()
                .map(|(pod, v)| format!("{pod} {}", resource.format(*v)))
                .collect();
            format!("its top consumers: {}", named.join(", "))
        };
        let mut f = finding(
            &subject,
            format!(
                "is under {} pressure, {how}; {top}",
                resource.label().to_lowercase()
            ),
            "kubectl top pods -A --sort-by=".to_string()
                + if resource == Resource::Cpu {
                    "cpu"
                } else {
                    "memory"
                },
            "node-usage-pressure",
        );
        f.evidence.push(Evidence::Field {
            path: format!("usage.{}", resource.label().to_lowercase()),
            value: amount.text,
        });
        findings.push(f);
    }
    findings
}
