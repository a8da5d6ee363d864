//! Per-kind behaviour for the generic registry, as kube-apiserver's strategies: defaulting on
//! create, the spec/status split on update, and validation.

use serde_json::{json, Map, Value};

use super::kinds::ResourceDef;
use crate::names::{is_dns1123_label, is_dns1123_subdomain};
use crate::status::Cause;
use crate::storage::selectors::{labels_of, LabelSelector};

fn ensure_object<'a>(obj: &'a mut Value, key: &str) -> &'a mut Map<String, Value> {
    if !obj[key].is_object() {
        obj[key] = json!({});
    }
    match obj.get_mut(key) {
        Some(Value::Object(m)) => m,
        _ => unreachable!("just inserted an object"),
    }
}

fn default_field(map: &mut Map<String, Value>, key: &str, value: Value) {
    map.entry(key.to_string()).or_insert(value);
}

fn default_pod_spec(spec: &mut Value) {
    if !spec.is_object() {
        return;
    }
    if let Some(m) = spec.as_object_mut() {
        default_field(m, "restartPolicy", json!("Always"));
        default_field(m, "terminationGracePeriodSeconds", json!(30));
        default_field(m, "dnsPolicy", json!("ClusterFirst"));
        default_field(m, "schedulerName", json!("default-scheduler"));
        default_field(m, "securityContext", json!({}));
    }
    for field in ["containers", "initContainers"] {
        for c in spec
            .get_mut(field)
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            let image = c["image"].as_str().unwrap_or_default().to_string();
            let Some(m) = c.as_object_mut() else { continue };
            let tag = image.rsplit('/').next().unwrap_or_default();
            let latest = !tag.contains(':') || tag.ends_with(":latest");
            let policy = if latest && !image.contains('@') {
                "Always"
            } else {
                "IfNotPresent"
            };
            default_field(m, "imagePullPolicy", json!(policy));
            default_field(m, "terminationMessagePath", json!("/dev/termination-log"));
            default_field(m, "terminationMessagePolicy", json!("File"));
            default_field(m, "resources", json!({}));
            for p in m
                .get_mut("ports")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                if let Some(pm) = p.as_object_mut() {
                    default_field(pm, "protocol", json!("TCP"));
                }
            }
        }
    }
}

/// The pod's QoS class as kube-apiserver computes it at creation (`GetPodQOS`, simplified to
/// cpu and memory of the regular containers): no requests or limits at all is BestEffort,
/// limits on both equal to the requests (or requests absent) in every container is
/// Guaranteed, anything else Burstable.
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

fn default_template(obj: &mut Value) {
    if obj["spec"]["template"]["spec"].is_object() {
        default_pod_spec(&mut obj["spec"]["template"]["spec"]);
    }
}

/// kube-apiserver's Job strategy: unless `spec.manualSelector`, the selector is generated from
/// the Job's uid and the template gets the matching labels (both the old and the new keys).
fn generate_job_selector(obj: &mut Value) {
    if obj["spec"]["manualSelector"].as_bool() == Some(true) || !obj["spec"]["selector"].is_null() {
        return;
    }
    let (Some(uid), Some(name)) = (
        obj["metadata"]["uid"].as_str().map(String::from),
        obj["metadata"]["name"].as_str().map(String::from),
    ) else {
        return;
    };
    obj["spec"]["selector"] = json!({"matchLabels": {"batch.kubernetes.io/controller-uid": uid}});
    if !obj["spec"]["template"].is_object() {
        return;
    }
    let meta = ensure_object(&mut obj["spec"]["template"], "metadata");
    if !meta.get("labels").is_some_and(Value::is_object) {
        meta.insert("labels".into(), json!({}));
    }
    if let Some(labels) = obj["spec"]["template"]["metadata"]["labels"].as_object_mut() {
        for (k, v) in [
            ("batch.kubernetes.io/controller-uid", &uid),
            ("batch.kubernetes.io/job-name", &name),
            ("controller-uid", &uid),
            ("job-name", &name),
        ] {
            labels.insert(k.into(), json!(v));
        }
    }
}

/// Defaults of the spec (and other non-status fields) of the kinds that have them, as the API
/// server applies them to every write it decodes: create, update and patch alike, so writing
/// an object back without its defaults (an apply of the same manifest) changes nothing.
/// Returns whether `def` is one of these kinds.
pub fn default_fields(def: &ResourceDef, obj: &mut Value) -> bool {
    match (def.group.as_str(), def.resource.as_str()) {
        ("", "secrets") => {
            if let Some(m) = obj.as_object_mut() {
                default_field(m, "type", json!("Opaque"));
            }
        }
        ("apps", "deployments") => {
            let spec = ensure_object(obj, "spec");
            default_field(spec, "replicas", json!(1));
            let strategy = ensure_object(&mut obj["spec"], "strategy");
            default_field(strategy, "type", json!("RollingUpdate"));
            if strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
                let rolling = ensure_object(&mut obj["spec"]["strategy"], "rollingUpdate");
                default_field(rolling, "maxSurge", json!("25%"));
                default_field(rolling, "maxUnavailable", json!("25%"));
            }
            let spec = ensure_object(obj, "spec");
            default_field(spec, "revisionHistoryLimit", json!(10));
            default_field(spec, "progressDeadlineSeconds", json!(600));
            default_template(obj);
        }
        ("apps", "replicasets") => {
            default_field(ensure_object(obj, "spec"), "replicas", json!(1));
            default_template(obj);
        }
        ("apps", "statefulsets") => {
            let spec = ensure_object(obj, "spec");
            default_field(spec, "replicas", json!(1));
            default_field(spec, "podManagementPolicy", json!("OrderedReady"));
            default_field(
                spec,
                "updateStrategy",
                json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}),
            );
            default_field(spec, "revisionHistoryLimit", json!(10));
            default_template(obj);
        }
        ("apps", "daemonsets") => {
            let spec = ensure_object(obj, "spec");
            default_field(
                spec,
                "updateStrategy",
                json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}),
            );
            default_field(spec, "revisionHistoryLimit", json!(10));
            default_template(obj);
        }
        ("batch", "cronjobs") => {
            let spec = ensure_object(obj, "spec");
            default_field(spec, "concurrencyPolicy", json!("Allow"));
            default_field(spec, "suspend", json!(false));
            default_field(spec, "successfulJobsHistoryLimit", json!(3));
            default_field(spec, "failedJobsHistoryLimit", json!(1));
        }
        _ => return false,
    }
    true
}

/// Defaulting and status reset on create (the registry adds uid, timestamps and versions).
pub fn prepare_for_create(def: &ResourceDef, obj: &mut Value, service_ip: impl FnOnce() -> String) {
    if def.has_status() && def.resource != "nodes" && def.resource != "customresourcedefinitions" {
        if let Some(m) = obj.as_object_mut() {
            m.remove("status");
        }
    }
    if default_fields(def, obj) {
        return;
    }
    match (def.group.as_str(), def.resource.as_str()) {
        ("", "namespaces") => {
            let name = obj["metadata"]["name"].clone();
            ensure_object(&mut obj["metadata"], "labels")
                .insert("kubernetes.io/metadata.name".into(), name);
            let spec = ensure_object(obj, "spec");
            default_field(spec, "finalizers", json!(["kubernetes"]));
            obj["status"] = json!({"phase": "Active"});
        }
        ("", "pods") => {
            if obj["spec"].is_object() {
                default_pod_spec(&mut obj["spec"]);
                let sa = ensure_object(obj, "spec");
                default_field(sa, "serviceAccountName", json!("default"));
                default_field(sa, "enableServiceLinks", json!(true));
                default_field(sa, "preemptionPolicy", json!("PreemptLowerPriority"));
                default_field(sa, "priority", json!(0));
            }
            let qos = qos_class(&obj["spec"]);
            obj["status"] = json!({"phase": "Pending", "qosClass": qos});
        }
        ("", "services") => {
            let spec = ensure_object(obj, "spec");
            default_field(spec, "type", json!("ClusterIP"));
            default_field(spec, "sessionAffinity", json!("None"));
            if spec.get("type").and_then(Value::as_str) != Some("ExternalName") {
                if !spec.contains_key("clusterIP") {
                    spec.insert("clusterIP".into(), json!(service_ip()));
                }
                let ip = spec.get("clusterIP").cloned().unwrap_or(Value::Null);
                default_field(spec, "clusterIPs", json!([ip]));
                default_field(spec, "ipFamilies", json!(["IPv4"]));
                default_field(spec, "ipFamilyPolicy", json!("SingleStack"));
                default_field(spec, "internalTrafficPolicy", json!("Cluster"));
            }
            for p in spec
                .get_mut("ports")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                let port = p["port"].clone();
                if let Some(pm) = p.as_object_mut() {
                    default_field(pm, "protocol", json!("TCP"));
                    default_field(pm, "targetPort", port);
                }
            }
            obj["status"] = json!({"loadBalancer": {}});
        }
        ("batch", "jobs") => {
            let spec = ensure_object(obj, "spec");
            default_field(spec, "parallelism", json!(1));
            default_field(spec, "completions", json!(1));
            default_field(spec, "backoffLimit", json!(6));
            default_field(spec, "completionMode", json!("NonIndexed"));
            default_field(spec, "suspend", json!(false));
            default_template(obj);
            generate_job_selector(obj);
        }
        ("apiextensions.k8s.io", "customresourcedefinitions") => {
            let names = obj["spec"]["names"].clone();
            let mut accepted = names.clone();
            if let (Some(m), Some(kind)) = (accepted.as_object_mut(), names["kind"].as_str()) {
                default_field(m, "listKind", json!(format!("{kind}List")));
                default_field(m, "singular", json!(kind.to_lowercase()));
            }
            if let Some(m) = obj
                .get_mut("spec")
                .and_then(|spec| spec.get_mut("names"))
                .and_then(Value::as_object_mut)
            {
                if let Some(kind) = names["kind"].as_str() {
                    default_field(m, "listKind", json!(format!("{kind}List")));
                    default_field(m, "singular", json!(kind.to_lowercase()));
                }
            }
            let stored: Vec<Value> = obj["spec"]["versions"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|v| v["storage"].as_bool() == Some(true))
                .map(|v| v["name"].clone())
                .collect();
            let now = crate::registry::now();
            obj["status"] = json!({
                "acceptedNames": accepted,
                "storedVersions": stored,
                "conditions": [
                    {"type": "NamesAccepted", "status": "True", "lastTransitionTime": now, "reason": "NoConflicts", "message": "no conflicts found"},
                    {"type": "Established", "status": "True", "lastTransitionTime": now, "reason": "InitialNamesAccepted", "message": "the initial names have been accepted"}
                ]
            });
        }
        _ => {}
    }
}

/// Applies the spec/status split: writes to the main resource keep the stored status, writes
/// to `/status` keep everything but the status.
pub fn prepare_for_update(def: &ResourceDef, old: &Value, new: &mut Value, subresource: &str) {
    if subresource.is_empty() {
        default_fields(def, new);
    }
    if subresource == "status" {
        let status = new.get("status").cloned();
        let rv = new["metadata"]["resourceVersion"].clone();
        *new = old.clone();
        match status {
            Some(s) => new["status"] = s,
            None => {
                if let Some(m) = new.as_object_mut() {
                    m.remove("status");
                }
            }
        }
        new["metadata"]["resourceVersion"] = rv;
        return;
    }
    if def.has_status() && def.resource != "customresourcedefinitions" {
        match old.get("status") {
            Some(s) => new["status"] = s.clone(),
            None => {
                if let Some(m) = new.as_object_mut() {
                    m.remove("status");
                }
            }
        }
    }
    if def.resource == "customresourcedefinitions" {
        new["status"] = old["status"].clone();
    }
    if def.group.is_empty()
        && def.resource == "services"
        && new["spec"]["clusterIP"].is_null()
        && old["spec"]["clusterIP"].is_string()
    {
        // Omitting the allocated clusterIP on update keeps it (it is immutable anyway).
        new["spec"]["clusterIP"] = old["spec"]["clusterIP"].clone();
        new["spec"]["clusterIPs"] = old["spec"]["clusterIPs"].clone();
    }
    if def.group.is_empty() && def.resource == "namespaces" {
        let name = old["metadata"]["name"].clone();
        ensure_object(&mut new["metadata"], "labels")
            .insert("kubernetes.io/metadata.name".into(), name);
    }
}

/// Spec-like content changed (generation bumps): everything but metadata and status.
pub fn spec_changed(old: &Value, new: &Value) -> bool {
    let strip = |v: &Value| -> Value {
        let mut v = v.clone();
        if let Some(m) = v.as_object_mut() {
            for k in ["metadata", "status", "apiVersion", "kind"] {
                m.remove(k);
            }
        }
        v
    };
    strip(old) != strip(new)
}

fn validate_metadata(def: &ResourceDef, obj: &Value, causes: &mut Vec<Cause>) {
    let name = obj["metadata"]["name"].as_str().unwrap_or_default();
    let ok = match def.resource.as_str() {
        "namespaces" => is_dns1123_label(name),
        "services" => is_dns1123_label(name) && name.starts_with(|c: char| c.is_ascii_lowercase()),
        "customresourcedefinitions" => is_dns1123_subdomain(name),
        _ if def.builtin => is_dns1123_subdomain(name),
        // Custom resources accept any path-segment name.
        _ => !name.is_empty() && !name.contains('/') && name != "." && name != "..",
    };
    if !ok {
        causes.push(Cause::invalid(
            "metadata.name",
            name,
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        ));
    }
    for (k, v) in labels_of(obj) {
        if LabelSelector::parse(&format!("{k}={v}")).is_err() {
            causes.push(Cause::invalid("metadata.labels", &v, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'"));
        }
    }
    if let Some(a) = obj["metadata"].get("annotations") {
        if !a.is_null()
            && !a
                .as_object()
                .is_some_and(|m| m.values().all(Value::is_string))
        {
            causes.push(Cause::new(
                "FieldValueTypeInvalid",
                "metadata.annotations",
                "annotation values must be strings",
            ));
        }
    }
}

fn validate_pod_spec(spec: &Value, field: &str, causes: &mut Vec<Cause>) {
    let containers = spec["containers"].as_array();
    if containers.is_none_or(|c| c.is_empty()) {
        causes.push(Cause::required(&format!("{field}.containers")));
        return;
    }
    for (i, c) in containers.into_iter().flatten().enumerate() {
        if c["name"].as_str().is_none_or(|n| !is_dns1123_label(n)) {
            causes.push(Cause::required(&format!("{field}.containers[{i}].name")));
        }
        if c["image"].as_str().is_none_or(str::is_empty) {
            causes.push(Cause::required(&format!("{field}.containers[{i}].image")));
        }
    }
}

/// Validation errors for the object as it would be stored.
pub fn validate(def: &ResourceDef, obj: &Value) -> Vec<Cause> {
    let mut causes = vec![];
    validate_metadata(def, obj, &mut causes);
    match (def.group.as_str(), def.resource.as_str()) {
        ("", "pods") => validate_pod_spec(&obj["spec"], "spec", &mut causes),
        ("apps", "deployments" | "replicasets" | "statefulsets" | "daemonsets") => {
            let selector = &obj["spec"]["selector"];
            if !selector.is_object() {
                causes.push(Cause::required("spec.selector"));
            } else {
                match LabelSelector::from_structured(selector) {
                    Ok(sel) if sel.is_empty() => causes.push(Cause::invalid(
                        "spec.selector",
                        "{}",
                        "empty selector is invalid for deployment",
                    )),
                    Ok(sel) => {
                        if !sel.matches_labels(&labels_of(&obj["spec"]["template"])) {
                            let labels = serde_json::to_string(
                                &obj["spec"]["template"]["metadata"]["labels"],
                            )
                            .unwrap_or_default();
                            causes.push(Cause::invalid(
                                "spec.template.metadata.labels",
                                &labels,
                                "`selector` does not match template `labels`",
                            ));
                        }
                    }
                    Err(e) => causes.push(Cause::invalid("spec.selector", "", &e)),
                }
            }
            validate_pod_spec(
                &obj["spec"]["template"]["spec"],
                "spec.template.spec",
                &mut causes,
            );
            if obj["spec"]["replicas"].as_i64().is_some_and(|r| r < 0) {
                causes.push(Cause::invalid(
                    "spec.replicas",
                    &obj["spec"]["replicas"].to_string(),
                    "must be greater than or equal to 0",
                ));
            }
        }
        ("apiextensions.k8s.io", "customresourcedefinitions") => {
            let spec = &obj["spec"];
            let group = spec["group"].as_str().unwrap_or_default();
            let plural = spec["names"]["plural"].as_str().unwrap_or_default();
            if group.is_empty() || !group.contains('.') {
                causes.push(Cause::invalid(
                    "spec.group",
                    group,
                    "should be a domain with at least one dot",
                ));
            }
            if plural.is_empty() {
                causes.push(Cause::required("spec.names.plural"));
            }
            if spec["names"]["kind"].as_str().is_none_or(str::is_empty) {
                causes.push(Cause::required("spec.names.kind"));
            }
            let name = obj["metadata"]["name"].as_str().unwrap_or_default();
            if name != format!("{plural}.{group}") {
                causes.push(Cause::invalid(
                    "metadata.name",
                    name,
                    "must be spec.names.plural+\".\"+spec.group",
                ));
            }
            if !matches!(spec["scope"].as_str(), Some("Namespaced" | "Cluster")) {
                causes.push(Cause::new(
                    "FieldValueNotSupported",
                    "spec.scope",
                    "Unsupported value: supported values: \"Cluster\", \"Namespaced\"",
                ));
            }
            let versions = spec["versions"].as_array().cloned().unwrap_or_default();
            if versions.is_empty() {
                causes.push(Cause::required("spec.versions"));
            }
            let storage = versions
                .iter()
                .filter(|v| v["storage"].as_bool() == Some(true))
                .count();
            if !versions.is_empty() && storage != 1 {
                causes.push(Cause::invalid(
                    "spec.versions",
                    "",
                    "must have exactly one version marked as storage version",
                ));
            }
        }
        _ => {}
    }
    causes
}
