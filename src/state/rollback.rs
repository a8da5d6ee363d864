//! A Deployment rolled back to a revision from its page: the model's [`Rollback`] in a
//! signal, its dry run and PUT made through [`crate::state::edit`], and after a 409 the
//! latest Deployment read so the rollback is computed again and reviewed again.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::model::edit::{EditTarget, Rollback};
use crate::state::edit::{self, Written};

/// What [`use_rollback`] gives the revisions view.
#[derive(Clone, Copy)]
pub struct UseRollback {
    /// The rollback under way or last made; None: none asked for.
    pub rollback: RwSignal<Option<Rollback>>,
    /// Starts a rollback to (revision, its ReplicaSet): a dry run to review.
    pub start: Callback<(u64, Value)>,
    /// Sends the reviewed rollback.
    pub confirm: Callback<()>,
    pub cancel: Callback<()>,
}

/// Rollbacks of the Deployment at `path`, live in `object`.
pub fn use_rollback(
    target: EditTarget,
    path: String,
    object: Signal<Option<Value>>,
) -> UseRollback {
    let rollback = RwSignal::new(None::<Rollback>);
    let path = StoredValue::new(path);
    let target = StoredValue::new(target);
    let start = Callback::new(move |(revision, replica_set): (u64, Value)| {
        let Some(deployment) = object.get_untracked() else {
            return;
        };
        rollback.set(Some(Rollback::open(
            target.get_value(),
            &deployment,
            &replica_set,
            revision,
        )));
        spawn_local(dry_run(rollback, path.get_value(), object));
    });
    let confirm = Callback::new(move |()| {
        let Some(document) = rollback.try_update(|r| r.as_mut()?.confirm()).flatten() else {
            return;
        };
        let path = path.get_value();
        spawn_local(async move {
            let result = edit::replace(&path, &document, false).await;
            match result {
                Ok(Written {
                    object: stored,
                    warnings,
                }) => {
                    rollback.try_update(|r| r.as_mut().map(|r| r.saved(&stored, warnings)));
                }
                Err(error) if Rollback::needs_latest(&error) => {
                    if computed_again(rollback, &path).await {
                        dry_run(rollback, path, object).await;
                    }
                }
                Err(error) => {
                    rollback.try_update(|r| r.as_mut().map(|r| r.failed(error)));
                }
            }
        });
    });
    let cancel = Callback::new(move |()| rollback.set(None));
    UseRollback {
        rollback,
        start,
        confirm,
        cancel,
    }
}

/// Asks the server what the rollback would store, until it answers without a 409.
async fn dry_run(
    rollback: RwSignal<Option<Rollback>>,
    path: String,
    object: Signal<Option<Value>>,
) {
    // Each 409 means another write came first; a few in a row are unlikely, more are a
    // controller fighting, which the user should see rather than wait on.
    for attempt in 1..=3 {
        let Some(document) = rollback.try_update(|r| r.as_mut()?.dry_run()).flatten() else {
            return;
        };
        match edit::replace(&path, &document, true).await {
            Ok(Written {
                object: would_store,
                warnings,
            }) => {
                let live = object.try_get_untracked().flatten().unwrap_or(Value::Null);
                rollback.try_update(|r| {
                    r.as_mut()
                        .map(|r| r.reviewed(&live, &would_store, warnings))
                });
                return;
            }
            Err(error) if Rollback::needs_latest(&error) && attempt < 3 => {
                if !computed_again(rollback, &path).await {
                    return;
                }
            }
            Err(error) => {
                rollback.try_update(|r| r.as_mut().map(|r| r.failed(error)));
                return;
            }
        }
    }
}

/// Reads the latest Deployment and computes the rollback again from it; false when that
/// failed (the failure is shown) or the view went away.
async fn computed_again(rollback: RwSignal<Option<Rollback>>, path: &str) -> bool {
    match edit::read(path).await {
        Ok(latest) => rollback
            .try_update(|r| r.as_mut().map(|r| r.written_meanwhile_as(&latest)))
            .flatten()
            .is_some(),
        Err(error) => {
            rollback.try_update(|r| r.as_mut().map(|r| r.failed(error)));
            false
        }
    }
}
