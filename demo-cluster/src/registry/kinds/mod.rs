//! The resource types this server serves: the built-in kinds plus definitions derived from
//! stored CustomResourceDefinitions ([`custom`]). Discovery, routing and OpenAPI all read it.
//!
//! Each built-in kind lives in one module, `<group>/<resource>.rs` (`core` for the legacy
//! group), as kube-apiserver's `pkg/registry/<group>/<kind>/`: its discovery facts
//! (`definition()`: names, scope, verbs, subresources), its strategy (`STRATEGY`, see
//! [`crate::registry::strategy`]) and its typed schema (`SCHEMA`, see [`crate::schemas`]).
//! This module assembles the definitions in discovery order ([`builtin_resources`]) and the
//! strategies by (group, resource) ([`BUILT_IN`]); `schemas` finds the schemas by (group,
//! kind). Shared pieces stay beside: the definition builder ([`builder`]), the review kinds'
//! machinery (`reviews`), the strategies' helpers (`registry::strategy::{common, printing}`).

pub(crate) mod admissionregistration;
pub(crate) mod apiextensions;
pub(crate) mod apiregistration;
pub(crate) mod apps;
pub(crate) mod authentication;
pub(crate) mod authorization;
pub(crate) mod autoscaling;
pub(crate) mod batch;
pub(crate) mod builder;
pub(crate) mod certificates;
pub(crate) mod coordination;
pub(crate) mod core;
pub mod custom;
pub(crate) mod discovery;
pub(crate) mod events;
pub(crate) mod flowcontrol;
pub(crate) mod networking;
pub(crate) mod node;
pub(crate) mod policy;
pub(crate) mod rbac;
pub(crate) mod resource;
pub(crate) mod reviews;
pub(crate) mod scheduling;
pub(crate) mod storage;
pub(crate) mod storagemigration;

pub use self::core::pods::qos_class;
use crate::registry::strategy::Strategy;
pub use builder::ALL_VERBS;
pub use custom::defs_from_crd;

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
    vec![
        core::bindings::definition(),
        core::componentstatuses::definition(),
        core::configmaps::definition(),
        core::endpoints::definition(),
        core::events::definition(),
        core::namespaces::definition(),
        core::nodes::definition(),
        core::limitranges::definition(),
        core::persistentvolumeclaims::definition(),
        core::persistentvolumes::definition(),
        core::pods::definition(),
        core::podtemplates::definition(),
        core::replicationcontrollers::definition(),
        core::resourcequotas::definition(),
        core::secrets::definition(),
        core::serviceaccounts::definition(),
        core::services::definition(),
        apiregistration::apiservices::definition(),
        apps::controllerrevisions::definition(),
        apps::daemonsets::definition(),
        apps::deployments::definition(),
        apps::replicasets::definition(),
        apps::statefulsets::definition(),
        events::events::definition(),
        authentication::selfsubjectreviews::definition(),
        authentication::tokenreviews::definition(),
        authorization::localsubjectaccessreviews::definition(),
        authorization::selfsubjectaccessreviews::definition(),
        authorization::selfsubjectrulesreviews::definition(),
        authorization::subjectaccessreviews::definition(),
        // Served through both versions, stored as v2 (the strategy converts).
        autoscaling::horizontalpodautoscalers::definition("v2"),
        autoscaling::horizontalpodautoscalers::definition("v1"),
        batch::cronjobs::definition(),
        batch::jobs::definition(),
        certificates::certificatesigningrequests::definition(),
        certificates::clustertrustbundles::definition(),
        certificates::podcertificaterequests::definition(),
        networking::ingressclasses::definition(),
        networking::ingresses::definition(),
        networking::ipaddresses::definition(),
        networking::networkpolicies::definition(),
        networking::servicecidrs::definition(),
        policy::poddisruptionbudgets::definition(),
        rbac::clusterrolebindings::definition(),
        rbac::clusterroles::definition(),
        rbac::rolebindings::definition(),
        rbac::roles::definition(),
        storage::csidrivers::definition(),
        storage::csinodes::definition(),
        storage::csistoragecapacities::definition(),
        storage::storageclasses::definition(),
        storage::volumeattachments::definition(),
        storage::volumeattributesclasses::definition(),
        admissionregistration::mutatingadmissionpolicies::definition(),
        admissionregistration::mutatingadmissionpolicybindings::definition(),
        admissionregistration::mutatingwebhookconfigurations::definition(),
        admissionregistration::validatingwebhookconfigurations::definition(),
        admissionregistration::validatingadmissionpolicies::definition(),
        admissionregistration::validatingadmissionpolicybindings::definition(),
        apiextensions::customresourcedefinitions::definition(),
        scheduling::priorityclasses::definition(),
        coordination::leases::definition(),
        node::runtimeclasses::definition(),
        discovery::endpointslices::definition(),
        resource::deviceclasses::definition(),
        resource::devicetaintrules::definition(),
        resource::resourceclaims::definition(),
        resource::resourceclaimtemplates::definition(),
        resource::resourceslices::definition(),
        flowcontrol::flowschemas::definition(),
        flowcontrol::prioritylevelconfigurations::definition(),
        storagemigration::storageversionmigrations::definition(),
    ]
}

/// Every built-in kind's strategy, by (group, resource); the kinds not listed have none of
/// their own (`strategy::of` gives them the plain one).
pub(crate) static BUILT_IN: &[(&str, &str, &dyn Strategy)] = &[
    ("", "bindings", &core::bindings::STRATEGY),
    ("", "componentstatuses", &core::componentstatuses::STRATEGY),
    ("", "configmaps", &core::configmaps::STRATEGY),
    ("", "endpoints", &core::endpoints::STRATEGY),
    ("", "events", &core::events::STRATEGY),
    ("", "namespaces", &core::namespaces::STRATEGY),
    ("", "nodes", &core::nodes::STRATEGY),
    (
        "",
        "persistentvolumeclaims",
        &core::persistentvolumeclaims::STRATEGY,
    ),
    ("", "persistentvolumes", &core::persistentvolumes::STRATEGY),
    ("", "pods", &core::pods::STRATEGY),
    ("", "podtemplates", &core::podtemplates::STRATEGY),
    (
        "",
        "replicationcontrollers",
        &core::replicationcontrollers::STRATEGY,
    ),
    ("", "secrets", &core::secrets::STRATEGY),
    ("", "serviceaccounts", &core::serviceaccounts::STRATEGY),
    ("", "services", &core::services::STRATEGY),
    (
        "apps",
        "controllerrevisions",
        &apps::controllerrevisions::STRATEGY,
    ),
    ("apps", "daemonsets", &apps::daemonsets::STRATEGY),
    ("apps", "deployments", &apps::deployments::STRATEGY),
    ("apps", "replicasets", &apps::replicasets::STRATEGY),
    ("apps", "statefulsets", &apps::statefulsets::STRATEGY),
    (
        "discovery.k8s.io",
        "endpointslices",
        &discovery::endpointslices::STRATEGY,
    ),
    ("events.k8s.io", "events", &events::events::STRATEGY),
    (
        "authentication.k8s.io",
        "selfsubjectreviews",
        &authentication::selfsubjectreviews::STRATEGY,
    ),
    (
        "authentication.k8s.io",
        "tokenreviews",
        &authentication::tokenreviews::STRATEGY,
    ),
    (
        "authorization.k8s.io",
        "localsubjectaccessreviews",
        &authorization::localsubjectaccessreviews::STRATEGY,
    ),
    (
        "authorization.k8s.io",
        "selfsubjectaccessreviews",
        &authorization::selfsubjectaccessreviews::STRATEGY,
    ),
    (
        "authorization.k8s.io",
        "selfsubjectrulesreviews",
        &authorization::selfsubjectrulesreviews::STRATEGY,
    ),
    (
        "authorization.k8s.io",
        "subjectaccessreviews",
        &authorization::subjectaccessreviews::STRATEGY,
    ),
    (
        "autoscaling",
        "horizontalpodautoscalers",
        &autoscaling::horizontalpodautoscalers::STRATEGY,
    ),
    ("batch", "cronjobs", &batch::cronjobs::STRATEGY),
    ("batch", "jobs", &batch::jobs::STRATEGY),
    (
        "certificates.k8s.io",
        "certificatesigningrequests",
        &certificates::certificatesigningrequests::STRATEGY,
    ),
    (
        "networking.k8s.io",
        "ingressclasses",
        &networking::ingressclasses::STRATEGY,
    ),
    (
        "networking.k8s.io",
        "ingresses",
        &networking::ingresses::STRATEGY,
    ),
    (
        "networking.k8s.io",
        "networkpolicies",
        &networking::networkpolicies::STRATEGY,
    ),
    (
        "policy",
        "poddisruptionbudgets",
        &policy::poddisruptionbudgets::STRATEGY,
    ),
    (
        "rbac.authorization.k8s.io",
        "clusterrolebindings",
        &rbac::clusterrolebindings::STRATEGY,
    ),
    (
        "rbac.authorization.k8s.io",
        "clusterroles",
        &rbac::clusterroles::STRATEGY,
    ),
    (
        "rbac.authorization.k8s.io",
        "rolebindings",
        &rbac::rolebindings::STRATEGY,
    ),
    ("rbac.authorization.k8s.io", "roles", &rbac::roles::STRATEGY),
    (
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        &apiextensions::customresourcedefinitions::STRATEGY,
    ),
    (
        "coordination.k8s.io",
        "leases",
        &coordination::leases::STRATEGY,
    ),
    ("", "resourcequotas", &core::resourcequotas::STRATEGY),
    (
        "certificates.k8s.io",
        "clustertrustbundles",
        &certificates::clustertrustbundles::STRATEGY,
    ),
    (
        "apiregistration.k8s.io",
        "apiservices",
        &apiregistration::apiservices::STRATEGY,
    ),
    (
        "storage.k8s.io",
        "storageclasses",
        &storage::storageclasses::STRATEGY,
    ),
    (
        "admissionregistration.k8s.io",
        "mutatingwebhookconfigurations",
        &admissionregistration::mutatingwebhookconfigurations::STRATEGY,
    ),
    (
        "admissionregistration.k8s.io",
        "validatingwebhookconfigurations",
        &admissionregistration::validatingwebhookconfigurations::STRATEGY,
    ),
    (
        "scheduling.k8s.io",
        "priorityclasses",
        &scheduling::priorityclasses::STRATEGY,
    ),
    (
        "node.k8s.io",
        "runtimeclasses",
        &node::runtimeclasses::STRATEGY,
    ),
    (
        "networking.k8s.io",
        "ipaddresses",
        &networking::ipaddresses::STRATEGY,
    ),
    (
        "networking.k8s.io",
        "servicecidrs",
        &networking::servicecidrs::STRATEGY,
    ),
    (
        "storage.k8s.io",
        "csidrivers",
        &storage::csidrivers::STRATEGY,
    ),
    ("storage.k8s.io", "csinodes", &storage::csinodes::STRATEGY),
    (
        "storage.k8s.io",
        "csistoragecapacities",
        &storage::csistoragecapacities::STRATEGY,
    ),
    (
        "storage.k8s.io",
        "volumeattachments",
        &storage::volumeattachments::STRATEGY,
    ),
    (
        "storage.k8s.io",
        "volumeattributesclasses",
        &storage::volumeattributesclasses::STRATEGY,
    ),
    (
        "flowcontrol.apiserver.k8s.io",
        "flowschemas",
        &flowcontrol::flowschemas::STRATEGY,
    ),
    (
        "flowcontrol.apiserver.k8s.io",
        "prioritylevelconfigurations",
        &flowcontrol::prioritylevelconfigurations::STRATEGY,
    ),
    (
        "admissionregistration.k8s.io",
        "validatingadmissionpolicies",
        &admissionregistration::validatingadmissionpolicies::STRATEGY,
    ),
    (
        "admissionregistration.k8s.io",
        "validatingadmissionpolicybindings",
        &admissionregistration::validatingadmissionpolicybindings::STRATEGY,
    ),
    (
        "admissionregistration.k8s.io",
        "mutatingadmissionpolicies",
        &admissionregistration::mutatingadmissionpolicies::STRATEGY,
    ),
    (
        "admissionregistration.k8s.io",
        "mutatingadmissionpolicybindings",
        &admissionregistration::mutatingadmissionpolicybindings::STRATEGY,
    ),
    (
        "resource.k8s.io",
        "deviceclasses",
        &resource::deviceclasses::STRATEGY,
    ),
    (
        "resource.k8s.io",
        "resourceclaims",
        &resource::resourceclaims::STRATEGY,
    ),
    (
        "resource.k8s.io",
        "resourceclaimtemplates",
        &resource::resourceclaimtemplates::STRATEGY,
    ),
    (
        "resource.k8s.io",
        "resourceslices",
        &resource::resourceslices::STRATEGY,
    ),
];

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
