//! The CPU and MEMORY columns of the pods and nodes lists: the metrics of the list's scope,
//! polled (shared with every other view of the same scope), against the pods' requests and
//! limits (their whole objects, watched only while the list is small enough to hold twice)
//! or the nodes' allocatable.

use std::sync::Arc;

use leptos::prelude::*;

use crate::model::api::endpoints::NamespaceArg;
use crate::model::metrics::columns::UsageColumns;
use crate::model::watch::{LiveTable, ObjectCache, Output, StreamPhase, WatchKey};
use crate::model::{ApiTree, ResourceId};
use crate::state::metrics::{use_node_metrics, use_pod_metrics, MetricsHub, Reading};
use crate::state::pacing::PacedRun;
use crate::state::watch::{use_watch_objects, LiveWatch};

/// Pods lists longer than this show usage without the limit beside it: their requests and
/// limits would mean holding every pod's whole object besides its row.
const MAX_PODS_WITH_LIMITS: u64 = 2_000;

/// A recompute waits at least this multiple of what the last one took.
const USAGE_COST_FACTOR: f64 = 4.0;

/// What [`use_usage_columns`] gives the list.
#[derive(Clone, Copy)]
pub struct UseUsageColumnsReturn {
    /// The cells by row (None: no usage columns, the API is missing); shared, as a list
    /// of 10,000 rows reads it once per drawn row.
    pub columns: Signal<Option<Arc<UsageColumns>>>,
    /// Why there is no usage, in words.
    pub missing: Signal<Option<String>>,
}

/// Usage columns for a list of `resource` (core pods or nodes; None for any other kind).
pub fn use_usage_columns(
    tree: &ApiTree,
    resource: &ResourceId,
    namespace: Option<&str>,
    label_selector: &str,
    list: &LiveWatch<LiveTable>,
) -> Option<UseUsageColumnsReturn> {
    if !resource.group.is_empty() || !matches!(resource.plural.as_str(), "pods" | "nodes") {
        return None;
    }
    let hub = MetricsHub::get();
    let missing = Signal::derive(move || hub.missing());
    let pods = resource.plural == "pods";
    let metrics = if pods {
        use_pod_metrics(namespace, label_selector)
    } else {
        use_node_metrics()
    };
    let Some(metrics) = metrics else {
        return Some(UseUsageColumnsReturn {
            columns: Signal::derive(|| None),
            missing,
        });
    };
    let objects_key = tree.find(resource).map(|found| {
        let scope = namespace.map_or(NamespaceArg::All, NamespaceArg::Named);
        WatchKey::new(found.collection_path(scope).template(), Output::Objects)
            .with_labels(label_selector.to_string())
    });
    let objects = RwSignal::new(None::<ReadSignal<ObjectCache>>);
    if let Some(objects_key) = objects_key {
        let table: ReadSignal<LiveTable> = list.store.clone().into();
        let status = list.status.clone();
        let small = Memo::new(move |_| {
            let loaded = table.with(|table| table.membership().1) as u64;
            let (to_come, live) =
                status.with(|s| (s.remaining_items, s.phase == StreamPhase::Live));
            let known = live || loaded > 0 || to_come.is_some();
            !pods || (known && loaded + to_come.unwrap_or(0) <= MAX_PODS_WITH_LIMITS)
        });
        // Re-runs when `small` flips; the watch a run opened closes with the next run.
        Effect::new(move |_| {
            let store = small
                .get()
                .then(|| use_watch_objects(objects_key.clone()).store.into());
            objects.set(store);
        });
    }
    let reading = metrics.reading;
    let compute = move || -> Option<Arc<UsageColumns>> {
        if missing.with_untracked(Option::is_some) {
            return None;
        }
        // Before the first answer the columns are there, empty.
        let Some(reading) = reading.get_untracked() else {
            return Some(Arc::default());
        };
        // Usage the user may not read shows no columns, as where there is no metrics API.
        if matches!(reading, Reading::Denied(_)) {
            return None;
        }
        let columns = |cache: Option<&ObjectCache>| match &reading {
            Reading::Pods(metrics) => {
                UsageColumns::of_pods(metrics, cache.into_iter().flat_map(ObjectCache::iter))
            }
            Reading::Nodes(metrics) => {
                UsageColumns::of_nodes(metrics, cache.into_iter().flat_map(ObjectCache::iter))
            }
            Reading::Denied(_) => UsageColumns::default(),
        };
        Some(Arc::new(match objects.get_untracked() {
            Some(store) => store.with_untracked(|cache| columns(Some(cache))),
            None => columns(None),
        }))
    };
    let columns = RwSignal::new(compute());
    // Recomputed in idle time, paced by its own cost: the pods' objects change with every
    // watch event, and a list of 2,000 pods is not walked each frame.
    let paced = PacedRun::new(USAGE_COST_FACTOR);
    Effect::new(move |_| {
        missing.track();
        reading.track();
        if let Some(store) = objects.get() {
            store.track();
        }
        paced.ask_when_idle(compute, move |computed| {
            if columns.with_untracked(|c| c != &computed) {
                columns.try_set(computed);
            }
        });
    });
    Some(UseUsageColumnsReturn {
        columns: columns.into(),
        missing,
    })
}
