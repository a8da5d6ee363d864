//! The `:` palette's entries: what a typed line means and where each entry goes.
//! - `po`, `:deploy`, `crd`: resources (k9s habit): Enter opens the list, Shift+Enter the
//!   definition in the API explorer (a kind that cannot be listed opens its definition);
//! - `:ns kube-system` (or `:ns` alone): switch namespace;
//! - anything else also searches the names of the objects already loaded in open views.

use crate::api::tree::{ApiTree, ResourceId};
use crate::navigation::resource_search::palette_matches;
use crate::navigation::route::{ListRoute, ObjectRoute, Page};

/// Resources shown at most, and loaded objects at most.
pub const MAX_RESOURCES: usize = 10;
pub const MAX_OBJECTS: usize = 8;
/// Object names are searched from this many characters typed (fewer match everything).
const MIN_OBJECT_QUERY: usize = 2;

/// Where an entry goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PaletteTarget {
    /// A page (a list, an object).
    Page(Page),
    /// The resource's definition in the API explorer.
    Definition(ResourceId),
    /// The namespace in view (None: all namespaces).
    Namespace(Option<String>),
}

/// One line of the palette.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaletteEntry {
    /// What is shown first: `pods`, `kube-system`, `web-7d4b9c`.
    pub label: String,
    /// What it is: `Pod · list`, `namespace`, `Pod in default`.
    pub detail: String,
    /// Short names and the like, shown muted.
    pub hint: String,
    /// Enter.
    pub target: PaletteTarget,
    /// Shift+Enter, when the entry has a second place to go (a resource's definition).
    pub alternate: Option<PaletteTarget>,
}

/// An object some open view holds, for the name search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedObject {
    pub resource: ResourceId,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
}

impl LoadedObject {
    /// A list row of `resource` (the kind is left for the caller, which has the API tree).
    pub fn of_row(resource: &ResourceId, row: &crate::list::table::TableRow) -> LoadedObject {
        LoadedObject {
            resource: resource.clone(),
            kind: String::new(),
            namespace: row.meta.namespace.clone(),
            name: row.meta.name.clone(),
        }
    }

    /// A whole object of `resource`; None without a name.
    pub fn of_object(resource: &ResourceId, object: &serde_json::Value) -> Option<LoadedObject> {
        let text = |pointer: &str| object.pointer(pointer).and_then(serde_json::Value::as_str);
        Some(LoadedObject {
            resource: resource.clone(),
            kind: text("/kind").unwrap_or_default().to_string(),
            namespace: text("/metadata/namespace").map(str::to_string),
            name: text("/metadata/name")?.to_string(),
        })
    }
}

/// Objects found in several views, by name then namespace, each once, at most `limit`.
pub fn distinct_loaded_objects(mut found: Vec<LoadedObject>, limit: usize) -> Vec<LoadedObject> {
    crate::list::stable_sort::sort_by(&mut found, |a, b| {
        (&a.name, &a.namespace).cmp(&(&b.name, &b.namespace))
    });
    found.dedup_by(|a, b| {
        a.resource == b.resource && a.namespace == b.namespace && a.name == b.name
    });
    found.truncate(limit);
    found
}

/// The entries for `input`, given the namespace in view (where lists open), the namespaces
/// known, and the objects loaded in open views.
pub fn palette_entries(
    tree: &ApiTree,
    input: &str,
    namespace: Option<&str>,
    namespaces: &[String],
    loaded: &[LoadedObject],
) -> Vec<PaletteEntry> {
    // Trailing space kept until here: `:ns ` is a switch, `:ns` the namespaces resource.
    let raw = input.trim_start().trim_start_matches(':').trim_start();
    if let Some(wanted) = namespace_query(raw) {
        return namespace_entries(wanted, namespaces);
    }
    let query = raw.trim();
    let mut entries: Vec<PaletteEntry> = palette_matches(tree, query)
        .into_iter()
        .take(MAX_RESOURCES)
        .map(|candidate| {
            let listable = tree
                .find(&candidate.id)
                .is_some_and(|r| r.resource.supports("list"));
            let definition = PaletteTarget::Definition(candidate.id.clone());
            let (target, alternate, action) = if listable {
                let list = ListRoute::new(candidate.id.clone(), namespace.map(str::to_string));
                (
                    PaletteTarget::Page(Page::ResourceList(list)),
                    Some(definition),
                    "list",
                )
            } else {
                (definition, None, "definition")
            };
            PaletteEntry {
                label: candidate.label,
                detail: format!("{} · {action}", candidate.kind),
                hint: candidate.short_names.join(", "),
                target,
                alternate,
            }
        })
        .collect();
    entries.extend(object_entries(query, loaded));
    entries
}

/// `ns NAME` / `namespace NAME` (or the word alone): the namespace part.
fn namespace_query(query: &str) -> Option<&str> {
    let (word, rest) = query.split_once(' ')?;
    matches!(word, "ns" | "namespace" | "namespaces").then_some(rest.trim())
}

fn namespace_entries(wanted: &str, namespaces: &[String]) -> Vec<PaletteEntry> {
    let switch = |name: Option<String>, detail: &str| PaletteEntry {
        label: name.clone().unwrap_or_else(|| "All namespaces".into()),
        detail: detail.to_string(),
        hint: String::new(),
        target: PaletteTarget::Namespace(name),
        alternate: None,
    };
    let mut entries = Vec::new();
    if wanted.is_empty() {
        entries.push(switch(None, "switch namespace"));
    } else if !namespaces.iter().any(|n| n == wanted) && is_namespace_name(wanted) {
        // Typed whole: people who may not list namespaces still switch to theirs.
        entries.push(switch(
            Some(wanted.to_string()),
            "switch namespace (as typed)",
        ));
    }
    entries.extend(
        namespaces
            .iter()
            .filter(|n| n.contains(wanted))
            .map(|n| switch(Some(n.clone()), "switch namespace")),
    );
    entries
}

/// A DNS label, as namespace names are.
fn is_namespace_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
}

fn object_entries<'a>(
    query: &'a str,
    loaded: &'a [LoadedObject],
) -> impl Iterator<Item = PaletteEntry> + 'a {
    let wanted = query.to_ascii_lowercase();
    loaded
        .iter()
        .filter(move |o| {
            wanted.chars().count() >= MIN_OBJECT_QUERY
                && o.name.to_ascii_lowercase().contains(&wanted)
        })
        .take(MAX_OBJECTS)
        .map(|object| {
            let place = match &object.namespace {
                Some(ns) => format!("{} in {ns}", object.kind),
                None => object.kind.clone(),
            };
            PaletteEntry {
                label: object.name.clone(),
                detail: place,
                hint: String::new(),
                target: PaletteTarget::Page(Page::Object(ObjectRoute::new(
                    object.resource.clone(),
                    object.namespace.clone(),
                    object.name.clone(),
                ))),
                alternate: None,
            }
        })
}

/// The resource a collection path names (`/api/v1/namespaces/x/pods`,
/// `/apis/apps/v1/deployments`), for objects found in a watch's store.
pub fn resource_of_collection(path: &str) -> Option<ResourceId> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, rest) = match segments.as_slice() {
        ["api", rest @ ..] => ("", rest),
        ["apis", group, rest @ ..] => (*group, rest),
        _ => return None,
    };
    let (version, plural) = match rest {
        [version, "namespaces", _, plural] | [version, plural] => (*version, *plural),
        _ => return None,
    };
    Some(ResourceId::new(group, version, plural))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::tree::tests::sample_tree;

    #[test]
    fn loaded_objects_are_read_from_objects_and_kept_once() {
        let pods = ResourceId::new("", "v1", "pods");
        let object =
            serde_json::json!({"kind": "Pod", "metadata": {"name": "web", "namespace": "a"}});
        let found = LoadedObject::of_object(&pods, &object).expect("named");
        assert_eq!(
            (found.kind.as_str(), found.namespace.as_deref()),
            ("Pod", Some("a"))
        );
        assert!(LoadedObject::of_object(&pods, &serde_json::json!({"metadata": {}})).is_none());
        let other = LoadedObject {
            name: "api".into(),
            ..found.clone()
        };
        let kept = distinct_loaded_objects(vec![found.clone(), other, found], 5);
        assert_eq!(
            kept.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(),
            ["api", "web"]
        );
    }

    #[test]
    fn po_enter_opens_the_pods_list_in_the_namespace_in_view_and_shift_enter_the_definition() {
        let tree = sample_tree();
        let entries = palette_entries(&tree, ":po", Some("default"), &[], &[]);
        let first = &entries[0];
        assert_eq!(first.label, "pods");
        assert_eq!(first.detail, "Pod · list");
        let pods = ResourceId::new("", "v1", "pods");
        assert_eq!(
            first.target,
            PaletteTarget::Page(Page::ResourceList(ListRoute::new(
                pods.clone(),
                Some("default".into())
            )))
        );
        assert_eq!(first.alternate, Some(PaletteTarget::Definition(pods)));
    }

    #[test]
    fn ns_switches_namespace_also_to_one_that_cannot_be_listed() {
        let tree = sample_tree();
        let known = ["default".to_string(), "kube-system".to_string()];
        let entries = palette_entries(&tree, ":ns kube", None, &known, &[]);
        let targets: Vec<&PaletteTarget> = entries.iter().map(|e| &e.target).collect();
        assert_eq!(
            targets,
            [
                &PaletteTarget::Namespace(Some("kube".into())),
                &PaletteTarget::Namespace(Some("kube-system".into()))
            ]
        );
        let all = palette_entries(&tree, ":ns ", None, &known, &[]);
        assert_eq!(all[0].target, PaletteTarget::Namespace(None));
        assert_eq!(all.len(), 3);
        // Not a namespace name: nothing to switch to but what matches.
        assert!(palette_entries(&tree, ":ns <b>", None, &known, &[]).is_empty());
        // `:ns` alone is the namespaces resource, as in k9s.
        let resource = palette_entries(&tree, ":ns", None, &known, &[]);
        assert_eq!(resource[0].label, "namespaces");
    }

    #[test]
    fn loaded_objects_are_found_by_name() {
        let tree = sample_tree();
        let pods = ResourceId::new("", "v1", "pods");
        let loaded = [LoadedObject {
            resource: pods.clone(),
            kind: "Pod".into(),
            namespace: Some("shop".into()),
            name: "checkout-7d4b9".into(),
        }];
        let entries = palette_entries(&tree, "checkout", None, &[], &loaded);
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].detail, "Pod in shop");
        assert_eq!(
            entries[0].target,
            PaletteTarget::Page(Page::Object(ObjectRoute::new(
                pods,
                Some("shop".into()),
                "checkout-7d4b9"
            )))
        );
        // One letter matches too much to be useful.
        assert!(palette_entries(&tree, "zz", None, &[], &loaded).is_empty());
    }

    #[test]
    fn collection_paths_name_their_resource() {
        assert_eq!(
            resource_of_collection("/api/v1/namespaces/default/pods"),
            Some(ResourceId::new("", "v1", "pods"))
        );
        assert_eq!(
            resource_of_collection("/apis/apps/v1/deployments"),
            Some(ResourceId::new("apps", "v1", "deployments"))
        );
        assert_eq!(resource_of_collection("/version"), None);
    }
}
