//! Simulated usage for the metrics API (`metrics.k8s.io/v1beta1`, served by
//! [`crate::http::metrics`]), as a metrics-server would report it: made up from each
//! container's pod uid and name and the time, so it repeats and moves slowly (a ten-minute
//! swing of about a quarter), sized from the container's requests (and kept under its memory
//! limit). Samples change once per scrape window (15 s), like metrics-server's. In churn mode
//! (`--churn`) a load spike comes every two minutes for 30 s: CPU ×3, memory ×1.3. A node's
//! usage is its system's own plus its running pods'.

use kube_atlas_model::metrics::quantity::{cpu_millis, whole_units};
use serde_json::Value;

/// How often samples change (metrics-server's default `--metric-resolution`).
pub const SCRAPE_SECONDS: i64 = 15;
/// The windows reported, as the stand-in metrics-server writes them.
pub const POD_WINDOW: &str = "10.5s";
pub const NODE_WINDOW: &str = "20.05s";
/// The load spike of churn mode: every this many seconds…
const SPIKE_PERIOD_SECONDS: i64 = 120;
/// …for this long.
const SPIKE_SECONDS: i64 = 30;
/// The slow swing's period.
const SWING_SECONDS: f64 = 600.0;
/// What a "chatty" container uses besides its usual share, in millicores.
const CHATTY_EXTRA_MILLIS: f64 = 300.0;

/// What the simulation depends on besides the objects.
#[derive(Debug, Clone, Copy, Default)]
pub struct Simulation {
    /// Churn mode is on: load spikes.
    pub churn: bool,
}

/// One container's usage: nanocores and bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub cpu_nanos: i64,
    pub memory_bytes: i64,
}

fn hash_of(parts: &[&str]) -> u64 {
    // FNV-1a: the same on every run and platform (std's hasher is seeded per process).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain([0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// A number in [0, 1) from a hash and a salt (splitmix64's finaliser).
fn unit(h: u64, salt: u64) -> f64 {
    let mut z = h ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

impl Simulation {
    /// The sample's time: the start of the scrape window `now` (seconds since the epoch) is in.
    pub fn sample_time(now: i64) -> i64 {
        now.div_euclid(SCRAPE_SECONDS) * SCRAPE_SECONDS
    }

    /// Whether churn mode's load spike is on at `now`.
    pub fn spiking(&self, now: i64) -> bool {
        self.churn && now.rem_euclid(SPIKE_PERIOD_SECONDS) < SPIKE_SECONDS
    }

    /// One container's usage at `now` (seconds since the epoch).
    pub fn container_usage(&self, uid: &str, container: &Value, now: i64) -> Usage {
        let name = container["name"].as_str().unwrap_or_default();
        let h = hash_of(&[uid, name]);
        let at = Self::sample_time(now);
        let quantity = |path: &str, parse: fn(&str) -> Option<i64>| {
            container
                .pointer(path)
                .and_then(Value::as_str)
                .and_then(parse)
                .filter(|v| *v > 0)
        };
        // Sized from the request (20-80 % of it), else 5-60m and 16-96Mi.
        let cpu_base_millis = match quantity("/resources/requests/cpu", cpu_millis) {
            Some(request) => request as f64 * (0.2 + 0.6 * unit(h, 1)),
            None => 5.0 + 55.0 * unit(h, 2),
        };
        let memory_base = match quantity("/resources/requests/memory", whole_units) {
            Some(request) => request as f64 * (0.3 + 0.5 * unit(h, 3)),
            None => (16.0 + 80.0 * unit(h, 4)) * 1024.0 * 1024.0,
        };
        let phase = unit(h, 5);
        let swing = |depth: f64| {
            1.0 + depth * (std::f64::consts::TAU * (at as f64 / SWING_SECONDS + phase)).sin()
        };
        let (cpu_spike, memory_spike) = if self.spiking(at) {
            (3.0, 1.3)
        } else {
            (1.0, 1.0)
        };
        let mut cpu = cpu_base_millis * swing(0.25) * cpu_spike * 1e6;
        // A "chatty" image (2,000 log lines a second on the stand-in kubelet) is busy: 300m
        // more, as the stand-in metrics-server reports it.
        if container["image"]
            .as_str()
            .is_some_and(|image| image.contains("chatty"))
        {
            cpu += CHATTY_EXTRA_MILLIS * 1e6;
        }
        let mut memory = memory_base * swing(0.1) * memory_spike;
        // Memory never reaches its limit (the container would be OOMKilled); CPU is held
        // at its limit (throttled).
        if let Some(limit) = quantity("/resources/limits/memory", whole_units) {
            memory = memory.min(limit as f64 * 0.97);
        }
        if let Some(limit) = quantity("/resources/limits/cpu", cpu_millis) {
            cpu = cpu.min(limit as f64 * 1e6);
        }
        Usage {
            cpu_nanos: cpu.round() as i64,
            memory_bytes: (memory / 1024.0).round() as i64 * 1024,
        }
    }

    /// Each running container of a running pod, with its usage; None for a pod that is not
    /// running (metrics-server reports none for it).
    pub fn pod_usage(&self, pod: &Value, now: i64) -> Option<Vec<(String, Usage)>> {
        if pod.pointer("/status/phase").and_then(Value::as_str) != Some("Running")
            || pod.pointer("/metadata/deletionTimestamp").is_some()
        {
            return None;
        }
        let uid = pod
            .pointer("/metadata/uid")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let sidecars = pod
            .pointer("/spec/initContainers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|c| c["restartPolicy"].as_str() == Some("Always"));
        let containers = pod
            .pointer("/spec/containers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .chain(sidecars);
        Some(
            containers
                .map(|c| {
                    (
                        c["name"].as_str().unwrap_or_default().to_string(),
                        self.container_usage(uid, c, now),
                    )
                })
                .collect(),
        )
    }

    /// A node's usage at `now`: its system's own (150-400m, 600-1000Mi) plus its pods'.
    pub fn node_usage<'a>(
        &self,
        node: &str,
        pods: impl IntoIterator<Item = &'a Value>,
        now: i64,
    ) -> Usage {
        let h = hash_of(&[node]);
        let mut total = Usage {
            cpu_nanos: ((150.0 + 250.0 * unit(h, 6)) * 1e6) as i64,
            memory_bytes: ((600.0 + 400.0 * unit(h, 7)) * 1024.0) as i64 * 1024,
        };
        for pod in pods {
            if pod.pointer("/spec/nodeName").and_then(Value::as_str) != Some(node) {
                continue;
            }
            for (_, usage) in self.pod_usage(pod, now).unwrap_or_default() {
                total.cpu_nanos += usage.cpu_nanos;
                total.memory_bytes += usage.memory_bytes;
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(requests: Value, limits: Value) -> Value {
        json!({"metadata": {"uid": "u-1", "name": "p"}, "status": {"phase": "Running"},
               "spec": {"nodeName": "n1", "containers": [
                   {"name": "app", "resources": {"requests": requests, "limits": limits}}]}})
    }

    #[test]
    fn deterministic_slow_and_within_limits() {
        let sim = Simulation::default();
        let p = pod(
            json!({"cpu": "100m", "memory": "64Mi"}),
            json!({"memory": "70Mi"}),
        );
        let at = |t| sim.pod_usage(&p, t).expect("running")[0].1;
        // The same within a scrape window, and the same on every run.
        assert_eq!(at(1_000_005), at(1_000_014));
        assert_eq!(
            at(1_000_005),
            sim.pod_usage(&p.clone(), 1_000_005).expect("running")[0].1
        );
        // Moves slowly: one window to the next changes by a few percent at most.
        let (a, b) = (at(1_000_005), at(1_000_020));
        let change = (a.cpu_nanos - b.cpu_nanos).abs() as f64 / a.cpu_nanos as f64;
        assert!(change < 0.05, "{a:?} {b:?}");
        // Under the memory limit, around the request.
        for t in (0..3600).step_by(15) {
            let u = at(1_000_000 + t);
            assert!(u.memory_bytes < 70 << 20, "{u:?}");
            assert!(
                u.cpu_nanos > 10_000_000 && u.cpu_nanos < 110_000_000,
                "{u:?}"
            );
        }
        // Not running: no metrics.
        let mut pending = p.clone();
        pending["status"]["phase"] = json!("Pending");
        assert_eq!(sim.pod_usage(&pending, 0), None);
    }

    #[test]
    fn churn_mode_spikes() {
        let p = pod(json!({}), json!({}));
        let calm = Simulation { churn: false };
        let churning = Simulation { churn: true };
        // 1_000_080 is 0 s into a two-minute period (1_000_080 % 120 == 0).
        let t = 1_000_080;
        assert!(churning.spiking(t) && !churning.spiking(t + 30) && !calm.spiking(t));
        let calm_usage = calm.pod_usage(&p, t).expect("running")[0].1;
        let spike = churning.pod_usage(&p, t).expect("running")[0].1;
        assert!(
            spike.cpu_nanos > calm_usage.cpu_nanos * 2,
            "{calm_usage:?} {spike:?}"
        );
        assert_eq!(
            churning.pod_usage(&p, t + 45).expect("running")[0].1,
            calm.pod_usage(&p, t + 45).expect("running")[0].1
        );
        // A node sums its pods and its own.
        let node = calm.node_usage("n1", [&p], t);
        let alone = calm.node_usage("n1", [], t);
        assert_eq!(node.cpu_nanos - alone.cpu_nanos, calm_usage.cpu_nanos);
    }
}
