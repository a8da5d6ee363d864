//! A starting document for creating an object of a kind: the required fields, and for the
//! common kinds the smallest body the server accepts, so a create starts from something that
//! works rather than from a blank page.

use serde_json::{json, Value};

use crate::api::endpoints::split_api_version;

/// A new object of `kind` in `api_version`, in `namespace` when given (pass it for
/// namespaced kinds only). Kinds without a known body get `spec: {}`.
pub fn template_for(api_version: &str, kind: &str, namespace: Option<&str>) -> Value {
    let name = format!("new-{}", kind.to_ascii_lowercase());
    let mut metadata = json!({"name": name});
    if let Some(namespace) = namespace {
        metadata["namespace"] = json!(namespace);
    }
    let mut object = json!({"apiVersion": api_version, "kind": kind, "metadata": metadata});
    let (group, _) = split_api_version(api_version);
    if let (Some(fields), Some(body)) = (object.as_object_mut(), body_for(group, kind, &name)) {
        fields.extend(body);
    }
    object
}

/// The fields beside apiVersion, kind and metadata; `None` for kinds that need none.
fn body_for(group: &str, kind: &str, name: &str) -> Option<serde_json::Map<String, Value>> {
    let body = match (group, kind) {
        ("", "ConfigMap") => json!({"data": {"key": "value"}}),
        ("", "Secret") => json!({"type": "Opaque", "stringData": {"key": "value"}}),
        ("", "Namespace" | "ServiceAccount") => return None,
        ("", "Service") => json!({"spec": {
            "selector": {"app": name},
            "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}]
        }}),
        ("", "Pod") => json!({"spec": pod_spec(name)}),
        ("apps", "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet") => {
            let mut spec = json!({
                "selector": {"matchLabels": {"app": name}},
                "template": pod_template(name)
            });
            if kind != "DaemonSet" {
                spec["replicas"] = json!(1);
            }
            json!({ "spec": spec })
        }
        ("batch", "Job") => json!({"spec": job_spec()}),
        ("batch", "CronJob") => json!({"spec": {
            "schedule": "*/5 * * * *",
            "jobTemplate": {"spec": job_spec()}
        }}),
        _ => json!({"spec": {}}),
    };
    match body {
        Value::Object(fields) => Some(fields),
        _ => None,
    }
}

fn pod_spec(name: &str) -> Value {
    json!({"containers": [{"name": name, "image": "nginx:1.27",
                           "ports": [{"containerPort": 8080}]}]})
}

fn pod_template(name: &str) -> Value {
    json!({"metadata": {"labels": {"app": name}}, "spec": pod_spec(name)})
}

fn job_spec() -> Value {
    json!({"backoffLimit": 1, "template": {"spec": {
        "restartPolicy": "Never",
        "containers": [{"name": "job", "image": "busybox:1.36",
                        "command": ["sh", "-c", "echo hello"]}]
    }}})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::check::{check_document, EditTarget};

    fn create_target(api_version: &str, kind: &str, namespace: Option<&str>) -> EditTarget {
        EditTarget {
            api_version: api_version.into(),
            kind: kind.into(),
            namespaced: namespace.is_some(),
            namespace: namespace.map(str::to_string),
            name: None,
        }
    }

    #[test]
    fn templates_pass_the_checks_of_their_page() {
        for (api_version, kind, namespace) in [
            ("v1", "ConfigMap", Some("default")),
            ("v1", "Secret", Some("default")),
            ("v1", "Service", Some("default")),
            ("v1", "Namespace", None),
            ("apps/v1", "Deployment", Some("prod")),
            ("batch/v1", "Job", Some("default")),
            ("batch/v1", "CronJob", Some("default")),
            ("example.com/v1", "Widget", Some("default")),
            ("rbac.authorization.k8s.io/v1", "ClusterRole", None),
        ] {
            let template = template_for(api_version, kind, namespace);
            let target = create_target(api_version, kind, namespace);
            assert_eq!(check_document(&target, &template), Ok(()), "{kind}");
        }
    }

    #[test]
    fn common_kinds_get_a_body_that_works() {
        let deployment = template_for("apps/v1", "Deployment", Some("prod"));
        assert_eq!(deployment["metadata"]["namespace"], json!("prod"));
        assert_eq!(deployment["metadata"]["name"], json!("new-deployment"));
        // The selector must match the template's labels or the server refuses it.
        assert_eq!(
            deployment["spec"]["selector"]["matchLabels"],
            deployment["spec"]["template"]["metadata"]["labels"]
        );
        assert!(deployment["spec"]["template"]["spec"]["containers"][0]["image"].is_string());
        let config_map = template_for("v1", "ConfigMap", Some("default"));
        assert_eq!(config_map["data"], json!({"key": "value"}));
        assert_eq!(config_map.get("spec"), None);
        let secret = template_for("v1", "Secret", Some("default"));
        assert_eq!(secret["stringData"], json!({"key": "value"}));
        let service = template_for("v1", "Service", Some("default"));
        assert_eq!(service["spec"]["selector"], json!({"app": "new-service"}));
        let job = template_for("batch/v1", "Job", Some("default"));
        assert_eq!(
            job["spec"]["template"]["spec"]["restartPolicy"],
            json!("Never")
        );
        let daemon_set = template_for("apps/v1", "DaemonSet", Some("default"));
        assert_eq!(daemon_set["spec"].get("replicas"), None);
        let namespace = template_for("v1", "Namespace", None);
        assert_eq!(
            namespace,
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "new-namespace"}})
        );
    }

    #[test]
    fn other_kinds_get_an_empty_spec() {
        let widget = template_for("example.com/v1", "Widget", Some("default"));
        assert_eq!(widget["spec"], json!({}));
        // A custom kind named like a built-in is not taken for it.
        let custom = template_for("example.com/v1", "Deployment", None);
        assert_eq!(custom["spec"], json!({}));
        assert_eq!(custom["metadata"].get("namespace"), None);
    }
}
