//! One object for its page, live: the object itself (watched), the objects it owns (the
//! namespace's `kubectl get all` kinds, watched as metadata), its owners upward (read once),
//! and the same object read through every served version of its group.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::api::{self, Abort, ApiError};
use crate::model::diagnosis::{diagnose, Diagnosis};
use crate::model::history::past::rollout::controlled_by;
use crate::model::history::{past_entries, HistoryStore, Loaded, PastEntry};
use crate::model::list::selector::escape_field_value;
use crate::model::object::events::{
    event_record, events_api, events_watch_key, EventRecord, EventScope,
};
use crate::model::object::meta::ObjectMeta;
use crate::model::object::owners::{OwnedObject, OwnerIndex};
use crate::model::object::pointer::Pointer;
use crate::model::watch::{ObjectCache, Output, StreamPhase, WatchKey, WatchStatus};
use crate::model::{
    api::endpoints::resolve_category, api::endpoints::NameArg, api::endpoints::NamespaceArg,
    ApiTree, ResourceId,
};
use crate::state::clock::epoch_now;
use crate::state::watch::{use_watch_history, use_watch_objects, LiveWatch};

mod owners;
mod tabs;
mod versions;

use owners::{load_owners, owners_of};
pub use tabs::{use_object_tabs, TabLink, UseObjectTabsReturn};
pub use versions::{use_versions, UseVersionsOptions, UseVersionsReturn, VersionRead};

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
pub(crate) fn json_of(fetched: &api::Fetched) -> Result<Value, ApiError> {
    serde_json::from_str(&fetched.body)
        .map_err(|e| ApiError::bad_response(fetched.status, format!("the answer is not JSON: {e}")))
}

/// Why the object is not (or no longer) there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gone {
    /// The first list did not have it.
    NotFound,
    /// It was deleted while the page was open; the last version seen is still shown.
    Deleted,
}

#[derive(Clone)]
pub struct UseObjectReturn {
    /// The object as last seen (kept after a deletion).
    pub object: Signal<Option<Value>>,
    pub gone: Signal<Option<Gone>>,
    /// Why the object could not be read at all (before anything was shown).
    pub error: Signal<Option<String>>,
    /// Owners and owned objects, live.
    pub owners: Signal<OwnerIndex>,
    pub owners_loading: Signal<bool>,
    /// Lists that could not be read for the graph (e.g. forbidden), as `kind: error`.
    pub owner_gaps: Signal<Vec<String>>,
    /// What is wrong with the object and what it owns, root cause first (live).
    pub diagnosis: Signal<Diagnosis>,
    /// What it controls, whole (a Deployment's ReplicaSets: its revisions), live.
    pub controlled: Signal<Vec<Value>>,
    /// Its past before watching began, reconstructed from what is loaded (oldest first).
    pub past: Signal<Vec<PastEntry>>,
    /// The object's stream, for its status line.
    pub live: LiveWatch<ObjectCache>,
    /// Every version of the object seen since the page opened.
    pub history: ArcRwSignal<HistoryStore>,
}

/// Which object `use_object` follows.
pub struct UseObjectOptions<'a> {
    pub tree: ApiTree,
    pub resource: &'a ResourceId,
    pub namespace: Option<String>,
    pub name: String,
}

/// Watches the object (its collection with `fieldSelector=metadata.name=…`, as kubectl and
/// kube-rs watch one object), the namespace's everyday kinds for what it owns (metadata
/// only), and reads its owners once. Everything stops with the view.
pub fn use_object(options: UseObjectOptions<'_>) -> Option<UseObjectReturn> {
    let UseObjectOptions {
        tree,
        resource,
        namespace,
        name,
    } = options;
    let found = tree.find(resource)?;
    let scope = match &namespace {
        Some(ns) if found.resource.namespaced => NamespaceArg::Named(ns),
        _ => NamespaceArg::All,
    };
    let collection = found.collection_path(scope).template();
    // With history: the timeline and blame tabs show every change since the page opened.
    let (live, history) = use_watch_history(
        WatchKey::new(collection, Output::Objects)
            .with_fields(format!("metadata.name={}", escape_field_value(&name))),
    );
    let store: ReadSignal<ObjectCache> = live.store.clone().into();
    let status: ReadSignal<WatchStatus> = live.status.clone().into();
    let object_namespace = namespace.clone().filter(|_| found.resource.namespaced);
    let current = Memo::new(move |_| {
        let ns = object_namespace.as_deref().unwrap_or_default();
        store.with(|cache| {
            cache
                .iter()
                .find(|o| {
                    o.at("/metadata/namespace")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        == ns
                })
                .cloned()
        })
    });
    let last_seen = RwSignal::new(None::<Value>);
    Effect::new(move |_| {
        if let Some(object) = current.get() {
            last_seen.set(Some(object));
        }
    });
    let filled = Memo::new(move |_| status.with(|s| s.resource_version.is_some()));
    let gone = Signal::derive(move || {
        if !filled.get() || current.with(Option::is_some) {
            return None;
        }
        Some(if last_seen.with(Option::is_some) {
            Gone::Deleted
        } else {
            Gone::NotFound
        })
    });
    let error = Signal::derive(move || {
        if filled.get() {
            return None;
        }
        // A refusal is not a read that keeps failing: the page says it on its own.
        status.with(|s| {
            (s.phase != StreamPhase::Forbidden)
                .then(|| s.last_error.clone())
                .flatten()
        })
    });

    // Downward: the namespace's everyday kinds (`kubectl get all`), whole objects, live: their
    // ownerReferences draw the graph, their status feeds the diagnosis.
    let downward: Vec<(
        String,
        String,
        ReadSignal<ObjectCache>,
        ReadSignal<WatchStatus>,
    )> = match &namespace {
        Some(ns) if found.resource.namespaced => resolve_category(&tree, "all")
            .into_iter()
            .filter(|r| {
                r.resource.namespaced && r.resource.supports("list") && r.resource.supports("watch")
            })
            .map(|r| {
                let path = r.collection_path(NamespaceArg::Named(ns)).template();
                let watch = use_watch_objects(WatchKey::new(path, Output::Objects));
                (
                    r.api_version(),
                    r.resource.kind.clone(),
                    watch.store.into(),
                    watch.status.into(),
                )
            })
            .collect(),
        _ => Vec::new(),
    };
    let downward = StoredValue::new(downward);

    // The namespace's Event objects, for the diagnosis's evidence (shared with the Events
    // and Activity views' stream of the same key).
    let events: Option<ReadSignal<ObjectCache>> = namespace
        .as_ref()
        .filter(|_| found.resource.namespaced)
        .and_then(|ns| {
            let api = events_api(&tree)?;
            let key = events_watch_key(&tree, api, &EventScope::Namespace(ns.clone()), true)?;
            Some(use_watch_objects(key).store.into())
        });

    // A StatefulSet's or DaemonSet's revisions (ControllerRevisions are not in `all`).
    let controller_revisions: Option<ReadSignal<ObjectCache>> = namespace
        .as_ref()
        .filter(|_| matches!(found.resource.kind.as_str(), "StatefulSet" | "DaemonSet"))
        .and_then(|ns| {
            let revisions = ResourceId::new("apps", "v1", "controllerrevisions");
            let r = tree.find(&revisions)?;
            let path = r.collection_path(NamespaceArg::Named(ns)).template();
            Some(
                use_watch_objects(WatchKey::new(path, Output::Objects))
                    .store
                    .into(),
            )
        });

    // Upward: each owner by its reference, read once when the object is first seen.
    let upward = RwSignal::new(Vec::<OwnedObject>::new());
    let abort = StoredValue::new_local(Abort::new());
    on_cleanup(move || {
        abort.try_with_value(Abort::abort);
    });
    let started = StoredValue::new(false);
    Effect::new(move |_| {
        let Some(object) = current.get() else {
            return;
        };
        if started.get_value() {
            return;
        }
        started.set_value(true);
        let tree = tree.clone();
        spawn_local(async move {
            let Some(signal) = abort.try_with_value(Abort::signal) else {
                return;
            };
            load_owners(upward, &tree, &object, signal).await;
        });
    });

    let owners = Signal::derive(move || {
        let mut index = OwnerIndex::default();
        if let Some(this) = current.get().as_ref().and_then(OwnedObject::from_object) {
            index.insert(this);
        }
        downward.with_value(|lists| {
            for (api_version, kind, store, _) in lists {
                store.with(|cache| {
                    for item in cache.iter() {
                        let meta = ObjectMeta::of_object(item);
                        if let Some(owned) =
                            OwnedObject::from_meta(api_version.clone(), kind.clone(), meta)
                        {
                            index.insert(owned);
                        }
                    }
                });
            }
        });
        upward.with(|owners| owners.iter().cloned().for_each(|o| index.insert(o)));
        index
    });
    let owners_loading = Signal::derive(move || {
        downward.with_value(|lists| {
            lists.iter().any(|(_, _, _, status)| {
                status.with(|s| s.resource_version.is_none() && s.last_error.is_none())
            })
        })
    });
    let owner_gaps = Signal::derive(move || {
        downward.with_value(|lists| {
            lists
                .iter()
                .filter_map(|(_, kind, _, status)| {
                    status.with(|s| {
                        s.last_error
                            .as_ref()
                            .filter(|_| s.resource_version.is_none())
                            .map(|e| format!("{kind}: {e}"))
                    })
                })
                .collect()
        })
    });
    let diagnosis = Memo::new(move |_| {
        let Some(root) = current.get() else {
            return Diagnosis::default();
        };
        let owned: Vec<Value> = downward.with_value(|lists| {
            lists
                .iter()
                .flat_map(|(_, _, store, _)| {
                    store.with(|cache| cache.iter().cloned().collect::<Vec<_>>())
                })
                .collect()
        });
        let records: Vec<EventRecord> = events
            .map(|store| store.with(|cache| cache.iter().filter_map(event_record).collect()))
            .unwrap_or_default();
        diagnose(&root, &owned, &records, epoch_now())
    });
    let loaded_objects = move || -> Vec<Value> {
        downward.with_value(|lists| {
            lists
                .iter()
                .flat_map(|(_, _, store, _)| {
                    store.with(|cache| cache.iter().cloned().collect::<Vec<_>>())
                })
                .collect()
        })
    };
    let controlled = Memo::new(move |_| {
        let Some(root) = current.get() else {
            return Vec::new();
        };
        loaded_objects()
            .into_iter()
            .filter(|o| controlled_by(o, &root))
            .collect::<Vec<_>>()
    });
    let past = Memo::new(move |_| {
        let Some(root) = current.get() else {
            return Vec::new();
        };
        let loaded = loaded_objects();
        let owners = owners_of(&root, &loaded);
        let records: Vec<EventRecord> = events
            .map(|store| store.with(|cache| cache.iter().filter_map(event_record).collect()))
            .unwrap_or_default();
        let revisions: Vec<Value> = controller_revisions
            .map(|store| store.with(|cache| cache.iter().cloned().collect()))
            .unwrap_or_default();
        controlled.with(|owned| {
            past_entries(&Loaded {
                object: &root,
                events: &records,
                owners: &owners,
                owned,
                controller_revisions: &revisions,
            })
        })
    });
    Some(UseObjectReturn {
        // A memo: the page redraws when the object changes, not again when `last_seen`
        // catches up with the same version.
        object: Memo::new(move |_| current.get().or_else(|| last_seen.get())).into(),
        gone,
        error,
        owners,
        owners_loading,
        owner_gaps,
        diagnosis: diagnosis.into(),
        controlled: controlled.into(),
        past: past.into(),
        live,
        history,
    })
}
