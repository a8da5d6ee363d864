//! Simulated control plane: the controllers of kube-controller-manager, the scheduler, one
//! kubelet per node and the cnat operator. They act only through the [`Registry`] (the same
//! verbs and semantics HTTP clients get), are level-triggered — every wake-up reconciles all
//! objects of their kinds — and wake on store changes (`store.subscribe`) or on their own timers.

pub mod cnat;
pub mod cron;
pub mod deployment;
pub mod events;
pub mod gc;
pub mod job;
pub mod kubelet;
pub mod replicaset;
pub mod scheduler;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::registry::kinds::ResourceDef;
use crate::registry::{Registry, WriteOptions};
use crate::storage::watch_cache::StoredEvent;
use events::EventRecorder;

/// Most pods a controller creates or deletes in one pass (kube-controller-manager's
/// `BurstReplicas`), so a huge `replicas` cannot stall the simulation.
pub const BURST_REPLICAS: usize = 500;

/// Field manager of everything kube-controller-manager writes.
pub const CONTROLLER_MANAGER: &str = "kube-controller-manager";

/// What every controller shares: the API, the simulation speed and the event recorder.
pub struct Context {
    pub registry: Arc<Registry>,
    /// Simulated delays are divided by this (2.0 = twice as fast).
    pub speed: f64,
    pub recorder: EventRecorder,
}

impl Context {
    pub fn new(registry: Arc<Registry>, speed: f64) -> Arc<Self> {
        let speed = if speed.is_finite() && speed > 0.0 {
            speed
        } else {
            1.0
        };
        Arc::new(Context {
            recorder: EventRecorder::new(registry.clone()),
            registry,
            speed,
        })
    }

    /// A simulated duration of `seconds`, scaled by the speed factor.
    pub fn scaled(&self, seconds: f64) -> Duration {
        // Absurd inputs (`sleep 1e300` in a command) become "a year" instead of a panic.
        Duration::try_from_secs_f64((seconds / self.speed).max(0.0))
            .unwrap_or(Duration::from_secs(365 * 24 * 3600))
    }

    /// A built-in kind; they are compiled in, so absence is a programming error.
    pub fn def(&self, group: &str, resource: &str) -> Arc<ResourceDef> {
        match self.registry.builtin(group, resource) {
            Some(def) => def,
            None => panic!("built-in resource {group}/{resource} is missing"),
        }
    }
}

/// Write options for a controller writing as `manager` (to `subresource`, "" for the object).
pub fn writer(manager: &str, subresource: &str) -> WriteOptions {
    WriteOptions {
        field_manager: manager.into(),
        subresource: subresource.into(),
        ..Default::default()
    }
}

/// Wakes a controller when objects it cares about change.
pub struct Changes {
    receiver: broadcast::Receiver<Arc<StoredEvent>>,
    relevant: Box<dyn Fn(&StoredEvent) -> bool + Send>,
}

impl Changes {
    /// Changes of the given (storage group, resource) pairs.
    pub fn of(registry: &Registry, resources: &[(&str, &str)]) -> Self {
        let wanted: Vec<(String, String)> = resources
            .iter()
            .map(|(g, r)| (g.to_string(), r.to_string()))
            .collect();
        Self::matching(registry, move |e| {
            wanted
                .iter()
                .any(|(g, r)| e.key.group == *g && e.key.resource == *r)
        })
    }

    /// Changes accepted by `relevant`.
    pub fn matching(
        registry: &Registry,
        relevant: impl Fn(&StoredEvent) -> bool + Send + 'static,
    ) -> Self {
        Changes {
            receiver: registry.store.subscriber(),
            relevant: Box::new(relevant),
        }
    }

    /// Returns after a relevant change (and the burst that came with it) or after `timeout`.
    pub async fn wait(&mut self, timeout: Duration) {
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                _ = &mut deadline => return,
                received = self.receiver.recv() => match received {
                    Ok(event) if (self.relevant)(&event) => break,
                    Ok(_) => continue,
                    // Missed events: reconciling everything catches up.
                    Err(broadcast::error::RecvError::Lagged(_)) => break,
                    Err(broadcast::error::RecvError::Closed) => {
                        deadline.await;
                        return;
                    }
                },
            }
        }
        // Let a burst of writes settle, then reconcile once for all of them.
        tokio::time::sleep(Duration::from_millis(5)).await;
        while let Ok(_) | Err(broadcast::error::TryRecvError::Lagged(_)) = self.receiver.try_recv()
        {
        }
    }
}

/// Runs `reconcile` now and after every relevant change; it returns when it wants to run
/// again at the latest (its own timers), capped by `resync`.
pub fn spawn_loop(
    mut changes: Changes,
    resync: Duration,
    mut reconcile: impl FnMut() -> Option<Duration> + Send + 'static,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let next = reconcile().map_or(resync, |d| d.min(resync));
            changes.wait(next).await;
        }
    })
}

/// The controller tasks of a running cluster; dropping it stops them.
#[derive(Default)]
pub struct Controllers {
    tasks: Vec<JoinHandle<()>>,
}

impl Drop for Controllers {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Starts every controller, one kubelet per Node existing now.
pub fn start_all(registry: Arc<Registry>, speed: f64) -> Controllers {
    let ctx = Context::new(registry.clone(), speed);
    let mut tasks = vec![
        deployment::spawn(ctx.clone()),
        replicaset::spawn(ctx.clone()),
        scheduler::spawn(ctx.clone()),
        job::spawn(ctx.clone()),
        job::spawn_cronjobs(ctx.clone()),
        gc::spawn(ctx.clone()),
        gc::spawn_namespaces(ctx.clone()),
        events::spawn_ttl(ctx.clone()),
        cnat::spawn(ctx.clone()),
    ];
    tasks.push(spawn_kubelets(ctx));
    Controllers { tasks }
}

/// Starts a kubelet for every Node, including Nodes created later through the API.
fn spawn_kubelets(ctx: Arc<Context>) -> JoinHandle<()> {
    let mut changes = Changes::of(&ctx.registry, &[("", "nodes")]);
    tokio::spawn(async move {
        // Owned by this task: aborting it drops (and so stops) every kubelet.
        let mut kubelets = Controllers::default();
        let mut started: HashSet<String> = HashSet::new();
        loop {
            let (nodes, _) = ctx.registry.list(&ctx.def("", "nodes"), None);
            for node in &nodes {
                let name = name_of(node);
                if !name.is_empty() && started.insert(name.to_string()) {
                    kubelets.tasks.extend(kubelet::spawn(ctx.clone(), name));
                }
            }
            changes.wait(Duration::from_secs(60)).await;
        }
    })
}

// ---- helpers shared by the controllers ----

pub fn name_of(obj: &Value) -> &str {
    obj["metadata"]["name"].as_str().unwrap_or_default()
}

pub fn namespace_of(obj: &Value) -> &str {
    obj["metadata"]["namespace"].as_str().unwrap_or_default()
}

pub fn uid_of(obj: &Value) -> &str {
    obj["metadata"]["uid"].as_str().unwrap_or_default()
}

pub fn is_deleting(obj: &Value) -> bool {
    obj["metadata"]["deletionTimestamp"].is_string()
}

/// The uid of the owner reference with `controller: true`.
pub fn controller_uid(obj: &Value) -> Option<&str> {
    obj["metadata"]["ownerReferences"]
        .as_array()?
        .iter()
        .find(|r| r["controller"].as_bool() == Some(true))
        .and_then(|r| r["uid"].as_str())
}

/// An owner reference to `owner` as its controller.
pub fn controller_ref(owner: &Value) -> Value {
    json!({
        "apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"], "controller": true, "blockOwnerDeletion": true,
    })
}

/// `ControllerRefManager`: `owner` adopts orphans in its namespace matching its selector and
/// releases owned objects that stopped matching. Returns the objects it controls afterwards.
pub fn claim(
    ctx: &Context,
    def: &ResourceDef,
    owner: &Value,
    owned: Vec<Value>,
    orphans: &mut Vec<Value>,
) -> Vec<Value> {
    let selector =
        crate::storage::selectors::LabelSelector::from_structured(&owner["spec"]["selector"]);
    // An empty or invalid selector claims nothing (and releases nothing).
    let Some(selector) = selector.ok().filter(|s| !s.is_empty()) else {
        return owned;
    };
    if is_deleting(owner) {
        return owned;
    }
    let opts = writer(CONTROLLER_MANAGER, "");
    let owner_uid = uid_of(owner).to_string();
    let mut claimed = vec![];
    for obj in owned {
        if selector.matches(&obj) || is_deleting(&obj) {
            claimed.push(obj);
            continue;
        }
        let _ = ctx
            .registry
            .update_with(def, namespace_of(&obj), name_of(&obj), &opts, |o| {
                let kept: Vec<Value> = o["metadata"]["ownerReferences"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|r| r["uid"] != owner_uid.as_str())
                    .cloned()
                    .collect();
                match o["metadata"].as_object_mut() {
                    Some(meta) if kept.is_empty() => {
                        meta.remove("ownerReferences");
                    }
                    _ => o["metadata"]["ownerReferences"] = json!(kept),
                }
                Ok(())
            });
    }
    let (matching, rest): (Vec<Value>, Vec<Value>) =
        std::mem::take(orphans).into_iter().partition(|o| {
            namespace_of(o) == namespace_of(owner) && !is_deleting(o) && selector.matches(o)
        });
    *orphans = rest;
    for orphan in matching {
        let adopted =
            ctx.registry
                .update_with(def, namespace_of(&orphan), name_of(&orphan), &opts, |o| {
                    if controller_uid(o).is_some() {
                        return Err(crate::status::ApiError::conflict(
                            &def.group,
                            &def.resource,
                            name_of(o),
                            "already has a controller",
                        ));
                    }
                    let mut refs = o["metadata"]["ownerReferences"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                    refs.push(controller_ref(owner));
                    o["metadata"]["ownerReferences"] = json!(refs);
                    Ok(())
                });
        if let Ok(adopted) = adopted {
            claimed.push(adopted);
        }
    }
    claimed
}

/// A Pod's condition `ty` is "True".
pub fn condition_true(obj: &Value, ty: &str) -> bool {
    obj["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["type"] == ty && c["status"] == "True")
}

pub fn is_pod_ready(pod: &Value) -> bool {
    condition_true(pod, "Ready")
}

pub fn is_pod_terminal(pod: &Value) -> bool {
    matches!(
        pod["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    )
}

/// Sets (or replaces) the condition of type `ty`, keeping `lastTransitionTime` when the status
/// did not change; returns the new list. `extra` holds the remaining fields (reason, ...).
pub fn set_condition(conditions: &Value, ty: &str, status: &str, extra: Value, now: &str) -> Value {
    let mut list: Vec<Value> = conditions.as_array().cloned().unwrap_or_default();
    let previous = list.iter().position(|c| c["type"] == ty);
    let transition = match previous.map(|i| &list[i]) {
        Some(old) if old["status"] == status && old["lastTransitionTime"].is_string() => {
            old["lastTransitionTime"].clone()
        }
        _ => json!(now),
    };
    let mut condition = json!({"type": ty, "status": status, "lastTransitionTime": transition});
    if let (Some(m), Some(extra)) = (condition.as_object_mut(), extra.as_object()) {
        for (k, v) in extra {
            m.insert(k.clone(), v.clone());
        }
    }
    match previous {
        Some(i) => list[i] = condition,
        None => list.push(condition),
    }
    Value::Array(list)
}

/// Milliseconds since the Unix epoch formatted as Kubernetes `MicroTime`.
pub fn now_micro() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.6fZ")
        .to_string()
}

/// Parses an RFC 3339 timestamp.
pub fn parse_time(s: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&chrono::Utc))
}
