//! Simulated control plane: the controllers of kube-controller-manager, the scheduler, one
//! kubelet per node and the cnat operator. They act only through the [`Registry`] (the same
//! verbs and semantics HTTP clients get) and wake on store changes (`store.subscribe`) or on
//! their own timers. The busy ones (scheduler, kubelets, replicaset and job controllers) work
//! from a queue of the changed objects' keys with small indexes, and reconcile everything only
//! on a periodic resync (or after missing events); the others reconcile all their objects.

pub mod autoscaler;
pub mod cnat;
pub mod cron;
pub mod daemonset;
pub mod deployment;
pub mod disruption;
pub mod endpointslice;
pub mod events;
pub mod gc;
pub mod ingress;
pub mod job;
pub mod kubelet;
pub mod replicaset;
pub mod revisions;
pub mod scheduler;
pub mod statefulset;
pub mod volumes;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::registry::kinds::ResourceDef;
use crate::registry::{Registry, WriteOptions};
use crate::storage::object::{ObjectKey, ObjectRef};
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

    /// `real` on the clock of an object created at `anchor`: it runs `speed` times as fast
    /// from the object's creation, so its schedules (CronJobs, `At`s) follow `--speed` like
    /// every other simulated delay, and a schedule ten minutes ahead is ten simulated minutes.
    pub fn simulated_since(
        &self,
        anchor: chrono::DateTime<chrono::Utc>,
        real: chrono::DateTime<chrono::Utc>,
    ) -> chrono::DateTime<chrono::Utc> {
        anchor + scale_delta(real - anchor, self.speed)
    }

    /// The wall-clock time at which the clock of an object created at `anchor` shows
    /// `simulated` (the inverse of [`Context::simulated_since`]).
    pub fn real_since(
        &self,
        anchor: chrono::DateTime<chrono::Utc>,
        simulated: chrono::DateTime<chrono::Utc>,
    ) -> chrono::DateTime<chrono::Utc> {
        anchor + scale_delta(simulated - anchor, 1.0 / self.speed)
    }

    /// A simulated duration of `seconds`, scaled by the speed factor.
    pub fn scaled(&self, seconds: f64) -> Duration {
        // Absurd inputs (`sleep 1e300` in a command) become "a year" instead of a panic.
        Duration::try_from_secs_f64((seconds / self.speed).max(0.0))
            .unwrap_or(Duration::from_secs(365 * 24 * 3600))
    }

    /// Period of the full resync of queue-driven controllers: 30 simulated seconds, at
    /// most once a second.
    pub fn resync(&self) -> Duration {
        self.scaled(30.0).max(Duration::from_secs(1))
    }

    /// A built-in kind; they are compiled in, so absence is a programming error.
    pub fn def(&self, group: &str, resource: &str) -> Arc<ResourceDef> {
        match self.registry.builtin(group, resource) {
            Some(def) => def,
            None => panic!("built-in resource {group}/{resource} is missing"),
        }
    }
}

/// `delta` times `factor`: exact at speed 1, to the nanosecond otherwise (saturating).
fn scale_delta(delta: chrono::Duration, factor: f64) -> chrono::Duration {
    if factor == 1.0 {
        return delta;
    }
    match delta.num_nanoseconds() {
        Some(nanos) => chrono::Duration::nanoseconds((nanos as f64 * factor) as i64),
        None => chrono::Duration::milliseconds((delta.num_milliseconds() as f64 * factor) as i64),
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

/// Writes `status` to `obj`'s status subresource as kube-controller-manager, unless it has
/// it already (an unchanged status would only add a resourceVersion and a watch event).
pub fn write_status(ctx: &Context, def: &ResourceDef, obj: &Value, status: Value) {
    if obj["status"] == status {
        return;
    }
    let _ = ctx.registry.update_with(
        def,
        namespace_of(obj),
        name_of(obj),
        &writer(CONTROLLER_MANAGER, "status"),
        |current| {
            current["status"] = status.clone();
            Ok(())
        },
    );
}

/// Wakes a controller when objects it cares about change.
pub struct Changes {
    receiver: broadcast::Receiver<Arc<StoredEvent>>,
    relevant: Box<dyn Fn(&StoredEvent) -> bool + Send>,
    /// Whether to remember the keys of relevant changes (for [`spawn_queue_loop`]).
    collect: bool,
    keys: HashSet<ObjectKey>,
    lagged: bool,
}

/// What changed since the previous pass of a queue-driven controller.
pub struct Batch {
    /// Reconcile everything: first pass, periodic resync, or events were missed.
    pub full: bool,
    /// Keys of the objects that changed (read their current state from the store).
    pub keys: HashSet<ObjectKey>,
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
            collect: false,
            keys: HashSet::new(),
            lagged: false,
        }
    }

    fn note(&mut self, event: &StoredEvent) -> bool {
        let relevant = (self.relevant)(event);
        if relevant && self.collect {
            self.keys.insert(event.key.clone());
        }
        relevant
    }

    /// Returns after a relevant change (and the burst that came with it) or after `timeout`.
    pub async fn wait(&mut self, timeout: Duration) {
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                _ = &mut deadline => return,
                received = self.receiver.recv() => match received {
                    Ok(event) if self.note(&event) => break,
                    Ok(_) => continue,
                    // Missed events: reconciling everything catches up.
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        self.lagged = true;
                        break;
                    }
                    Err(broadcast::error::RecvError::Closed) => {
                        deadline.await;
                        return;
                    }
                },
            }
        }
        // Let a burst of writes settle, then reconcile once for all of them.
        tokio::time::sleep(Duration::from_millis(5)).await;
        loop {
            match self.receiver.try_recv() {
                Ok(event) => {
                    self.note(&event);
                }
                Err(broadcast::error::TryRecvError::Lagged(_)) => self.lagged = true,
                Err(_) => break,
            }
        }
    }

    /// The changes collected so far, and whether some were missed.
    fn take(&mut self) -> (HashSet<ObjectKey>, bool) {
        (
            std::mem::take(&mut self.keys),
            std::mem::replace(&mut self.lagged, false),
        )
    }
}

/// Like [`spawn_loop`], but `reconcile` gets the keys that changed since its previous pass,
/// and `full` on the first pass, every `resync` and after missed events (the safety net).
pub fn spawn_queue_loop(
    mut changes: Changes,
    resync: Duration,
    mut reconcile: impl FnMut(Batch) -> Option<Duration> + Send + 'static,
) -> JoinHandle<()> {
    changes.collect = true;
    tokio::spawn(async move {
        let mut last_full: Option<Instant> = None;
        loop {
            // Taken before reconciling reads the store: later changes go to the next pass.
            let (keys, lagged) = changes.take();
            let full = lagged || last_full.is_none_or(|t| t.elapsed() >= resync);
            if full {
                last_full = Some(Instant::now());
            }
            let next = reconcile(Batch { full, keys });
            let until_resync =
                resync.saturating_sub(last_full.map_or(Duration::ZERO, |t| t.elapsed()));
            changes
                .wait(next.map_or(until_resync, |d| d.min(until_resync)))
                .await;
        }
    })
}

/// Objects (pods) by the uid of their controller, and orphans by namespace, kept up to date
/// from change batches so owners find their objects without listing everything.
#[derive(Default)]
pub struct OwnerIndex {
    owner_of: HashMap<ObjectKey, Option<String>>,
    by_owner: HashMap<String, BTreeSet<ObjectKey>>,
    orphans: HashMap<String, BTreeSet<ObjectKey>>,
}

impl OwnerIndex {
    /// Starts over from every object.
    pub fn rebuild(&mut self, objs: &[ObjectRef], key_of: impl Fn(&Value) -> ObjectKey) {
        *self = OwnerIndex::default();
        for obj in objs {
            self.update(&key_of(obj), Some(obj));
        }
    }

    /// Records the current state of `key` (`None`: gone). Returns the controller uids it had
    /// and has now, and whether it is now an orphan.
    pub fn update(&mut self, key: &ObjectKey, obj: Option<&Value>) -> (Vec<String>, bool) {
        let mut owners = vec![];
        match self.owner_of.remove(key) {
            Some(Some(old)) => {
                if let Some(set) = self.by_owner.get_mut(&old) {
                    set.remove(key);
                    if set.is_empty() {
                        self.by_owner.remove(&old);
                    }
                }
                owners.push(old);
            }
            Some(None) => {
                if let Some(set) = self.orphans.get_mut(&key.namespace) {
                    set.remove(key);
                }
            }
            None => {}
        }
        let Some(obj) = obj else {
            return (owners, false);
        };
        let owner = controller_uid(obj).map(String::from);
        match &owner {
            Some(uid) => {
                self.by_owner
                    .entry(uid.clone())
                    .or_default()
                    .insert(key.clone());
                owners.push(uid.clone());
            }
            None => {
                self.orphans
                    .entry(key.namespace.clone())
                    .or_default()
                    .insert(key.clone());
            }
        }
        let orphan = owner.is_none();
        self.owner_of.insert(key.clone(), owner);
        (owners, orphan)
    }

    /// Keys of the objects controlled by `uid`.
    pub fn owned(&self, uid: &str) -> impl Iterator<Item = &ObjectKey> {
        self.by_owner.get(uid).into_iter().flatten()
    }

    /// Keys of the objects without a controller in `namespace`.
    pub fn orphans_in(&self, namespace: &str) -> impl Iterator<Item = &ObjectKey> {
        self.orphans.get(namespace).into_iter().flatten()
    }
}

/// The store key of a pod.
pub fn pod_key(pod: &Value) -> ObjectKey {
    ObjectKey::new("", "pods", namespace_of(pod), name_of(pod))
}

/// Current versions of the objects at `keys` (those still present).
pub fn current<'a>(
    registry: &Registry,
    keys: impl IntoIterator<Item = &'a ObjectKey>,
) -> Vec<ObjectRef> {
    keys.into_iter()
        .filter_map(|k| registry.store.get_ref(k))
        .collect()
}

/// Runs `reconcile` (which goes over all its objects) now, after every change of the given
/// (storage group, resource) pairs, and on every resync.
pub fn spawn_reconciler(
    ctx: Arc<Context>,
    resources: &[(&str, &str)],
    reconcile: fn(&Context),
) -> JoinHandle<()> {
    let changes = Changes::of(&ctx.registry, resources);
    let resync = ctx.resync();
    spawn_loop(changes, resync, move || {
        reconcile(&ctx);
        None
    })
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
            let started = Instant::now();
            let next = reconcile().map_or(resync, |d| d.min(resync));
            // These controllers reconcile everything on each pass: on a big cluster (load
            // mode) a pass takes long enough that back-to-back passes would take a whole
            // core, so they pause for a multiple of their last pass (about 10% of a core).
            let pause = started.elapsed().saturating_mul(9);
            if pause >= Duration::from_millis(1) {
                tokio::time::sleep(pause.min(Duration::from_secs(2))).await;
            }
            changes.wait(next.saturating_sub(pause)).await;
        }
    })
}

impl Controllers {
    /// Keeps `task` running as long as the control plane (it is aborted with the others).
    pub fn adopt(&mut self, task: JoinHandle<()>) {
        self.tasks.push(task);
    }
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
pub fn start_all(registry: Arc<Registry>, speed: f64, event_ttl: Duration) -> Controllers {
    let ctx = Context::new(registry.clone(), speed);
    let mut tasks = vec![
        deployment::spawn(ctx.clone()),
        replicaset::spawn(ctx.clone()),
        scheduler::spawn(ctx.clone()),
        job::spawn(ctx.clone()),
        job::spawn_cronjobs(ctx.clone()),
        gc::spawn(ctx.clone()),
        gc::spawn_namespaces(ctx.clone()),
        events::spawn_ttl(ctx.clone(), event_ttl),
        cnat::spawn(ctx.clone()),
        statefulset::spawn(ctx.clone()),
        daemonset::spawn(ctx.clone()),
        endpointslice::spawn(ctx.clone()),
        volumes::spawn(ctx.clone()),
        autoscaler::spawn(ctx.clone()),
        disruption::spawn(ctx.clone()),
        ingress::spawn(ctx.clone()),
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
                if name.is_empty() || is_deleting(node) {
                    continue;
                }
                // Registered first, so the kubelet starts with the node's addresses.
                kubelet::register_node(&ctx, node, &nodes);
                if started.insert(name.to_string()) {
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
                        return Err(crate::errors::ApiError::conflict(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str, owner: Option<&str>) -> Value {
        let refs = owner.map(|uid| json!([{"uid": uid, "controller": true}]));
        json!({"metadata": {"name": name, "namespace": "ns", "ownerReferences": refs}})
    }

    #[test]
    fn object_clocks_run_at_the_simulation_speed_from_their_creation() {
        let registry = Arc::new(Registry::new(Arc::new(crate::storage::store::Store::new(
            16,
        ))));
        let fast = Context::new(registry, 4.0);
        let created = parse_time("2024-05-01T12:00:00Z").unwrap();
        let later = parse_time("2024-05-01T12:00:30Z").unwrap();
        let simulated = fast.simulated_since(created, later);
        assert_eq!(simulated, parse_time("2024-05-01T12:02:00Z").unwrap());
        assert_eq!(fast.real_since(created, simulated), later);
        // Before its creation an object's clock runs fast too (a schedule in the past).
        assert!(fast.simulated_since(created, created - chrono::Duration::seconds(1)) < created);
    }

    #[test]
    fn owner_index_follows_adoption_release_and_removal() {
        let mut index = OwnerIndex::default();
        let a = pod_key(&pod("a", None));
        assert_eq!(index.update(&a, Some(&pod("a", None))), (vec![], true));
        assert_eq!(index.orphans_in("ns").count(), 1);
        // Adopted: no longer an orphan, listed under its owner.
        let (owners, orphan) = index.update(&a, Some(&pod("a", Some("rs1"))));
        assert_eq!((owners, orphan), (vec!["rs1".to_string()], false));
        assert_eq!(index.orphans_in("ns").count(), 0);
        assert_eq!(index.owned("rs1").collect::<Vec<_>>(), vec![&a]);
        // Moved to another owner: both owners are affected.
        let (owners, _) = index.update(&a, Some(&pod("a", Some("rs2"))));
        assert_eq!(owners, vec!["rs1".to_string(), "rs2".to_string()]);
        assert_eq!(index.owned("rs1").count(), 0);
        // Gone.
        assert_eq!(index.update(&a, None), (vec!["rs2".to_string()], false));
        assert_eq!(index.owned("rs2").count(), 0);
    }
}
