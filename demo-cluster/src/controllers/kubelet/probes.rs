//! Readiness probes: a container of an `unready` image with a readiness probe fails it, every
//! `periodSeconds` after `initialDelaySeconds`, with the prober's output for its kind of probe
//! (Unhealthy Events); others are not probed (they pass).

use std::time::Instant;

use serde_json::Value;

use super::images::is_unready_image;
use super::pods::{container_spec, Runtime};
use super::Kubelet;
use crate::controllers::events::EventSpec;

/// The containers whose readiness probe fails, with the probe's failure output.
pub(super) fn failing_readiness_probes(pod: &Value, pod_ip: &str) -> Vec<(String, String)> {
    pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["image"].as_str().is_some_and(is_unready_image))
        .filter(|c| c["readinessProbe"].is_object())
        .map(|c| {
            (
                c["name"].as_str().unwrap_or_default().to_string(),
                probe_failure(c, pod_ip),
            )
        })
        .collect()
}

/// The prober's output for a failed probe of `container`, by the probe's kind (an exec
/// probe's is its command's output, empty here).
fn probe_failure(container: &Value, pod_ip: &str) -> String {
    let probe = &container["readinessProbe"];
    // A named port is the container's port of that name, as the prober resolves it.
    let port = |handler: &Value| match &handler["port"] {
        Value::String(name) => container["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["name"] == name.as_str())
            .map(|p| p["containerPort"].to_string())
            .unwrap_or_else(|| name.clone()),
        number => number.to_string(),
    };
    if probe["httpGet"].is_object() {
        "HTTP probe failed with statuscode: 503".to_string()
    } else if probe["tcpSocket"].is_object() {
        format!(
            "dial tcp {pod_ip}:{}: connect: connection refused",
            port(&probe["tcpSocket"])
        )
    } else if probe["grpc"].is_object() {
        format!(
            "timeout: failed to connect service \"{pod_ip}:{}\" within 1s",
            port(&probe["grpc"])
        )
    } else {
        String::new()
    }
}

/// A readiness probe's period (the API's default: 10 s).
fn probe_period_seconds(pod: &Value, container: &str) -> f64 {
    container_spec(pod, container)
        .and_then(|c| c["readinessProbe"]["periodSeconds"].as_f64())
        .unwrap_or(10.0)
        .max(1.0)
}

impl Kubelet {
    /// When a failing readiness probe first runs: after its `initialDelaySeconds`.
    pub(super) fn first_probe(&self, pod: &Value, rt: &Runtime) -> Option<Instant> {
        let (container, _) = failing_readiness_probes(pod, &rt.pod_ip)
            .into_iter()
            .next()?;
        let delay = container_spec(pod, &container)
            .and_then(|c| c["readinessProbe"]["initialDelaySeconds"].as_f64())
            .unwrap_or(0.0);
        Some(Instant::now() + self.ctx.scaled(delay.max(0.5)))
    }

    /// A failing readiness probe ran: the prober's Unhealthy Event (aggregated into a count
    /// as it repeats), and the next run a period later.
    pub(super) fn probe_readiness(&mut self, pod: &Value, rt: &mut Runtime) {
        let failing = failing_readiness_probes(pod, &rt.pod_ip);
        let mut period = f64::MAX;
        for (container, output) in &failing {
            self.record(
                pod,
                container,
                EventSpec::warning("Unhealthy", format!("Readiness probe failed: {output}")),
            );
            period = period.min(probe_period_seconds(pod, container));
        }
        rt.next_probe = (!failing.is_empty()).then(|| Instant::now() + self.ctx.scaled(period));
    }
}
