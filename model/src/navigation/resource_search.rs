//! Tree filtering and the k9s-style `:resource` palette.

use crate::api::endpoints::resolve_user_input;
use crate::api::tree::{ApiGroup, ApiResource, ApiTree, ResourceId};

/// Visible parts of a tree for a filter query, as indices into the tree (cheap, and lets the
/// view keep rendering from the original tree).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TreeFilter {
    /// Only groups with something visible, in tree order.
    pub groups: Vec<GroupFilter>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupFilter {
    pub group: usize,
    /// The group name itself matched, so all its resources are shown.
    pub name_matched: bool,
    pub versions: Vec<VersionFilter>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionFilter {
    pub version: usize,
    pub resources: Vec<usize>,
}

fn contains_ci(haystack: &str, needle_lower: &str) -> bool {
    // Names are ASCII in practice; lowercase once per comparison is cheap enough.
    haystack.to_ascii_lowercase().contains(needle_lower)
}

fn group_matches(g: &ApiGroup, term: &str) -> bool {
    contains_ci(g.display_name(), term)
}

fn resource_matches(r: &ApiResource, term: &str) -> bool {
    contains_ci(&r.plural, term)
        || contains_ci(&r.singular, term)
        || contains_ci(&r.kind, term)
        || r.short_names.iter().any(|s| contains_ci(s, term))
        || r.categories.iter().any(|c| contains_ci(c, term))
}

/// Case-insensitive filter. Whitespace-separated terms must all match; each term may match
/// the resource (plural, singular, kind, short names, categories) or its group name, so
/// `apps deploy` narrows to apps deployments. An empty query shows everything.
pub fn filter_tree(tree: &ApiTree, query: &str) -> TreeFilter {
    let terms: Vec<String> = query
        .split_whitespace()
        .map(|t| t.to_ascii_lowercase())
        .collect();
    let mut out = TreeFilter::default();
    for (gi, g) in tree.groups.iter().enumerate() {
        let name_matched = !terms.is_empty() && terms.iter().all(|t| group_matches(g, t));
        let mut versions = Vec::new();
        for (vi, v) in g.versions.iter().enumerate() {
            let resources: Vec<usize> = v
                .resources
                .iter()
                .enumerate()
                .filter(|(_, r)| {
                    terms
                        .iter()
                        .all(|t| group_matches(g, t) || resource_matches(r, t))
                })
                .map(|(ri, _)| ri)
                .collect();
            // Empty versions stay visible when the group or query as a whole matches.
            if !resources.is_empty() || name_matched || terms.is_empty() {
                versions.push(VersionFilter {
                    version: vi,
                    resources,
                });
            }
        }
        if !versions.is_empty() {
            out.groups.push(GroupFilter {
                group: gi,
                name_matched,
                versions,
            });
        }
    }
    out
}

impl TreeFilter {
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Number of visible resources (counting each group-version separately).
    pub fn resource_count(&self) -> usize {
        self.groups
            .iter()
            .flat_map(|g| &g.versions)
            .map(|v| v.resources.len())
            .sum()
    }

    pub fn is_resource_visible(&self, group: usize, version: usize, resource: usize) -> bool {
        self.groups
            .iter()
            .find(|g| g.group == group)
            .and_then(|g| g.versions.iter().find(|v| v.version == version))
            .is_some_and(|v| v.resources.contains(&resource))
    }

    /// The filtered tree as a new tree (for views that prefer owned data).
    pub fn apply(&self, tree: &ApiTree) -> ApiTree {
        let groups = self
            .groups
            .iter()
            .filter_map(|gf| {
                let g = tree.groups.get(gf.group)?;
                let versions = gf
                    .versions
                    .iter()
                    .filter_map(|vf| {
                        let v = g.versions.get(vf.version)?;
                        let mut v = v.clone();
                        v.resources = vf
                            .resources
                            .iter()
                            .filter_map(|&ri| g.versions[vf.version].resources.get(ri).cloned())
                            .collect();
                        Some(v)
                    })
                    .collect();
                Some(ApiGroup {
                    name: g.name.clone(),
                    versions,
                    preferred_version: g.preferred_version.clone(),
                })
            })
            .collect();
        ApiTree {
            groups: std::sync::Arc::new(groups),
        }
    }
}

/// How well a palette candidate matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MatchRank {
    /// The input is exactly a short name, plural, singular, kind or qualified name.
    Exact,
    Prefix,
    Substring,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaletteCandidate {
    pub id: ResourceId,
    /// What to show and what kubectl accepts: `pods`, `deployments.apps`.
    pub label: String,
    pub kind: String,
    pub short_names: Vec<String>,
    pub rank: MatchRank,
    /// The name that produced the rank (e.g. `deploy`).
    pub matched: String,
}

/// k9s-style `:deploy` lookup. Candidates are one per group/resource (preferred version),
/// ranked exact short name/plural first, then other exact names, then prefix, then
/// substring; ties keep tree order (core first). A kubectl-qualified input such as
/// `deployment.v1.apps` resolves exactly. An empty query lists everything.
pub fn palette_matches(tree: &ApiTree, input: &str) -> Vec<PaletteCandidate> {
    let query = input
        .trim()
        .trim_start_matches(':')
        .trim()
        .to_ascii_lowercase();
    let resolved = if query.is_empty() {
        None
    } else {
        resolve_user_input(tree, &query).ok().map(|r| r.id())
    };
    // (rank, name priority, tree position)
    let mut scored: Vec<((MatchRank, u8, usize), PaletteCandidate)> = Vec::new();
    for (pos, r) in tree.preferred_resources().into_iter().enumerate() {
        let res = r.resource;
        let label = r.kubectl_name();
        let names = res.short_names.iter().map(|s| (0u8, s.as_str())).chain([
            (1, res.plural.as_str()),
            (2, res.singular.as_str()),
            (3, res.kind.as_str()),
            (4, label.as_str()),
        ]);
        let mut best: Option<(MatchRank, u8, String)> = None;
        for (prio, name) in names.filter(|(_, n)| !n.is_empty()) {
            let lower = name.to_ascii_lowercase();
            let rank = if query.is_empty() || !lower.contains(&query) {
                if query.is_empty() {
                    MatchRank::Prefix
                } else {
                    continue;
                }
            } else if lower == query {
                MatchRank::Exact
            } else if lower.starts_with(&query) {
                MatchRank::Prefix
            } else {
                MatchRank::Substring
            };
            if best
                .as_ref()
                .is_none_or(|(br, bp, _)| (rank, prio) < (*br, *bp))
            {
                best = Some((rank, prio, name.to_string()));
            }
        }
        let id = r.id();
        let (rank, prio, matched) = match (best, resolved.as_ref() == Some(&id)) {
            // Qualified input (`deploy.apps`) that matched no single name still ranks first.
            (_, true) => (MatchRank::Exact, 0, query.clone()),
            (Some(b), false) => b,
            (None, false) => continue,
        };
        scored.push((
            (rank, prio, pos),
            PaletteCandidate {
                id,
                label,
                kind: res.kind.clone(),
                short_names: res.short_names.clone(),
                rank,
                matched,
            },
        ));
    }
    // A non-preferred version named explicitly (`widgets.v1beta1.example.com`) isn't among
    // the candidates above; put it first.
    if let Some(r) = resolved
        .as_ref()
        .filter(|id| !scored.iter().any(|(_, c)| &c.id == *id))
        .and_then(|id| tree.find(id))
    {
        scored.push((
            (MatchRank::Exact, 0, 0),
            PaletteCandidate {
                id: r.id(),
                label: r.kubectl_name(),
                kind: r.resource.kind.clone(),
                short_names: r.resource.short_names.clone(),
                rank: MatchRank::Exact,
                matched: query.clone(),
            },
        ));
    }
    crate::list::stable_sort::sort_by_key(&mut scored, |(key, _)| *key);
    scored.into_iter().map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::tree::tests::sample_tree;

    fn visible(t: &ApiTree, q: &str) -> Vec<String> {
        let f = filter_tree(t, q);
        f.apply(t).resources().map(|r| r.id().key()).collect()
    }

    #[test]
    fn empty_query_shows_everything() {
        let t = sample_tree();
        let f = filter_tree(&t, "   ");
        assert_eq!(f.apply(&t), t);
        assert_eq!(f.resource_count(), t.counts().resources);
    }

    #[test]
    fn filter_matches_names_kinds_shortnames_categories_groups() {
        let t = sample_tree();
        assert_eq!(visible(&t, "DEPLOY"), ["apps/v1/deployments"]);
        assert_eq!(visible(&t, "daemonset"), ["apps/v1/daemonsets"]);
        assert_eq!(
            visible(&t, "crd"),
            ["apiextensions.k8s.io/v1/customresourcedefinitions"]
        );
        assert_eq!(visible(&t, "all"), ["core/v1/pods", "apps/v1/deployments"]);
        assert_eq!(visible(&t, "events.k8s"), ["events.k8s.io/v1/events"]);
        // Group name match shows the whole group; "core" names the core group.
        let f = filter_tree(&t, "apps");
        assert_eq!(f.groups.len(), 1);
        assert!(f.groups[0].name_matched);
        assert_eq!(f.resource_count(), 2);
        assert_eq!(visible(&t, "core").len(), 5);
        // Terms AND together, across group and resource.
        assert_eq!(visible(&t, "apps ds"), ["apps/v1/daemonsets"]);
        assert_eq!(
            visible(&t, "ev"),
            ["core/v1/events", "events.k8s.io/v1/events"]
        );
        assert!(filter_tree(&t, "zzz").is_empty());
        // Visibility lookups by index.
        let f = filter_tree(&t, "deploy");
        assert!(f.is_resource_visible(1, 0, 0));
        assert!(!f.is_resource_visible(1, 0, 1));
        assert!(!f.is_resource_visible(0, 0, 0));
    }

    fn palette(t: &ApiTree, q: &str) -> Vec<(String, MatchRank)> {
        palette_matches(t, q)
            .into_iter()
            .map(|c| (c.id.key(), c.rank))
            .collect()
    }

    #[test]
    fn palette_ranks_exact_then_prefix_then_substring() {
        let t = sample_tree();
        use MatchRank::*;
        assert_eq!(
            palette(&t, ":deploy"),
            [("apps/v1/deployments".to_string(), Exact)]
        );
        assert_eq!(
            palette(&t, ":po"),
            [
                ("core/v1/pods".to_string(), Exact),
                ("core/v1/podtemplates".to_string(), Prefix),
            ]
        );
        // "ev" is a short name of both events; "deviceclasses"-like substrings come last.
        let ev = palette(&t, "ev");
        assert_eq!(ev[0], ("core/v1/events".to_string(), Exact));
        assert_eq!(ev[1], ("events.k8s.io/v1/events".to_string(), Exact));
        let sets = palette(&t, ":sets");
        assert_eq!(sets, [("apps/v1/daemonsets".to_string(), Substring)]);
        let mixed = palette(&t, "de");
        // deployments (prefix) before customresourcedefinitions (substring).
        let pos = |k: &str| mixed.iter().position(|(id, _)| id == k).unwrap();
        assert!(
            pos("apps/v1/deployments") < pos("apiextensions.k8s.io/v1/customresourcedefinitions")
        );
        assert_eq!(
            mixed[pos("apiextensions.k8s.io/v1/customresourcedefinitions")].1,
            Substring
        );
        // Qualified kubectl forms resolve exactly.
        assert_eq!(
            palette(&t, ":deployment.v1.apps")[0],
            ("apps/v1/deployments".to_string(), Exact)
        );
        assert_eq!(
            palette(&t, ":widgets.v1beta1.example.com"),
            [("example.com/v1beta1/widgets".to_string(), Exact)]
        );
        assert_eq!(palette(&t, ":").len(), t.preferred_resources().len());
        assert!(palette(&t, ":nothing-like-this").is_empty());
        let c = &palette_matches(&t, ":deploy")[0];
        assert_eq!(
            (c.label.as_str(), c.kind.as_str(), c.matched.as_str()),
            ("deployments.apps", "Deployment", "deploy")
        );
    }
}
