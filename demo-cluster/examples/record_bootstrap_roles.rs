//! Records kube-apiserver's bootstrap RBAC objects into `demo-cluster/src/bootstrap_rbac.json`,
//! which the demo cluster seeds (`seed::seed_system_objects`): every ClusterRole,
//! ClusterRoleBinding, Role and RoleBinding labelled `kubernetes.io/bootstrapping=rbac-defaults`
//! on a real control plane (kube-apiserver and kube-controller-manager v1.36, so the aggregated
//! `admin`, `edit` and `view` carry the rules the clusterrole-aggregation controller gives
//! them), kept as written minus what the server assigns (uid, resourceVersion, times,
//! managedFields).
//!
//! Run by hand when the control plane's version changes, then commit the file:
//! `cargo run -p demo-cluster --example record_bootstrap_roles` (needs the control-plane
//! binaries of `cargo xtask setup`).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

/// The roles the aggregation controller fills; recorded once each has rules.
const AGGREGATED: [&str; 3] = ["admin", "edit", "view"];

const KINDS: &str = "clusterroles,clusterrolebindings,roles,rolebindings";

fn main() -> ExitCode {
    match record() {
        Ok(count) => {
            println!("wrote {count} objects to {}", output_path().display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("record_bootstrap_roles: {e}");
            ExitCode::FAILURE
        }
    }
}

fn output_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bootstrap_rbac.json")
}

fn record() -> Result<usize, String> {
    let plane = envtest::ControlPlane::start(envtest::Options {
        controllers: true,
        nodes: 0,
    })?;
    wait_for_aggregation(&plane)?;
    let listed = plane.kubectl_ok(&[
        "get",
        KINDS,
        "--all-namespaces",
        "--selector=kubernetes.io/bootstrapping=rbac-defaults",
        "--output=json",
    ])?;
    let listed: Value =
        serde_json::from_str(&listed).map_err(|e| format!("kubectl's list: {e}"))?;
    let mut objects: Vec<Value> = listed["items"]
        .as_array()
        .ok_or("kubectl's list has no items")?
        .iter()
        .map(as_written)
        .collect();
    let kind_order = |o: &Value| match o["kind"].as_str() {
        Some("ClusterRole") => 0,
        Some("ClusterRoleBinding") => 1,
        Some("Role") => 2,
        _ => 3,
    };
    objects.sort_by(|a, b| {
        let key = |o: &Value| {
            (
                kind_order(o),
                o["metadata"]["namespace"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
                o["metadata"]["name"].as_str().unwrap_or("").to_string(),
            )
        };
        key(a).cmp(&key(b))
    });
    let count = objects.len();
    let text = serde_json::to_string_pretty(&Value::Array(objects))
        .map_err(|e| format!("serialising: {e}"))?;
    std::fs::write(output_path(), text + "\n")
        .map_err(|e| format!("writing {}: {e}", output_path().display()))?;
    Ok(count)
}

/// Waits until the aggregated roles have their rules (the controller fills them shortly after
/// the control plane starts) and two reads a second apart agree.
fn wait_for_aggregation(plane: &envtest::ControlPlane) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut previous = String::new();
    loop {
        let mut args = vec!["get", "clusterroles"];
        args.extend(AGGREGATED);
        args.push("--output=json");
        let now = plane.kubectl_ok(&args)?;
        let parsed: Value = serde_json::from_str(&now).map_err(|e| format!("roles: {e}"))?;
        let filled = parsed["items"].as_array().is_some_and(|items| {
            items.len() == AGGREGATED.len()
                && items
                    .iter()
                    .all(|r| r["rules"].as_array().is_some_and(|rules| !rules.is_empty()))
        });
        let rules: Vec<&Value> = parsed["items"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| &r["rules"])
            .collect();
        let current = json!(rules).to_string();
        if filled && current == previous {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err("the aggregated roles got no rules within 60 s".into());
        }
        previous = current;
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// The object as its creator wrote it: what the server assigns (uid, resourceVersion,
/// creationTimestamp, managedFields) is dropped.
fn as_written(object: &Value) -> Value {
    let mut out = Map::new();
    for (key, value) in object.as_object().into_iter().flatten() {
        if key != "metadata" {
            out.insert(key.clone(), value.clone());
            continue;
        }
        let mut metadata = Map::new();
        for field in ["name", "namespace", "labels", "annotations"] {
            if let Some(kept) = value.get(field) {
                metadata.insert(field.to_string(), kept.clone());
            }
        }
        out.insert(key.clone(), Value::Object(metadata));
    }
    Value::Object(out)
}
