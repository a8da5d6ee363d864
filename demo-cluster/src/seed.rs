//! What a fresh cluster is created with. First what every cluster has, even an `--empty`
//! one (`seed_system_objects`: system namespaces, the `kubernetes` Service, the demo nodes as
//! their kubelets register them, kube-apiserver's bootstrap roles and bindings). Then demo workloads (unless `--empty`), so the dashboard
//! shows activity within seconds: deployments in three namespaces, one crashing, a Job, a CronJob, an `At`, a
//! StatefulSet with its claims and a DaemonSet on every node; and around them what a real
//! cluster has: a default StorageClass its claims bind through, an Ingress, an HPA, a
//! PodDisruptionBudget, configuration the pods mount, RBAC roles and bindings, and a CRD
//! served in two versions; and in a namespace of their own (`troubled`) the classic reasons
//! a workload is not ready, so the dashboard's diagnosis has something to say without a real
//! cluster. Objects are only ever added here: the dashboard's end-to-end tests count the
//! older ones.

use serde_json::{json, Value};

use crate::controllers::{cnat, kubelet};
use crate::registry::{Registry, WriteOptions};

/// kube-apiserver v1.36's bootstrap ClusterRoles, ClusterRoleBindings, Roles and RoleBindings
/// (the aggregated `admin`, `edit` and `view` with the rules the aggregation controller gives
/// them), as `examples/record_bootstrap_roles.rs` recorded them from a real control plane.
const BOOTSTRAP_RBAC: &str = include_str!("bootstrap_rbac.json");

/// Creates kube-apiserver's bootstrap roles and bindings (on a fresh start: a state file keeps
/// what it has).
pub fn seed_bootstrap_rbac(registry: &Registry) {
    let opts = WriteOptions {
        field_manager: "kube-apiserver".into(),
        ..Default::default()
    };
    let objects: Vec<Value> = match serde_json::from_str(BOOTSTRAP_RBAC) {
        Ok(objects) => objects,
        Err(e) => {
            tracing::error!("the bootstrap RBAC objects do not parse: {e}");
            return;
        }
    };
    for object in objects {
        let resource = match object["kind"].as_str() {
            Some("ClusterRole") => "clusterroles",
            Some("ClusterRoleBinding") => "clusterrolebindings",
            Some("Role") => "roles",
            Some("RoleBinding") => "rolebindings",
            _ => continue,
        };
        let namespace = object["metadata"]["namespace"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if let Some(def) = registry.builtin("rbac.authorization.k8s.io", resource) {
            let _ = registry.create(&def, &namespace, object, &opts);
        }
    }
}

/// The name of the RoleBinding that gives the group `viewers` the ClusterRole `view` in
/// `default`: what the envtest control plane creates for its `viewer` token.
pub const VIEWERS_BINDING: &str = "viewers-view";

/// Binds the group `viewers` to `view` in `default`, as the envtest control plane does for
/// its viewer (`kubectl create rolebinding viewers-view --clusterrole=view --group=viewers`),
/// so a token file's `viewers` see what they would there.
pub fn seed_viewers_binding(registry: &Registry) {
    let opts = WriteOptions {
        field_manager: "kubectl-create".into(),
        ..Default::default()
    };
    if let Some(def) = registry.builtin("rbac.authorization.k8s.io", "rolebindings") {
        let binding = json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": VIEWERS_BINDING},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "viewers"}],
        });
        let _ = registry.create(&def, "default", binding, &opts);
    }
}

/// Creates what every cluster has, even an `--empty` one: the system namespaces, the
/// `kubernetes` Service, the three demo nodes and the ComponentStatuses.
pub fn seed_system_objects(registry: &Registry) {
    let opts = WriteOptions {
        field_manager: "kube-apiserver".into(),
        ..Default::default()
    };
    let ns_def = registry.builtin("", "namespaces");
    for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        if let Some(def) = &ns_def {
            let _ = registry.create(
                def,
                "",
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
                &opts,
            );
        }
    }
    if let Some(def) = registry.builtin("", "services") {
        let _ = registry.create(&def, "default", json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "kubernetes", "labels": {"component": "apiserver", "provider": "kubernetes"}},
            "spec": {"clusterIP": "10.96.0.1", "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}]}}), &opts);
    }
    let node_opts = WriteOptions {
        field_manager: "kubelet".into(),
        ..Default::default()
    };
    if let Some(def) = registry.builtin("", "nodes") {
        for i in 1..=3 {
            let _ = registry.create(&def, "", demo_node(i), &node_opts);
        }
    }
    if let Some(def) = registry.builtin("", "componentstatuses") {
        for (name, message) in [
            ("controller-manager", "ok"),
            ("scheduler", "ok"),
            ("etcd-0", r#"{"health":"true","reason":""}"#),
        ] {
            let _ = registry.create(
                &def,
                "",
                json!({"apiVersion": "v1", "kind": "ComponentStatus",
                "metadata": {"name": name},
                "conditions": [{"type": "Healthy", "status": "True", "message": message}]}),
                &opts,
            );
        }
    }
}

/// Node `demo-node-{i}` as its kubelet registers it.
fn demo_node(i: u32) -> Value {
    let name = format!("demo-node-{i}");
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": kubelet::node_labels(&name)},
        "spec": {"podCIDR": format!("10.244.{i}.0/24"), "podCIDRs": [format!("10.244.{i}.0/24")]},
        "status": kubelet::node_status(&name, &format!("172.18.0.{}", i + 1)),
    })
}

fn deployment(name: &str, image: &str, replicas: i64, port: Option<i64>) -> Value {
    let mut container = json!({"name": name, "image": image});
    if let Some(port) = port {
        container["ports"] = json!([{"containerPort": port}]);
    }
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}}},
    })
}

/// `deployment` with the ConfigMap `<name>-config` mounted at /etc/<name> and the Secret
/// `<name>-secrets` as environment variables, as most real workloads take their settings.
fn with_config(mut deployment: Value, name: &str) -> Value {
    let pod = &mut deployment["spec"]["template"]["spec"];
    pod["volumes"] = json!([{"name": "config", "configMap": {"name": format!("{name}-config")}}]);
    pod["containers"][0]["volumeMounts"] =
        json!([{"name": "config", "mountPath": format!("/etc/{name}"), "readOnly": true}]);
    pod["containers"][0]["envFrom"] = json!([{"secretRef": {"name": format!("{name}-secrets")}}]);
    deployment
}

fn service(name: &str, port: i64, target: i64) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"selector": {"app": name}, "ports": [{"port": port, "targetPort": target}]},
    })
}

/// A StatefulSet of `replicas` pods, each with a 1Gi `data` claim, behind a headless Service.
fn stateful_set(name: &str, image: &str, replicas: i64, port: i64) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"replicas": replicas, "serviceName": name,
                 "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": name, "image": image,
                                  "ports": [{"containerPort": port}],
                                  "volumeMounts": [{"name": "data", "mountPath": "/data"}]}]}},
                 "volumeClaimTemplates": [{"metadata": {"name": "data"},
                     "spec": {"accessModes": ["ReadWriteOnce"],
                              "resources": {"requests": {"storage": "1Gi"}}}}]},
    })
}

/// `set`'s first container takes `POSTGRES_PASSWORD` from the Secret `secret` (created with
/// the shop's configuration), as database images are configured.
fn with_password(mut set: Value, secret: &str) -> Value {
    set["spec"]["template"]["spec"]["containers"][0]["env"] = json!([{
        "name": "POSTGRES_PASSWORD",
        "valueFrom": {"secretKeyRef": {"name": secret, "key": "password"}},
    }]);
    set
}

fn headless_service(name: &str, port: i64) -> Value {
    let mut headless = service(name, port, port);
    headless["spec"]["clusterIP"] = json!("None");
    headless
}

fn daemon_set(name: &str, image: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {"selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": name, "image": image}]}}},
    })
}

/// Creates the demo namespaces and workloads; objects that already exist are left alone.
pub fn seed_workloads(registry: &Registry) {
    // What `kubectl apply` would record as the manager.
    let opts = WriteOptions {
        field_manager: "kubectl-client-side-apply".into(),
        ..Default::default()
    };
    let create = |group: &str, resource: &str, namespace: &str, body: Value| {
        if let Some(def) = registry.builtin(group, resource) {
            let _ = registry.create(&def, namespace, body, &opts);
        }
    };
    for ns in ["demo", "shop", TROUBLED] {
        create(
            "",
            "namespaces",
            "",
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
        );
    }
    create(
        "apps",
        "deployments",
        "default",
        deployment("nginx", "nginx:1.27", 3, Some(80)),
    );
    create("", "services", "default", service("nginx", 80, 80));
    for (group, resource, namespace, body) in storage_and_ingress_classes() {
        create(group, resource, namespace, body);
    }
    for (resource, body) in shop_configuration() {
        create("", resource, "shop", body);
    }
    create(
        "apps",
        "deployments",
        "shop",
        with_config(
            deployment(
                "frontend",
                "ghcr.io/kube-atlas/web-frontend:1.4.2",
                2,
                Some(8080),
            ),
            "frontend",
        ),
    );
    create("", "services", "shop", service("frontend", 80, 8080));
    create(
        "apps",
        "deployments",
        "shop",
        deployment("cart", "redis:7.2", 1, Some(6379)),
    );
    create(
        "apps",
        "deployments",
        "demo",
        deployment("flaky", "ghcr.io/kube-atlas/crash-loop:0.1", 1, None),
    );
    create(
        "batch",
        "jobs",
        "demo",
        json!({
            "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
            "spec": {"backoffLimit": 4, "template": {"spec": {"restartPolicy": "Never",
                "containers": [{"name": "pi", "image": "perl:5.34", "command": ["sh", "-c", "echo 3.14159265358979; sleep 8"]}]}}},
        }),
    );
    create(
        "batch",
        "cronjobs",
        "demo",
        json!({
            "apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "hello"},
            "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure",
                "containers": [{"name": "hello", "image": "busybox:1.36", "command": ["sh", "-c", "date; echo Hello from the demo cluster; sleep 2"]}]}}}}},
        }),
    );
    create("", "services", "shop", service("cart", 6379, 6379));
    create("", "services", "shop", headless_service("db", 5432));
    create(
        "apps",
        "statefulsets",
        "shop",
        with_password(
            stateful_set("db", "postgres:16.4", 2, 5432),
            "db-credentials",
        ),
    );
    create(
        "apps",
        "daemonsets",
        "kube-system",
        daemon_set("node-agent", "ghcr.io/kube-atlas/node-agent:0.3.1"),
    );
    for (group, resource, namespace, body) in shop_operations() {
        create(group, resource, namespace, body);
    }
    for (group, resource, namespace, body) in rbac() {
        create(group, resource, namespace, body);
    }
    for (group, resource, namespace, body) in troubled_workloads() {
        create(group, resource, namespace, body);
    }
    create(
        crate::registry::CRD_GROUP,
        crate::registry::CRD_RESOURCE,
        "",
        cron_tab_crd(),
    );
    if let Some(def) = registry.resolve(CRON_TAB_GROUP, "v1", "crontabs") {
        let _ = registry.create(&def, "shop", nightly_vacuum(), &opts);
    }
    if let Some(def) = registry.resolve(cnat::GROUP, cnat::VERSION, cnat::PLURAL) {
        let when = chrono::Utc::now() + chrono::Duration::seconds(20);
        let at = json!({
            "apiVersion": format!("{}/{}", cnat::GROUP, cnat::VERSION), "kind": "At",
            "metadata": {"name": "example-at"},
            "spec": {"schedule": when.format("%Y-%m-%dT%H:%M:%SZ").to_string(), "command": "echo YAY"},
        });
        let _ = registry.create(&def, "demo", at, &opts);
    }
}

/// An object to create: (group, resource, namespace, body).
type Seeded = (&'static str, &'static str, &'static str, Value);

/// The namespace of the seeded failures.
pub const TROUBLED: &str = "troubled";

/// What a real cluster shows when something is wrong, each as its controllers leave it:
/// `gpu-trainer` asks for a node label no node has (the scheduler reports its pods
/// Unschedulable), `billing` names an image no registry has (ErrImagePull, then
/// ImagePullBackOff), `checkout` runs but fails its readiness probe (never Ready, Unhealthy
/// Events), and the claim `uploads` of the WaitForFirstConsumer class `standard` has no pod
/// to wait for, so it stays Pending.
fn troubled_workloads() -> Vec<Seeded> {
    let mut gpu_trainer = deployment("gpu-trainer", "ghcr.io/kube-atlas/trainer:2.1", 2, None);
    gpu_trainer["spec"]["template"]["spec"]["nodeSelector"] = json!({"accelerator": "nvidia-h100"});
    let mut checkout = deployment(
        "checkout",
        "ghcr.io/kube-atlas/checkout-unready:3.0",
        1,
        Some(8080),
    );
    checkout["spec"]["template"]["spec"]["containers"][0]["readinessProbe"] = json!({
        "httpGet": {"path": "/ready", "port": 8080}, "periodSeconds": 10, "failureThreshold": 3,
    });
    vec![
        ("apps", "deployments", TROUBLED, gpu_trainer),
        (
            "apps",
            "deployments",
            TROUBLED,
            deployment(
                "billing",
                "ghcr.io/kube-atlas/billing:doesnotexist",
                1,
                Some(8080),
            ),
        ),
        ("apps", "deployments", TROUBLED, checkout),
        (
            "",
            "persistentvolumeclaims",
            TROUBLED,
            json!({
                "apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": "uploads"},
                "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "standard",
                         "resources": {"requests": {"storage": "5Gi"}}},
            }),
        ),
    ]
}

/// kind's default StorageClass (claims without a class get it and bind once a pod uses
/// them) and the IngressClass of ingress-nginx.
fn storage_and_ingress_classes() -> Vec<Seeded> {
    vec![
        (
            "storage.k8s.io",
            "storageclasses",
            "",
            json!({
                "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                "metadata": {"name": "standard",
                             "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
                "provisioner": "rancher.io/local-path", "reclaimPolicy": "Delete",
                "volumeBindingMode": "WaitForFirstConsumer",
            }),
        ),
        (
            "networking.k8s.io",
            "ingressclasses",
            "",
            json!({
                "apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
                "metadata": {"name": "nginx",
                             "labels": {"app.kubernetes.io/name": "ingress-nginx", "app.kubernetes.io/component": "controller"},
                             "annotations": {"ingressclass.kubernetes.io/is-default-class": "true"}},
                "spec": {"controller": crate::controllers::ingress::CONTROLLER},
            }),
        ),
    ]
}

/// The ConfigMap and Secrets of the shop: the frontend's settings, the database's password
/// and the TLS certificate of the Ingress.
fn shop_configuration() -> Vec<(&'static str, Value)> {
    vec![
        (
            "configmaps",
            json!({
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "frontend-config", "labels": {"app": "frontend"}},
                "data": {"config.json": "{\"cartUrl\": \"http://cart:6379\", \"currency\": \"EUR\"}\n",
                         "LOG_LEVEL": "info"},
            }),
        ),
        (
            "secrets",
            json!({
                "apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                "metadata": {"name": "frontend-secrets", "labels": {"app": "frontend"}},
                // "demo-session-key" and "demo-password"
                "data": {"SESSION_KEY": "ZGVtby1zZXNzaW9uLWtleQ==", "DB_PASSWORD": "ZGVtby1wYXNzd29yZA=="},
            }),
        ),
        (
            "secrets",
            json!({
                "apiVersion": "v1", "kind": "Secret", "type": "Opaque",
                "metadata": {"name": "db-credentials", "labels": {"app": "db"}},
                // "demo-password"
                "data": {"password": "ZGVtby1wYXNzd29yZA=="},
            }),
        ),
        (
            "secrets",
            json!({
                "apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
                "metadata": {"name": "frontend-tls", "labels": {"app": "frontend"}},
                // Placeholders: nothing terminates TLS in the simulation.
                "data": {"tls.crt": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCmRlbW8KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=",
                         "tls.key": "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCmRlbW8KLS0tLS1FTkQgUFJJVkFURSBLRVktLS0tLQo="},
            }),
        ),
    ]
}

/// What runs the shop in production: its Ingress, an autoscaler for the frontend and a
/// disruption budget for the database.
fn shop_operations() -> Vec<Seeded> {
    vec![
        (
            "networking.k8s.io",
            "ingresses",
            "shop",
            json!({
                "apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                "metadata": {"name": "frontend", "labels": {"app": "frontend"}},
                "spec": {"ingressClassName": "nginx",
                         "tls": [{"hosts": ["shop.demo.local"], "secretName": "frontend-tls"}],
                         "rules": [{"host": "shop.demo.local", "http": {"paths": [
                             {"path": "/", "pathType": "Prefix",
                              "backend": {"service": {"name": "frontend", "port": {"number": 80}}}}]}}]},
            }),
        ),
        (
            "autoscaling",
            "horizontalpodautoscalers",
            "shop",
            json!({
                "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
                "metadata": {"name": "frontend", "labels": {"app": "frontend"}},
                "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "frontend"},
                         "minReplicas": 2, "maxReplicas": 6,
                         "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                             "target": {"type": "Utilization", "averageUtilization": 70}}}]},
            }),
        ),
        (
            "policy",
            "poddisruptionbudgets",
            "shop",
            json!({
                "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                "metadata": {"name": "db", "labels": {"app": "db"}},
                "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}},
            }),
        ),
    ]
}

/// The shop's own RBAC: its frontend's ServiceAccount may read its configuration.
/// (kube-apiserver's bootstrap roles and bindings are system objects: [`seed_bootstrap_rbac`].)
fn rbac() -> Vec<Seeded> {
    let read = json!(["get", "list", "watch"]);
    vec![
        (
            "",
            "serviceaccounts",
            "shop",
            json!({
                "apiVersion": "v1", "kind": "ServiceAccount",
                "metadata": {"name": "frontend", "labels": {"app": "frontend"}},
            }),
        ),
        (
            "rbac.authorization.k8s.io",
            "roles",
            "shop",
            json!({
                "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                "metadata": {"name": "frontend-config-reader", "labels": {"app": "frontend"}},
                "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": read},
                          {"apiGroups": [""], "resources": ["secrets"],
                           "resourceNames": ["frontend-secrets"], "verbs": ["get"]}],
            }),
        ),
        (
            "rbac.authorization.k8s.io",
            "rolebindings",
            "shop",
            json!({
                "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                "metadata": {"name": "frontend-config-reader", "labels": {"app": "frontend"}},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "frontend-config-reader"},
                "subjects": [{"kind": "ServiceAccount", "name": "frontend", "namespace": "shop"}],
            }),
        ),
    ]
}

const CRON_TAB_GROUP: &str = "stable.example.com";

/// The CronTab CRD of the Kubernetes documentation, served as v1 (stored, preferred) and
/// the older v1beta1, so custom resources show a preferred version and conversion too.
fn cron_tab_crd() -> Value {
    let schema = json!({"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "cronSpec": {"type": "string", "description": "When to run, as a cron schedule."},
            "image": {"type": "string", "description": "The image the job runs."},
            "replicas": {"type": "integer", "description": "Pods run at each schedule."}}}}}});
    let columns = json!([
        {"name": "Spec", "type": "string", "jsonPath": ".spec.cronSpec"},
        {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}]);
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("crontabs.{CRON_TAB_GROUP}")},
        "spec": {
            "group": CRON_TAB_GROUP, "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab",
                      "listKind": "CronTabList", "shortNames": ["ct"]},
            "versions": [
                {"name": "v1beta1", "served": true, "storage": false,
                 "schema": schema, "additionalPrinterColumns": columns},
                {"name": "v1", "served": true, "storage": true,
                 "schema": schema, "additionalPrinterColumns": columns}],
        },
    })
}

fn nightly_vacuum() -> Value {
    json!({
        "apiVersion": format!("{CRON_TAB_GROUP}/v1"), "kind": "CronTab",
        "metadata": {"name": "nightly-vacuum", "labels": {"app": "db"}},
        "spec": {"cronSpec": "0 3 * * *", "image": "postgres:16.4", "replicas": 1},
    })
}
