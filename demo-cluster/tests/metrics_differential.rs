//! The demo cluster's metrics API held to kube-apiserver v1.36 with the stand-in
//! metrics-server behind its aggregator (`../shared/kubernetes`, `--metrics`): the same
//! requests to both, and what a client reads of the answers compared: discovery (aggregated
//! and legacy), the JSON lists and objects (kinds, apiVersions, the fields present, the units
//! of the quantities), Tables (columns, cells, row objects), `labelSelector`, and the errors
//! (405 on watch and on writes, 404: codes, reasons, the Status's fields). Values (usage,
//! times) differ by design and are not compared. `kubectl top` reads both.

use std::collections::BTreeSet;

use demo_cluster::Config;
use serde_json::{json, Value};

mod common;

use common::raw::{self, client_for, Reply};
use common::TABLE;

const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const BASE: &str = "/apis/metrics.k8s.io/v1beta1";
const NS: &str = "usage";

struct Side {
    name: &'static str,
    client: kube::Client,
}

async fn send(
    side: &Side,
    method: &str,
    path: &str,
    accept: Option<&str>,
    body: Option<&Value>,
) -> Reply {
    let mut builder = http::Request::builder()
        .method(method)
        .uri(path)
        .header("user-agent", "atlas-metrics-differential/1.0");
    if let Some(accept) = accept {
        builder = builder.header("accept", accept);
    }
    let bytes = match body {
        Some(b) => {
            builder = builder.header("content-type", "application/json");
            b.to_string().into_bytes()
        }
        None => vec![],
    };
    raw::send(
        &side.client,
        builder,
        bytes,
        &format!("{} {method} {path}", side.name),
    )
    .await
}

async fn ok(side: &Side, method: &str, path: &str, body: Option<&Value>) -> Value {
    let reply = send(side, method, path, None, body).await;
    assert!(
        (200..300).contains(&reply.status),
        "{} {method} {path}: {} {}",
        side.name,
        reply.status,
        reply.text()
    );
    reply.json()
}

/// The shape of a value: objects by their keys (each key's shape), arrays by their first
/// element, labels by their presence, strings by the quantity unit they end in (`n`, `Ki`, `m`, `Mi`, `s`) or as
/// `string`, other scalars by type.
fn shape(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                // Labels are the objects' own (the demo's nodes carry more): present, not
                // compared.
                .map(|(k, v)| {
                    (
                        k.clone(),
                        if k == "labels" {
                            json!("labels")
                        } else {
                            shape(v)
                        },
                    )
                })
                .collect(),
        ),
        Value::Array(items) => json!([items.first().map(shape).unwrap_or(Value::Null)]),
        Value::String(s) => {
            let digits = s.trim_end_matches(|c: char| c.is_ascii_alphabetic());
            let unit = &s[digits.len()..];
            if !digits.is_empty() && digits.parse::<f64>().is_ok() {
                json!(format!("number{unit}"))
            } else {
                json!("string")
            }
        }
        Value::Number(_) => json!("number"),
        Value::Bool(_) => json!("bool"),
        Value::Null => Value::Null,
    }
}

fn compare(what: &str, real: &Value, demo: &Value, found: &mut BTreeSet<String>) {
    if real != demo {
        found.insert(format!("{what}:\n  real: {real}\n  demo: {demo}"));
    }
}

/// A pod on `node` labelled `app=<app>`.
fn pod(name: &str, app: &str, node: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": NS, "labels": {"app": app}},
           "spec": {"nodeName": node, "containers": [
               {"name": "nginx", "image": "nginx",
                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                              "limits": {"cpu": "500m", "memory": "128Mi"}}}]}})
}

/// Creates the namespace and three pods, and waits until all three have metrics.
async fn prepare(side: &Side) {
    ok(
        side,
        "POST",
        "/api/v1/namespaces",
        Some(&json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})),
    )
    .await;
    // The real side runs no controllers: its admission asks for the service account.
    let _ = send(
        side,
        "POST",
        &format!("/api/v1/namespaces/{NS}/serviceaccounts"),
        None,
        Some(
            &json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}}),
        ),
    )
    .await;
    let nodes = ok(side, "GET", "/api/v1/nodes", None).await;
    let node = nodes["items"][0]["metadata"]["name"]
        .as_str()
        .unwrap_or("node-1")
        .to_string();
    for (name, app) in [("web-1", "web"), ("web-2", "web"), ("db-1", "db")] {
        ok(
            side,
            "POST",
            &format!("/api/v1/namespaces/{NS}/pods"),
            Some(&pod(name, app, &node)),
        )
        .await;
    }
    for _ in 0..240 {
        let pods = ok(side, "GET", &format!("{BASE}/namespaces/{NS}/pods"), None).await;
        if pods["items"]
            .as_array()
            .is_some_and(|items| items.len() == 3)
        {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    panic!("{}: the three pods have no metrics within 60 s", side.name);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup`"
)]
async fn the_metrics_api_matches_metrics_server_behind_kube_apiserver() {
    let (plane, proxy, _scratch) = tokio::task::spawn_blocking(|| {
        let mut plane = envtest::ControlPlane::start(envtest::Options {
            controllers: false,
            nodes: 0,
        })
        .unwrap_or_else(|e| panic!("{e}"));
        plane
            .start_kubelet_with_metrics(2)
            .unwrap_or_else(|e| panic!("{e}"));
        let scratch = tempfile::tempdir().expect("scratch");
        let proxy = envtest::KubectlProxy::start(&plane.admin_kubeconfig(), None, scratch.path())
            .unwrap_or_else(|e| panic!("{e}"));
        (plane, proxy, scratch)
    })
    .await
    .expect("the control plane starts");
    let demo_url = common::start_on_own_runtime(Config {
        speed: 50.0,
        ..common::empty_cluster_config()
    })
    .expect("the demo starts");
    let real = Side {
        name: "real",
        client: client_for(&proxy.url()),
    };
    let demo = Side {
        name: "demo",
        client: client_for(&demo_url),
    };
    prepare(&real).await;
    prepare(&demo).await;
    let mut found = BTreeSet::new();

    // Discovery: aggregated, the group's entry; legacy, the group and its resource list.
    let group_of = |doc: &Value| {
        doc["items"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|g| g["metadata"]["name"] == "metrics.k8s.io")
            .map(|g| json!({"versions": g["versions"]}))
            .unwrap_or(Value::Null)
    };
    let (r, d) = (
        send(&real, "GET", "/apis", Some(AGGREGATED), None).await,
        send(&demo, "GET", "/apis", Some(AGGREGATED), None).await,
    );
    compare(
        "aggregated /apis metrics.k8s.io",
        &group_of(&r.json()),
        &group_of(&d.json()),
        &mut found,
    );
    let legacy_group = |doc: &Value| {
        doc["groups"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|g| g["name"] == "metrics.k8s.io")
            .cloned()
            .unwrap_or(Value::Null)
    };
    compare(
        "legacy /apis metrics.k8s.io",
        &legacy_group(&ok(&real, "GET", "/apis", None).await),
        &legacy_group(&ok(&demo, "GET", "/apis", None).await),
        &mut found,
    );
    for path in ["/apis/metrics.k8s.io", BASE] {
        compare(
            path,
            &ok(&real, "GET", path, None).await,
            &ok(&demo, "GET", path, None).await,
            &mut found,
        );
    }

    // JSON: lists (all, a namespace, by label) and objects.
    let pods_path = format!("{BASE}/namespaces/{NS}/pods");
    let paths = [
        format!("{BASE}/pods"),
        pods_path.clone(),
        format!("{pods_path}?labelSelector=app%3Dweb"),
        format!("{pods_path}/web-1"),
        format!("{BASE}/nodes"),
    ];
    for path in &paths {
        let (r, d) = (
            ok(&real, "GET", path, None).await,
            ok(&demo, "GET", path, None).await,
        );
        compare(&format!("{path} shape"), &shape(&r), &shape(&d), &mut found);
    }
    let node =
        ok(&real, "GET", "/api/v1/nodes", None).await["items"][0]["metadata"]["name"].clone();
    let demo_node =
        ok(&demo, "GET", "/api/v1/nodes", None).await["items"][0]["metadata"]["name"].clone();
    let (r, d) = (
        ok(
            &real,
            "GET",
            &format!("{BASE}/nodes/{}", node.as_str().unwrap_or("")),
            None,
        )
        .await,
        ok(
            &demo,
            "GET",
            &format!("{BASE}/nodes/{}", demo_node.as_str().unwrap_or("")),
            None,
        )
        .await,
    );
    compare(
        "a node's NodeMetrics shape",
        &shape(&r),
        &shape(&d),
        &mut found,
    );
    // labelSelector chooses the same pods.
    let names = |list: &Value| -> Vec<String> {
        let mut names: Vec<String> = list["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["metadata"]["name"].as_str().map(String::from))
            .collect();
        names.sort();
        names
    };
    for selector in ["app%3Dweb", "app%3Ddb", "app%21%3Dweb", "app%3Dnone"] {
        let path = format!("{pods_path}?labelSelector={selector}");
        let (r, d) = (
            ok(&real, "GET", &path, None).await,
            ok(&demo, "GET", &path, None).await,
        );
        compare(
            &format!("{path} names"),
            &json!(names(&r)),
            &json!(names(&d)),
            &mut found,
        );
    }

    // Tables: the same columns; rows of the same shape.
    for path in [
        format!("{BASE}/pods"),
        pods_path.clone(),
        format!("{BASE}/nodes"),
    ] {
        let (r, d) = (
            send(&real, "GET", &path, Some(TABLE), None).await,
            send(&demo, "GET", &path, Some(TABLE), None).await,
        );
        compare(
            &format!("{path} Table status"),
            &json!(r.status),
            &json!(d.status),
            &mut found,
        );
        let (r, d) = (r.json(), d.json());
        for key in ["kind", "apiVersion", "columnDefinitions"] {
            compare(&format!("{path} Table {key}"), &r[key], &d[key], &mut found);
        }
        compare(
            &format!("{path} Table row shape"),
            &shape(&r["rows"][0]),
            &shape(&d["rows"][0]),
            &mut found,
        );
        compare(
            &format!("{path} Table shape"),
            &shape(&json!({"metadata": r["metadata"]})),
            &shape(&json!({"metadata": d["metadata"]})),
            &mut found,
        );
    }

    // Errors: no watch, no writes, an unknown pod.
    let errors: Vec<(&str, String, Option<Value>)> = vec![
        ("GET", format!("{BASE}/pods?watch=1"), None),
        ("GET", format!("{pods_path}?watch=true"), None),
        (
            "POST",
            pods_path.clone(),
            Some(
                json!({"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics", "metadata": {"name": "x"}}),
            ),
        ),
        ("PUT", format!("{pods_path}/web-1"), Some(json!({}))),
        ("DELETE", format!("{pods_path}/web-1"), None),
        ("GET", format!("{pods_path}/nope"), None),
    ];
    for (method, path, body) in &errors {
        let (r, d) = (
            send(&real, method, path, None, body.as_ref()).await,
            send(&demo, method, path, None, body.as_ref()).await,
        );
        let status = |reply: &Reply| {
            let v = reply.json_if_any().unwrap_or(Value::Null);
            json!({"code": reply.status, "shape": shape(&v), "reason": v["reason"], "message": v["message"]})
        };
        compare(
            &format!("{method} {path}"),
            &status(&r),
            &status(&d),
            &mut found,
        );
    }

    // kubectl top reads both alike (headers; a line per pod and node).
    let real_kubeconfig = plane.admin_kubeconfig();
    let tops = tokio::task::spawn_blocking(move || {
        let run = |args: &[&str], server: Option<&str>| {
            let mut cmd = std::process::Command::new("kubectl");
            match server {
                Some(url) => cmd.args(["--server", url]).env("KUBECONFIG", "/dev/null"),
                None => cmd.arg(format!("--kubeconfig={}", real_kubeconfig.display())),
            };
            let out = cmd.args(args).output().expect("kubectl runs");
            // A failure is a difference to report with the others, not a panic.
            if out.status.success() {
                String::from_utf8_lossy(&out.stdout).into_owned()
            } else {
                format!("failed: {}", String::from_utf8_lossy(&out.stderr).trim())
            }
        };
        let header_and_count = |text: String| {
            (
                text.lines()
                    .next()
                    .unwrap_or("")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
                text.lines().count(),
            )
        };
        let mut out = vec![];
        for args in [
            &["top", "pods", "-n", NS][..],
            &["top", "pods", "-n", NS, "--containers"][..],
            &["top", "nodes"][..],
        ] {
            out.push((
                args.join(" "),
                header_and_count(run(args, None)),
                header_and_count(run(args, Some(&demo_url))),
            ));
        }
        out
    })
    .await
    .expect("kubectl ran");
    for (what, r, d) in tops {
        // The demo has three nodes and the real side two: compare node lines by header only.
        if what == "top nodes" {
            compare(
                &format!("kubectl {what} header"),
                &json!(r.0),
                &json!(d.0),
                &mut found,
            );
        } else {
            compare(&format!("kubectl {what}"), &json!(r), &json!(d), &mut found);
        }
    }
    drop(plane);
    assert!(
        found.is_empty(),
        "the demo's metrics API differs from metrics-server's:\n{}",
        found.iter().cloned().collect::<Vec<_>>().join("\n")
    );
}
