//! The EndpointSlice controller (`endpointslice-controller`): for every Service with a
//! selector, one EndpointSlice `<service>-xxxxx` listing the selected pods that have an IP,
//! with `ready`/`serving`/`terminating` following the pods, and the Service's ports.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::{
    controller_ref, is_deleting, is_pod_ready, is_pod_terminal, name_of, namespace_of,
    spawn_reconciler, uid_of, writer, Context, CONTROLLER_MANAGER,
};
use crate::registry::DeleteOptions;

/// The label naming a slice's Service.
pub const SERVICE_NAME_LABEL: &str = "kubernetes.io/service-name";
const MANAGED_BY_LABEL: &str = "endpointslice.kubernetes.io/managed-by";
/// The `managed-by` value of the real controller's slices (others' slices are left alone).
const MANAGED_BY: &str = "endpointslice-controller.k8s.io";

pub fn spawn(ctx: Arc<Context>) -> JoinHandle<()> {
    spawn_reconciler(
        ctx,
        &[
            ("", "services"),
            ("", "pods"),
            ("discovery.k8s.io", "endpointslices"),
        ],
        reconcile_all,
    )
}

/// Syncs the slices of every Service.
pub fn reconcile_all(ctx: &Context) {
    let (services, _) = ctx.registry.list_shared(&ctx.def("", "services"), None);
    let selected: Vec<&Value> = services
        .iter()
        .map(|s| s.value())
        .filter(|s| selector_of(s).is_some() && !is_deleting(s))
        .collect();
    if selected.is_empty() {
        return;
    }
    let (pods, _) = ctx.registry.list_shared(&ctx.def("", "pods"), None);
    let mut pods_by_namespace: HashMap<&str, Vec<&Value>> = HashMap::new();
    for pod in &pods {
        pods_by_namespace
            .entry(namespace_of(pod))
            .or_default()
            .push(pod.value());
    }
    let (slices, _) = ctx
        .registry
        .list(&ctx.def("discovery.k8s.io", "endpointslices"), None);
    let mut slices_by_service: HashMap<(String, String), Vec<Value>> = HashMap::new();
    for slice in slices {
        let labels = &slice["metadata"]["labels"];
        if labels[MANAGED_BY_LABEL] != MANAGED_BY {
            continue;
        }
        if let Some(service) = labels[SERVICE_NAME_LABEL].as_str() {
            let key = (namespace_of(&slice).to_string(), service.to_string());
            slices_by_service.entry(key).or_default().push(slice);
        }
    }
    for service in selected {
        let key = (
            namespace_of(service).to_string(),
            name_of(service).to_string(),
        );
        let existing = slices_by_service.remove(&key).unwrap_or_default();
        let candidates = pods_by_namespace
            .get(namespace_of(service))
            .map(Vec::as_slice)
            .unwrap_or_default();
        sync_service(ctx, service, candidates, existing);
    }
}

/// A Service's non-empty `spec.selector` (Services without one get no slices).
fn selector_of(service: &Value) -> Option<&serde_json::Map<String, Value>> {
    service["spec"]["selector"]
        .as_object()
        .filter(|selector| !selector.is_empty())
}

fn selects(selector: &serde_json::Map<String, Value>, pod: &Value) -> bool {
    selector
        .iter()
        .all(|(k, v)| pod["metadata"]["labels"][k] == *v)
}

/// The pod's endpoint: its IP, readiness (a terminating pod is neither ready nor, once its
/// Ready condition goes, serving), node and a reference to it.
fn endpoint_of(pod: &Value) -> Option<Value> {
    let ip = pod["status"]["podIP"]
        .as_str()
        .filter(|ip| !ip.is_empty())?;
    let serving = is_pod_ready(pod);
    let terminating = is_deleting(pod);
    let mut endpoint = json!({
        "addresses": [ip],
        "conditions": {"ready": serving && !terminating, "serving": serving, "terminating": terminating},
        "targetRef": {"kind": "Pod", "namespace": namespace_of(pod), "name": name_of(pod), "uid": uid_of(pod)},
    });
    if let Some(node) = pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
        endpoint["nodeName"] = json!(node);
    }
    Some(endpoint)
}

/// The Service's ports as endpoint ports: the target port, resolved by name against the
/// first selected pod's containers when it is a name.
fn ports_of(service: &Value, pods: &[&Value]) -> Value {
    let ports = service["spec"]["ports"].as_array().into_iter().flatten();
    let resolved: Vec<Value> = ports
        .filter_map(|port| {
            let number = match &port["targetPort"] {
                Value::Number(n) => n.as_i64(),
                Value::String(name) => pods.iter().find_map(|pod| named_port(pod, name)),
                _ => port["port"].as_i64(),
            }?;
            let mut endpoint_port = json!({
                "name": port["name"].as_str().unwrap_or_default(),
                "port": number,
                "protocol": port["protocol"].as_str().unwrap_or("TCP"),
            });
            if port["appProtocol"].is_string() {
                endpoint_port["appProtocol"] = port["appProtocol"].clone();
            }
            Some(endpoint_port)
        })
        .collect();
    Value::Array(resolved)
}

fn named_port(pod: &Value, name: &str) -> Option<i64> {
    pod["spec"]["containers"]
        .as_array()?
        .iter()
        .flat_map(|c| c["ports"].as_array().into_iter().flatten())
        .find(|p| p["name"] == name)
        .and_then(|p| p["containerPort"].as_i64())
}

fn sync_service(ctx: &Context, service: &Value, candidates: &[&Value], existing: Vec<Value>) {
    let Some(selector) = selector_of(service) else {
        return;
    };
    let mut pods: Vec<&Value> = candidates
        .iter()
        .copied()
        .filter(|pod| selects(selector, pod) && !is_pod_terminal(pod))
        .collect();
    pods.sort_by_key(|pod| name_of(pod));
    let endpoints = Value::Array(pods.iter().filter_map(|pod| endpoint_of(pod)).collect());
    let ports = ports_of(service, &pods);
    let def = ctx.def("discovery.k8s.io", "endpointslices");
    let opts = writer(CONTROLLER_MANAGER, "");
    let mut existing = existing.into_iter();
    match existing.next() {
        None => {
            let slice = json!({
                "apiVersion": "discovery.k8s.io/v1",
                "kind": "EndpointSlice",
                "metadata": {
                    "generateName": format!("{}-", name_of(service)),
                    "namespace": namespace_of(service),
                    "labels": {
                        SERVICE_NAME_LABEL: name_of(service),
                        MANAGED_BY_LABEL: MANAGED_BY,
                    },
                    "ownerReferences": [controller_ref(service)],
                },
                "addressType": "IPv4",
                "endpoints": endpoints,
                "ports": ports,
            });
            let _ = ctx
                .registry
                .create(&def, namespace_of(service), slice, &opts);
        }
        Some(slice) if slice["endpoints"] != endpoints || slice["ports"] != ports => {
            let _ = ctx.registry.update_with(
                &def,
                namespace_of(&slice),
                name_of(&slice),
                &opts,
                |current| {
                    current["endpoints"] = endpoints.clone();
                    current["ports"] = ports.clone();
                    Ok(())
                },
            );
        }
        Some(_) => {}
    }
    // One slice holds every endpoint here: any other is left over.
    for surplus in existing {
        let _ = ctx.registry.delete(
            &def,
            namespace_of(&surplus),
            name_of(&surplus),
            &DeleteOptions::default(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_follow_readiness_and_named_target_ports_resolve() {
        let pod = json!({
            "metadata": {"name": "web-1", "namespace": "ns", "uid": "p1"},
            "spec": {"nodeName": "node-1",
                     "containers": [{"ports": [{"name": "http", "containerPort": 8080}]}]},
            "status": {"podIP": "10.0.0.7",
                       "conditions": [{"type": "Ready", "status": "False"}]},
        });
        let endpoint = endpoint_of(&pod).unwrap();
        assert_eq!(endpoint["addresses"][0], "10.0.0.7");
        assert_eq!(endpoint["conditions"]["ready"], false);
        assert_eq!(endpoint["targetRef"]["name"], "web-1");
        let service = json!({"spec": {"ports": [{"port": 80, "targetPort": "http"}]}});
        let ports = ports_of(&service, &[&pod]);
        assert_eq!(ports[0]["port"], 8080);
        assert_eq!(ports[0]["protocol"], "TCP");
        // No IP yet: not an endpoint.
        assert!(endpoint_of(&json!({"status": {}})).is_none());
    }
}
