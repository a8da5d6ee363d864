//! The writes of the editor and the object page's actions, as kubectl makes them: PUT carrying
//! the resourceVersion, server-side apply, POST, DELETE with propagation, `/scale`, merge
//! patches. Every write names the `kube-atlas` field manager and asks for strict field
//! validation (kubectl's default), so unknown fields are reported, never silently dropped.

use serde_json::Value;

use crate::api::{self, ApiError, ApiRequest, PatchType, WriteOptions};
use crate::model::api::request::{FieldValidation, PropagationPolicy};
use crate::state::object::json_of;

/// The field manager of every write made from the dashboard.
pub const FIELD_MANAGER: &str = "kube-atlas";

/// What a write answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// The object as stored (or as it would be, for a dry run).
    pub object: Value,
    /// `Warning` headers (deprecations, unknown fields).
    pub warnings: Vec<String>,
}

fn options(dry_run: bool) -> WriteOptions {
    WriteOptions {
        dry_run,
        field_manager: Some(FIELD_MANAGER.to_string()),
        field_validation: Some(FieldValidation::Strict),
        ..WriteOptions::default()
    }
}

fn body_of(object: &Value) -> String {
    object.to_string()
}

async fn written(request: ApiRequest) -> Result<Written, ApiError> {
    let fetched = api::send(&request, None).await?;
    Ok(Written {
        object: json_of(&fetched)?,
        warnings: fetched.warnings,
    })
}

/// Reads the object now.
pub async fn read(path: &str) -> Result<Value, ApiError> {
    json_of(&api::send(&ApiRequest::get(path), None).await?)
}

/// PUT of the whole object; its `metadata.resourceVersion` makes the server answer 409 when
/// someone else wrote meanwhile.
pub async fn replace(path: &str, object: &Value, dry_run: bool) -> Result<Written, ApiError> {
    written(ApiRequest::replace(path, body_of(object)).with_options(&options(dry_run))).await
}

/// Server-side apply of `object` as the `kube-atlas` manager; `force` takes fields other
/// managers own.
pub async fn apply(
    path: &str,
    object: &Value,
    force: bool,
    dry_run: bool,
) -> Result<Written, ApiError> {
    let options = WriteOptions {
        force,
        ..options(dry_run)
    };
    // JSON is YAML: the apply patch type accepts the object as JSON text.
    written(ApiRequest::patch(path, PatchType::Apply, body_of(object)).with_options(&options)).await
}

/// POST to a collection.
pub async fn create(
    collection_path: &str,
    object: &Value,
    dry_run: bool,
) -> Result<Written, ApiError> {
    written(ApiRequest::create(collection_path, body_of(object)).with_options(&options(dry_run)))
        .await
}

/// A JSON merge patch (labels, annotations).
pub async fn merge_patch(path: &str, patch: &Value) -> Result<Written, ApiError> {
    written(ApiRequest::patch(path, PatchType::Merge, body_of(patch)).with_options(&options(false)))
        .await
}

/// Sets the replicas through the `/scale` subresource, as `kubectl scale` does.
pub async fn scale(scale_path: &str, replicas: u32) -> Result<Written, ApiError> {
    let patch = serde_json::json!({ "spec": { "replicas": replicas } });
    merge_patch(scale_path, &patch).await
}

/// How a delete goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeleteChoice {
    pub propagation: PropagationPolicy,
    /// None: the object's own grace period.
    pub grace_period_seconds: Option<u32>,
}

/// DELETE; the answer is the object (still there while finalizers hold it) or a Status.
pub async fn delete(path: &str, choice: DeleteChoice) -> Result<Written, ApiError> {
    let options = WriteOptions {
        propagation_policy: Some(choice.propagation),
        grace_period_seconds: choice.grace_period_seconds,
        ..WriteOptions::default()
    };
    written(ApiRequest::delete(path).with_options(&options)).await
}
