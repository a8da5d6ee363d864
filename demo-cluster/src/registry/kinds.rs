//! The resource types this server serves: a table of built-in definitions plus definitions
//! derived from stored CustomResourceDefinitions. Discovery, routing and OpenAPI all read it.

use serde_json::Value;

pub const ALL_VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];
const STATUS_VERBS: &[&str] = &["get", "patch", "update"];
/// The streaming subresources (exec, attach, portforward): GET and POST upgrade to a stream.
const STREAM_VERBS: &[&str] = &["create", "get"];
/// The proxy subresources pass every method through.
const PROXY_VERBS: &[&str] = &["create", "delete", "get", "patch", "update"];

/// A subresource as listed in discovery (`pods/status`, `deployments/scale`).
#[derive(Debug, Clone)]
pub struct SubresourceDef {
    pub name: String,
    /// Group/version of the kind when it differs from the parent's (Scale is autoscaling/v1).
    pub group: Option<String>,
    pub version: Option<String>,
    pub kind: String,
    pub verbs: Vec<String>,
}

/// Where the replica fields live for the scale subresource.
#[derive(Debug, Clone)]
pub struct ScalePaths {
    pub spec_replicas: String,
    pub status_replicas: String,
    pub label_selector: Option<String>,
}

/// One CRD printer column.
#[derive(Debug, Clone)]
pub struct PrinterColumn {
    pub name: String,
    pub column_type: String,
    pub format: String,
    pub description: String,
    pub priority: i64,
    pub json_path: String,
}

#[derive(Debug, Clone)]
pub struct ResourceDef {
    pub group: String,
    /// The group whose storage holds the objects (events.k8s.io Events live in core's).
    pub storage_group: String,
    pub version: String,
    pub resource: String,
    pub singular: String,
    pub kind: String,
    pub list_kind: String,
    pub namespaced: bool,
    pub verbs: Vec<String>,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub subresources: Vec<SubresourceDef>,
    /// Built-in kinds accept strategic merge patch; custom resources do not (415).
    pub builtin: bool,
    /// `metadata.generation` is maintained (bumped on spec changes).
    pub tracks_generation: bool,
    /// DELETE answers with the object's last state instead of a Success Status.
    pub returns_deleted_object: bool,
    pub scale: Option<ScalePaths>,
    /// CRD `additionalPrinterColumns`; built-ins use the printers in `http::table`.
    pub printer_columns: Vec<PrinterColumn>,
    /// A custom resource's storage version (the CRD version with `storage: true`).
    pub storage_version: Option<String>,
}

impl ResourceDef {
    /// Discovery's `storageVersionHash`: as kube-apiserver, the first 8 bytes of the SHA-256
    /// of `group/version/Kind` of the version objects are stored in, base64. Stored versions:
    /// events.k8s.io Events are core v1 Events, HorizontalPodAutoscalers autoscaling/v2, a
    /// custom resource its CRD's storage version; CustomResourceDefinitions and
    /// MutatingAdmissionPolicies (and their bindings) are still stored as v1beta1 by v1.36;
    /// every other built-in its only version.
    pub fn storage_version_hash(&self) -> String {
        use base64::Engine as _;
        use sha2::Digest as _;
        let version = if self.builtin {
            match (self.storage_group.as_str(), self.kind.as_str()) {
                ("autoscaling", _) => "v2",
                ("apiextensions.k8s.io", _)
                | (
                    "admissionregistration.k8s.io",
                    "MutatingAdmissionPolicy" | "MutatingAdmissionPolicyBinding",
                ) => "v1beta1",
                _ => "v1",
            }
        } else {
            self.storage_version.as_deref().unwrap_or(&self.version)
        };
        let gvk = format!("{}/{version}/{}", self.storage_group, self.kind);
        let digest = sha2::Sha256::digest(gvk.as_bytes());
        base64::engine::general_purpose::STANDARD.encode(&digest[..8])
    }

    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
    pub fn has_subresource(&self, name: &str) -> bool {
        self.subresources.iter().any(|s| s.name == name)
    }
    pub fn has_status(&self) -> bool {
        self.has_subresource("status")
    }
    pub fn supports(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Compact builder for the built-in table.
struct B(ResourceDef);

impl B {
    fn new(group: &str, resource: &str, singular: &str, kind: &str, namespaced: bool) -> B {
        B(ResourceDef {
            group: group.into(),
            storage_group: group.into(),
            version: "v1".into(),
            resource: resource.into(),
            singular: singular.into(),
            kind: kind.into(),
            list_kind: format!("{kind}List"),
            namespaced,
            verbs: strings(ALL_VERBS),
            short_names: vec![],
            categories: vec![],
            subresources: vec![],
            builtin: true,
            tracks_generation: false,
            returns_deleted_object: false,
            scale: None,
            printer_columns: vec![],
            storage_version: None,
        })
    }
    fn stored_in(mut self, group: &str) -> ResourceDef {
        self.0.storage_group = group.into();
        self.0
    }
    fn version(mut self, version: &str) -> B {
        self.0.version = version.into();
        self
    }
    fn short(mut self, names: &[&str]) -> B {
        self.0.short_names = strings(names);
        self
    }
    fn all(mut self) -> B {
        self.0.categories = strings(&["all"]);
        self
    }
    fn categories(mut self, c: &[&str]) -> B {
        self.0.categories = strings(c);
        self
    }
    fn verbs(mut self, v: &[&str]) -> B {
        self.0.verbs = strings(v);
        self
    }
    fn generation(mut self) -> B {
        self.0.tracks_generation = true;
        self
    }
    fn returns_deleted(mut self) -> B {
        self.0.returns_deleted_object = true;
        self
    }
    fn sub(self, name: &str, kind: &str, verbs: &[&str]) -> B {
        self.sub_in(name, None, kind, verbs)
    }
    /// A subresource whose kind is in another group/version (`pods/eviction`: policy/v1).
    fn sub_in(
        mut self,
        name: &str,
        group_version: Option<(&str, &str)>,
        kind: &str,
        verbs: &[&str],
    ) -> B {
        self.0.subresources.push(SubresourceDef {
            name: name.into(),
            group: group_version.map(|(g, _)| g.into()),
            version: group_version.map(|(_, v)| v.into()),
            kind: kind.into(),
            verbs: strings(verbs),
        });
        self
    }
    fn status(self) -> B {
        let kind = self.0.kind.clone();
        self.sub("status", &kind, STATUS_VERBS)
    }
    fn scale(self) -> B {
        let mut b = self.sub_in("scale", Some(("autoscaling", "v1")), "Scale", STATUS_VERBS);
        b.0.scale = Some(ScalePaths {
            spec_replicas: ".spec.replicas".into(),
            status_replicas: ".status.replicas".into(),
            label_selector: None,
        });
        b
    }
}

/// A create-only review kind (answered by `registry::reviews`, never stored).
fn review(group: &str, resource: &str, kind: &str, namespaced: bool) -> ResourceDef {
    let singular = resource.trim_end_matches('s');
    B::new(group, resource, singular, kind, namespaced)
        .verbs(&["create"])
        .0
}

fn hpa() -> B {
    B::new(
        "autoscaling",
        "horizontalpodautoscalers",
        "horizontalpodautoscaler",
        "HorizontalPodAutoscaler",
        true,
    )
    .short(&["hpa"])
    .all()
    .status()
}

/// A kind whose singular name is its lower-cased kind, as most are.
fn kind(group: &str, resource: &str, kind: &str, namespaced: bool) -> B {
    B::new(group, resource, &kind.to_lowercase(), kind, namespaced)
}

/// An admission policy kind (stored; no admission runs here).
fn admission(resource: &str, kind_name: &str) -> B {
    kind("admissionregistration.k8s.io", resource, kind_name, false).categories(&["api-extensions"])
}

/// Built-in resources kube-apiserver v1.36 serves only when a feature gate (or
/// `--runtime-config`) turns them on: not served unless `--feature-gated-apis` asks
/// (`tests/differential.rs` holds the default set to a real v1.36 server).
pub const FEATURE_GATED: &[(&str, &str)] = &[
    ("certificates.k8s.io", "clustertrustbundles"),
    ("certificates.k8s.io", "podcertificaterequests"),
    ("resource.k8s.io", "devicetaintrules"),
    ("storagemigration.k8s.io", "storageversionmigrations"),
];

/// Whether the built-in `group`/`resource` is one of [`FEATURE_GATED`].
pub fn is_feature_gated(group: &str, resource: &str) -> bool {
    FEATURE_GATED
        .iter()
        .any(|(g, r)| *g == group && *r == resource)
}

/// The built-in resources served: [`builtin_resources`] without the [`FEATURE_GATED`] ones
/// unless `feature_gated` asks for them.
pub fn served_builtin_resources(feature_gated: bool) -> Vec<ResourceDef> {
    builtin_resources()
        .into_iter()
        .filter(|d| feature_gated || !is_feature_gated(&d.group, &d.resource))
        .collect()
}

/// Built-in resources, in discovery order (core first, then groups as kube-apiserver lists
/// them), the [`FEATURE_GATED`] ones included.
pub fn builtin_resources() -> Vec<ResourceDef> {
    let workload_subs = |b: B| b.generation().all().status();
    vec![
        kind("", "bindings", "Binding", true).verbs(&["create"]).0,
        // Read-only: the registry seeds them healthy (kube-apiserver probes its components).
        kind("", "componentstatuses", "ComponentStatus", false)
            .short(&["cs"])
            .verbs(&["get", "list"])
            .0,
        B::new("", "configmaps", "configmap", "ConfigMap", true)
            .short(&["cm"])
            .0,
        B::new("", "endpoints", "endpoints", "Endpoints", true)
            .short(&["ep"])
            .0,
        B::new("", "events", "event", "Event", true)
            .short(&["ev"])
            .0,
        B::new("", "namespaces", "namespace", "Namespace", false)
            .short(&["ns"])
            .verbs(&[
                "create", "delete", "get", "list", "patch", "update", "watch",
            ])
            .sub("finalize", "Namespace", &["update"])
            .status()
            .0,
        B::new("", "nodes", "node", "Node", false)
            .short(&["no"])
            .sub("proxy", "NodeProxyOptions", PROXY_VERBS)
            .status()
            .0,
        kind("", "limitranges", "LimitRange", true)
            .short(&["limits"])
            .0,
        kind("", "persistentvolumeclaims", "PersistentVolumeClaim", true)
            .short(&["pvc"])
            .status()
            .0,
        kind("", "persistentvolumes", "PersistentVolume", false)
            .short(&["pv"])
            .status()
            .0,
        B::new("", "pods", "pod", "Pod", true)
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
            .0,
        kind("", "podtemplates", "PodTemplate", true).0,
        kind("", "replicationcontrollers", "ReplicationController", true)
            .short(&["rc"])
            .all()
            .generation()
            .scale()
            .status()
            .0,
        kind("", "resourcequotas", "ResourceQuota", true)
            .short(&["quota"])
            .status()
            .0,
        B::new("", "secrets", "secret", "Secret", true).0,
        B::new(
            "",
            "serviceaccounts",
            "serviceaccount",
            "ServiceAccount",
            true,
        )
        .short(&["sa"])
        .sub_in(
            "token",
            Some(("authentication.k8s.io", "v1")),
            "TokenRequest",
            &["create"],
        )
        .0,
        B::new("", "services", "service", "Service", true)
            .short(&["svc"])
            .all()
            .returns_deleted()
            .sub("proxy", "ServiceProxyOptions", PROXY_VERBS)
            .status()
            .0,
        kind("apiregistration.k8s.io", "apiservices", "APIService", false)
            .categories(&["api-extensions"])
            .status()
            .0,
        kind("apps", "controllerrevisions", "ControllerRevision", true).0,
        workload_subs(B::new("apps", "daemonsets", "daemonset", "DaemonSet", true).short(&["ds"]))
            .0,
        workload_subs(
            B::new("apps", "deployments", "deployment", "Deployment", true).short(&["deploy"]),
        )
        .scale()
        .0,
        workload_subs(
            B::new("apps", "replicasets", "replicaset", "ReplicaSet", true).short(&["rs"]),
        )
        .scale()
        .0,
        workload_subs(
            B::new("apps", "statefulsets", "statefulset", "StatefulSet", true).short(&["sts"]),
        )
        .scale()
        .0,
        B::new("events.k8s.io", "events", "event", "Event", true)
            .short(&["ev"])
            .stored_in(""),
        review(
            "authentication.k8s.io",
            "selfsubjectreviews",
            "SelfSubjectReview",
            false,
        ),
        review(
            "authentication.k8s.io",
            "tokenreviews",
            "TokenReview",
            false,
        ),
        review(
            "authorization.k8s.io",
            "localsubjectaccessreviews",
            "LocalSubjectAccessReview",
            true,
        ),
        review(
            "authorization.k8s.io",
            "selfsubjectaccessreviews",
            "SelfSubjectAccessReview",
            false,
        ),
        review(
            "authorization.k8s.io",
            "selfsubjectrulesreviews",
            "SelfSubjectRulesReview",
            false,
        ),
        review(
            "authorization.k8s.io",
            "subjectaccessreviews",
            "SubjectAccessReview",
            false,
        ),
        // Served through both versions, stored as v2 (registry::strategy converts).
        hpa().version("v2").0,
        hpa().version("v1").0,
        workload_subs(B::new("batch", "cronjobs", "cronjob", "CronJob", true).short(&["cj"])).0,
        workload_subs(B::new("batch", "jobs", "job", "Job", true)).0,
        kind(
            "certificates.k8s.io",
            "certificatesigningrequests",
            "CertificateSigningRequest",
            false,
        )
        .short(&["csr"])
        .sub("approval", "CertificateSigningRequest", STATUS_VERBS)
        .status()
        .0,
        kind(
            "certificates.k8s.io",
            "clustertrustbundles",
            "ClusterTrustBundle",
            false,
        )
        .0,
        kind(
            "certificates.k8s.io",
            "podcertificaterequests",
            "PodCertificateRequest",
            true,
        )
        .status()
        .0,
        kind("networking.k8s.io", "ingressclasses", "IngressClass", false).0,
        kind("networking.k8s.io", "ingresses", "Ingress", true)
            .short(&["ing"])
            .generation()
            .status()
            .0,
        kind("networking.k8s.io", "ipaddresses", "IPAddress", false)
            .short(&["ip"])
            .0,
        kind(
            "networking.k8s.io",
            "networkpolicies",
            "NetworkPolicy",
            true,
        )
        .short(&["netpol"])
        .generation()
        .0,
        kind("networking.k8s.io", "servicecidrs", "ServiceCIDR", false)
            .status()
            .0,
        kind(
            "policy",
            "poddisruptionbudgets",
            "PodDisruptionBudget",
            true,
        )
        .short(&["pdb"])
        .generation()
        .status()
        .0,
        B::new(
            "rbac.authorization.k8s.io",
            "clusterrolebindings",
            "clusterrolebinding",
            "ClusterRoleBinding",
            false,
        )
        .0,
        B::new(
            "rbac.authorization.k8s.io",
            "clusterroles",
            "clusterrole",
            "ClusterRole",
            false,
        )
        .0,
        B::new(
            "rbac.authorization.k8s.io",
            "rolebindings",
            "rolebinding",
            "RoleBinding",
            true,
        )
        .0,
        B::new("rbac.authorization.k8s.io", "roles", "role", "Role", true).0,
        kind("storage.k8s.io", "csidrivers", "CSIDriver", false).0,
        kind("storage.k8s.io", "csinodes", "CSINode", false).0,
        kind(
            "storage.k8s.io",
            "csistoragecapacities",
            "CSIStorageCapacity",
            true,
        )
        .0,
        kind("storage.k8s.io", "storageclasses", "StorageClass", false)
            .short(&["sc"])
            .0,
        kind(
            "storage.k8s.io",
            "volumeattachments",
            "VolumeAttachment",
            false,
        )
        .status()
        .0,
        kind(
            "storage.k8s.io",
            "volumeattributesclasses",
            "VolumeAttributesClass",
            false,
        )
        .short(&["vac"])
        .0,
        admission("mutatingadmissionpolicies", "MutatingAdmissionPolicy").0,
        admission(
            "mutatingadmissionpolicybindings",
            "MutatingAdmissionPolicyBinding",
        )
        .0,
        kind(
            "admissionregistration.k8s.io",
            "mutatingwebhookconfigurations",
            "MutatingWebhookConfiguration",
            false,
        )
        .categories(&["api-extensions"])
        .0,
        kind(
            "admissionregistration.k8s.io",
            "validatingwebhookconfigurations",
            "ValidatingWebhookConfiguration",
            false,
        )
        .categories(&["api-extensions"])
        .0,
        admission("validatingadmissionpolicies", "ValidatingAdmissionPolicy")
            .status()
            .0,
        admission(
            "validatingadmissionpolicybindings",
            "ValidatingAdmissionPolicyBinding",
        )
        .0,
        B::new(
            "apiextensions.k8s.io",
            "customresourcedefinitions",
            "customresourcedefinition",
            "CustomResourceDefinition",
            false,
        )
        .short(&["crd", "crds"])
        .categories(&["api-extensions"])
        .generation()
        .status()
        .0,
        kind(
            "scheduling.k8s.io",
            "priorityclasses",
            "PriorityClass",
            false,
        )
        .short(&["pc"])
        .generation()
        .0,
        B::new("coordination.k8s.io", "leases", "lease", "Lease", true).0,
        kind("node.k8s.io", "runtimeclasses", "RuntimeClass", false).0,
        kind("discovery.k8s.io", "endpointslices", "EndpointSlice", true).0,
        kind("resource.k8s.io", "deviceclasses", "DeviceClass", false).0,
        kind(
            "resource.k8s.io",
            "devicetaintrules",
            "DeviceTaintRule",
            false,
        )
        .status()
        .0,
        kind("resource.k8s.io", "resourceclaims", "ResourceClaim", true)
            .status()
            .0,
        kind(
            "resource.k8s.io",
            "resourceclaimtemplates",
            "ResourceClaimTemplate",
            true,
        )
        .0,
        kind("resource.k8s.io", "resourceslices", "ResourceSlice", false).0,
        kind(
            "flowcontrol.apiserver.k8s.io",
            "flowschemas",
            "FlowSchema",
            false,
        )
        .status()
        .0,
        kind(
            "flowcontrol.apiserver.k8s.io",
            "prioritylevelconfigurations",
            "PriorityLevelConfiguration",
            false,
        )
        .status()
        .0,
        kind(
            "storagemigration.k8s.io",
            "storageversionmigrations",
            "StorageVersionMigration",
            false,
        )
        .status()
        .0,
    ]
}

/// Kubernetes version priority: GA > beta > alpha, higher numbers first (v2 > v1 > v1beta2).
pub fn version_priority(v: &str) -> (u8, u64, u64) {
    let Some(rest) = v.strip_prefix('v') else {
        return (0, 0, 0);
    };
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let Ok(major) = digits.parse::<u64>() else {
        return (0, 0, 0);
    };
    let tail = &rest[digits.len()..];
    let (stability, minor_str) = if tail.is_empty() {
        (3, "")
    } else if let Some(m) = tail.strip_prefix("beta") {
        (2, m)
    } else if let Some(m) = tail.strip_prefix("alpha") {
        (1, m)
    } else {
        return (0, 0, 0);
    };
    let minor = minor_str.parse::<u64>().unwrap_or(0);
    (stability, major, minor)
}

/// Resource definitions for every served version of a stored CRD.
pub fn defs_from_crd(crd: &Value) -> Vec<ResourceDef> {
    let spec = &crd["spec"];
    let names = &spec["names"];
    let (Some(group), Some(plural), Some(kind)) = (
        spec["group"].as_str(),
        names["plural"].as_str(),
        names["kind"].as_str(),
    ) else {
        return vec![];
    };
    if crd["metadata"]["deletionTimestamp"].is_string() {
        return vec![];
    }
    let str_list = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut out = vec![];
    for version in spec["versions"].as_array().into_iter().flatten() {
        if version["served"].as_bool() != Some(true) {
            continue;
        }
        let Some(vname) = version["name"].as_str() else {
            continue;
        };
        let mut def = B::new(
            group,
            plural,
            names["singular"].as_str().unwrap_or(&kind.to_lowercase()),
            kind,
            spec["scope"].as_str() != Some("Cluster"),
        )
        .0;
        def.version = vname.into();
        def.list_kind = names["listKind"]
            .as_str()
            .map(String::from)
            .unwrap_or(format!("{kind}List"));
        def.short_names = str_list(&names["shortNames"]);
        def.categories = str_list(&names["categories"]);
        def.builtin = false;
        def.tracks_generation = true;
        def.storage_version = spec["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|v| v["storage"].as_bool() == Some(true))
            .and_then(|v| v["name"].as_str())
            .map(String::from);
        let subs = &version["subresources"];
        if subs["status"].is_object() {
            def.subresources.push(SubresourceDef {
                name: "status".into(),
                group: None,
                version: None,
                kind: kind.into(),
                verbs: strings(STATUS_VERBS),
            });
        }
        if let Some(scale) = subs["scale"].as_object() {
            def.subresources.push(SubresourceDef {
                name: "scale".into(),
                group: Some("autoscaling".into()),
                version: Some("v1".into()),
                kind: "Scale".into(),
                verbs: strings(STATUS_VERBS),
            });
            def.scale = Some(ScalePaths {
                spec_replicas: scale
                    .get("specReplicasPath")
                    .and_then(Value::as_str)
                    .unwrap_or(".spec.replicas")
                    .into(),
                status_replicas: scale
                    .get("statusReplicasPath")
                    .and_then(Value::as_str)
                    .unwrap_or(".status.replicas")
                    .into(),
                label_selector: scale
                    .get("labelSelectorPath")
                    .and_then(Value::as_str)
                    .map(String::from),
            });
        }
        let columns = version["additionalPrinterColumns"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        def.printer_columns = columns
            .iter()
            .filter_map(|c| {
                Some(PrinterColumn {
                    name: c["name"].as_str()?.into(),
                    column_type: c["type"].as_str().unwrap_or("string").into(),
                    format: c["format"].as_str().unwrap_or("").into(),
                    description: c["description"].as_str().unwrap_or("").into(),
                    priority: c["priority"].as_i64().unwrap_or(0),
                    json_path: c["jsonPath"].as_str()?.into(),
                })
            })
            .collect();
        if def.printer_columns.is_empty() {
            def.printer_columns.push(PrinterColumn {
                name: "Age".into(),
                column_type: "date".into(),
                format: "".into(),
                description: "".into(),
                priority: 0,
                json_path: ".metadata.creationTimestamp".into(),
            });
        }
        out.push(def);
    }
    out.sort_by_key(|d| std::cmp::Reverse(version_priority(&d.version)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_priority_orders_like_kubernetes() {
        let mut v = vec!["v1beta1", "v1", "v1alpha1", "v2", "v1beta2", "foo"];
        v.sort_by_key(|x| std::cmp::Reverse(version_priority(x)));
        assert_eq!(v, vec!["v2", "v1", "v1beta2", "v1beta1", "v1alpha1", "foo"]);
    }
}
