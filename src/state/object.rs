//! Loading one object for its page: the object itself, its owners upward and the objects it
//! owns downward (from the metadata of the namespace's `kubectl get all` kinds), and the
//! same object read through every served version of its group.

use std::collections::BTreeSet;

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::api::{self, Abort, ApiError, ApiRequest};
use crate::model::mapping::split_api_version;
use crate::model::meta::ObjectMeta;
use crate::model::owners::{OwnedObject, OwnerIndex};
use crate::model::{
    kind_to_resource, resolve_category, ApiTree, NameArg, NamespaceArg, ResourceId,
};

/// Metadata only: what the owner graph needs, at a fraction of the bytes.
const METADATA_LIST_ACCEPT: &str =
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json";
const METADATA_ACCEPT: &str =
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json";
/// Owners are followed this many levels up (CronJob -> Job -> Pod is two).
const OWNER_LEVELS: usize = 4;

/// The object's API path in `version` of its group.
pub fn object_path(
    tree: &ApiTree,
    resource: &ResourceId,
    namespace: Option<&str>,
    name: &str,
) -> Option<String> {
    let r = tree.find(resource)?;
    let ns = match namespace {
        Some(ns) if r.resource.namespaced => NamespaceArg::Named(ns),
        _ => NamespaceArg::All,
    };
    Some(r.object_path(ns, NameArg::Named(name)).template())
}

/// Reads JSON, or says plainly that the answer was not JSON.
fn json_of(fetched: &api::Fetched) -> Result<Value, ApiError> {
    serde_json::from_str(&fetched.body)
        .map_err(|e| ApiError::bad_response(fetched.status, format!("the answer is not JSON: {e}")))
}

#[derive(Clone, Copy)]
pub struct ObjectState {
    pub object: RwSignal<Option<Value>>,
    pub error: RwSignal<Option<ApiError>>,
    /// Owners and owned objects found so far.
    pub owners: RwSignal<OwnerIndex>,
    pub owners_loading: RwSignal<bool>,
    /// Lists that could not be read for the graph (e.g. forbidden), as `resource: error`.
    pub owner_gaps: RwSignal<Vec<String>>,
}

/// Loads the object at `path`, then its owner graph. Cancelled with the view.
pub fn load_object(tree: ApiTree, path: String, namespace: Option<String>) -> ObjectState {
    let state = ObjectState {
        object: RwSignal::new(None),
        error: RwSignal::new(None),
        owners: RwSignal::new(OwnerIndex::default()),
        owners_loading: RwSignal::new(true),
        owner_gaps: RwSignal::new(Vec::new()),
    };
    let abort = StoredValue::new_local(Abort::new());
    on_cleanup(move || {
        abort.try_with_value(Abort::abort);
    });
    spawn_local(async move {
        let Some(signal) = abort.try_with_value(Abort::signal) else {
            return;
        };
        let request = ApiRequest::get(&path);
        let object = match api::send(&request, signal.as_ref())
            .await
            .and_then(|f| json_of(&f))
        {
            Ok(object) => object,
            Err(ApiError::Aborted) => return,
            Err(error) => {
                state.error.try_set(Some(error));
                state.owners_loading.try_set(false);
                return;
            }
        };
        state.object.try_set(Some(object.clone()));
        load_owner_graph(state, &tree, &object, namespace, signal).await;
        state.owners_loading.try_set(false);
    });
    state
}

async fn load_owner_graph(
    state: ObjectState,
    tree: &ApiTree,
    object: &Value,
    namespace: Option<String>,
    signal: Option<web_sys::AbortSignal>,
) {
    let send = |request: ApiRequest| {
        let signal = signal.clone();
        async move {
            let fetched = api::send(&request, signal.as_ref()).await?;
            json_of(&fetched)
        }
    };
    let Some(this) = OwnedObject::from_object(object) else {
        return;
    };
    state.owners.try_update(|index| index.insert(this.clone()));

    // Downward: the namespace's everyday kinds (`kubectl get all`), metadata only.
    if let Some(ns) = &namespace {
        let lists: Vec<(String, String, String)> = resolve_category(tree, "all")
            .into_iter()
            .filter(|r| r.resource.namespaced && r.resource.supports("list"))
            .map(|r| {
                (
                    r.api_version(),
                    r.resource.kind.clone(),
                    r.collection_path(NamespaceArg::Named(ns)).template(),
                )
            })
            .collect();
        for (api_version, kind, path) in lists {
            let request = ApiRequest::get(&path).accept(METADATA_LIST_ACCEPT);
            match send(request).await {
                Ok(list) => {
                    let items = list
                        .get("items")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default();
                    let found: Vec<OwnedObject> = items
                        .iter()
                        .filter_map(|item| {
                            OwnedObject::from_meta(
                                api_version.clone(),
                                kind.clone(),
                                ObjectMeta::of_object(item),
                            )
                        })
                        .collect();
                    if state
                        .owners
                        .try_update(|index| found.into_iter().for_each(|o| index.insert(o)))
                        .is_none()
                    {
                        return;
                    }
                }
                Err(ApiError::Aborted) => return,
                Err(error) => {
                    state
                        .owner_gaps
                        .try_update(|gaps| gaps.push(format!("{kind}: {error}")));
                }
            }
        }
    }

    // Upward: each owner by its reference, level by level.
    let mut level = vec![this];
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for _ in 0..OWNER_LEVELS {
        let mut next = Vec::new();
        for child in &level {
            for reference in &child.owner_references {
                if !seen.insert(reference.uid.clone()) {
                    continue;
                }
                if let Some(known) = state
                    .owners
                    .try_with(|index| index.get(&reference.uid).cloned())
                    .flatten()
                {
                    next.push(known);
                    continue;
                }
                let (group, version) = split_api_version(&reference.api_version);
                let Ok(r) = kind_to_resource(tree, group, version, &reference.kind) else {
                    continue;
                };
                let ns = match (&child.namespace, r.resource.namespaced) {
                    (Some(ns), true) => NamespaceArg::Named(ns),
                    _ => NamespaceArg::All,
                };
                let path = r
                    .object_path(ns, NameArg::Named(&reference.name))
                    .template();
                match send(ApiRequest::get(&path).accept(METADATA_ACCEPT)).await {
                    Ok(owner) => {
                        let owner = OwnedObject::from_meta(
                            reference.api_version.clone(),
                            reference.kind.clone(),
                            ObjectMeta::of_object(&owner),
                        );
                        if let Some(owner) = owner {
                            state.owners.try_update(|index| index.insert(owner.clone()));
                            next.push(owner);
                        }
                    }
                    Err(ApiError::Aborted) => return,
                    // A deleted owner is still drawn from its reference.
                    Err(_) => {}
                }
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
}

/// The same object read through one served version of its group.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionRead {
    pub version: String,
    pub preferred: bool,
    pub result: Result<Value, ApiError>,
}

/// Reads the object through every version of its group that serves the resource.
pub fn load_versions(
    tree: ApiTree,
    resource: ResourceId,
    namespace: Option<String>,
    name: String,
) -> RwSignal<Vec<VersionRead>> {
    let reads = RwSignal::new(Vec::new());
    let abort = StoredValue::new_local(Abort::new());
    on_cleanup(move || {
        abort.try_with_value(Abort::abort);
    });
    let versions: Vec<(String, bool)> = tree
        .group(&resource.group)
        .map(|g| {
            g.versions
                .iter()
                .filter(|v| v.resource(&resource.plural).is_some())
                .map(|v| (v.version.clone(), v.preferred))
                .collect()
        })
        .unwrap_or_default();
    spawn_local(async move {
        for (version, preferred) in versions {
            let id = ResourceId::new(
                resource.group.clone(),
                version.clone(),
                resource.plural.clone(),
            );
            let Some(path) = object_path(&tree, &id, namespace.as_deref(), &name) else {
                continue;
            };
            let Some(signal) = abort.try_with_value(Abort::signal) else {
                return;
            };
            let result = match api::send(&ApiRequest::get(&path), signal.as_ref()).await {
                Ok(fetched) => json_of(&fetched),
                Err(ApiError::Aborted) => return,
                Err(error) => Err(error),
            };
            reads.try_update(|reads| {
                reads.push(VersionRead {
                    version,
                    preferred,
                    result,
                })
            });
        }
    });
    reads
}
