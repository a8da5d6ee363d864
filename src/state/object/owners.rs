//! An object's owners, up its chain: among what is loaded, or read once level by level
//! (metadata only).

use std::collections::BTreeSet;

use leptos::prelude::*;
use serde_json::Value;

use super::json_of;
use crate::api::{self, ApiError, ApiRequest};
use crate::model::api::endpoints::split_api_version;
use crate::model::history::past::rollout::controlled_by;
use crate::model::object::meta::ObjectMeta;
use crate::model::object::owners::OwnedObject;
use crate::model::{
    api::endpoints::kind_to_resource, api::endpoints::NameArg, api::endpoints::NamespaceArg,
    ApiTree,
};

/// Metadata only: what the owner graph needs, at a fraction of the bytes.
const METADATA_ACCEPT: &str =
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json";
/// Owners are followed this many levels up (CronJob -> Job -> Pod is two).
const OWNER_LEVELS: usize = 4;

/// `object`'s owners among `loaded`, up its chain (a Pod's ReplicaSet, then its Deployment).
pub(super) fn owners_of(object: &Value, loaded: &[Value]) -> Vec<Value> {
    let mut owners: Vec<Value> = Vec::new();
    let mut level = vec![object.clone()];
    for _ in 0..OWNER_LEVELS {
        let next: Vec<Value> = loaded
            .iter()
            .filter(|candidate| {
                level.iter().any(|child| controlled_by(child, candidate))
                    && !owners.contains(candidate)
            })
            .cloned()
            .collect();
        if next.is_empty() {
            break;
        }
        owners.extend(next.iter().cloned());
        level = next;
    }
    owners
}

/// Reads the owners of `object` upward, level by level, into `owners`.
pub(super) async fn load_owners(
    owners: RwSignal<Vec<OwnedObject>>,
    tree: &ApiTree,
    object: &Value,
    signal: Option<web_sys::AbortSignal>,
) {
    let Some(this) = OwnedObject::from_object(object) else {
        return;
    };
    let mut level = vec![this];
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for _ in 0..OWNER_LEVELS {
        let mut next = Vec::new();
        for child in &level {
            for reference in &child.owner_references {
                if !seen.insert(reference.uid.clone()) {
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
                let request = ApiRequest::get(&path).accept(METADATA_ACCEPT);
                match api::send(&request, signal.as_ref())
                    .await
                    .and_then(|f| json_of(&f))
                {
                    Ok(owner) => {
                        let owner = OwnedObject::from_meta(
                            reference.api_version.clone(),
                            reference.kind.clone(),
                            ObjectMeta::of_object(&owner),
                        );
                        if let Some(owner) = owner {
                            if owners.try_update(|o| o.push(owner.clone())).is_none() {
                                return;
                            }
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
