//! core/v1 Pods: defaults and the initial Pending status with the QoS class, graceful
//! deletion, a valid container list, kubectl's pod columns.

use serde_json::{json, Value};

use crate::errors::Cause;
use crate::registry::kinds::builder::{
    ResourceDefBuilder, PROXY_VERBS, STATUS_VERBS, STREAM_VERBS,
};
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::{
    default_field, default_pod_spec, ensure_object, validate_pod_spec,
};
use crate::registry::strategy::printing::{
    age, column, int, named, or_none, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::{CreateContext, Strategy};
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::Pod;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("", "pods", "pod", "Pod", true)
        .short(&["po"])
        .all()
        .returns_deleted()
        .generation()
        .sub("attach", "PodAttachOptions", STREAM_VERBS)
        .sub("binding", "Binding", &["create"])
        .sub("ephemeralcontainers", "Pod", STATUS_VERBS)
        .sub_in("eviction", Some(("policy", "v1")), "Eviction", &["create"])
        .sub("exec", "PodExecOptions", STREAM_VERBS)
        .sub("log", "Pod", &["get"])
        .sub("portforward", "PodPortForwardOptions", STREAM_VERBS)
        .sub("proxy", "PodProxyOptions", PROXY_VERBS)
        .sub("resize", "Pod", STATUS_VERBS)
        .status()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<Pod>(generator);

pub(crate) static STRATEGY: Pods = Pods;

pub struct Pods;

impl Strategy for Pods {
    fn field_selectors(&self) -> &'static [&'static str] {
        &[
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.podIPs",
            "status.nominatedNodeName",
        ]
    }

    fn prepare_for_create(&self, obj: &mut Value, _: &CreateContext) {
        if obj["spec"].is_object() {
            default_pod_spec(&mut obj["spec"]);
            let spec = ensure_object(obj, "spec");
            default_field(spec, "serviceAccountName", json!("default"));
            let account = spec.get("serviceAccountName").cloned().unwrap_or_default();
            spec.insert("serviceAccount".into(), account);
            default_tolerations(spec);
            default_field(spec, "enableServiceLinks", json!(true));
            default_field(spec, "preemptionPolicy", json!("PreemptLowerPriority"));
            default_field(spec, "priority", json!(0));
            mount_service_account_token(&mut obj["spec"]);
        }
        let qos = qos_class(&obj["spec"]);
        obj["status"] = json!({"phase": "Pending", "qosClass": qos});
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        let mut causes = vec![];
        validate_pod_spec(&obj["spec"], "spec", &mut causes);
        causes
    }

    /// `pods/resize` writes the containers' resources (and resize policies), matched by
    /// name; `pods/ephemeralcontainers` the ephemeral containers (`kubectl debug`).
    /// Everything else is kept as stored, as kube-apiserver's subresource strategies do.
    fn prepare_subresource_update(&self, sub: &str, old: &Value, new: &mut Value) -> bool {
        let rv = new["metadata"]["resourceVersion"].take();
        let mut stored = old.clone();
        match sub {
            "resize" => {
                let containers = new["spec"]["containers"].take();
                if let Some(stored_containers) = stored["spec"]["containers"].as_array_mut() {
                    for container in stored_containers {
                        let written = containers.as_array().and_then(|written| {
                            written.iter().find(|c| c["name"] == container["name"])
                        });
                        let Some(written) = written else { continue };
                        for field in ["resources", "resizePolicy"] {
                            match written.get(field) {
                                Some(value) => container[field] = value.clone(),
                                None => {
                                    container.as_object_mut().map(|c| c.remove(field));
                                }
                            }
                        }
                    }
                }
            }
            "ephemeralcontainers" => {
                let ephemeral = new["spec"]["ephemeralContainers"].take();
                if ephemeral.is_null() {
                    stored["spec"]
                        .as_object_mut()
                        .map(|spec| spec.remove("ephemeralContainers"));
                } else {
                    stored["spec"]["ephemeralContainers"] = ephemeral;
                }
            }
            _ => {
                new["metadata"]["resourceVersion"] = rv;
                return false;
            }
        }
        stored["metadata"]["resourceVersion"] = rv;
        *new = stored;
        true
    }

    fn graceful_deletion(&self) -> bool {
        true
    }

    fn printer(&self) -> Option<Printer> {
        Some(PRINTER)
    }
}

/// The pod's QoS class as kube-apiserver computes it at creation (`GetPodQOS`, simplified to
/// cpu and memory of the regular containers): no requests or limits at all is BestEffort,
/// limits on both equal to the requests (or requests absent) in every container is
/// Guaranteed, anything else Burstable.
/// Where kube-apiserver's ServiceAccount admission mounts the token.
const TOKEN_PATH: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// kube-apiserver's ServiceAccount admission: unless the pod opts out, a projected
/// `kube-api-access-<suffix>` volume (token, CA bundle, namespace) mounted read-only in
/// every container that has nothing mounted at the token path.
fn mount_service_account_token(spec: &mut Value) {
    if spec["automountServiceAccountToken"] == json!(false) {
        return;
    }
    let existing = spec["volumes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["name"].as_str())
        .find(|n| n.starts_with("kube-api-access-"))
        .map(String::from);
    let name = existing
        .clone()
        .unwrap_or_else(|| format!("kube-api-access-{}", crate::registry::random_suffix()));
    let mut mounted = false;
    for field in ["initContainers", "containers"] {
        for c in spec
            .get_mut(field)
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            let has_mount = c["volumeMounts"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|m| m["mountPath"] == TOKEN_PATH);
            if has_mount {
                continue;
            }
            let mount = json!({"name": name, "mountPath": TOKEN_PATH, "readOnly": true});
            match c["volumeMounts"].as_array_mut() {
                Some(mounts) => mounts.push(mount),
                None => c["volumeMounts"] = json!([mount]),
            }
            mounted = true;
        }
    }
    if !mounted || existing.is_some() {
        return;
    }
    let volume = json!({"name": name, "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace",
            "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
        {"configMap": {"name": "openshift-service-ca.crt",
            "items": [{"key": "service-ca.crt", "path": "service-ca.crt"}]}}]}});
    match spec["volumes"].as_array_mut() {
        Some(volumes) => volumes.push(volume),
        None => spec["volumes"] = json!([volume]),
    }
}

/// kube-apiserver's DefaultTolerationSeconds admission: a pod that does not tolerate the
/// not-ready and unreachable NoExecute taints tolerates them for 300 s.
fn default_tolerations(spec: &mut serde_json::Map<String, Value>) {
    let tolerations = spec.entry("tolerations").or_insert_with(|| json!([]));
    let Some(list) = tolerations.as_array_mut() else {
        return;
    };
    for key in [
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
    ] {
        let tolerated = list.iter().any(|t| {
            let effect = t["effect"].as_str().unwrap_or_default();
            let t_key = t["key"].as_str().unwrap_or_default();
            (effect.is_empty() || effect == "NoExecute")
                && (t_key == key || (t_key.is_empty() && t["operator"] == "Exists"))
        });
        if !tolerated {
            list.push(
                json!({"key": key, "operator": "Exists", "effect": "NoExecute",
                "tolerationSeconds": 300}),
            );
        }
    }
}

pub fn qos_class(spec: &Value) -> &'static str {
    let containers: Vec<&Value> = spec["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    let resources = |c: &Value, kind: &str| -> Vec<(String, Value)> {
        c["resources"][kind]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(name, _)| matches!(name.as_str(), "cpu" | "memory"))
            .map(|(name, v)| (name.clone(), v.clone()))
            .collect()
    };
    let any_set = containers
        .iter()
        .any(|c| !resources(c, "requests").is_empty() || !resources(c, "limits").is_empty());
    if !any_set {
        return "BestEffort";
    }
    let guaranteed = containers.iter().all(|c| {
        let limits = resources(c, "limits");
        limits.len() == 2
            && resources(c, "requests")
                .iter()
                .all(|(name, v)| limits.iter().any(|(l, lv)| l == name && lv == v))
    });
    if guaranteed {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

const PRINTER: Printer = Printer::new(COLUMNS, cells);

const COLUMNS: &[Col] = &[
    NAME,
    column("Ready", 0),
    column("Status", 0),
    column("Restarts", 0),
    column("Age", 0),
    column("IP", 1),
    column("Node", 1),
    column("Nominated Node", 1),
    column("Readiness Gates", 1),
];

fn cells(o: &Value) -> Vec<Value> {
    let (spec, st) = (&o["spec"], &o["status"]);
    // Borrowed: this runs for every row of a (possibly huge) pod Table.
    let statuses: &[Value] = st["containerStatuses"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let total = spec["containers"].as_array().map(Vec::len).unwrap_or(0);
    let ready = statuses
        .iter()
        .filter(|c| c["ready"].as_bool() == Some(true))
        .count();
    let restarts: i64 = statuses.iter().map(|c| int(&c["restartCount"])).sum();
    let mut status = value_text(&st["phase"]);
    for c in statuses {
        if let Some(r) = c["state"]["waiting"]["reason"].as_str() {
            status = r.into();
        } else if let Some(r) = c["state"]["terminated"]["reason"].as_str() {
            status = r.into();
        }
    }
    if o["metadata"]["deletionTimestamp"].is_string() {
        status = "Terminating".into();
    }
    named(
        o,
        [
            json!(format!("{ready}/{total}")),
            json!(status),
            json!(restarts.to_string()),
            age(o),
            or_none(value_text(&st["podIP"])),
            or_none(value_text(&spec["nodeName"])),
            or_none(value_text(&st["nominatedNodeName"])),
            json!("<none>"),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kinds::ResourceDef;

    fn pods_def() -> ResourceDef {
        crate::registry::strategy::builtin_def("", "pods")
    }

    #[test]
    fn create_resets_status_to_pending_and_defaults_the_spec() {
        let mut pod = json!({
            "metadata": {"name": "web"},
            "spec": {"containers": [{"name": "nginx", "image": "nginx",
                "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}]},
            "status": {"phase": "Running", "podIP": "10.0.0.9"},
        });
        let ctx = CreateContext::without_service_ips();
        crate::registry::strategy::prepare_for_create(&pods_def(), &mut pod, &ctx);
        assert_eq!(
            pod["status"],
            json!({"phase": "Pending", "qosClass": "Guaranteed"})
        );
        let spec = &pod["spec"];
        assert_eq!(spec["restartPolicy"], "Always");
        assert_eq!(spec["serviceAccountName"], "default");
        assert_eq!(spec["dnsPolicy"], "ClusterFirst");
        assert_eq!(spec["containers"][0]["imagePullPolicy"], "Always");
    }

    #[test]
    fn a_pod_needs_containers_with_images() {
        let empty = json!({"metadata": {"name": "p"}, "spec": {"containers": []}});
        let fields: Vec<String> = Pods.validate(&empty).into_iter().map(|c| c.field).collect();
        assert_eq!(fields, ["spec.containers"]);
        let no_image = json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}});
        let fields: Vec<String> = Pods
            .validate(&no_image)
            .into_iter()
            .map(|c| c.field)
            .collect();
        assert_eq!(fields, ["spec.containers[0].image"]);
        assert_eq!(qos_class(&no_image["spec"]), "BestEffort");
    }

    #[test]
    fn resize_and_ephemeralcontainers_write_only_their_fields() {
        let old = json!({"metadata": {"name": "p", "labels": {"a": "1"}, "resourceVersion": "5"},
            "spec": {"containers": [{"name": "app", "image": "nginx",
                "resources": {"requests": {"cpu": "100m"}}}]}});
        let mut new = json!({"metadata": {"name": "p", "labels": {"a": "2"}, "resourceVersion": "5"},
            "spec": {"containers": [{"name": "app", "image": "httpd",
                "resources": {"requests": {"cpu": "200m"}}}]}});
        assert!(Pods.prepare_subresource_update("resize", &old, &mut new));
        assert_eq!(new["spec"]["containers"][0]["image"], "nginx");
        assert_eq!(
            new["spec"]["containers"][0]["resources"]["requests"]["cpu"],
            "200m"
        );
        assert_eq!(new["metadata"]["labels"]["a"], "1");
        let mut debug = json!({"metadata": {"resourceVersion": "6"}, "spec": {
            "ephemeralContainers": [{"name": "debugger", "image": "busybox"}]}});
        assert!(Pods.prepare_subresource_update("ephemeralcontainers", &old, &mut debug));
        assert_eq!(debug["spec"]["ephemeralContainers"][0]["name"], "debugger");
        assert_eq!(debug["spec"]["containers"], old["spec"]["containers"]);
        assert_eq!(debug["metadata"]["resourceVersion"], "6");
        let mut status = json!({"metadata": {"resourceVersion": "7"}});
        assert!(!Pods.prepare_subresource_update("status", &old, &mut status));
        assert_eq!(status["metadata"]["resourceVersion"], "7");
    }

    #[test]
    fn the_printer_shows_ready_status_and_restarts() {
        let printer = Pods.printer().unwrap();
        let names: Vec<&str> = printer.columns.iter().map(|c| c.name).collect();
        assert_eq!(names[..4], ["Name", "Ready", "Status", "Restarts"]);
        let mut pod = json!({
            "metadata": {"name": "web"},
            "spec": {"nodeName": "node-1", "containers": [{"name": "a"}, {"name": "b"}]},
            "status": {"phase": "Running", "podIP": "10.0.0.9", "containerStatuses": [
                {"name": "a", "ready": true, "restartCount": 1, "state": {"running": {}}},
                {"name": "b", "ready": false, "restartCount": 3,
                 "state": {"waiting": {"reason": "CrashLoopBackOff"}}},
            ]},
        });
        let row = (printer.cells)(&pod);
        assert_eq!(
            row[..4],
            [
                json!("web"),
                json!("1/2"),
                json!("CrashLoopBackOff"),
                json!("4")
            ]
        );
        assert_eq!(
            row[5..8],
            [json!("10.0.0.9"), json!("node-1"), json!("<none>")]
        );
        pod["metadata"]["deletionTimestamp"] = json!("2024-01-01T00:00:00Z");
        assert_eq!((printer.cells)(&pod)[2], "Terminating");
    }
}
