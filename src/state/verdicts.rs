//! One health everywhere: the rows of a workload list (Deployments, StatefulSets, DaemonSets,
//! ReplicaSets, Jobs, CronJobs) take the verdict that the object's page and the overview give,
//! the worst of the object and what it controls (`model::diagnosis::controller_health`),
//! instead of what their STATUS and READY cells alone say (a Deployment whose pod cannot pull
//! its image is "0/1 ready": Progressing by its cells, Failing by its pods). It reads the
//! shared whole-object watches of the kinds it needs, the same keys the object page and the
//! overview watch, and recomputes in idle time, paced by its own cost.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::model::api::endpoints::NamespaceArg;
use crate::model::diagnosis::controller_health;
use crate::model::object::events::{
    event_record, events_api, events_watch_key, EventRecord, EventScope,
};
use crate::model::watch::{LiveTable, ObjectCache, Output, StreamPhase, WatchKey};
use crate::model::{ApiTree, ResourceId};
use crate::state::clock::epoch_now;
use crate::state::pacing::PacedRun;
use crate::state::watch::{use_watch_objects, LiveWatch, WatchHub};

/// Lists of more controllers than this keep the health their cells say: a recompute walks
/// every controller and what it owns at once (about 0.3 s for 10,000 Deployments and their
/// 30,000 ReplicaSets and pods), longer than a frame may take.
const MAX_JUDGED_CONTROLLERS: usize = 2_000;

/// Set in localStorage (to any value), lists keep the health their cells say and open no
/// watches for verdicts: how `cargo xtask bench list` measures what verdicts cost a list.
pub const VERDICTS_OFF_KEY: &str = "kube-atlas.list-verdicts-off";

/// A recompute waits at least this multiple of what the last one took (a 10,000-row list's
/// verdicts never take more than a fifth of the main thread).
const VERDICT_COST_FACTOR: f64 = 4.0;

/// The kinds whose rows get verdicts, with what they control (as `(group, version, plural)`).
fn controlled_kinds(kind: &str) -> Option<&'static [(&'static str, &'static str, &'static str)]> {
    const PODS: (&str, &str, &str) = ("", "v1", "pods");
    const REPLICA_SETS: (&str, &str, &str) = ("apps", "v1", "replicasets");
    const JOBS: (&str, &str, &str) = ("batch", "v1", "jobs");
    match kind {
        "Deployment" => Some(&[REPLICA_SETS, PODS]),
        "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job" => Some(&[PODS]),
        "CronJob" => Some(&[JOBS, PODS]),
        _ => None,
    }
}

/// Keeps the rows' health of `list` (a list of `resource`, of `kind`) at their objects'
/// verdicts while the calling view lives; does nothing for kinds that control nothing.
/// The watches verdicts read are open only while the list is small enough to judge (counted
/// with the rows the server says are still to come), so a 10,000-row list loads no objects
/// for a verdict it would not compute.
pub fn use_row_verdicts(
    tree: &ApiTree,
    resource: &ResourceId,
    kind: &str,
    namespace: Option<&str>,
    list: &LiveWatch<LiveTable>,
) {
    let Some(controlled) = controlled_kinds(kind) else {
        return;
    };
    if crate::browser::local_storage_get(VERDICTS_OFF_KEY).is_some() {
        return;
    }
    let scope = |id: &ResourceId| -> Option<WatchKey> {
        let found = tree.find(id)?;
        if !(found.resource.supports("list") && found.resource.supports("watch")) {
            return None;
        }
        let ns = match namespace {
            Some(ns) if found.resource.namespaced => NamespaceArg::Named(ns),
            _ => NamespaceArg::All,
        };
        Some(WatchKey::new(
            found.collection_path(ns).template(),
            Output::Objects,
        ))
    };
    let Some(controllers) = scope(resource) else {
        return;
    };
    let owned: Vec<WatchKey> = controlled
        .iter()
        .filter_map(|&(group, version, plural)| scope(&ResourceId::new(group, version, plural)))
        .collect();
    let events: Option<WatchKey> = events_api(tree).and_then(|api| {
        let scope = match namespace {
            Some(ns) => EventScope::Namespace(ns.to_string()),
            None => EventScope::All,
        };
        events_watch_key(tree, api, &scope, true)
    });
    let keys = StoredValue::new(VerdictWatches {
        controllers,
        owned,
        events,
    });
    let table: ReadSignal<LiveTable> = list.store.clone().into();
    let status = list.status.clone();
    let list_key = StoredValue::new(list.key.clone());
    let hub = expect_context::<WatchHub>();
    // Decided once the list's size is known: its first page arrived (rows, or the estimate
    // of rows to come), or the list is live (it may be empty).
    let judged = Memo::new(move |_| {
        let loaded = table.with(|table| table.membership().1) as u64;
        let (to_come, live) =
            status.with(|status| (status.remaining_items, status.phase == StreamPhase::Live));
        let known = live || loaded > 0 || to_come.is_some();
        known && loaded + to_come.unwrap_or(0) <= MAX_JUDGED_CONTROLLERS as u64
    });
    // Re-runs only when `judged` flips; what a run opened closes with the next run.
    Effect::new(move |_| {
        if judged.get() {
            judge_rows(keys.get_value(), table, list_key);
        } else {
            list_key.with_value(|key| hub.set_row_verdicts(key, HashMap::new()));
        }
    });
}

/// The whole-object watches a list's verdicts read.
#[derive(Clone)]
struct VerdictWatches {
    controllers: WatchKey,
    owned: Vec<WatchKey>,
    events: Option<WatchKey>,
}

/// Opens `watches` and keeps the verdicts of `table`'s rows computed from them, until the
/// calling effect runs again.
fn judge_rows(watches: VerdictWatches, table: ReadSignal<LiveTable>, key: StoredValue<WatchKey>) {
    let hub = expect_context::<WatchHub>();
    let watch = |key: WatchKey| -> ReadSignal<ObjectCache> { use_watch_objects(key).store.into() };
    let controllers = watch(watches.controllers);
    let owned: Vec<ReadSignal<ObjectCache>> = watches.owned.into_iter().map(watch).collect();
    let events: Option<ReadSignal<ObjectCache>> = watches.events.map(watch);
    let owned = StoredValue::new(owned);
    let compute = move || {
        if controllers.with_untracked(|cache| cache.iter().count()) > MAX_JUDGED_CONTROLLERS {
            key.with_value(|key| hub.set_row_verdicts(key, HashMap::new()));
            return;
        }
        let records: Vec<EventRecord> = events
            .map(|store| {
                store.with_untracked(|cache| cache.iter().filter_map(event_record).collect())
            })
            .unwrap_or_default();
        let verdicts = controllers.with_untracked(|controllers| {
            owned.with_value(|owned| {
                let owned: Vec<serde_json::Value> = owned
                    .iter()
                    .flat_map(|store| {
                        store.with_untracked(|cache| cache.iter().cloned().collect::<Vec<_>>())
                    })
                    .collect();
                controller_health(controllers.iter(), owned.iter(), &records, epoch_now())
            })
        });
        let verdicts: HashMap<String, _> = verdicts
            .into_iter()
            .map(|(uid, verdict)| (uid, verdict.health))
            .collect();
        key.with_value(|key| hub.set_row_verdicts(key, verdicts));
    };
    let paced = PacedRun::new(VERDICT_COST_FACTOR);
    // New rows take their verdicts too (rows changing in place keep theirs).
    let membership = Memo::new(move |_| table.with(LiveTable::membership));
    Effect::new(move |_| {
        controllers.track();
        owned.with_value(|owned| owned.iter().for_each(|store| store.track()));
        if let Some(events) = events {
            events.track();
        }
        membership.track();
        paced.ask(compute);
    });
}
