//! The unified discovery tree that both aggregated and legacy discovery produce.
//!
//! Both forms of the same server must convert to *equal* trees, so everything here is
//! normalised: versions sorted by priority, subresources sorted by name, cross-group response
//! kinds kept only when they really differ from the containing group-version.

use std::fmt;

use crate::api::version::{compare_versions, Stability};

/// All groups a server serves, core (`""`) first, then in discovery order. The groups are
/// shared: every view holding the tree clones it, and a cluster with hundreds of CRDs has
/// thousands of resources, so a clone is a reference count, not a deep copy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApiTree {
    pub groups: std::sync::Arc<Vec<ApiGroup>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiGroup {
    /// `""` for the legacy core group (served under `/api`).
    pub name: String,
    /// Highest priority first (see [`compare_versions`]).
    pub versions: Vec<GroupVersion>,
    /// What the server prefers; `None` only when the group has no versions.
    pub preferred_version: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupVersion {
    pub version: String,
    pub stability: Stability,
    pub preferred: bool,
    /// Aggregated discovery marked this group-version `Stale` (its aggregated API server is
    /// unreachable); resources may be missing or outdated.
    pub freshness_stale: bool,
    pub resources: Vec<ApiResource>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiResource {
    /// Lower-case plural, the URL segment (`deployments`).
    pub plural: String,
    pub singular: String,
    pub kind: String,
    pub namespaced: bool,
    pub verbs: Vec<String>,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    /// Sorted by name.
    pub subresources: Vec<Subresource>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subresource {
    /// `status`, `scale`, `log`, ...
    pub name: String,
    pub kind: String,
    /// Set only when the kind lives in another group-version (`autoscaling/v1` `Scale`,
    /// `policy/v1` `Eviction`).
    pub kind_group_version: Option<GroupVersionRef>,
    pub verbs: Vec<String>,
}

/// A group/version pair (`group == ""` is core).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupVersionRef {
    pub group: String,
    pub version: String,
}

impl GroupVersionRef {
    pub fn new(group: impl Into<String>, version: impl Into<String>) -> Self {
        GroupVersionRef {
            group: group.into(),
            version: version.into(),
        }
    }

    /// The `apiVersion` string: `v1` for core, `group/version` otherwise.
    pub fn api_version(&self) -> String {
        api_version(&self.group, &self.version)
    }
}

/// `v1` for core, `group/version` otherwise.
pub fn api_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    }
}

/// Display name of a group: the core group has an empty name, shown as `core`.
pub fn group_display_name(group: &str) -> &str {
    if group.is_empty() {
        "core"
    } else {
        group
    }
}

impl ApiGroup {
    /// Builds a group, sorting versions by priority and marking the preferred one.
    /// `preferred` falls back to the first non-stale (then first) version if it isn't served.
    pub fn new(
        name: impl Into<String>,
        mut versions: Vec<GroupVersion>,
        preferred: Option<&str>,
    ) -> Self {
        crate::list::stable_sort::sort_by(&mut versions, |a, b| {
            compare_versions(&a.version, &b.version)
        });
        let chosen = preferred
            .filter(|p| versions.iter().any(|v| v.version == *p))
            .map(str::to_string)
            .or_else(|| {
                versions
                    .iter()
                    .find(|v| !v.freshness_stale)
                    .or(versions.first())
                    .map(|v| v.version.clone())
            });
        for v in &mut versions {
            v.preferred = chosen.as_deref() == Some(v.version.as_str());
        }
        ApiGroup {
            name: name.into(),
            versions,
            preferred_version: chosen,
        }
    }

    pub fn is_core(&self) -> bool {
        self.name.is_empty()
    }

    pub fn display_name(&self) -> &str {
        group_display_name(&self.name)
    }

    pub fn version(&self, version: &str) -> Option<&GroupVersion> {
        self.versions.iter().find(|v| v.version == version)
    }

    pub fn preferred(&self) -> Option<&GroupVersion> {
        self.preferred_version
            .as_deref()
            .and_then(|v| self.version(v))
    }

    /// Preferred version first, then the others by priority: the order kubectl searches.
    pub fn versions_by_preference(&self) -> impl Iterator<Item = &GroupVersion> {
        self.preferred()
            .into_iter()
            .chain(self.versions.iter().filter(|v| !v.preferred))
    }
}

impl GroupVersion {
    pub fn new(
        version: impl Into<String>,
        freshness_stale: bool,
        resources: Vec<ApiResource>,
    ) -> Self {
        let version = version.into();
        GroupVersion {
            stability: Stability::of(&version),
            version,
            preferred: false,
            freshness_stale,
            resources,
        }
    }

    pub fn resource(&self, plural: &str) -> Option<&ApiResource> {
        self.resources.iter().find(|r| r.plural == plural)
    }
}

impl ApiResource {
    pub fn supports(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }

    pub fn subresource(&self, name: &str) -> Option<&Subresource> {
        self.subresources.iter().find(|s| s.name == name)
    }
}

impl Subresource {
    pub fn supports(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }
}

/// Stable key for routing and selection, e.g. `apps/v1/deployments`, `core/v1/pods`.
/// It names a resource by value, so it survives tree rebuilds.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceId {
    pub group: String,
    pub version: String,
    pub plural: String,
}

impl ResourceId {
    pub fn new(
        group: impl Into<String>,
        version: impl Into<String>,
        plural: impl Into<String>,
    ) -> Self {
        ResourceId {
            group: group.into(),
            version: version.into(),
            plural: plural.into(),
        }
    }

    /// `core/v1/pods`, `apps/v1/deployments`.
    pub fn key(&self) -> String {
        format!(
            "{}/{}/{}",
            group_display_name(&self.group),
            self.version,
            self.plural
        )
    }

    /// Inverse of [`ResourceId::key`]; `None` unless there are exactly three non-empty parts.
    pub fn parse(key: &str) -> Option<ResourceId> {
        let mut parts = key.split('/');
        let (g, v, r) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || g.is_empty() || v.is_empty() || r.is_empty() {
            return None;
        }
        let group = if g == "core" { "" } else { g };
        Some(ResourceId::new(group, v, r))
    }

    pub fn group_version(&self) -> GroupVersionRef {
        GroupVersionRef::new(self.group.clone(), self.version.clone())
    }
}

impl fmt::Display for ResourceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// A resource together with the group and version it was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceRef<'a> {
    pub group: &'a ApiGroup,
    pub version: &'a GroupVersion,
    pub resource: &'a ApiResource,
}

impl ResourceRef<'_> {
    pub fn id(&self) -> ResourceId {
        ResourceId::new(
            self.group.name.clone(),
            self.version.version.clone(),
            self.resource.plural.clone(),
        )
    }

    pub fn api_version(&self) -> String {
        api_version(&self.group.name, &self.version.version)
    }

    /// The name kubectl accepts unambiguously: `pods`, `deployments.apps`, or
    /// `deployments.v1beta1.apps` when this is not the preferred version.
    pub fn kubectl_name(&self) -> String {
        let plural = &self.resource.plural;
        match (self.group.is_core(), self.version.preferred) {
            (true, true) => plural.clone(),
            (true, false) => format!("{plural}.{}", self.version.version),
            (false, true) => format!("{plural}.{}", self.group.name),
            (false, false) => format!("{plural}.{}.{}", self.version.version, self.group.name),
        }
    }
}

/// Totals, as counted in the fixture notes (resources once per group-version).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TreeCounts {
    pub groups: usize,
    pub group_versions: usize,
    pub resources: usize,
    pub subresources: usize,
}

impl ApiTree {
    /// Orders groups core first, otherwise keeping the given (discovery) order.
    pub fn new(mut groups: Vec<ApiGroup>) -> Self {
        // Stable sort: only moves core to the front.
        crate::list::stable_sort::sort_by_key(&mut groups, |g| !g.is_core());
        ApiTree {
            groups: std::sync::Arc::new(groups),
        }
    }

    pub fn group(&self, name: &str) -> Option<&ApiGroup> {
        self.groups.iter().find(|g| g.name == name)
    }

    pub fn core(&self) -> Option<&ApiGroup> {
        self.group("")
    }

    /// Replaces the group with the same name in place (keeping its position) or appends it
    /// (core goes first). Used to apply a CRD change without a full rebuild.
    pub fn merge_group(&mut self, group: ApiGroup) {
        let groups = std::sync::Arc::make_mut(&mut self.groups);
        if let Some(slot) = groups.iter_mut().find(|g| g.name == group.name) {
            *slot = group;
        } else if group.is_core() {
            groups.insert(0, group);
        } else {
            groups.push(group);
        }
    }

    pub fn remove_group(&mut self, name: &str) -> Option<ApiGroup> {
        let idx = self.groups.iter().position(|g| g.name == name)?;
        Some(std::sync::Arc::make_mut(&mut self.groups).remove(idx))
    }

    pub fn find(&self, id: &ResourceId) -> Option<ResourceRef<'_>> {
        let group = self.group(&id.group)?;
        let version = group.version(&id.version)?;
        let resource = version.resource(&id.plural)?;
        Some(ResourceRef {
            group,
            version,
            resource,
        })
    }

    /// Every resource in every group-version, in tree order.
    pub fn resources(&self) -> impl Iterator<Item = ResourceRef<'_>> {
        self.groups.iter().flat_map(|group| {
            group.versions.iter().flat_map(move |version| {
                version.resources.iter().map(move |resource| ResourceRef {
                    group,
                    version,
                    resource,
                })
            })
        })
    }

    /// One entry per group/resource: the preferred version's resources, plus resources served
    /// only by other versions (from their highest-priority version). Like kubectl's
    /// `api-resources`, this is what name lookups and the palette search.
    pub fn preferred_resources(&self) -> Vec<ResourceRef<'_>> {
        let mut out = Vec::new();
        for group in self.groups.iter() {
            let start = out.len();
            for version in group.versions_by_preference() {
                for resource in &version.resources {
                    let seen = out[start..]
                        .iter()
                        .any(|r: &ResourceRef<'_>| r.resource.plural == resource.plural);
                    if !seen {
                        out.push(ResourceRef {
                            group,
                            version,
                            resource,
                        });
                    }
                }
            }
        }
        out
    }

    pub fn counts(&self) -> TreeCounts {
        let mut c = TreeCounts {
            groups: self.groups.len(),
            ..TreeCounts::default()
        };
        for g in self.groups.iter() {
            c.group_versions += g.versions.len();
            for v in &g.versions {
                c.resources += v.resources.len();
                c.subresources += v
                    .resources
                    .iter()
                    .map(|r| r.subresources.len())
                    .sum::<usize>();
            }
        }
        c
    }
}

/// Why one group-version is missing or incomplete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TreeErrorKind {
    /// The request for the group-version document failed (network, HTTP status).
    Fetch,
    /// The document arrived but could not be parsed.
    Parse,
    /// Aggregated discovery marked it `Stale`.
    Stale,
    /// An entry was dropped (no kind, orphan subresource); the rest of the GV is usable.
    Dropped,
    /// The walk planned this group-version but no result was ever recorded.
    NotFetched,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeError {
    pub group: String,
    pub version: String,
    pub kind: TreeErrorKind,
    pub message: String,
}

impl fmt::Display for TreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}: {}",
            group_display_name(&self.group),
            self.version,
            self.message
        )
    }
}

/// Partial failures collected while building a tree; never fatal on their own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeErrors {
    pub entries: Vec<TreeError>,
}

impl TreeErrors {
    pub fn push(
        &mut self,
        group: &str,
        version: &str,
        kind: TreeErrorKind,
        message: impl Into<String>,
    ) {
        self.entries.push(TreeError {
            group: group.to_string(),
            version: version.to_string(),
            kind,
            message: message.into(),
        });
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Errors for one group (e.g. to badge it in the tree view).
    pub fn for_group<'a>(&'a self, group: &'a str) -> impl Iterator<Item = &'a TreeError> + 'a {
        self.entries.iter().filter(move |e| e.group == group)
    }

    /// Group-versions whose whole document is unusable (fetch/parse/not fetched).
    pub fn failed_group_versions(&self) -> Vec<GroupVersionRef> {
        let mut out: Vec<GroupVersionRef> = self
            .entries
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    TreeErrorKind::Fetch | TreeErrorKind::Parse | TreeErrorKind::NotFetched
                )
            })
            .map(|e| GroupVersionRef::new(e.group.clone(), e.version.clone()))
            .collect();
        crate::list::stable_sort::sort(&mut out);
        out.dedup();
        out
    }
}

/// A built tree plus whatever went wrong on the way.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Discovery {
    pub tree: ApiTree,
    pub errors: TreeErrors,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn res(plural: &str, kind: &str, namespaced: bool, short: &[&str]) -> ApiResource {
        ApiResource {
            plural: plural.into(),
            singular: plural.trim_end_matches('s').into(),
            kind: kind.into(),
            namespaced,
            verbs: [
                "create",
                "delete",
                "deletecollection",
                "get",
                "list",
                "patch",
                "update",
                "watch",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            short_names: short.iter().map(|s| s.to_string()).collect(),
            categories: vec![],
            subresources: vec![],
        }
    }

    /// A small tree used by the mapping/filter tests.
    pub(crate) fn sample_tree() -> ApiTree {
        let mut pods = res("pods", "Pod", true, &["po"]);
        pods.categories = vec!["all".into()];
        pods.subresources = vec![
            Subresource {
                name: "eviction".into(),
                kind: "Eviction".into(),
                kind_group_version: Some(GroupVersionRef::new("policy", "v1")),
                verbs: vec!["create".into()],
            },
            Subresource {
                name: "status".into(),
                kind: "Pod".into(),
                kind_group_version: None,
                verbs: vec!["get".into(), "patch".into(), "update".into()],
            },
        ];
        let core = ApiGroup::new(
            "",
            vec![GroupVersion::new(
                "v1",
                false,
                vec![
                    pods,
                    res("events", "Event", true, &["ev"]),
                    res("namespaces", "Namespace", false, &["ns"]),
                    res("nodes", "Node", false, &["no"]),
                    res("podtemplates", "PodTemplate", true, &[]),
                ],
            )],
            Some("v1"),
        );
        let mut deploy = res("deployments", "Deployment", true, &["deploy"]);
        deploy.categories = vec!["all".into()];
        deploy.subresources = vec![Subresource {
            name: "scale".into(),
            kind: "Scale".into(),
            kind_group_version: Some(GroupVersionRef::new("autoscaling", "v1")),
            verbs: vec!["get".into(), "patch".into(), "update".into()],
        }];
        let apps = ApiGroup::new(
            "apps",
            vec![GroupVersion::new(
                "v1",
                false,
                vec![deploy, res("daemonsets", "DaemonSet", true, &["ds"])],
            )],
            Some("v1"),
        );
        let events = ApiGroup::new(
            "events.k8s.io",
            vec![GroupVersion::new(
                "v1",
                false,
                vec![res("events", "Event", true, &["ev"])],
            )],
            Some("v1"),
        );
        let crd = ApiGroup::new(
            "apiextensions.k8s.io",
            vec![GroupVersion::new(
                "v1",
                false,
                vec![res(
                    "customresourcedefinitions",
                    "CustomResourceDefinition",
                    false,
                    &["crd", "crds"],
                )],
            )],
            Some("v1"),
        );
        let widgets = ApiGroup::new(
            "example.com",
            vec![
                GroupVersion::new("v1alpha1", false, vec![res("gadgets", "Gadget", true, &[])]),
                GroupVersion::new("v1", false, vec![res("widgets", "Widget", true, &["wg"])]),
                GroupVersion::new(
                    "v1beta1",
                    false,
                    vec![res("widgets", "Widget", true, &["wg"])],
                ),
            ],
            None,
        );
        ApiTree::new(vec![apps, events, core, crd, widgets])
    }

    #[test]
    fn core_first_and_versions_sorted() {
        let t = sample_tree();
        let names: Vec<_> = t.groups.iter().map(|g| g.display_name()).collect();
        assert_eq!(
            names,
            [
                "core",
                "apps",
                "events.k8s.io",
                "apiextensions.k8s.io",
                "example.com"
            ]
        );
        let ex = t.group("example.com").unwrap();
        let vs: Vec<_> = ex.versions.iter().map(|v| v.version.as_str()).collect();
        assert_eq!(vs, ["v1", "v1beta1", "v1alpha1"]);
        assert_eq!(ex.preferred_version.as_deref(), Some("v1"));
        assert!(ex.versions[0].preferred && !ex.versions[1].preferred);
        assert_eq!(ex.versions[2].stability, Stability::Alpha);
    }

    #[test]
    fn preferred_falls_back_past_stale_and_unknown() {
        let g = ApiGroup::new(
            "x.io",
            vec![
                GroupVersion::new("v2", true, vec![]),
                GroupVersion::new("v1", false, vec![]),
            ],
            Some("v9"),
        );
        assert_eq!(g.preferred_version.as_deref(), Some("v1"));
        let empty = ApiGroup::new("y.io", vec![], None);
        assert_eq!(empty.preferred_version, None);
    }

    #[test]
    fn resource_id_roundtrip() {
        let id = ResourceId::new("", "v1", "pods");
        assert_eq!(id.key(), "core/v1/pods");
        assert_eq!(ResourceId::parse("core/v1/pods"), Some(id));
        let id = ResourceId::parse("apps/v1/deployments").unwrap();
        assert_eq!(id.group, "apps");
        assert_eq!(id.to_string(), "apps/v1/deployments");
        for bad in [
            "",
            "apps/v1",
            "apps/v1/deployments/x",
            "/v1/pods",
            "apps//x",
        ] {
            assert_eq!(ResourceId::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn find_survives_rebuild_and_merge() {
        let mut t = sample_tree();
        let id = ResourceId::parse("apps/v1/deployments").unwrap();
        assert_eq!(t.find(&id).unwrap().resource.kind, "Deployment");
        // A CRD group appears, is updated in place, then removed.
        let g = ApiGroup::new(
            "stable.example.org",
            vec![GroupVersion::new(
                "v1",
                false,
                vec![res("crontabs", "CronTab", true, &["ct"])],
            )],
            None,
        );
        t.merge_group(g.clone());
        assert_eq!(t.groups.last().unwrap().name, "stable.example.org");
        let mut g2 = g;
        g2.versions[0]
            .resources
            .push(res("jobs2", "Job2", true, &[]));
        t.merge_group(g2);
        assert_eq!(t.groups.len(), 6);
        assert!(t
            .find(&ResourceId::parse("stable.example.org/v1/jobs2").unwrap())
            .is_some());
        assert!(t.remove_group("stable.example.org").is_some());
        assert!(t.remove_group("stable.example.org").is_none());
        assert_eq!(t, sample_tree());
        assert!(t.find(&id).is_some());
    }

    #[test]
    fn preferred_resources_include_version_only_resources() {
        let t = sample_tree();
        let ids: Vec<String> = t
            .preferred_resources()
            .iter()
            .filter(|r| r.group.name == "example.com")
            .map(|r| r.id().key())
            .collect();
        assert_eq!(
            ids,
            ["example.com/v1/widgets", "example.com/v1alpha1/gadgets"]
        );
    }

    #[test]
    fn kubectl_names() {
        let t = sample_tree();
        let get = |k: &str| {
            t.find(&ResourceId::parse(k).unwrap())
                .unwrap()
                .kubectl_name()
        };
        assert_eq!(get("core/v1/pods"), "pods");
        assert_eq!(get("apps/v1/deployments"), "deployments.apps");
        assert_eq!(
            get("example.com/v1beta1/widgets"),
            "widgets.v1beta1.example.com"
        );
    }

    #[test]
    fn counts_and_errors() {
        let t = sample_tree();
        let c = t.counts();
        assert_eq!(
            (c.groups, c.group_versions, c.resources, c.subresources),
            (5, 7, 12, 3)
        );
        let mut e = TreeErrors::default();
        e.push("apps", "v1", TreeErrorKind::Fetch, "503");
        e.push("apps", "v1", TreeErrorKind::Dropped, "x");
        e.push("", "v1", TreeErrorKind::Parse, "bad");
        assert_eq!(e.len(), 3);
        assert_eq!(e.for_group("apps").count(), 2);
        assert_eq!(
            e.failed_group_versions(),
            [
                GroupVersionRef::new("", "v1"),
                GroupVersionRef::new("apps", "v1")
            ]
        );
        assert_eq!(e.entries[2].to_string(), "core/v1: bad");
    }
}
