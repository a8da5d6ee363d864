//! Load-mode workloads: namespaces `load-0..`, Nodes `load-node-000..` and, in every
//! namespace, Deployments with one ReplicaSet each whose pods are already Running, as a
//! steady cluster has them.
//!
//! Nodes, Deployments and ReplicaSets go through the Registry like any write (they are few).
//! Pods are many: each ReplicaSet's pod is built once the way the control plane would build
//! it — a dry-run create by the replicaset controller (defaults, validation, its
//! managedFields), the scheduler's binding, then the kubelet's Running status recorded as a
//! `status` update — and copies differing only in name, uid, node and addresses go straight
//! into the store. Everything is written consistent with what the controllers compute
//! (replicas, statuses, revisions, template hashes), so their first passes change nothing.

use std::sync::Arc;

use serde_json::{json, Value};

use super::rng::Rng;
use crate::controllers::deployment::{self, comparable_template, fenceposts, template_hash};
use crate::controllers::kubelet::{self, full_image, image_id};
use crate::controllers::replicaset::pod_from_template;
use crate::controllers::{set_condition, Context, CONTROLLER_MANAGER};
use crate::registry::kinds::qos_class;
use crate::registry::managed_fields::{self, Writer};
use crate::registry::{now, Registry, WriteOptions};
use crate::storage::object::ObjectKey;

/// Load namespaces are `load-0`, `load-1`, ...; churn keeps to them.
pub const NAMESPACE_PREFIX: &str = "load-";
/// About as many pods as a team's namespace holds in a big cluster.
const PODS_PER_NAMESPACE: usize = 1000;
/// Below the kubelet's default `maxPods` (110).
const PODS_PER_NODE: usize = 100;
const MIN_PODS_PER_REPLICA_SET: usize = 10;
const MAX_PODS_PER_REPLICA_SET: usize = 50;
/// Who applied the Deployments and Namespaces (as `seed.rs`: `kubectl apply`).
const APPLIER: &str = "kubectl-client-side-apply";
const KUBELET: &str = "kubelet";

/// The kinds of application the Deployments run: name, image, port, and whether a
/// log-shipping sidecar runs beside it.
const APPS: &[(&str, &str, i64, bool)] = &[
    ("web", "nginx:1.27", 80, false),
    ("api", "ghcr.io/kube-atlas/api-server:2.3.1", 8080, true),
    ("cache", "redis:7.2", 6379, false),
    (
        "worker",
        "ghcr.io/kube-atlas/queue-worker:0.9.4",
        9090,
        true,
    ),
    ("auth", "ghcr.io/kube-atlas/auth:1.12.0", 8443, false),
    (
        "search",
        "docker.elastic.co/elasticsearch/elasticsearch:8.13.4",
        9200,
        false,
    ),
    ("metrics", "prom/prometheus:v2.52.0", 9090, false),
    ("gateway", "envoyproxy/envoy:v1.30.1", 10000, true),
];
const SIDECAR_IMAGE: &str = "fluent/fluent-bit:3.0.4";

/// What was loaded.
#[derive(Debug, Default, Clone)]
pub struct LoadedWorkloads {
    pub namespaces: Vec<String>,
    pub nodes: usize,
    pub deployments: usize,
    pub pods: usize,
}

/// A load Node and what pods bound to it get from it.
struct LoadNode {
    name: String,
    internal_ip: String,
    /// "10.100.3." of podCIDR 10.100.3.0/24.
    pod_ip_prefix: String,
    pods: usize,
}

/// Creates `pods` Running pods with their Nodes, Namespaces, Deployments and ReplicaSets.
pub fn load_pods(registry: &Arc<Registry>, pods: usize, rng: &mut Rng) -> LoadedWorkloads {
    let mut loaded = LoadedWorkloads::default();
    if pods == 0 {
        return loaded;
    }
    let mut nodes = create_nodes(registry, pods.div_ceil(PODS_PER_NODE));
    loaded.nodes = nodes.len();
    let mut next_node = 0usize;
    let mut remaining = pods;
    for index in 0..pods.div_ceil(PODS_PER_NAMESPACE) {
        let namespace = format!("{NAMESPACE_PREFIX}{index}");
        create_namespace(registry, &namespace);
        let mut in_namespace = remaining.min(PODS_PER_NAMESPACE);
        remaining -= in_namespace;
        let mut app_index = 0usize;
        while in_namespace > 0 {
            let size = replica_set_size(rng, in_namespace);
            in_namespace -= size;
            let (app, image, port, sidecar) = APPS[rng.below(APPS.len())];
            let name = format!("{app}-{app_index}");
            app_index += 1;
            let spec = AppSpec {
                name: &name,
                image,
                port,
                sidecar,
                guaranteed: rng.chance(0.2),
            };
            let Some(rs) = create_deployment(registry, &namespace, &spec, size) else {
                continue;
            };
            loaded.deployments += 1;
            loaded.pods +=
                create_running_pods(registry, &rs, size, &mut nodes, &mut next_node, rng);
        }
        loaded.namespaces.push(namespace);
    }
    // The deployment controller's own pass writes the Deployments' status and revision (under
    // its field manager, as it would have on a real cluster); nothing else is left to do.
    deployment::reconcile_all(&Context::new(registry.clone(), 1.0));
    loaded
}

/// Pods of the next ReplicaSet: 10-50, without leaving a remainder too small for another.
fn replica_set_size(rng: &mut Rng, left: usize) -> usize {
    let size = rng.between(MIN_PODS_PER_REPLICA_SET, MAX_PODS_PER_REPLICA_SET);
    if size >= left || left - size < MIN_PODS_PER_REPLICA_SET {
        left
    } else {
        size
    }
}

fn writer_opts(manager: &str, subresource: &str) -> WriteOptions {
    WriteOptions {
        field_manager: manager.into(),
        subresource: subresource.into(),
        ..Default::default()
    }
}

fn create_namespace(registry: &Registry, name: &str) {
    if let Some(def) = registry.builtin("", "namespaces") {
        let ns = json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name, "labels": {"kube-atlas.io/load": "true"}}});
        let _ = registry.create(&def, "", ns, &writer_opts(APPLIER, ""));
    }
}

/// Ready Nodes registered by their kubelets, each with its own podCIDR and address.
fn create_nodes(registry: &Registry, count: usize) -> Vec<LoadNode> {
    let Some(def) = registry.builtin("", "nodes") else {
        return vec![];
    };
    let mut nodes = vec![];
    for i in 0..count {
        let name = format!("load-node-{i:03}");
        // Away from the seeded nodes' 10.244.x.0/24 and 172.18.0.x.
        let cidr_base = format!("10.{}.{}", 100 + i / 256, i % 256);
        let internal_ip = format!("172.20.{}.{}", i / 250, i % 250 + 1);
        let node = json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": kubelet::node_labels(&name)},
            "spec": {"podCIDR": format!("{cidr_base}.0/24"), "podCIDRs": [format!("{cidr_base}.0/24")]},
            "status": kubelet::node_status(&name, &internal_ip),
        });
        if registry
            .create(&def, "", node, &writer_opts(KUBELET, ""))
            .is_ok()
        {
            nodes.push(LoadNode {
                name,
                internal_ip,
                pod_ip_prefix: format!("{cidr_base}."),
                pods: 0,
            });
        }
    }
    nodes
}

/// What a load Deployment runs.
struct AppSpec<'a> {
    name: &'a str,
    image: &'a str,
    port: i64,
    sidecar: bool,
    /// Requests equal to limits (QoS Guaranteed), else requests below limits (Burstable).
    guaranteed: bool,
}

/// A pod template as teams write them: ports, env (plain and downward API), resources,
/// a readiness probe and a config volume; optionally a log-shipping sidecar.
fn pod_template(app: &AppSpec) -> Value {
    let (requests, limits) = if app.guaranteed {
        (
            json!({"cpu": "250m", "memory": "256Mi"}),
            json!({"cpu": "250m", "memory": "256Mi"}),
        )
    } else {
        (
            json!({"cpu": "100m", "memory": "128Mi"}),
            json!({"cpu": "500m", "memory": "512Mi"}),
        )
    };
    let mut containers = vec![json!({
        "name": "app", "image": app.image,
        "ports": [{"name": "http", "containerPort": app.port, "protocol": "TCP"}],
        "env": [
            {"name": "LOG_LEVEL", "value": "info"},
            {"name": "APP_NAME", "value": app.name},
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
            {"name": "POD_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}},
        ],
        "resources": {"requests": requests, "limits": limits},
        "readinessProbe": {"httpGet": {"path": "/healthz", "port": app.port, "scheme": "HTTP"},
            "periodSeconds": 10, "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3},
        "volumeMounts": [{"name": "config", "mountPath": "/etc/app", "readOnly": true}],
    })];
    if app.sidecar {
        containers.push(json!({
            "name": "log-shipper", "image": SIDECAR_IMAGE,
            "resources": if app.guaranteed {
                json!({"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"cpu": "50m", "memory": "64Mi"}})
            } else {
                json!({"requests": {"cpu": "10m", "memory": "32Mi"}, "limits": {"memory": "64Mi"}})
            },
            "volumeMounts": [{"name": "varlog", "mountPath": "/var/log"}],
        }));
    }
    let mut volumes = vec![
        json!({"name": "config", "configMap": {"name": format!("{}-config", app.name), "defaultMode": 420}}),
    ];
    if app.sidecar {
        volumes.push(json!({"name": "varlog", "emptyDir": {}}));
    }
    json!({
        "metadata": {"labels": {"app": app.name, "app.kubernetes.io/name": app.name,
                                "app.kubernetes.io/part-of": "kube-atlas-load"}},
        "spec": {"containers": containers, "volumes": volumes},
    })
}

/// Creates the Deployment (as `kubectl apply`) and its ReplicaSet (as the deployment
/// controller would, with the template hash it computes); returns the ReplicaSet.
fn create_deployment(
    registry: &Registry,
    namespace: &str,
    app: &AppSpec,
    replicas: usize,
) -> Option<Value> {
    let deployments = registry.builtin("apps", "deployments")?;
    let body = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": app.name, "labels": {"app": app.name}},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": app.name}},
                 "template": pod_template(app)},
    });
    let d = registry
        .create(&deployments, namespace, body, &writer_opts(APPLIER, ""))
        .ok()?;
    create_replica_set(registry, &d, replicas)
}

/// `create_replica_set` of the deployment controller, for its first revision, plus the
/// status the replicaset controller reports once every pod is ready.
fn create_replica_set(registry: &Registry, d: &Value, replicas: usize) -> Option<Value> {
    let def = registry.builtin("apps", "replicasets")?;
    let hash = template_hash(&comparable_template(&d["spec"]["template"]));
    let mut template = d["spec"]["template"].clone();
    template["metadata"]["labels"][deployment::HASH_LABEL] = json!(hash);
    let mut selector = d["spec"]["selector"].clone();
    selector["matchLabels"][deployment::HASH_LABEL] = json!(hash);
    let (max_surge, _) = fenceposts(d, replicas as i64);
    let name = format!(
        "{}-{hash}",
        d["metadata"]["name"].as_str().unwrap_or_default()
    );
    let namespace = d["metadata"]["namespace"].as_str().unwrap_or_default();
    let rs = json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": name, "labels": template["metadata"]["labels"],
            "annotations": {
                deployment::REVISION: "1",
                "deployment.kubernetes.io/desired-replicas": replicas.to_string(),
                "deployment.kubernetes.io/max-replicas": (replicas as i64 + max_surge).to_string()},
            "ownerReferences": [crate::controllers::controller_ref(d)]},
        "spec": {"replicas": replicas, "minReadySeconds": 0, "selector": selector, "template": template},
    });
    let rs = registry
        .create(&def, namespace, rs, &writer_opts(CONTROLLER_MANAGER, ""))
        .ok()?;
    let status = json!({
        "replicas": replicas, "fullyLabeledReplicas": replicas, "readyReplicas": replicas,
        "availableReplicas": replicas, "observedGeneration": rs["metadata"]["generation"],
    });
    registry
        .update_with(
            &def,
            namespace,
            &name,
            &writer_opts(CONTROLLER_MANAGER, "status"),
            |current| {
                current["status"] = status.clone();
                Ok(())
            },
        )
        .ok()
}

/// What admission adds to every pod: the service account token volume (`kube-api-access-*`,
/// mounted in each container) and the not-ready/unreachable tolerations.
pub fn admit_pod(pod: &mut Value, token_suffix: &str) {
    let volume = format!("kube-api-access-{token_suffix}");
    for container in pod["spec"]["containers"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        let mount = json!({"name": volume, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true});
        match container["volumeMounts"].as_array_mut() {
            Some(mounts) => mounts.push(mount),
            None => container["volumeMounts"] = json!([mount]),
        }
    }
    let projected = json!({"name": volume, "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}]}});
    match pod["spec"]["volumes"].as_array_mut() {
        Some(volumes) => volumes.push(projected),
        None => pod["spec"]["volumes"] = json!([projected]),
    }
    pod["spec"]["tolerations"] = json!([
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]);
}

/// One pod of `rs` as the replicaset controller creates it, named `<rs>-<suffix>`.
pub fn new_pod(rs: &Value, rng: &mut Rng) -> Value {
    let mut pod = pod_from_template(rs, &rs["spec"]["template"], &[]);
    let rs_name = rs["metadata"]["name"].as_str().unwrap_or_default();
    pod["metadata"]["name"] = json!(format!("{rs_name}-{}", rng.suffix(5)));
    admit_pod(&mut pod, &rng.suffix(5));
    pod
}

/// The Running status the kubelet reports for `pod` (as its `write_status`), before the
/// per-pod values (IPs, container ids) are filled in.
fn running_status(pod: &Value, time: &str) -> Value {
    let mut conditions = json!([{"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": time}]);
    for ty in [
        "PodReadyToStartContainers",
        "Initialized",
        "Ready",
        "ContainersReady",
        "PodScheduled",
    ] {
        conditions = set_condition(
            &conditions,
            ty,
            "True",
            json!({"lastProbeTime": null}),
            time,
        );
    }
    let statuses: Vec<Value> = pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let image = c["image"].as_str().unwrap_or_default();
            json!({"name": c["name"], "image": full_image(image), "imageID": image_id(image),
                "ready": true, "restartCount": 0, "started": true,
                "state": {"running": {"startedAt": time}}, "lastState": {}, "containerID": ""})
        })
        .collect();
    json!({
        "phase": "Running", "conditions": conditions,
        "hostIP": "", "hostIPs": [{"ip": ""}], "podIP": "", "podIPs": [{"ip": ""}],
        "startTime": time, "containerStatuses": statuses, "qosClass": qos_class(&pod["spec"]),
    })
}

/// The pod of `rs` as the control plane leaves it: created by the replicaset controller
/// (dry run, for defaults and its managedFields), bound by the scheduler (which records no
/// field ownership), then Running as reported by the kubelet through `pods/status`.
fn running_pod_template(registry: &Registry, rs: &Value, rng: &mut Rng) -> Option<Value> {
    let pods = registry.builtin("", "pods")?;
    let namespace = rs["metadata"]["namespace"].as_str().unwrap_or_default();
    let dry_run = WriteOptions {
        dry_run: true,
        ..writer_opts(CONTROLLER_MANAGER, "")
    };
    let created = registry
        .create(&pods, namespace, new_pod(rs, rng), &dry_run)
        .ok()?;
    let time = now();
    let mut bound = created.clone();
    bound["spec"]["nodeName"] = json!("");
    bound["status"]["conditions"] = json!([{"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": time}]);
    let mut running = bound.clone();
    running["status"] = running_status(&bound, &time);
    let writer = Writer {
        manager: KUBELET,
        api_version: "v1",
        subresource: "status",
        now: &time,
    };
    managed_fields::record_update(Some(&bound), &mut running, &writer, false);
    Some(running)
}

/// A container id as containerd reports them (64 hex digits).
fn container_id(rng: &mut Rng) -> String {
    let hex: String = (0..4).map(|_| format!("{:016x}", rng.next_u64())).collect();
    format!("containerd://{hex}")
}

/// The template pod made one pod: its own name, uid, node and addresses; a few have
/// restarted containers, as any long-running cluster has.
fn personalise(template: &Value, rs_name: &str, node: &LoadNode, rng: &mut Rng) -> Value {
    let mut pod = template.clone();
    let name = format!("{rs_name}-{}", rng.suffix(5));
    let uid = uuid::Uuid::from_u64_pair(rng.next_u64(), rng.next_u64());
    pod["metadata"]["name"] = json!(name);
    pod["metadata"]["uid"] = json!(uid.hyphenated().to_string());
    pod["spec"]["nodeName"] = json!(node.name);
    let pod_ip = format!("{}{}", node.pod_ip_prefix, node.pods + 2);
    let status = &mut pod["status"];
    status["hostIP"] = json!(node.internal_ip);
    status["hostIPs"] = json!([{"ip": node.internal_ip}]);
    status["podIP"] = json!(pod_ip);
    status["podIPs"] = json!([{"ip": pod_ip}]);
    let restarts = if rng.chance(0.03) {
        rng.between(1, 4)
    } else {
        0
    };
    for container in status["containerStatuses"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        let id = container_id(rng);
        if restarts > 0 && container["name"] == "app" {
            let started = container["state"]["running"]["startedAt"].clone();
            container["restartCount"] = json!(restarts);
            container["lastState"] = json!({"terminated": {"exitCode": 137, "reason": "OOMKilled",
                "startedAt": started, "finishedAt": started, "containerID": container_id(rng)}});
        }
        container["containerID"] = json!(id);
    }
    pod
}

/// Stores `count` Running pods of `rs`, spread round-robin over the nodes.
fn create_running_pods(
    registry: &Registry,
    rs: &Value,
    count: usize,
    nodes: &mut [LoadNode],
    next_node: &mut usize,
    rng: &mut Rng,
) -> usize {
    let Some(template) = running_pod_template(registry, rs, rng) else {
        return 0;
    };
    if nodes.is_empty() {
        return 0;
    }
    let rs_name = rs["metadata"]["name"].as_str().unwrap_or_default();
    let namespace = rs["metadata"]["namespace"].as_str().unwrap_or_default();
    let mut created = 0;
    for _ in 0..count {
        let node = &mut nodes[*next_node % nodes.len()];
        *next_node += 1;
        // A name clash (same random suffix) is retried, so the ReplicaSet is exactly full.
        for _ in 0..8 {
            let pod = personalise(&template, rs_name, node, rng);
            let name = pod["metadata"]["name"].as_str().unwrap_or_default();
            let key = ObjectKey::new("", "pods", namespace, name);
            if registry.store.insert_new(&key, pod).is_ok() {
                node.pods += 1;
                created += 1;
                break;
            }
        }
    }
    created
}
