//! The sources of an owner's activity view: timelines of the namespace's everyday kinds
//! (`kubectl get all`, plus the owner's own kind) and of its Event objects, all through the
//! shared watch layer with history on. Opened when the view opens, so it shows the writes
//! from then on, after the chain's past as the first lists found it (reconstructed).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::model::history::{
    activity_with_past, seen_events, Activity, ActivityCache, HistoryStore, ObjectTimeline,
    SeenEvent,
};
use crate::model::object::events::{events_api, events_watch_key, EventScope};
use crate::model::watch::{Output, WatchKey, WatchStatus};
use crate::model::{
    api::endpoints::resolve_category, api::endpoints::NamespaceArg, ApiTree, ResourceId,
};
use crate::state::pacing::PacedRun;
use crate::state::watch::use_watch_history;

/// Watches what the activity of an object in `namespace` (of kind `resource`) needs and
/// computes the activity of `root` (its uid) whenever any of it changes.
pub fn use_activity(
    tree: &ApiTree,
    resource: &ResourceId,
    namespace: Option<String>,
    root: Signal<Option<String>>,
) -> (Signal<Activity>, Signal<bool>) {
    let scope = match &namespace {
        Some(ns) => NamespaceArg::Named(ns),
        None => NamespaceArg::All,
    };
    let mut kinds: Vec<_> = resolve_category(tree, "all")
        .into_iter()
        .filter(|r| r.resource.supports("list") && r.resource.supports("watch"))
        .collect();
    if let Some(own) = tree.find(resource) {
        if !kinds.iter().any(|k| k.id() == own.id()) {
            kinds.push(own);
        }
    }
    let mut statuses: Vec<ArcReadSignal<WatchStatus>> = Vec::new();
    let stores: Vec<ArcRwSignal<HistoryStore>> = kinds
        .iter()
        .filter(|r| namespace.is_none() || r.resource.namespaced)
        .map(|r| {
            let path = r.collection_path(scope).template();
            let (live, history) = use_watch_history(WatchKey::new(path, Output::Objects));
            statuses.push(live.status);
            history
        })
        .collect();
    let events: Option<ArcRwSignal<HistoryStore>> = events_api(tree).and_then(|api| {
        let scope = match &namespace {
            Some(ns) => EventScope::Namespace(ns.clone()),
            None => EventScope::All,
        };
        let key = events_watch_key(tree, api, &scope, true)?;
        let (live, history) = use_watch_history(key);
        statuses.push(live.status);
        Some(history)
    });
    // Every source has listed: writes from now on are all seen.
    let ready = Signal::derive(move || {
        statuses
            .iter()
            .all(|s| s.with(|s| s.resource_version.is_some()))
    });
    let stores = StoredValue::new(stores);
    let events = StoredValue::new(events);
    let cache = StoredValue::new_local(ActivityCache::default());
    let compute = move || -> Activity {
        let Some(root) = root.get_untracked() else {
            return Activity::default();
        };
        let seen: Vec<SeenEvent> = events.with_value(|store| {
            store
                .as_ref()
                .map(|store| store.with_untracked(seen_events))
                .unwrap_or_default()
        });
        stores.with_value(|stores| {
            let guards: Vec<_> = stores.iter().map(|s| s.read_untracked()).collect();
            let timelines: Vec<&ObjectTimeline> =
                guards.iter().flat_map(|h| h.timelines()).collect();
            events.with_value(|store| {
                let guard = store.as_ref().map(|s| s.read_untracked());
                let event_timelines: Vec<&ObjectTimeline> =
                    guard.iter().flat_map(|h| h.timelines()).collect();
                cache
                    .try_update_value(|cache| {
                        activity_with_past(&root, &timelines, &seen, &event_timelines, cache)
                    })
                    .unwrap_or_default()
            })
        })
    };
    let shown = RwSignal::new(Activity::default());
    // Recomputed when anything changes, but at most as often as it can afford (paced by
    // [`COST_FACTOR`] times its own cost, computing and drawing), so a burst of writes (a
    // 100-pod rollout, churn) costs a bounded share of the frames.
    let paced = PacedRun::new(COST_FACTOR);
    let performance = || web_sys::window().and_then(|w| w.performance());
    // Marks for the benchmarks (a PerformanceObserver sees them; DevTools shows them), the
    // previous ones cleared so a long session does not pile them up.
    let compute_marked = move || {
        let performance = performance();
        if let Some(p) = &performance {
            p.clear_measures_with_measure_name("activity-compute");
            p.clear_marks_with_mark_name("activity-start");
            p.mark("activity-start").ok();
        }
        let next = compute();
        if let Some(p) = &performance {
            p.measure_with_start_mark("activity-compute", "activity-start")
                .ok();
        }
        next
    };
    let draw_marked = move |next: Activity| {
        let performance = performance();
        if let Some(p) = &performance {
            p.clear_measures_with_measure_name("activity-draw");
            p.clear_marks_with_mark_name("activity-draw-start");
            p.mark("activity-draw-start").ok();
        }
        if shown.try_set(next).is_some() {
            return; // The view went meanwhile.
        }
        // The rows are drawn by effects, in microtasks queued by the set: this one runs
        // after them.
        spawn_local(async move {
            if let Some(p) = performance {
                p.measure_with_start_mark("activity-draw", "activity-draw-start")
                    .ok();
            }
        });
    };
    Effect::new(move |_| {
        root.track();
        stores.with_value(|stores| stores.iter().for_each(|s| s.track()));
        events.with_value(|store| {
            if let Some(store) = store {
                store.track();
            }
        });
        paced.ask_when_idle(compute_marked, draw_marked);
    });
    (shown.into(), ready)
}

/// How long recomputing waits after its last run: [`COST_FACTOR`] times what that run took.
const COST_FACTOR: f64 = 4.0;
