//! One in-memory store for every resource, keyed by (group, resource, namespace, name), with a
//! global resourceVersion counter. It knows nothing about kinds: strategies live in `registry`.
//! Every write is recorded in the watch cache and broadcast while the lock is held, so a
//! subscriber that snapshots under the same lock never misses or repeats an event.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Bound;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tokio::sync::broadcast;

use super::object::{ObjectKey, ObjectRef, StoredObject};
use super::watch_cache::{EventType, StoredEvent, WatchCache};
use crate::errors::{ApiError, ApiResult};

/// One page of a list: the items, the list's resourceVersion, and how many matching items
/// follow the page (`None` when the page is the end).
pub struct Page {
    pub items: Vec<ObjectRef>,
    pub rv: u64,
    pub remaining: Option<usize>,
}

/// What a watcher gets at subscription: either replayed history or the state to send as ADDED.
pub struct Subscription {
    pub initial: Vec<ObjectRef>,
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
    objects: BTreeMap<ObjectKey, ObjectRef>,
    cache: WatchCache,
    pods_by_node: NodeIndex,
}

/// Pods by `spec.nodeName`, as kube-apiserver's watch cache indexes them for the kubelets'
/// field-selected lists: a node's pods are found without reading every pod (with 50,000
/// pods on 500 nodes, each kubelet's resync scanned them all).
#[derive(Default)]
struct NodeIndex(HashMap<String, BTreeSet<ObjectKey>>);

impl NodeIndex {
    fn node_of(pod: &Value) -> Option<&str> {
        pod["spec"]["nodeName"]
            .as_str()
            .filter(|node| !node.is_empty())
    }

    /// Notes that the object at `key` was `before` and is now `after` (None: absent).
    fn note(&mut self, key: &ObjectKey, before: Option<&Value>, after: Option<&Value>) {
        if !(key.group.is_empty() && key.resource == "pods") {
            return;
        }
        let (was, is) = (
            before.and_then(Self::node_of),
            after.and_then(Self::node_of),
        );
        if was == is {
            return;
        }
        if let Some(was) = was {
            if let Some(keys) = self.0.get_mut(was) {
                keys.remove(key);
                if keys.is_empty() {
                    self.0.remove(was);
                }
            }
        }
        if let Some(is) = is {
            self.0
                .entry(is.to_string())
                .or_default()
                .insert(key.clone());
        }
    }
}

pub fn rv_of(obj: &Value) -> Option<u64> {
    obj["metadata"]["resourceVersion"].as_str()?.parse().ok()
}

fn set_rv(obj: &mut Value, rv: u64) {
    if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("resourceVersion".into(), Value::String(rv.to_string()));
    }
}

/// Objects equal apart from their resourceVersion (and managedFields): such a write is a
/// no-op. Compared in place, as every update goes through here.
fn same_content(a: &Value, b: &Value) -> bool {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return a == b;
    };
    if a.len() != b.len() {
        return false;
    }
    let volatile = |k: &String| k == "resourceVersion" || k == "managedFields";
    a.iter().all(|(k, av)| match (k.as_str(), b.get(k)) {
        (_, None) => false,
        ("metadata", Some(bv)) => match (av.as_object(), bv.as_object()) {
            (Some(am), Some(bm)) => {
                am.iter()
                    .filter(|(k, _)| !volatile(k))
                    .all(|(k, v)| bm.get(k) == Some(v))
                    && am.keys().filter(|k| !volatile(k)).count()
                        == bm.keys().filter(|k| !volatile(k)).count()
            }
            _ => av == bv,
        },
        (_, Some(bv)) => av == bv,
    })
}

impl Store {
    pub fn new(watch_cache_capacity: usize) -> Self {
        let (sender, _) = broadcast::channel(8192);
        Store {
            inner: Mutex::new(Inner {
                rv: 1,
                objects: BTreeMap::new(),
                cache: WatchCache::new(watch_cache_capacity, 1),
                pods_by_node: NodeIndex::default(),
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
        self.lock().objects.get(key).map(|o| o.value().clone())
    }

    /// The stored version itself (no copy).
    pub fn get_ref(&self, key: &ObjectKey) -> Option<ObjectRef> {
        self.lock().objects.get(key).cloned()
    }

    /// The pods bound to `node` (stored versions, no copy), by namespace and name.
    pub fn pods_on_node(&self, node: &str) -> Vec<ObjectRef> {
        let inner = self.lock();
        inner
            .pods_by_node
            .0
            .get(node)
            .map_or_else(Vec::new, |keys| {
                keys.iter()
                    .filter_map(|key| inner.objects.get(key).cloned())
                    .collect()
            })
    }

    fn range<'a>(
        objects: &'a BTreeMap<ObjectKey, ObjectRef>,
        group: &'a str,
        resource: &'a str,
        namespace: Option<&'a str>,
    ) -> impl Iterator<Item = (&'a ObjectKey, &'a ObjectRef)> + 'a {
        let start = ObjectKey::new(group, resource, namespace.unwrap_or(""), "");
        objects.range(start..).take_while(move |(k, _)| {
            k.group == group
                && k.resource == resource
                && namespace.is_none_or(|ns| k.namespace == ns)
        })
    }

    /// Current objects of one resource (optionally one namespace), sorted by namespace/name.
    pub fn list(&self, group: &str, resource: &str, namespace: Option<&str>) -> (Vec<Value>, u64) {
        let (items, rv) = self.list_refs(group, resource, namespace);
        (items.iter().map(|o| o.value().clone()).collect(), rv)
    }

    /// Like `list`, sharing the stored versions instead of copying them.
    pub fn list_refs(
        &self,
        group: &str,
        resource: &str,
        namespace: Option<&str>,
    ) -> (Vec<ObjectRef>, u64) {
        let inner = self.lock();
        let items = Self::range(&inner.objects, group, resource, namespace)
            .map(|(_, v)| v.clone())
            .collect();
        (items, inner.rv)
    }

    /// One page of the objects as they were at `rv` (default: now), in key order, starting
    /// after `after` (namespace, name), keeping those `keep` accepts, at most `limit`.
    /// Only the changes newer than `rv` are undone, so a page costs O(page + changes) copies
    /// of pointers rather than a snapshot of the whole resource. 410 when that history was
    /// evicted.
    #[allow(clippy::too_many_arguments)]
    pub fn list_page(
        &self,
        group: &str,
        resource: &str,
        namespace: Option<&str>,
        rv: Option<u64>,
        after: Option<(&str, &str)>,
        limit: Option<usize>,
        mut keep: impl FnMut(&StoredObject) -> bool,
    ) -> ApiResult<Page> {
        let inner = self.lock();
        let rv = rv.unwrap_or(inner.rv);
        if rv > inner.rv {
            return Err(ApiError::timeout(format!(
                "Too large resource version: {rv}, current: {}",
                inner.rv
            )));
        }
        let in_scope = |k: &ObjectKey| {
            k.group == group
                && k.resource == resource
                && namespace.is_none_or(|ns| ns == k.namespace)
        };
        // State at `rv` of every key changed since: the oldest newer event tells it (absent
        // when that event created the object, else its previous version).
        let mut at_rv: BTreeMap<&ObjectKey, Option<&ObjectRef>> = BTreeMap::new();
        if rv < inner.rv {
            let newer = inner
                .cache
                .since_iter(rv)
                .map_err(|_| ApiError::list_too_old())?;
            for ev in newer.filter(|ev| in_scope(&ev.key)) {
                at_rv.entry(&ev.key).or_insert(match ev.event_type {
                    EventType::Added => None,
                    _ => ev.prev.as_ref(),
                });
            }
        }
        let start_key = match after {
            Some((ns, name)) => ObjectKey::new(group, resource, ns, name),
            None => ObjectKey::new(group, resource, namespace.unwrap_or(""), ""),
        };
        let lower = if after.is_some() {
            Bound::Excluded(&start_key)
        } else {
            Bound::Included(&start_key)
        };
        let current = inner
            .objects
            .range::<ObjectKey, _>((lower, Bound::Unbounded))
            .take_while(|(k, _)| k.group == group && k.resource == resource)
            .filter(|(k, _)| namespace.is_none_or(|ns| ns == k.namespace));
        let changed = at_rv
            .range::<ObjectKey, _>((lower, Bound::Unbounded))
            .map(|(k, v)| (*k, *v));
        // Merge the two key-ordered streams; a changed key takes its version at `rv`.
        let mut current = current.peekable();
        let mut changed = changed.peekable();
        let mut next = || -> Option<Option<&ObjectRef>> {
            loop {
                let take_current = match (current.peek(), changed.peek()) {
                    (None, None) => return None,
                    (Some(_), None) => true,
                    (None, Some(_)) => false,
                    (Some((ck, _)), Some((xk, _))) => *ck < *xk,
                };
                if take_current {
                    let (k, v) = current.next()?;
                    if at_rv.contains_key(k) {
                        continue;
                    }
                    return Some(Some(v));
                }
                let (k, v) = changed.next()?;
                if current.peek().is_some_and(|(ck, _)| *ck == k) {
                    current.next();
                }
                return Some(v);
            }
        };
        let mut items = Vec::new();
        let mut remaining = None;
        while let Some(version) = next() {
            let Some(obj) = version else { continue };
            if !keep(obj) {
                continue;
            }
            if limit.is_some_and(|n| items.len() >= n) {
                *remaining.get_or_insert(0) += 1;
            } else {
                items.push(obj.clone());
            }
        }
        Ok(Page {
            items,
            rv,
            remaining,
        })
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
        let page = self.list_page(group, resource, namespace, Some(rv), None, None, |_| true)?;
        Ok(page.items.iter().map(|o| o.value().clone()).collect())
    }

    fn record(inner: &mut Inner, sender: &broadcast::Sender<Arc<StoredEvent>>, event: StoredEvent) {
        let after = (event.event_type != EventType::Deleted).then(|| event.object.value());
        let before = event.prev.as_ref().map(|prev| prev.value());
        inner.pods_by_node.note(&event.key, before, after);
        let event = Arc::new(event);
        inner.cache.push(event.clone());
        // No receivers is fine: nobody is watching.
        let _ = sender.send(event);
    }

    pub fn create(&self, key: &ObjectKey, obj: Value) -> ApiResult<Value> {
        let stored = self.insert_stored(key, obj)?;
        Ok(stored.value().clone())
    }

    /// Like `create`, without copying the object back: for bulk loads (load mode), where
    /// that copy was a good part of the cost.
    pub fn insert_new(&self, key: &ObjectKey, obj: Value) -> ApiResult<()> {
        self.insert_stored(key, obj).map(|_| ())
    }

    /// Stores a new object at the next resourceVersion and records its ADDED event.
    fn insert_stored(&self, key: &ObjectKey, mut obj: Value) -> ApiResult<Arc<StoredObject>> {
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
        let stored = Arc::new(StoredObject::new(obj));
        inner.objects.insert(key.clone(), stored.clone());
        let event = StoredEvent::new(rv, EventType::Added, key.clone(), stored.clone(), None);
        Self::record(&mut inner, &self.sender, event);
        Ok(stored)
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
            return Ok(current.value().clone());
        }
        inner.rv += 1;
        let rv = inner.rv;
        set_rv(&mut obj, rv);
        let stored = Arc::new(StoredObject::new(obj.clone()));
        inner.objects.insert(key.clone(), stored.clone());
        let event = StoredEvent::new(rv, EventType::Modified, key.clone(), stored, Some(current));
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
        let mut last = current.value().clone();
        set_rv(&mut last, rv);
        let stored = Arc::new(StoredObject::new(last.clone()));
        let event = StoredEvent::new(rv, EventType::Deleted, key.clone(), stored, Some(current));
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
                    .map_err(|oldest| ApiError::watch_too_old(group, resource, rv, oldest))?;
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

    /// Open subscriptions (watches and in-process controllers): a watch whose client went
    /// away must give its subscription up, or the fan-out keeps feeding it.
    pub fn subscriber_count(&self) -> usize {
        self.sender.receiver_count()
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
            visit(k, v.value());
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
            .map(|(k, v)| (k.clone(), v.value().clone()))
            .collect()
    }

    /// All objects, for the state file.
    pub fn dump(&self) -> (u64, Vec<Value>) {
        let inner = self.lock();
        (
            inner.rv,
            inner.objects.values().map(|o| o.value().clone()).collect(),
        )
    }

    /// The current resourceVersion with every object, read under one lock (for the state
    /// file: no object is newer than the version saved with it).
    pub fn snapshot(&self) -> (u64, Vec<(ObjectKey, Value)>) {
        let inner = self.lock();
        let objects = inner
            .objects
            .iter()
            .map(|(k, v)| (k.clone(), v.value().clone()))
            .collect();
        (inner.rv, objects)
    }

    /// Loads saved objects (before serving; emits no events). The counter continues `step`
    /// above both `rv` and every loaded object's version, and the watch cache starts there
    /// (older resume points get 410).
    pub fn load(&self, rv: u64, objects: Vec<(ObjectKey, Value)>, step: u64) {
        let mut inner = self.lock();
        let newest = objects.iter().filter_map(|(_, v)| rv_of(v)).max();
        inner.rv = inner
            .rv
            .max(rv)
            .max(newest.unwrap_or(0))
            .saturating_add(step);
        let start = inner.rv;
        let capacity = inner.cache.capacity();
        inner.cache = WatchCache::new(capacity, start);
        for (k, v) in objects {
            inner.pods_by_node.note(&k, None, Some(&v));
            inner.objects.insert(k, Arc::new(StoredObject::new(v)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(page: &Page) -> Vec<String> {
        page.items
            .iter()
            .map(|o| format!("{}={}", o["metadata"]["name"], o["data"]["v"]))
            .collect()
    }

    #[test]
    fn pages_of_an_old_snapshot_undo_newer_changes() {
        let store = Store::new(100);
        let key = |n: &str| ObjectKey::new("", "configmaps", "ns", n);
        let cm =
            |n: &str, v: i64| json!({"metadata": {"name": n, "namespace": "ns"}, "data": {"v": v}});
        for n in ["a", "b", "c", "d"] {
            store.create(&key(n), cm(n, 1)).unwrap();
        }
        store
            .create(&ObjectKey::new("", "secrets", "ns", "x"), cm("x", 1))
            .unwrap();
        let rv = store.current_rv();
        store.delete(&key("b"), None).unwrap();
        store.update(&key("c"), cm("c", 2), None).unwrap();
        store.create(&key("bb"), cm("bb", 1)).unwrap();
        store.delete(&key("d"), None).unwrap();
        store.create(&key("d"), cm("d", 3)).unwrap();
        let page = |after, limit| {
            store
                .list_page("", "configmaps", None, Some(rv), after, limit, |_| true)
                .unwrap()
        };
        let first = page(None, Some(2));
        assert_eq!(names(&first), ["\"a\"=1", "\"b\"=1"]);
        assert_eq!(first.remaining, Some(2));
        let rest = page(Some(("ns", "b")), Some(2));
        assert_eq!(names(&rest), ["\"c\"=1", "\"d\"=1"]);
        assert_eq!(rest.remaining, None);
        let now = store
            .list_page("", "configmaps", Some("ns"), None, None, None, |_| true)
            .unwrap();
        assert_eq!(names(&now), ["\"a\"=1", "\"bb\"=1", "\"c\"=2", "\"d\"=3"]);
    }

    #[test]
    fn a_nodes_pods_follow_binding_moves_and_deletion() {
        let store = Store::new(100);
        let key = |name: &str| ObjectKey::new("", "pods", "default", name);
        let names = |node: &str| -> Vec<String> {
            store
                .pods_on_node(node)
                .iter()
                .map(|p| {
                    p["metadata"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
                .collect()
        };
        let pod = |name: &str, node: &str| json!({"metadata": {"name": name}, "spec": {"nodeName": node}});
        store.create(&key("a"), pod("a", "")).expect("created");
        store.create(&key("b"), pod("b", "n1")).expect("created");
        // A namesake of another kind is not a pod.
        store
            .create(
                &ObjectKey::new("", "configmaps", "default", "c"),
                pod("c", "n1"),
            )
            .expect("created");
        assert_eq!(names("n1"), ["b"]);
        store
            .update(&key("a"), pod("a", "n1"), None)
            .expect("bound");
        assert_eq!(names("n1"), ["a", "b"]);
        store
            .update(&key("b"), pod("b", "n2"), None)
            .expect("moved");
        assert_eq!(
            (names("n1"), names("n2")),
            (vec!["a".to_string()], vec!["b".to_string()])
        );
        store.delete(&key("a"), None).expect("deleted");
        assert!(names("n1").is_empty());
        store.load(10, vec![(key("d"), pod("d", "n3"))], 1);
        assert_eq!(names("n3"), ["d"]);
    }
}
