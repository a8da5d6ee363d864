//! The overview's watches (`use_overview`): the collections it sums up (nodes, pods,
//! ReplicaSets, the four workload kinds, Event objects) from the shared watches, in the
//! namespace in view, and the Warnings among the Events.

use leptos::prelude::*;

use crate::model::api::endpoints::NamespaceArg;
use crate::model::object::events::{
    events_api, events_watch_key, EventFilter, EventRecord, EventScope,
};
use crate::model::time::age::EpochMillis;
use crate::model::watch::{ObjectCache, Output, WatchKey, WatchStatus};
use crate::model::{ApiTree, ResourceId};
use crate::state::clock::use_clock;
use crate::state::events::{use_event_log, UseEventLogOptions};
use crate::state::watch::use_watch_objects;

/// One watched collection of whole objects.
#[derive(Clone, Copy)]
pub struct Watched {
    pub store: Signal<ObjectCache>,
    pub status: Signal<WatchStatus>,
    pub namespaced: bool,
}

impl Watched {
    /// The watch has listed once.
    pub fn filled(&self) -> bool {
        self.status.with(|s| s.resource_version.is_some())
    }
}

pub struct UseOverviewOptions<'a> {
    pub tree: &'a ApiTree,
    /// None: the whole cluster.
    pub namespace: Option<String>,
}

/// Each watch is None when the server serves no list and watch of its kind.
#[derive(Clone, Copy)]
pub struct UseOverviewReturn {
    pub nodes: Option<Watched>,
    pub pods: Option<Watched>,
    pub replica_sets: Option<Watched>,
    /// Deployments, StatefulSets, DaemonSets, Jobs.
    pub workloads: [Option<Watched>; 4],
    pub events: Option<Watched>,
    /// The Warning Events, newest first.
    pub warnings: Memo<Vec<EventRecord>>,
    /// The wall clock, every second.
    pub clock: Signal<EpochMillis>,
    /// The clock in steps of 15 s: health and buckets move with it only slowly.
    pub now: Memo<EpochMillis>,
}

impl UseOverviewReturn {
    pub fn deployments(&self) -> Option<Watched> {
        self.workloads[0]
    }
}

pub fn use_overview(options: UseOverviewOptions<'_>) -> UseOverviewReturn {
    let UseOverviewOptions { tree, namespace } = options;
    let watch = |group: &str, version: &str, plural: &str| -> Option<Watched> {
        let found = tree.find(&ResourceId::new(group, version, plural))?;
        if !(found.resource.supports("list") && found.resource.supports("watch")) {
            return None;
        }
        let namespaced = found.resource.namespaced;
        let ns = match (&namespace, namespaced) {
            (Some(ns), true) => NamespaceArg::Named(ns),
            _ => NamespaceArg::All,
        };
        let path = found.collection_path(ns).template();
        let live = use_watch_objects(WatchKey::new(path, Output::Objects));
        Some(Watched {
            store: live.store.into(),
            status: live.status.into(),
            namespaced,
        })
    };
    let nodes = watch("", "v1", "nodes");
    let pods = watch("", "v1", "pods");
    let replica_sets = watch("apps", "v1", "replicasets");
    let workloads = [
        watch("apps", "v1", "deployments"),
        watch("apps", "v1", "statefulsets"),
        watch("apps", "v1", "daemonsets"),
        watch("batch", "v1", "jobs"),
    ];
    let events = events_watch(tree, namespace.clone());

    let clock = use_clock();
    let now = Memo::new(move |_| clock.get() / 15_000 * 15_000);

    // The Event objects, kept as the Events page keeps them.
    let log = events.map(|events| {
        use_event_log(UseEventLogOptions {
            store: events.store,
            status: events.status,
        })
        .log
    });
    let warnings = Memo::new(move |_| {
        let filter = EventFilter {
            warnings_only: true,
            ..EventFilter::default()
        };
        log.map(|log| {
            log.with(|log| {
                log.newest_first(&filter)
                    .cloned()
                    .collect::<Vec<EventRecord>>()
            })
        })
        .unwrap_or_default()
    });

    UseOverviewReturn {
        nodes,
        pods,
        replica_sets,
        workloads,
        events,
        warnings,
        clock: clock.into(),
        now,
    }
}

/// The Events watch of the namespace in view (all namespaces without one).
fn events_watch(tree: &ApiTree, namespace: Option<String>) -> Option<Watched> {
    let api = events_api(tree)?;
    let scope = match namespace {
        Some(ns) => EventScope::Namespace(ns),
        None => EventScope::All,
    };
    let key = events_watch_key(tree, api, &scope, true)?;
    let live = use_watch_objects(key);
    Some(Watched {
        store: live.store.into(),
        status: live.status.into(),
        namespaced: true,
    })
}
