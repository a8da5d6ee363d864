//! The graph of one set of objects: a node per object, an edge per reference found in it,
//! each edge with the field it was read from. Node order and edge order depend only on the
//! objects, never on the order they were given in, so two builds of the same objects draw
//! the same map.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::edge::EdgeSink;
pub use super::edge::{Edge, EdgeKind};
use super::missing::MissingKind;
use super::{custom, pod_refs, rules};
use crate::list::selector::{LabelOperator, LabelSelector};
use crate::object::meta::{controller_uid, ObjectMeta};
use crate::object::pointer::Pointer;

/// One object of the map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapObject {
    pub kind: String,
    pub api_version: String,
    /// `None` for cluster-scoped objects (PersistentVolume, StorageClass).
    pub namespace: Option<String>,
    pub name: String,
    /// The object's uid; an object without one (made by hand) gets `kind/namespace/name`, so
    /// it still has an identity.
    pub uid: String,
    pub labels: BTreeMap<String, String>,
    /// The uid of its managing controller (else its first owner): siblings share it.
    pub owner_uid: Option<String>,
    /// A Pod's Ready condition (`None` for other kinds, or no condition yet).
    pub ready: Option<bool>,
}

impl MapObject {
    /// `Service web`, as sentences name an object.
    pub fn title(&self) -> String {
        format!("{} {}", self.kind, self.name)
    }

    fn sort_key(&self) -> (&Option<String>, &str, &str, &str) {
        (&self.namespace, &self.kind, &self.name, &self.uid)
    }
}

/// The objects and their references.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Graph {
    /// By namespace (cluster-scoped first), kind, name, uid.
    pub objects: Vec<MapObject>,
    /// By `from`, `to`, kind; never to an object outside `objects`, never to itself.
    pub edges: Vec<Edge>,
    /// The kinds that could not be listed, so the view says what is not shown.
    pub missing: Vec<MissingKind>,
}

impl Graph {
    /// The graph of `objects` (whole objects as the API server returns them, of any kind),
    /// with `missing` the kinds the caller could not list. Objects without a kind or a name
    /// are left out; of two with one uid, the first in node order is kept.
    pub fn build(objects: &[Value], missing: Vec<MissingKind>) -> Graph {
        let mut read: Vec<(MapObject, &Value)> = objects
            .iter()
            .filter_map(|value| Some((read_object(value)?, value)))
            .collect();
        crate::list::stable_sort::sort_by(&mut read, |a, b| a.0.sort_key().cmp(&b.0.sort_key()));
        let mut seen = std::collections::HashSet::new();
        read.retain(|(object, _)| seen.insert(object.uid.clone()));
        let (objects, values): (Vec<MapObject>, Vec<&Value>) = read.into_iter().unzip();
        let index = Index::new(&objects);
        let mut sink = EdgeSink::default();
        for (at, value) in values.iter().enumerate() {
            let object = &objects[at];
            rules::owner_edges(&index, at, value, &mut sink);
            rules::kind_edges(&index, at, object, value, &mut sink);
            if object.kind == "Pod" {
                pod_refs::pod_edges(&index, at, value, &mut sink);
            }
            if custom::is_custom(&object.api_version) {
                custom::reference_edges(&index, at, value, &mut sink);
            }
        }
        rules::endpoint_readiness(&index, &values, &mut sink);
        let mut missing = missing;
        crate::list::stable_sort::sort_by(&mut missing, |a, b| a.kind.cmp(&b.kind));
        missing.dedup_by(|a, b| a.kind == b.kind);
        Graph {
            objects,
            edges: sink.into_edges(),
            missing,
        }
    }

    /// The index of the object with this uid.
    pub fn position(&self, uid: &str) -> Option<usize> {
        self.objects.iter().position(|o| o.uid == uid)
    }

    /// For each object, the indices of the edges leaving it and of those reaching it.
    pub fn adjacency(&self) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
        let mut outgoing = vec![Vec::new(); self.objects.len()];
        let mut incoming = vec![Vec::new(); self.objects.len()];
        for (at, edge) in self.edges.iter().enumerate() {
            outgoing[edge.from].push(at);
            incoming[edge.to].push(at);
        }
        (outgoing, incoming)
    }
}

fn read_object(value: &Value) -> Option<MapObject> {
    let kind = value.get("kind").and_then(Value::as_str)?.to_string();
    let meta = ObjectMeta::of_object(value);
    if kind.is_empty() || meta.name.is_empty() {
        return None;
    }
    let uid = meta.uid.clone().unwrap_or_else(|| {
        format!(
            "{kind}/{}/{}",
            meta.namespace.as_deref().unwrap_or(""),
            meta.name
        )
    });
    let ready = (kind == "Pod").then(|| pod_ready(value)).flatten();
    Some(MapObject {
        api_version: value
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        owner_uid: controller_uid(value).map(str::to_string),
        kind,
        namespace: meta.namespace,
        name: meta.name,
        uid,
        labels: meta.labels,
        ready,
    })
}

fn pod_ready(pod: &Value) -> Option<bool> {
    pod.at("/status/conditions")
        .and_then(Value::as_array)?
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))
        .and_then(|c| c.get("status").and_then(Value::as_str))
        .map(|status| status == "True")
}

/// Label key → value → pods.
type LabelIndex<'a> = HashMap<&'a str, HashMap<&'a str, Vec<usize>>>;

/// Objects looked up by uid, and by namespace, kind and name.
pub(crate) struct Index<'a> {
    pub objects: &'a [MapObject],
    by_uid: HashMap<&'a str, usize>,
    by_name: HashMap<(Option<&'a str>, &'a str, &'a str), Vec<usize>>,
    /// Pods by namespace, for selectors.
    pods: HashMap<Option<&'a str>, Vec<usize>>,
    /// Pods by namespace and one label (key and value): a selector's candidates.
    pods_by_label: HashMap<Option<&'a str>, LabelIndex<'a>>,
}

impl<'a> Index<'a> {
    fn new(objects: &'a [MapObject]) -> Index<'a> {
        let mut index = Index {
            objects,
            by_uid: HashMap::new(),
            by_name: HashMap::new(),
            pods: HashMap::new(),
            pods_by_label: HashMap::new(),
        };
        for (at, object) in objects.iter().enumerate() {
            index.by_uid.insert(&object.uid, at);
            let namespace = object.namespace.as_deref();
            index
                .by_name
                .entry((namespace, &object.kind, &object.name))
                .or_default()
                .push(at);
            if object.kind == "Pod" {
                index.pods.entry(namespace).or_default().push(at);
                let labels = index.pods_by_label.entry(namespace).or_default();
                for (key, value) in &object.labels {
                    let values = labels.entry(key.as_str()).or_default();
                    values.entry(value.as_str()).or_default().push(at);
                }
            }
        }
        index
    }

    pub fn by_uid(&self, uid: &str) -> Option<usize> {
        self.by_uid.get(uid).copied()
    }

    /// The object of `kind` named `name` in `namespace`, else cluster-scoped; of the same kind
    /// in several API groups, the one in `group` when it is given.
    pub fn find(
        &self,
        namespace: Option<&str>,
        kind: &str,
        name: &str,
        group: Option<&str>,
    ) -> Option<usize> {
        let candidates = self
            .by_name
            .get(&(namespace, kind, name))
            .or_else(|| self.by_name.get(&(None, kind, name)))?;
        let in_group = |at: &&usize| {
            group.is_none_or(|group| api_group(&self.objects[**at].api_version) == group)
        };
        candidates
            .iter()
            .find(in_group)
            .or(candidates.first())
            .copied()
    }

    /// The pods of `namespace` that `selector` may match, in node order: those with the label
    /// of its first `key=value` term, else all of them (the caller still matches each).
    pub fn pod_candidates(&self, namespace: Option<&'a str>, selector: &LabelSelector) -> &[usize] {
        let equality = selector.requirements.iter().find(|r| {
            matches!(
                r.operator,
                LabelOperator::Equals | LabelOperator::DoubleEquals
            )
        });
        let found = match equality {
            Some(term) => {
                let value = term.values.first().map(String::as_str).unwrap_or_default();
                let labels = self.pods_by_label.get(&namespace);
                let values = labels.and_then(|labels| labels.get(term.key.as_str()));
                values.and_then(|values| values.get(value))
            }
            None => self.pods.get(&namespace),
        };
        found.map(Vec::as_slice).unwrap_or(&[])
    }
}

/// `apps` of `apps/v1`, `""` of `v1`.
pub(crate) fn api_group(api_version: &str) -> &str {
    api_version
        .rsplit_once('/')
        .map(|(group, _)| group)
        .unwrap_or("")
}
