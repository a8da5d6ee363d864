//! The graph of one set of objects: a node per object, an edge per reference found in it,
//! each edge with the field it was read from. Node order and edge order depend only on the
//! objects, never on the order they were given in, so two builds of the same objects draw
//! the same map.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::missing::MissingKind;
use super::{custom, pod_refs, rules};
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

/// Why one object points at another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EdgeKind {
    /// The owner is the managing controller (`controller: true`): a ReplicaSet's pods.
    Controls,
    /// An ownerReference that is not the controller's.
    Owns,
    /// A Service's selector chooses the pod.
    Selects,
    /// An Ingress or a Gateway API route sends traffic to the Service.
    Routes,
    /// A route attaches to its Gateway (`parentRefs`).
    AttachesTo,
    /// A volume (plain or projected) mounts the ConfigMap, Secret or claim.
    Mounts,
    /// `envFrom` or an `env[].valueFrom` reads the ConfigMap or Secret.
    ReadsEnv,
    /// `imagePullSecrets`.
    PullsWith,
    /// `serviceAccountName`.
    RunsAs,
    /// An Ingress's TLS certificate.
    ServesTlsWith,
    /// A claim is bound to its volume (`spec.volumeName`).
    BindsTo,
    /// A volume or claim's StorageClass.
    UsesClass,
    /// A HorizontalPodAutoscaler's `scaleTargetRef`.
    Scales,
    /// A PodDisruptionBudget's selector chooses the pod.
    Budgets,
    /// A NetworkPolicy's podSelector chooses the pod.
    Isolates,
    /// A custom resource's `…Ref` field names the object.
    References,
}

impl EdgeKind {
    /// Whether traffic runs against the reference: a route names its Gateway, but requests
    /// come from the Gateway, so the map draws the Gateway first.
    pub fn drawn_reversed(self) -> bool {
        self == EdgeKind::AttachesTo
    }

    /// The verb of "Service web selects 3 pods".
    pub fn verb(self) -> &'static str {
        match self {
            EdgeKind::Controls => "controls",
            EdgeKind::Owns => "owns",
            EdgeKind::Selects => "selects",
            EdgeKind::Routes => "routes to",
            EdgeKind::AttachesTo => "attaches to",
            EdgeKind::Mounts => "mounts",
            EdgeKind::ReadsEnv => "reads environment from",
            EdgeKind::PullsWith => "pulls images with",
            EdgeKind::RunsAs => "runs as",
            EdgeKind::ServesTlsWith => "serves TLS with",
            EdgeKind::BindsTo => "is bound to",
            EdgeKind::UsesClass => "uses class",
            EdgeKind::Scales => "scales",
            EdgeKind::Budgets => "budgets disruptions of",
            EdgeKind::Isolates => "applies network policy to",
            EdgeKind::References => "references",
        }
    }
}

/// One reference from `from` to `to` (indices into [`Graph::objects`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub kind: EdgeKind,
    /// The fields of `from` it was read from (`spec.volumes[2].configMap.name`), in the
    /// object's order; several when the same object is named twice the same way.
    pub evidence: Vec<String>,
    /// A Service's pod: whether its EndpointSlices list it ready; `None` when no slice of the
    /// Service was given (not known, rather than not ready).
    pub ready: Option<bool>,
    /// A selector's text (`app=web`) for the edges a selector made.
    pub selector: Option<String>,
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
            edges: sink.edges.into_values().collect(),
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

/// Objects looked up by uid, and by namespace, kind and name.
pub(crate) struct Index<'a> {
    pub objects: &'a [MapObject],
    by_uid: HashMap<&'a str, usize>,
    by_name: HashMap<(Option<&'a str>, &'a str, &'a str), Vec<usize>>,
    /// Pods by namespace, for selectors.
    pods: HashMap<Option<&'a str>, Vec<usize>>,
}

impl<'a> Index<'a> {
    fn new(objects: &'a [MapObject]) -> Index<'a> {
        let mut index = Index {
            objects,
            by_uid: HashMap::new(),
            by_name: HashMap::new(),
            pods: HashMap::new(),
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

    /// The pods of `namespace`, in node order.
    pub fn pods_in(&self, namespace: Option<&'a str>) -> &[usize] {
        self.pods.get(&namespace).map(Vec::as_slice).unwrap_or(&[])
    }
}

/// `apps` of `apps/v1`, `""` of `v1`.
pub(crate) fn api_group(api_version: &str) -> &str {
    api_version
        .rsplit_once('/')
        .map(|(group, _)| group)
        .unwrap_or("")
}

/// Collects edges, merging the same reference met twice (one Secret mounted and read as env
/// is two edges; mounted twice is one edge with two fields).
#[derive(Default)]
pub(crate) struct EdgeSink {
    edges: BTreeMap<(usize, usize, EdgeKind), Edge>,
}

impl EdgeSink {
    pub fn add(&mut self, from: usize, to: usize, kind: EdgeKind, evidence: String) {
        if from == to {
            return;
        }
        let edge = self.edges.entry((from, to, kind)).or_insert_with(|| Edge {
            from,
            to,
            kind,
            evidence: Vec::new(),
            ready: None,
            selector: None,
        });
        if !edge.evidence.contains(&evidence) {
            edge.evidence.push(evidence);
        }
    }

    pub fn add_selected(
        &mut self,
        from: usize,
        to: usize,
        kind: EdgeKind,
        field: &str,
        selector: String,
    ) {
        self.add(from, to, kind, field.to_string());
        if let Some(edge) = self.edges.get_mut(&(from, to, kind)) {
            edge.selector = Some(selector);
        }
    }

    /// The edges of `kind`, for a rule that annotates them afterwards.
    pub fn of_kind(&mut self, kind: EdgeKind) -> impl Iterator<Item = &mut Edge> {
        self.edges.values_mut().filter(move |e| e.kind == kind)
    }
}
