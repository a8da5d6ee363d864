//! The kubelet's Node: registering it (labels, podCIDR, status, the not-ready taint lifted),
//! and the heartbeats that keep it fresh: node status every few minutes, the Lease in
//! `kube-node-lease` every few seconds.

use std::collections::HashSet;

use serde_json::{json, Value};

use super::MANAGER;
use crate::controllers::{name_of, now_micro, writer, Context};
use crate::registry::now;

/// Refreshes the heartbeat times of the Node's conditions.
pub fn post_node_status(ctx: &Context, node: &str) {
    let nodes = ctx.def("", "nodes");
    let _ = ctx
        .registry
        .update_with(&nodes, "", node, &writer(MANAGER, "status"), |current| {
            let time = now();
            let conditions = current
                .pointer_mut("/status/conditions")
                .and_then(Value::as_array_mut);
            for c in conditions.into_iter().flatten() {
                c["lastHeartbeatTime"] = json!(time);
            }
            Ok(())
        });
}

/// What a kubelet and the node IPAM controller add to a Node created with less (through the
/// API, with only a name): a podCIDR (`kube-controller-manager`), then the kubelet's default
/// labels and status — conditions, addresses, capacity, nodeInfo — where missing (`kubelet`).
/// Fields already there are kept, so a Node written NotReady stays NotReady.
pub fn register_node(ctx: &Context, node: &Value, all: &[Value]) {
    let nodes = ctx.def("", "nodes");
    let name = name_of(node);
    if node["spec"]["podCIDR"].as_str().is_none_or(str::is_empty) {
        let used: HashSet<&str> = all
            .iter()
            .filter_map(|n| n["spec"]["podCIDR"].as_str())
            .collect();
        let free = (0..=255)
            .map(|i| format!("10.244.{i}.0/24"))
            .find(|cidr| !used.contains(cidr.as_str()));
        if let Some(cidr) = free {
            let _ = ctx.registry.update_with(
                &nodes,
                "",
                name,
                &writer("kube-controller-manager", ""),
                |current| {
                    if current["spec"]["podCIDR"]
                        .as_str()
                        .is_none_or(str::is_empty)
                    {
                        current["spec"]["podCIDR"] = json!(cidr);
                        current["spec"]["podCIDRs"] = json!([cidr]);
                    }
                    Ok(())
                },
            );
        }
    }
    let labels = node_labels(name);
    let labelled = labels
        .as_object()
        .into_iter()
        .flatten()
        .all(|(k, _)| node["metadata"]["labels"][k].is_string());
    if !labelled {
        let _ = ctx
            .registry
            .update_with(&nodes, "", name, &writer(MANAGER, ""), |current| {
                if let Some(have) = current
                    .get_mut("metadata")
                    .and_then(|m| ensure_object(m, "labels"))
                {
                    for (k, v) in labels.as_object().into_iter().flatten() {
                        have.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
                Ok(())
            });
    }
    let has_ready = node["status"]["conditions"]
        .as_array()
        .is_some_and(|cs| cs.iter().any(|c| c["type"] == "Ready"));
    let lift_not_ready = |ctx: &Context| {
        // The node lifecycle controller's part: a Ready node loses the not-ready taint that
        // kube-apiserver's admission gave it at creation.
        let _ = ctx.registry.update_with(
            &nodes,
            "",
            name,
            &writer("kube-controller-manager", ""),
            |current| {
                let ready = current["status"]["conditions"]
                    .as_array()
                    .is_some_and(|cs| {
                        cs.iter()
                            .any(|c| c["type"] == "Ready" && c["status"] == "True")
                    });
                if let (true, Some(taints)) = (ready, current["spec"]["taints"].as_array_mut()) {
                    taints.retain(|t| t["key"] != NOT_READY_TAINT);
                    if taints.is_empty() {
                        if let Some(spec) = current["spec"].as_object_mut() {
                            spec.remove("taints");
                        }
                    }
                }
                Ok(())
            },
        );
    };
    let not_ready_taint = node["spec"]["taints"]
        .as_array()
        .is_some_and(|ts| ts.iter().any(|t| t["key"] == NOT_READY_TAINT));
    if has_ready && !is_zero_value(&node["status"]["nodeInfo"]) {
        if not_ready_taint {
            lift_not_ready(ctx);
        }
        return;
    }
    let used: HashSet<&str> = all.iter().filter_map(internal_ip).collect();
    let ip = (2..=254)
        .map(|i| format!("172.18.0.{i}"))
        .find(|ip| !used.contains(ip.as_str()))
        .unwrap_or_else(|| "172.18.1.2".into());
    let reported = node_status(name, &ip);
    let _ = ctx
        .registry
        .update_with(&nodes, "", name, &writer(MANAGER, "status"), |current| {
            let Some(status) = ensure_object(current, "status") else {
                return Ok(());
            };
            for (field, value) in reported.as_object().into_iter().flatten() {
                // kube-apiserver stores a Node written without status with zero values.
                let present = status.get(field).is_some_and(|v| !is_zero_value(v));
                if field == "conditions" && present {
                    // Add the condition types the Node lacks, keep those it has.
                    if let Some(conditions) = status[field].as_array_mut() {
                        for c in value.as_array().into_iter().flatten() {
                            if !conditions.iter().any(|have| have["type"] == c["type"]) {
                                conditions.push(c.clone());
                            }
                        }
                    }
                } else if !present {
                    status.insert(field.clone(), value.clone());
                }
            }
            Ok(())
        });
    lift_not_ready(ctx);
}

const NOT_READY_TAINT: &str = "node.kubernetes.io/not-ready";

/// The labels a kubelet puts on the Node it registers.
pub fn node_labels(name: &str) -> Value {
    json!({
        "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64",
    })
}

/// The status a kubelet reports for its node (capacity, Ready and pressure conditions,
/// addresses, nodeInfo), at registration and then kept fresh by its heartbeats.
pub fn node_status(name: &str, internal_ip: &str) -> Value {
    let t = now();
    let cond = |ty: &str, status: &str, reason: &str, message: &str| json!({"type": ty, "status": status, "lastHeartbeatTime": t, "lastTransitionTime": t, "reason": reason, "message": message});
    // Stable per-name identifiers, as a machine keeps its own.
    let id: String = name.chars().filter(char::is_ascii_alphanumeric).collect();
    json!({
        "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110", "ephemeral-storage": "100Gi"},
        "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110", "ephemeral-storage": "100Gi"},
        "conditions": [
            cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            cond("Ready", "True", "KubeletReady", "kubelet is posting ready status")],
        "addresses": [{"type": "InternalIP", "address": internal_ip}, {"type": "Hostname", "address": name}],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {"machineID": id, "systemUUID": name, "bootID": format!("boot-{name}"),
            "kernelVersion": "6.1.0", "osImage": "Demo Linux", "containerRuntimeVersion": "containerd://1.7.0",
            "kubeletVersion": "v1.34.0", "kubeProxyVersion": "v1.34.0", "operatingSystem": "linux", "architecture": "amd64"}
    })
}

/// Null, or only empty strings, zeros, falses and empty collections all the way down.
fn is_zero_value(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.values().all(is_zero_value),
    }
}

pub(super) fn internal_ip(node: &Value) -> Option<&str> {
    node["status"]["addresses"]
        .as_array()?
        .iter()
        .find(|a| a["type"] == "InternalIP")?["address"]
        .as_str()
}

/// `obj[field]` as an object, made one if it is missing or null; None if it is something else.
fn ensure_object<'a>(
    obj: &'a mut Value,
    field: &str,
) -> Option<&'a mut serde_json::Map<String, Value>> {
    let map = obj.as_object_mut()?;
    let entry = map.entry(field).or_insert_with(|| json!({}));
    if entry.is_null() {
        *entry = json!({});
    }
    entry.as_object_mut()
}

/// Renews (or creates) the node's Lease in kube-node-lease, owned by the Node.
pub fn renew_lease(ctx: &Context, node: &str) {
    let Ok(node_obj) = ctx.registry.get(&ctx.def("", "nodes"), "", node) else {
        return;
    };
    let leases = ctx.def("coordination.k8s.io", "leases");
    let renewed = ctx.registry.update_with(
        &leases,
        "kube-node-lease",
        node,
        &writer(MANAGER, ""),
        |lease| {
            lease["spec"]["renewTime"] = json!(now_micro());
            Ok(())
        },
    );
    if renewed.is_err() {
        let lease = json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": node, "namespace": "kube-node-lease",
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": node, "uid": node_obj["metadata"]["uid"]}]},
            "spec": {"holderIdentity": node, "leaseDurationSeconds": 40, "renewTime": now_micro()},
        });
        let _ = ctx
            .registry
            .create(&leases, "kube-node-lease", lease, &writer(MANAGER, ""));
    }
}
