//! One in-memory store for every resource, keyed by (group, resource, namespace, name), with a
//! global resourceVersion counter. It knows nothing about kinds: strategies live in `registry`.
//! Every write is recorded in the watch cache and broadcast while the lock is held, so a
//! subscriber that snapshots under the same lock never misses or repeats an event.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tokio::sync::broadcast;

use super::watch_cache::{EventType, StoredEvent, WatchCache};
use crate::status::{ApiError, ApiResult};

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    pub group: String,
    pub resource: String,
    pub namespace: String,
    pub name: String,
}

impl ObjectKey {
    pub fn new(group: &str, resource: &str, namespace: &str, name: &str) -> Self {
        ObjectKey {
            group: group.into(),
            resource: resource.into(),
            namespace: namespace.into(),
            name: name.into(),
        }
    }
}

/// What a watcher gets at subscription: either replayed history or the state to send as ADDED.
pub struct Subscription {
    pub initial: Vec<Value>,
    pub replay: Vec<Arc<StoredEvent>>,
    pub rv: u64,
    pub receiver: broadcast::Receiver<Arc<StoredEvent>>,
}

pub struct Store {
    inner: Mutex<Inner>,
    sender: broadcast::Sender<Arc<StoredEvent>>,
}

struct Inner {
    rv: u64,
    objects: BTreeMap<ObjectKey, Value>,
    cache: WatchCache,
}

pub fn rv_of(obj: &Value) -> Option<u64> {
    obj["metadata"]["resourceVersion"].as_str()?.parse().ok()
}

fn set_rv(obj: &mut Value, rv: u64) {
    if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("resourceVersion".into(), Value::String(rv.to_string()));
    }
}

/// Objects equal apart from their resourceVersion: such a write is a no-op.
fn same_content(a: &Value, b: &Value) -> bool {
    let mut a = a.clone();
    let mut b = b.clone();
    for o in [&mut a, &mut b] {
        if let Some(m) = o.get_mut("metadata").and_then(Value::as_object_mut) {
            m.remove("resourceVersion");
            m.remove("managedFields");
        }
    }
    a == b
}

impl Store {
    pub fn new(watch_cache_capacity: usize) -> Self {
        let (sender, _) = broadcast::channel(8192);
        Store {
            inner: Mutex::new(Inner {
                rv: 1,
                objects: BTreeMap::new(),
                cache: WatchCache::new(watch_cache_capacity, 1),
            }),
            sender,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the map half-written (all updates are
        // single inserts/removes), so recovering from poisoning is safe.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn current_rv(&self) -> u64 {
        self.lock().rv
    }

    pub fn get(&self, key: &ObjectKey) -> Option<Value> {
        self.lock().objects.get(key).cloned()
    }

    fn range<'a>(
        objects: &'a BTreeMap<ObjectKey, Value>,
        group: &'a str,
        resource: &'a str,
        namespace: Option<&'a str>,
    ) -> impl Iterator<Item = (&'a ObjectKey, &'a Value)> + 'a {
        let start = ObjectKey::new(group, resource, namespace.unwrap_or(""), "");
        objects.range(start..).take_while(move |(k, _)| {
            k.group == group
                && k.resource == resource
                && namespace.is_none_or(|ns| k.namespace == ns)
        })
    }

    /// Current objects of one resource (optionally one namespace), sorted by namespace/name.
    pub fn list(&self, group: &str, resource: &str, namespace: Option<&str>) -> (Vec<Value>, u64) {
        let inner = self.lock();
        let items = Self::range(&inner.objects, group, resource, namespace)
            .map(|(_, v)| v.clone())
            .collect();
        (items, inner.rv)
    }

    /// The objects as they were at `rv`, rebuilt by undoing newer changes; 410 when the
    /// history needed was evicted.
    pub fn list_at(
        &self,
        group: &str,
        resource: &str,
        namespace: Option<&str>,
        rv: u64,
    ) -> ApiResult<Vec<Value>> {
        let inner = self.lock();
        if rv > inner.rv {
            return Err(ApiError::timeout(format!(
                "Too large resource version: {rv}, current: {}",
                inner.rv
            )));
        }
        let newer = inner
            .cache
            .since(rv)
            .map_err(|oldest| ApiError::too_old_resource_version(rv, oldest))?;
        let mut snapshot: BTreeMap<ObjectKey, Value> =
            Self::range(&inner.objects, group, resource, namespace)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
        for ev in newer.iter().rev() {
            let k = &ev.key;
            if k.group != group
                || k.resource != resource
                || namespace.is_some_and(|ns| ns != k.namespace)
            {
                continue;
            }
            match (ev.event_type, &ev.prev) {
                (EventType::Added, _) => {
                    snapshot.remove(k);
                }
                (_, Some(prev)) => {
                    snapshot.insert(k.clone(), prev.clone());
                }
                (_, None) => {}
            }
        }
        Ok(snapshot.into_values().collect())
    }

    fn record(inner: &mut Inner, sender: &broadcast::Sender<Arc<StoredEvent>>, event: StoredEvent) {
        let event = Arc::new(event);
        inner.cache.push(event.clone());
        // No receivers is fine: nobody is watching.
        let _ = sender.send(event);
    }

    pub fn create(&self, key: &ObjectKey, mut obj: Value) -> ApiResult<Value> {
        let mut inner = self.lock();
        if inner.objects.contains_key(key) {
            return Err(ApiError::already_exists(
                &key.group,
                &key.resource,
                &key.name,
            ));
        }
        inner.rv += 1;
        let rv = inner.rv;
        set_rv(&mut obj, rv);
        inner.objects.insert(key.clone(), obj.clone());
        let event = StoredEvent {
            rv,
            event_type: EventType::Added,
            key: key.clone(),
            object: obj.clone(),
            prev: None,
        };
        Self::record(&mut inner, &self.sender, event);
        Ok(obj)
    }

    /// Replaces the object. `expected_rv` is an optimistic-concurrency precondition (409 on
    /// mismatch). A write that changes nothing keeps the resourceVersion and emits no event.
    pub fn update(
        &self,
        key: &ObjectKey,
        mut obj: Value,
        expected_rv: Option<u64>,
    ) -> ApiResult<Value> {
        let mut inner = self.lock();
        let Some(current) = inner.objects.get(key).cloned() else {
            return Err(ApiError::not_found(&key.group, &key.resource, &key.name));
        };
        if let Some(expected) = expected_rv {
            if rv_of(&current) != Some(expected) {
                return Err(ApiError::stale(&key.group, &key.resource, &key.name));
            }
        }
        if same_content(&current, &obj) {
            return Ok(current);
        }
        inner.rv += 1;
        let rv = inner.rv;
        set_rv(&mut obj, rv);
        inner.objects.insert(key.clone(), obj.clone());
        let event = StoredEvent {
            rv,
            event_type: EventType::Modified,
            key: key.clone(),
            object: obj.clone(),
            prev: Some(current),
        };
        Self::record(&mut inner, &self.sender, event);
        Ok(obj)
    }

    /// Removes the object; returns its last state stamped with the deletion's resourceVersion.
    pub fn delete(&self, key: &ObjectKey, expected_rv: Option<u64>) -> ApiResult<Value> {
        let mut inner = self.lock();
        let Some(current) = inner.objects.get(key).cloned() else {
            return Err(ApiError::not_found(&key.group, &key.resource, &key.name));
        };
        if let Some(expected) = expected_rv {
            if rv_of(&current) != Some(expected) {
                return Err(ApiError::stale(&key.group, &key.resource, &key.name));
            }
        }
        inner.objects.remove(key);
        inner.rv += 1;
        let rv = inner.rv;
        let mut last = current.clone();
        set_rv(&mut last, rv);
        let event = StoredEvent {
            rv,
            event_type: EventType::Deleted,
            key: key.clone(),
            object: last.clone(),
            prev: Some(current),
        };
        Self::record(&mut inner, &self.sender, event);
        Ok(last)
    }

    /// GuaranteedUpdate: read, apply `change`, write with the read version as precondition,
    /// retry on conflict. `change` returning `Ok(None)` leaves the object untouched.
    pub fn guaranteed_update<F>(&self, key: &ObjectKey, mut change: F) -> ApiResult<Value>
    where
        F: FnMut(&Value) -> ApiResult<Option<Value>>,
    {
        for _ in 0..16 {
            let current = self
                .get(key)
                .ok_or_else(|| ApiError::not_found(&key.group, &key.resource, &key.name))?;
            let Some(next) = change(&current)? else {
                return Ok(current);
            };
            match self.update(key, next, rv_of(&current)) {
                Err(e) if e.reason == "Conflict" => continue,
                other => return other,
            }
        }
        Err(ApiError::stale(&key.group, &key.resource, &key.name))
    }

    /// Subscribes to changes of one resource. With `since`, history newer than it is replayed
    /// (410 when evicted); without, the current state is returned for synthetic ADDED events.
    pub fn subscribe(
        &self,
        group: &str,
        resource: &str,
        namespace: Option<&str>,
        since: Option<u64>,
    ) -> ApiResult<Subscription> {
        let inner = self.lock();
        let receiver = self.sender.subscribe();
        let (initial, replay) = match since {
            Some(rv) => {
                let events = inner
                    .cache
                    .since(rv)
                    .map_err(|oldest| ApiError::too_old_resource_version(rv, oldest))?;
                let events = events
                    .into_iter()
                    .filter(|e| e.key.group == group && e.key.resource == resource)
                    .collect();
                (vec![], events)
            }
            None => {
                let items = Self::range(&inner.objects, group, resource, namespace)
                    .map(|(_, v)| v.clone())
                    .collect();
                (items, vec![])
            }
        };
        Ok(Subscription {
            initial,
            replay,
            rv: inner.rv,
            receiver,
        })
    }

    /// Every future change of every resource, for in-process controllers (which reconcile
    /// from the current state and only need to be woken).
    pub fn subscriber(&self) -> broadcast::Receiver<Arc<StoredEvent>> {
        self.sender.subscribe()
    }

    /// Visits every object under the lock without cloning (cross-resource scans such as
    /// garbage collection); `visit` must not call back into the store.
    pub fn for_each(&self, mut visit: impl FnMut(&ObjectKey, &Value)) {
        let inner = self.lock();
        for (k, v) in &inner.objects {
            visit(k, v);
        }
    }

    pub fn oldest_resumable(&self) -> u64 {
        self.lock().cache.oldest_resumable()
    }

    /// Every object with its key (for cross-resource scans such as garbage collection).
    pub fn dump_keys(&self) -> Vec<(ObjectKey, Value)> {
        let inner = self.lock();
        inner
            .objects
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// All objects, for the state file.
    pub fn dump(&self) -> (u64, Vec<Value>) {
        let inner = self.lock();
        (inner.rv, inner.objects.values().cloned().collect())
    }

    /// Loads objects saved by `dump` (before serving; emits no events).
    pub fn load(&self, rv: u64, objects: Vec<(ObjectKey, Value)>) {
        let mut inner = self.lock();
        inner.rv = inner.rv.max(rv);
        let start = inner.rv;
        let capacity = inner.cache.capacity();
        inner.cache = WatchCache::new(capacity, start);
        for (k, v) in objects {
            inner.objects.insert(k, v);
        }
    }
}
