//! The compact builder the built-in kinds' modules declare their discovery facts with
//! (names, scope, verbs, short names, categories, subresources), and the verb sets they
//! share.

use super::{ResourceDef, ScalePaths, SubresourceDef};

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
pub(crate) const STATUS_VERBS: &[&str] = &["get", "patch", "update"];
/// The streaming subresources (exec, attach, portforward): GET and POST upgrade to a stream.
pub(crate) const STREAM_VERBS: &[&str] = &["create", "get"];
/// The proxy subresources pass every method through.
pub(crate) const PROXY_VERBS: &[&str] = &["create", "delete", "get", "patch", "update"];

pub(crate) fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Builds one built-in kind's [`ResourceDef`]: every verb, version v1, stored in its own
/// group, until told otherwise.
pub(crate) struct ResourceDefBuilder(ResourceDef);

impl ResourceDefBuilder {
    pub(crate) fn new(
        group: &str,
        resource: &str,
        singular: &str,
        kind: &str,
        namespaced: bool,
    ) -> ResourceDefBuilder {
        ResourceDefBuilder(ResourceDef {
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
    /// The definition built.
    pub(crate) fn build(self) -> ResourceDef {
        self.0
    }
    pub(crate) fn stored_in(mut self, group: &str) -> ResourceDef {
        self.0.storage_group = group.into();
        self.0
    }
    pub(crate) fn version(mut self, version: &str) -> ResourceDefBuilder {
        self.0.version = version.into();
        self
    }
    pub(crate) fn short(mut self, names: &[&str]) -> ResourceDefBuilder {
        self.0.short_names = strings(names);
        self
    }
    pub(crate) fn all(mut self) -> ResourceDefBuilder {
        self.0.categories = strings(&["all"]);
        self
    }
    pub(crate) fn categories(mut self, c: &[&str]) -> ResourceDefBuilder {
        self.0.categories = strings(c);
        self
    }
    pub(crate) fn verbs(mut self, v: &[&str]) -> ResourceDefBuilder {
        self.0.verbs = strings(v);
        self
    }
    pub(crate) fn generation(mut self) -> ResourceDefBuilder {
        self.0.tracks_generation = true;
        self
    }
    pub(crate) fn returns_deleted(mut self) -> ResourceDefBuilder {
        self.0.returns_deleted_object = true;
        self
    }
    pub(crate) fn sub(self, name: &str, kind: &str, verbs: &[&str]) -> ResourceDefBuilder {
        self.sub_in(name, None, kind, verbs)
    }
    /// A subresource whose kind is in another group/version (`pods/eviction`: policy/v1).
    pub(crate) fn sub_in(
        mut self,
        name: &str,
        group_version: Option<(&str, &str)>,
        kind: &str,
        verbs: &[&str],
    ) -> ResourceDefBuilder {
        self.0.subresources.push(SubresourceDef {
            name: name.into(),
            group: group_version.map(|(g, _)| g.into()),
            version: group_version.map(|(_, v)| v.into()),
            kind: kind.into(),
            verbs: strings(verbs),
        });
        self
    }
    pub(crate) fn status(self) -> ResourceDefBuilder {
        let kind = self.0.kind.clone();
        self.sub("status", &kind, STATUS_VERBS)
    }
    pub(crate) fn scale(self) -> ResourceDefBuilder {
        let mut b = self.sub_in("scale", Some(("autoscaling", "v1")), "Scale", STATUS_VERBS);
        b.0.scale = Some(ScalePaths {
            spec_replicas: ".spec.replicas".into(),
            status_replicas: ".status.replicas".into(),
            label_selector: None,
        });
        b
    }
    /// The apps/v1 and batch/v1 workloads' facts: generation, category `all`, status.
    pub(crate) fn workload(self) -> ResourceDefBuilder {
        self.generation().all().status()
    }
}

/// A kind whose singular name is its lower-cased kind, as most are.
pub(crate) fn kind(
    group: &str,
    resource: &str,
    kind: &str,
    namespaced: bool,
) -> ResourceDefBuilder {
    ResourceDefBuilder::new(group, resource, &kind.to_lowercase(), kind, namespaced)
}

/// A create-only review kind (answered by its strategy, never stored).
pub(crate) fn review(group: &str, resource: &str, kind: &str, namespaced: bool) -> ResourceDef {
    let singular = resource.trim_end_matches('s');
    ResourceDefBuilder::new(group, resource, singular, kind, namespaced)
        .verbs(&["create"])
        .build()
}

/// An admission policy kind (stored; no admission runs here).
pub(crate) fn admission(resource: &str, kind_name: &str) -> ResourceDefBuilder {
    kind("admissionregistration.k8s.io", resource, kind_name, false).categories(&["api-extensions"])
}
