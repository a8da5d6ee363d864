//! Load-mode churn: a steady stream of the writes a busy cluster's pods see, at `rate` object
//! writes per second. About 80% are kubelet status updates (a container restarts, a pod's
//! readiness flips and later recovers), 20% replacements — the replicaset controller deleting
//! a pod and creating its successor in the same ReplicaSet, so the pod count (and the
//! ReplicaSet's view of it) stays put. Events come with them as the real components record
//! them (`BackOff`, `Started`, `Unhealthy`, `SuccessfulCreate`, `SuccessfulDelete`); the
//! scheduler and kubelets then bind, start and finish the pods as usual, adding their own
//! writes and events (`Scheduled`, `Pulled`, `Started`, `Killing`).
//!
//! Writes are spread over each second (a 10 ms tick writing what the elapsed time allows) and
//! every choice comes from a seeded generator, so a run repeats.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::rng::Rng;
use super::workloads::{new_pod, NAMESPACE_PREFIX};
use crate::controllers::events::{EventRecorder, EventSpec};
use crate::controllers::{
    is_deleting, is_pod_ready, name_of, namespace_of, set_condition, uid_of, CONTROLLER_MANAGER,
};
use crate::registry::kinds::ResourceDef;
use crate::registry::{now, DeleteOptions, Registry, WriteOptions};
use crate::storage::object::ObjectKey;

const TICK: Duration = Duration::from_millis(10);
/// How often (at least) the pool of pods to pick from is re-read (new pods become Running
/// meanwhile).
const POOL_REFRESH: Duration = Duration::from_secs(1);
/// The recorder's aggregation keys are dropped this often, so memory stays flat over long
/// runs (a repeat after that starts a new Event instead of bumping the old one).
const RECORDER_RESET: Duration = Duration::from_secs(600);
/// Share of operations that replace a pod (two writes): 1/9 makes creates and deletes 10%
/// of the writes each.
const REPLACE_SHARE: f64 = 1.0 / 9.0;
/// At most this share of the pool is kept not ready at once; flipped pods recover later.
const MAX_UNREADY_SHARE: f64 = 0.02;

/// Which pods churn touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Pods in the load namespaces (`load-*`).
    LoadNamespaces,
    /// Every pod owned by a ReplicaSet.
    AllPods,
}

#[derive(Debug, Clone)]
pub struct ChurnConfig {
    /// Object writes per second (events not counted).
    pub rate: u32,
    pub seed: u64,
    pub scope: Scope,
    /// Deleted pods terminate gracefully, finished by their kubelet; without the simulated
    /// control plane nothing would finish them, so they go at once.
    pub graceful: bool,
}

/// Operations between yields to the runtime, so a churn that cannot keep up (every write
/// is owed at once) still lets the tasks sharing its worker run.
const OPS_PER_YIELD: u32 = 32;

/// Starts churning in the background.
pub fn spawn(registry: Arc<Registry>, config: ChurnConfig) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut churn = Churn::new(registry, &config);
        let mut ticker = tokio::time::interval(TICK);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let rate = f64::from(config.rate);
        let started = Instant::now();
        // Writes made so far; what is owed is the elapsed time's share of `rate` minus these.
        // A backlog beyond the cap is forgiven, so a stall is not made up in one burst.
        let mut made = 0.0f64;
        let cap = (rate / 10.0).max(2.0);
        let owed = |made: f64| started.elapsed().as_secs_f64() * rate - made;
        loop {
            ticker.tick().await;
            made += (owed(made) - cap).max(0.0);
            // Behind (more asked than the machine makes): this loop keeps writing, yielding
            // now and then, instead of sleeping a tick per burst and losing those writes.
            let mut since_yield = 0;
            while owed(made) >= 1.0 {
                made += churn.step() as f64;
                since_yield += 1;
                if since_yield == OPS_PER_YIELD {
                    since_yield = 0;
                    tokio::task::yield_now().await;
                }
            }
        }
    })
}

/// The pods a churn step picks from, and the recorder writing its events.
struct Churn {
    registry: Arc<Registry>,
    pods: Arc<ResourceDef>,
    replica_sets: Arc<ResourceDef>,
    rng: Rng,
    scope: Scope,
    graceful: bool,
    recorder: EventRecorder,
    recorder_since: Instant,
    /// Running, not deleting, ReplicaSet-owned pods in scope (re-read every second).
    pool: Vec<ObjectKey>,
    pool_read: Option<Instant>,
    /// Pods churn made not ready, to be made ready again.
    unready: BTreeSet<ObjectKey>,
}

fn kubelet_status_writer() -> WriteOptions {
    WriteOptions {
        field_manager: "kubelet".into(),
        subresource: "status".into(),
        ..Default::default()
    }
}

/// The ReplicaSet controlling `pod`, by name.
fn owning_replica_set(pod: &Value) -> Option<&str> {
    pod["metadata"]["ownerReferences"]
        .as_array()?
        .iter()
        .find(|r| r["controller"] == true && r["kind"] == "ReplicaSet")?["name"]
        .as_str()
}

impl Churn {
    fn new(registry: Arc<Registry>, config: &ChurnConfig) -> Self {
        let def = |group: &str, resource: &str| match registry.builtin(group, resource) {
            Some(def) => def,
            None => panic!("built-in resource {group}/{resource} is missing"),
        };
        Churn {
            pods: def("", "pods"),
            replica_sets: def("apps", "replicasets"),
            recorder: EventRecorder::new(registry.clone()),
            recorder_since: Instant::now(),
            registry,
            rng: Rng::new(config.seed),
            scope: config.scope,
            graceful: config.graceful,
            pool: vec![],
            pool_read: None,
            unready: BTreeSet::new(),
        }
    }

    /// One operation; returns how many object writes it made (at least 1, so a cluster
    /// without pods does not spin).
    fn step(&mut self) -> usize {
        self.refresh_pool();
        if self.recorder_since.elapsed() >= RECORDER_RESET {
            self.recorder = EventRecorder::new(self.registry.clone());
            self.recorder_since = Instant::now();
        }
        if self.pool.is_empty() {
            return 1;
        }
        if self.rng.chance(REPLACE_SHARE) {
            return self.replace_pod().max(1);
        }
        let cap = ((self.pool.len() as f64 * MAX_UNREADY_SHARE).ceil() as usize).max(1);
        if !self.unready.is_empty() && (self.unready.len() >= cap || self.rng.chance(0.5)) {
            self.recover_pod();
        } else if self.rng.chance(0.5) {
            self.make_unready();
        } else {
            self.restart_container();
        }
        1
    }

    fn refresh_pool(&mut self) {
        // Re-reading is a list of every pod: a big pool is re-read less often (every 10 s at
        // 50,000 pods), so the list does not cost more than the writes it feeds.
        let every = POOL_REFRESH.max(Duration::from_micros(200 * self.pool.len() as u64));
        if self.pool_read.is_some_and(|t| t.elapsed() < every) {
            return;
        }
        self.pool_read = Some(Instant::now());
        let (pods, _) = self.registry.list_shared(&self.pods, None);
        self.pool = pods
            .iter()
            .filter(|p| {
                let in_scope = match self.scope {
                    Scope::LoadNamespaces => namespace_of(p).starts_with(NAMESPACE_PREFIX),
                    Scope::AllPods => true,
                };
                in_scope
                    && p["status"]["phase"] == "Running"
                    && !is_deleting(p)
                    && owning_replica_set(p).is_some()
            })
            .map(|p| ObjectKey::new("", "pods", namespace_of(p), name_of(p)))
            .collect();
        let present: BTreeSet<&ObjectKey> = self.pool.iter().collect();
        self.unready.retain(|k| present.contains(k));
    }

    fn pick(&mut self) -> Option<ObjectKey> {
        self.rng.pick(&self.pool).cloned()
    }

    /// A pod to replace, taken out of the pool (in O(1): the pool's order does not matter,
    /// and scanning 50,000 keys per replacement was a fifth of churn's time).
    fn take(&mut self) -> Option<ObjectKey> {
        if self.pool.is_empty() {
            return None;
        }
        let index = self.rng.below(self.pool.len());
        Some(self.pool.swap_remove(index))
    }

    /// Writes the pod's status as its kubelet; `change` returns the events to record, or
    /// None to leave the pod alone. Returns whether it wrote.
    fn update_status(
        &mut self,
        key: &ObjectKey,
        change: impl Fn(&mut Value, &mut Rng) -> Option<Vec<(String, EventSpec)>>,
    ) -> bool {
        let mut events = vec![];
        let rng = &mut self.rng;
        let written = self.registry.update_with(
            &self.pods,
            &key.namespace,
            &key.name,
            &kubelet_status_writer(),
            |pod| match change(pod, rng) {
                Some(found) => {
                    events = found;
                    Ok(())
                }
                // Not a conflict: update_with would retry it.
                None => Err(crate::errors::ApiError::bad_request("nothing to churn")),
            },
        );
        match written {
            Ok(pod) => {
                let node = pod["spec"]["nodeName"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                for (container, spec) in events {
                    self.recorder.record(
                        &pod,
                        spec.by("kubelet", "kubelet")
                            .on_host(&node)
                            .at_field(format!("spec.containers{{{container}}}")),
                    );
                }
                true
            }
            Err(_) => {
                // Gone or changed meanwhile: the next pool refresh sorts it out.
                self.pool.retain(|k| k != key);
                false
            }
        }
    }

    /// A container exits (OOMKilled or an error) and is started again: restartCount + 1,
    /// lastState.terminated, a new container id; `BackOff` (sometimes) and `Started`.
    fn restart_container(&mut self) {
        let Some(key) = self.pick() else { return };
        self.update_status(&key, |pod, rng| {
            let (name, uid) = (name_of(pod).to_string(), uid_of(pod).to_string());
            let namespace = namespace_of(pod).to_string();
            let statuses = pod["status"]["containerStatuses"].as_array_mut()?;
            let index = rng.below(statuses.len());
            let container = statuses.get_mut(index)?;
            let container_name = container["name"].as_str()?.to_string();
            let time = now();
            let (code, reason) = if rng.chance(0.5) {
                (137, "OOMKilled")
            } else {
                (1, "Error")
            };
            let restarts = container["restartCount"].as_i64().unwrap_or(0) + 1;
            container["lastState"] = json!({"terminated": {"exitCode": code, "reason": reason,
                "startedAt": container["state"]["running"]["startedAt"], "finishedAt": time,
                "containerID": container["containerID"]}});
            container["state"] = json!({"running": {"startedAt": time}});
            container["restartCount"] = json!(restarts);
            let id: String = (0..4).map(|_| format!("{:016x}", rng.next_u64())).collect();
            container["containerID"] = json!(format!("containerd://{id}"));
            let mut events = vec![];
            if rng.chance(0.5) {
                events.push((
                    container_name.clone(),
                    EventSpec::warning(
                        "BackOff",
                        format!("Back-off restarting failed container {container_name} in pod {name}_{namespace}({uid})"),
                    ),
                ));
            }
            events.push((
                container_name.clone(),
                EventSpec::normal("Started", format!("Started container {container_name}")),
            ));
            Some(events)
        });
    }

    /// A readiness probe starts failing: the container and the pod turn not ready.
    fn make_unready(&mut self) {
        let Some(key) = self.pick() else { return };
        if self.unready.contains(&key) {
            return;
        }
        let written = self.update_status(&key, |pod, rng| {
            if !is_pod_ready(pod) {
                return None;
            }
            let statuses = pod["status"]["containerStatuses"].as_array_mut()?;
            let index = rng.below(statuses.len());
            let container = statuses.get_mut(index)?;
            let container_name = container["name"].as_str()?.to_string();
            container["ready"] = json!(false);
            set_readiness(pod, false, &[container_name.as_str()]);
            let port = pod["spec"]["containers"][0]["ports"][0]["containerPort"]
                .as_i64()
                .unwrap_or(8080);
            Some(vec![(
                container_name,
                EventSpec::warning(
                    "Unhealthy",
                    format!("Readiness probe failed: Get \"http://{}:{port}/healthz\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
                        pod["status"]["podIP"].as_str().unwrap_or_default()),
                ),
            )])
        });
        if written {
            self.unready.insert(key);
        }
    }

    /// A pod churn made not ready passes its probe again.
    fn recover_pod(&mut self) {
        let Some(key) = self.unready.pop_first() else {
            return;
        };
        self.update_status(&key, |pod, _| {
            if is_pod_ready(pod) {
                return None;
            }
            for container in pod["status"]["containerStatuses"].as_array_mut()? {
                container["ready"] = json!(true);
            }
            set_readiness(pod, true, &[]);
            Some(vec![])
        });
    }

    /// The replicaset controller replaces a pod: deletes it (its kubelet then stops it) and
    /// creates a successor from the ReplicaSet's template. Returns the writes made.
    fn replace_pod(&mut self) -> usize {
        let Some(key) = self.take() else { return 0 };
        let Some(victim) = self.registry.store.get_ref(&key) else {
            return 0;
        };
        let Some(rs_name) = owning_replica_set(&victim) else {
            return 0;
        };
        let Ok(rs) = self
            .registry
            .get(&self.replica_sets, &key.namespace, rs_name)
        else {
            return 0;
        };
        let opts = WriteOptions {
            field_manager: CONTROLLER_MANAGER.into(),
            ..Default::default()
        };
        let delete = DeleteOptions {
            grace_period_seconds: (!self.graceful).then_some(0),
            ..Default::default()
        };
        let mut writes = 0;
        // Deleted first, then created at once: the replicaset controller, waking on either,
        // sees both and finds its count right.
        if self
            .registry
            .delete(&self.pods, &key.namespace, &key.name, &delete)
            .is_ok()
        {
            writes += 1;
            self.record_on_replica_set(
                &rs,
                "SuccessfulDelete",
                format!("Deleted pod: {}", key.name),
            );
        }
        self.unready.remove(&key);
        let pod = new_pod(&rs, &mut self.rng);
        if let Ok(created) = self.registry.create(&self.pods, &key.namespace, pod, &opts) {
            writes += 1;
            self.record_on_replica_set(
                &rs,
                "SuccessfulCreate",
                format!("Created pod: {}", name_of(&created)),
            );
        }
        writes
    }

    fn record_on_replica_set(&self, rs: &Value, reason: &'static str, message: String) {
        self.recorder.record(
            rs,
            EventSpec::normal(reason, message).by("replicaset-controller", CONTROLLER_MANAGER),
        );
    }
}

/// Sets the pod's Ready and ContainersReady conditions as the kubelet reports them.
fn set_readiness(pod: &mut Value, ready: bool, unready: &[&str]) {
    let time = now();
    let extra = if ready {
        json!({"lastProbeTime": null})
    } else {
        json!({"lastProbeTime": null, "reason": "ContainersNotReady",
               "message": format!("containers with unready status: [{}]", unready.join(" "))})
    };
    let status = if ready { "True" } else { "False" };
    let mut conditions = pod["status"]["conditions"].clone();
    for ty in ["Ready", "ContainersReady"] {
        conditions = set_condition(&conditions, ty, status, extra.clone(), &time);
    }
    pod["status"]["conditions"] = conditions;
}
