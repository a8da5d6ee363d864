//! The edge rules of the built-in kinds: ownerReferences; selectors (Service, PodDisruptionBudget,
//! NetworkPolicy → Pods, with EndpointSlices saying which of a Service's pods are ready);
//! Ingress and Gateway API routes → Services and Gateways; claims → volumes → classes; a
//! HorizontalPodAutoscaler → what it scales. A pod's own references are in
//! [`super::pod_refs`], custom resources' in [`super::custom`].

use std::collections::HashMap;

use serde_json::Value;

use super::edge::{EdgeKind, EdgeSink};
use super::graph::{Index, MapObject};
use crate::list::selector::LabelSelector;
use crate::object::pointer::Pointer;

/// Every ownerReference whose owner is in the set, owner → owned.
pub(crate) fn owner_edges(index: &Index, at: usize, value: &Value, sink: &mut EdgeSink) {
    let references = value
        .at("/metadata/ownerReferences")
        .and_then(Value::as_array);
    for (position, reference) in references.into_iter().flatten().enumerate() {
        let Some(owner) = reference
            .get("uid")
            .and_then(Value::as_str)
            .and_then(|uid| index.by_uid(uid))
        else {
            continue;
        };
        let controller = reference.get("controller").and_then(Value::as_bool) == Some(true);
        let kind = if controller {
            EdgeKind::Controls
        } else {
            EdgeKind::Owns
        };
        sink.add(
            owner,
            at,
            kind,
            format!("metadata.ownerReferences[{position}]"),
        );
    }
}

/// The rules that depend on the object's kind.
pub(crate) fn kind_edges(
    index: &Index,
    at: usize,
    object: &MapObject,
    value: &Value,
    sink: &mut EdgeSink,
) {
    let namespace = object.namespace.as_deref();
    match object.kind.as_str() {
        "Service" => service_edges(index, at, namespace, value, sink),
        "Ingress" => ingress_edges(index, at, namespace, value, sink),
        "HTTPRoute" | "GRPCRoute" | "TLSRoute" | "TCPRoute" | "UDPRoute" => {
            route_edges(index, at, namespace, value, sink)
        }
        "PersistentVolumeClaim" => {
            let volume = text(value, "/spec/volumeName");
            if let Some(volume) = volume.and_then(|v| index.find(None, "PersistentVolume", v, None))
            {
                sink.add(at, volume, EdgeKind::BindsTo, "spec.volumeName".into());
            } else {
                // Unbound: the class is what the claim waits on.
                class_edge(index, at, value, sink);
            }
        }
        "PersistentVolume" => class_edge(index, at, value, sink),
        "HorizontalPodAutoscaler" => {
            let target = value.at("/spec/scaleTargetRef");
            if let Some(to) = target.and_then(|t| typed_reference(index, namespace, t)) {
                sink.add(at, to, EdgeKind::Scales, "spec.scaleTargetRef".into());
            }
        }
        "PodDisruptionBudget" => {
            let selector = value.at("/spec/selector");
            selector_edges(
                index,
                at,
                namespace,
                selector,
                "spec.selector",
                EdgeKind::Budgets,
                sink,
            );
        }
        "NetworkPolicy" => {
            // An empty podSelector selects every pod of the namespace, as the API says.
            let selector = value.at("/spec/podSelector");
            let field = "spec.podSelector";
            selector_edges(
                index,
                at,
                namespace,
                selector,
                field,
                EdgeKind::Isolates,
                sink,
            );
        }
        _ => {}
    }
}

fn text<'v>(value: &'v Value, pointer: &str) -> Option<&'v str> {
    value
        .at(pointer)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

fn class_edge(index: &Index, at: usize, value: &Value, sink: &mut EdgeSink) {
    let class = text(value, "/spec/storageClassName");
    if let Some(class) = class.and_then(|c| index.find(None, "StorageClass", c, None)) {
        sink.add(
            at,
            class,
            EdgeKind::UsesClass,
            "spec.storageClassName".into(),
        );
    }
}

/// `{apiVersion, kind, name}` in `namespace`.
fn typed_reference(index: &Index, namespace: Option<&str>, reference: &Value) -> Option<usize> {
    let kind = text(reference, "/kind")?;
    let name = text(reference, "/name")?;
    let group = text(reference, "/apiVersion").map(super::graph::api_group);
    index.find(namespace, kind, name, group)
}

/// A Service selects pods by `spec.selector`, a plain map (no expressions); none selects
/// nothing (its endpoints are managed by hand).
fn service_edges(
    index: &Index,
    at: usize,
    namespace: Option<&str>,
    service: &Value,
    sink: &mut EdgeSink,
) {
    let Some(labels) = service.at("/spec/selector").and_then(Value::as_object) else {
        return;
    };
    if labels.is_empty() {
        return;
    }
    let selector = serde_json::json!({ "matchLabels": labels });
    selector_edges(
        index,
        at,
        namespace,
        Some(&selector),
        "spec.selector",
        EdgeKind::Selects,
        sink,
    );
}

fn selector_edges(
    index: &Index,
    at: usize,
    namespace: Option<&str>,
    selector: Option<&Value>,
    field: &str,
    kind: EdgeKind,
    sink: &mut EdgeSink,
) {
    // A malformed selector selects nothing here (the API server would have refused it).
    let Some(selector) = selector.and_then(|s| LabelSelector::from_api(s).ok()) else {
        return;
    };
    let words = if selector.is_empty() {
        "all pods".to_string()
    } else {
        selector.to_string()
    };
    for &pod in index.pod_candidates(namespace, &selector) {
        if selector.matches(&index.objects[pod].labels) {
            sink.add_selected(at, pod, kind, field, words.clone());
        }
    }
}

fn ingress_edges(
    index: &Index,
    at: usize,
    namespace: Option<&str>,
    ingress: &Value,
    sink: &mut EdgeSink,
) {
    let mut backend = |backend: Option<&Value>, field: String| {
        let Some(backend) = backend else { return };
        // networking.k8s.io/v1, then the older extensions/v1beta1 shape.
        let (name, leaf) = match text(backend, "/service/name") {
            Some(name) => (Some(name), "service.name"),
            None => (text(backend, "/serviceName"), "serviceName"),
        };
        if let Some(service) = name.and_then(|n| index.find(namespace, "Service", n, None)) {
            sink.add(at, service, EdgeKind::Routes, format!("{field}.{leaf}"));
        }
    };
    backend(
        ingress.at("/spec/defaultBackend"),
        "spec.defaultBackend".into(),
    );
    backend(ingress.at("/spec/backend"), "spec.backend".into());
    for (r, rule) in array(ingress.at("/spec/rules")).enumerate() {
        for (p, path) in array(rule.at("/http/paths")).enumerate() {
            backend(
                path.get("backend"),
                format!("spec.rules[{r}].http.paths[{p}].backend"),
            );
        }
    }
    for (t, tls) in array(ingress.at("/spec/tls")).enumerate() {
        let secret = text(tls, "/secretName");
        if let Some(secret) = secret.and_then(|s| index.find(namespace, "Secret", s, None)) {
            let field = format!("spec.tls[{t}].secretName");
            sink.add(at, secret, EdgeKind::ServesTlsWith, field);
        }
    }
}

pub(crate) fn array(value: Option<&Value>) -> impl Iterator<Item = &Value> {
    value.and_then(Value::as_array).into_iter().flatten()
}

/// Gateway API routes: `spec.rules[].backendRefs[]` (a Service unless another kind is named)
/// and `spec.parentRefs[]` (a Gateway unless another kind is named); either may name another
/// namespace.
fn route_edges(
    index: &Index,
    at: usize,
    namespace: Option<&str>,
    route: &Value,
    sink: &mut EdgeSink,
) {
    let target = |reference: &Value, default_kind: &str| {
        let name = text(reference, "/name")?;
        let kind = text(reference, "/kind").unwrap_or(default_kind);
        let namespace = text(reference, "/namespace").or(namespace);
        index.find(namespace, kind, name, None)
    };
    for (p, parent) in array(route.at("/spec/parentRefs")).enumerate() {
        if let Some(gateway) = target(parent, "Gateway") {
            sink.add(
                at,
                gateway,
                EdgeKind::AttachesTo,
                format!("spec.parentRefs[{p}]"),
            );
        }
    }
    for (r, rule) in array(route.at("/spec/rules")).enumerate() {
        for (b, backend) in array(rule.get("backendRefs")).enumerate() {
            if let Some(service) = target(backend, "Service") {
                let field = format!("spec.rules[{r}].backendRefs[{b}]");
                sink.add(at, service, EdgeKind::Routes, field);
            }
        }
    }
}

/// Marks each Service → Pod edge ready or not from the Service's EndpointSlices
/// (`kubernetes.io/service-name`): an endpoint naming the pod with `conditions.ready` not
/// false is ready (the API's "nil means ready"); a pod no slice lists is not.
pub(crate) fn endpoint_readiness(index: &Index, values: &[&Value], sink: &mut EdgeSink) {
    // (namespace, service name) → pod uid or name → ready.
    let mut listed: HashMap<(Option<&str>, &str), HashMap<&str, bool>> = HashMap::new();
    for (at, value) in values.iter().enumerate() {
        let object = &index.objects[at];
        if object.kind != "EndpointSlice" {
            continue;
        }
        let Some(service) = object.labels.get("kubernetes.io/service-name") else {
            continue;
        };
        let pods = listed
            .entry((object.namespace.as_deref(), service.as_str()))
            .or_default();
        for endpoint in array(value.at("/endpoints")) {
            let ready = endpoint.at("/conditions/ready").and_then(Value::as_bool) != Some(false);
            let target = endpoint.get("targetRef");
            let key = target.and_then(|t| text(t, "/uid").or_else(|| text(t, "/name")));
            if let Some(key) = key {
                let entry = pods.entry(key).or_insert(false);
                *entry |= ready;
            }
        }
    }
    for edge in sink.of_kind(EdgeKind::Selects) {
        let service = &index.objects[edge.from];
        if service.kind != "Service" {
            continue;
        }
        let Some(pods) = listed.get(&(service.namespace.as_deref(), service.name.as_str())) else {
            continue;
        };
        let pod = &index.objects[edge.to];
        let ready = pods
            .get(pod.uid.as_str())
            .or_else(|| pods.get(pod.name.as_str()));
        edge.ready = Some(ready.copied().unwrap_or(false));
    }
}
