//! The edges of the map: why one object points at another ([`EdgeKind`]), with the fields it
//! was read from, collected once per (from, to, reason) whatever the rule met it through.

use std::collections::BTreeMap;

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

/// One reference from `from` to `to` (indices into [`super::graph::Graph::objects`]).
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

/// Collects edges, merging the same reference met twice (one Secret mounted and read as env
/// is two edges; mounted twice is one edge with two fields).
#[derive(Default)]
pub(crate) struct EdgeSink {
    edges: BTreeMap<(usize, usize, EdgeKind), Edge>,
}

impl EdgeSink {
    /// The edges by `from`, `to`, kind.
    pub fn into_edges(self) -> Vec<Edge> {
        self.edges.into_values().collect()
    }

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
