//! Tests of [`crate::metrics::resources`].

use crate::metrics::decode::Usage;
use crate::metrics::resources::*;
use serde_json::json;

#[test]
fn cells_read_as_the_issue_writes_them() {
    let requests = Amounts {
        cpu_millis: Some(100),
        memory_bytes: Some(64 << 20),
    };
    let limits = Amounts {
        cpu_millis: Some(500),
        memory_bytes: Some(128 << 20),
    };
    let usage = Usage::new(120_000_000, 64 << 20);
    let cpu = usage_cell(Resource::Cpu, usage, requests, limits, Against::Limit);
    assert_eq!(cpu.text, "120m / 500m limit");
    assert_eq!(cpu.percent, Some(24.0));
    assert!(!cpu.marked);
    let memory = usage_cell(Resource::Memory, usage, requests, limits, Against::Limit);
    assert_eq!(memory.text, "64Mi / 128Mi limit");
    assert_eq!(memory.percent, Some(50.0));
    // Over 90 % of a memory limit is marked; 90 % itself is not.
    let near = Usage::new(0, 116 << 20);
    assert!(usage_cell(Resource::Memory, near, requests, limits, Against::Limit).marked);
    let small = Amounts {
        cpu_millis: None,
        memory_bytes: Some(1000),
    };
    let at = usage_cell(
        Resource::Memory,
        Usage::new(0, 900),
        requests,
        small,
        Against::Limit,
    );
    assert_eq!((at.percent, at.marked), (Some(90.0), false));
    assert!(
        usage_cell(
            Resource::Memory,
            Usage::new(0, 901),
            requests,
            small,
            Against::Limit
        )
        .marked
    );
    // CPU at its limit is not marked (throttled, not killed).
    let busy = Usage::new(500_000_000, 0);
    assert!(!usage_cell(Resource::Cpu, busy, requests, limits, Against::Limit).marked);
    // No limit: the request is shown, no percent; nothing at all: the usage alone.
    let no_limit = usage_cell(
        Resource::Cpu,
        usage,
        requests,
        Amounts::default(),
        Against::Limit,
    );
    assert_eq!(
        (no_limit.text.as_str(), no_limit.percent),
        ("120m / 100m request", None)
    );
    let bare = usage_cell(
        Resource::Cpu,
        usage,
        Amounts::default(),
        Amounts::default(),
        Against::Limit,
    );
    assert_eq!(bare.text, "120m");
    // A node against allocatable: percent, never marked.
    let allocatable = Amounts {
        cpu_millis: Some(8000),
        memory_bytes: Some(32 << 30),
    };
    let node = usage_cell(
        Resource::Memory,
        Usage::new(0, 31 << 30),
        Amounts::default(),
        allocatable,
        Against::Allocatable,
    );
    assert_eq!(node.text, "31Gi / 32Gi allocatable");
    assert!(!node.marked);
}

#[test]
fn pod_sums_as_kubectl_describe() {
    let pod = json!({"spec": {
        "initContainers": [
            {"name": "setup", "resources": {"requests": {"cpu": "2"}}},
            {"name": "proxy", "restartPolicy": "Always",
             "resources": {"requests": {"cpu": "50m", "memory": "32Mi"},
                           "limits": {"cpu": "100m", "memory": "64Mi"}}}],
        "containers": [
            {"name": "app", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                                          "limits": {"cpu": "0.5", "memory": "128Mi"}}},
            {"name": "log", "resources": {"requests": {"memory": "16Mi"}}}]}});
    let resources = PodResources::of(&pod);
    let names: Vec<&str> = resources
        .containers
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["app", "log", "proxy"]);
    assert_eq!(resources.requests.cpu_millis, Some(150));
    assert_eq!(resources.requests.memory_bytes, Some(112 << 20));
    // `log` has no limits: the pod has none.
    assert_eq!(resources.limits, Amounts::default());
    assert_eq!(
        resources.container("app").map(|c| c.limits.cpu_millis),
        Some(Some(500))
    );
    let no_log = json!({"spec": {"containers": [
        {"name": "a", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}},
        {"name": "b", "resources": {"limits": {"cpu": "250m", "memory": "512Mi"}}}]}});
    let both = PodResources::of(&no_log);
    assert_eq!(both.limits.cpu_millis, Some(1250));
    assert_eq!(both.limits.memory_bytes, Some(1536 << 20));
    assert_eq!(both.requests, Amounts::default());
    assert_eq!(PodResources::of(&json!({})).containers.len(), 0);
    assert_eq!(percent(1.0, Some(0.0)), None);
}
