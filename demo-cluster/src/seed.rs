//! Demo workloads created at start (unless `--empty`), so the dashboard shows activity within
//! seconds: deployments in three namespaces, one crashing, a Job, a CronJob, an `At`, a
//! StatefulSet with its claims and a DaemonSet on every node. Objects are only ever added
//! here: the dashboard's end-to-end tests count the older ones.

use serde_json::{json, Value};

use crate::controllers::cnat;
use crate::registry::{Registry, WriteOptions};

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
    for ns in ["demo", "shop"] {
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
    create(
        "apps",
        "deployments",
        "shop",
        deployment(
            "frontend",
            "ghcr.io/kube-atlas/web-frontend:1.4.2",
            2,
            Some(8080),
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
        stateful_set("db", "postgres:16.4", 2, 5432),
    );
    create(
        "apps",
        "daemonsets",
        "kube-system",
        daemon_set("node-agent", "ghcr.io/kube-atlas/node-agent:0.3.1"),
    );
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
