//! Custom resources: besides their ownerReferences (read for every kind), the object
//! references in their `spec`. By convention (the API conventions' "object references") such
//! a field is named `…Ref` (one) or `…Refs` (a list) and holds an object with a `name`, and a
//! `kind` (with `apiVersion` or `group`) when the field's name does not say it. Only such
//! objects count, and only when they name an object in the set: free strings ending in
//! `Name` would guess too often (a container name, a host name).

use serde_json::Value;

use super::edge::{EdgeKind, EdgeSink};
use super::graph::Index;
use crate::api::tree::{api_version, ApiTree, ResourceRef};
use crate::object::pointer::Pointer;

/// How deep in `spec` references are looked for; real CRDs nest a few levels.
const MAX_DEPTH: usize = 8;

/// Whether `apiVersion` is outside Kubernetes's own groups (the core group, the dotless
/// `apps`/`batch`/…, and `*.k8s.io`): a custom resource's.
pub fn is_custom(api_version: &str) -> bool {
    let group = super::graph::api_group(api_version);
    group.contains('.') && !group.ends_with(".k8s.io")
}

/// At most this many custom kinds are watched for a map: each is one more watch, and a
/// cluster with hundreds of CRDs would open hundreds for one page.
pub const MAX_CUSTOM_KINDS: usize = 24;

/// The custom resources a namespace's map watches: the namespaced ones the server lists and
/// watches, in their preferred version, in discovery's order, at most [`MAX_CUSTOM_KINDS`].
/// Kinds of Kubernetes's own groups that are CRDs (Gateway API) are watched by name already.
pub fn custom_kinds_to_watch(tree: &ApiTree) -> Vec<ResourceRef<'_>> {
    tree.preferred_resources()
        .into_iter()
        .filter(|found| {
            found.resource.namespaced
                && found.resource.supports("list")
                && found.resource.supports("watch")
                && is_custom(&api_version(&found.group.name, &found.version.version))
        })
        .take(MAX_CUSTOM_KINDS)
        .collect()
}

pub(crate) fn reference_edges(index: &Index, at: usize, value: &Value, sink: &mut EdgeSink) {
    if let Some(spec) = value.get("spec") {
        let mut walk = Walk { index, at, sink };
        walk.visit(spec, "spec", 0);
    }
}

struct Walk<'i, 'a, 's> {
    index: &'i Index<'a>,
    at: usize,
    sink: &'s mut EdgeSink,
}

impl Walk<'_, '_, '_> {
    fn visit(&mut self, value: &Value, path: &str, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match value {
            Value::Object(fields) => {
                for (key, field) in fields {
                    let path = format!("{path}.{key}");
                    if let Some(stem) = key.strip_suffix("Ref") {
                        self.reference(field, stem, &path);
                    } else if let Some(stem) = key.strip_suffix("Refs") {
                        for (i, item) in field.as_array().into_iter().flatten().enumerate() {
                            self.reference(item, stem, &format!("{path}[{i}]"));
                        }
                    }
                    self.visit(field, &path, depth + 1);
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.visit(item, &format!("{path}[{i}]"), depth + 1);
                }
            }
            _ => {}
        }
    }

    /// `{name, kind?, namespace?, apiVersion? | group?}`; without a kind, the field's stem
    /// names it (`configMapRef` → ConfigMap, `issuerRef` → Issuer).
    fn reference(&mut self, reference: &Value, stem: &str, path: &str) {
        let text = |p: &str| {
            reference
                .at(p)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let Some(name) = text("/name") else { return };
        let kinds = match text("/kind") {
            Some(kind) => vec![kind.to_string()],
            None => kinds_named_by(stem),
        };
        let group = text("/apiVersion")
            .map(super::graph::api_group)
            .or_else(|| text("/group"));
        let own_namespace = self.index.objects[self.at].namespace.as_deref();
        let namespace = text("/namespace").or(own_namespace);
        let found = kinds
            .iter()
            .find_map(|kind| self.index.find(namespace, kind, name, group));
        if let Some(to) = found {
            self.sink
                .add(self.at, to, EdgeKind::References, path.to_string());
        }
    }
}

/// The kinds a field's stem may name, longest first: the stem and each of its endings at a
/// capital (`privateKeySecret` → `PrivateKeySecret`, `KeySecret`, `Secret`), since fields
/// are named `<role><Kind>Ref`.
fn kinds_named_by(stem: &str) -> Vec<String> {
    let mut chars = stem.chars();
    let Some(first) = chars.next() else {
        return Vec::new();
    };
    let whole: String = first.to_uppercase().chain(chars).collect();
    whole
        .char_indices()
        .filter(|(_, c)| c.is_uppercase())
        .map(|(at, _)| whole[at..].to_string())
        .collect()
}
