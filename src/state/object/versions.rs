//! The same object read through every served version of its group.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use super::{json_of, object_path};
use crate::api::{self, Abort, ApiError, ApiRequest};
use crate::model::{ApiTree, ResourceId};

/// The same object read through one served version of its group.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionRead {
    pub version: String,
    pub preferred: bool,
    pub result: Result<Value, ApiError>,
}

/// Which object [`use_versions`] reads.
pub struct UseVersionsOptions {
    pub tree: ApiTree,
    pub resource: ResourceId,
    pub namespace: Option<String>,
    pub name: String,
}

/// What [`use_versions`] gives the view.
#[derive(Clone, Copy)]
pub struct UseVersionsReturn {
    /// One read per served version, in the group's order, as each answers.
    pub reads: ReadSignal<Vec<VersionRead>>,
}

/// Reads the object through every version of its group that serves the resource (leaving
/// the view aborts the reads still under way).
pub fn use_versions(options: UseVersionsOptions) -> UseVersionsReturn {
    let UseVersionsOptions {
        tree,
        resource,
        namespace,
        name,
    } = options;
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
    UseVersionsReturn {
        reads: reads.read_only(),
    }
}
