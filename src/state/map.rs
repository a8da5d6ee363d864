//! The map's state (`use_map`): the namespace's everyday kinds from the shared watches (the
//! keys the lists, the overview and the object pages watch, so a kind already watched costs
//! nothing more), each object's verdict from the diagnosis with the Event objects, and the
//! kinds the server refused to list, drawn by `model::map` in idle time whenever any of them
//! changes (a rolling Deployment changes its pods many times a second: the drawing follows
//! at the pace its own cost allows, never inside a watch's frame).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use leptos::prelude::*;
use serde_json::Value;

use crate::model::api::endpoints::NamespaceArg;
use crate::model::map::custom::custom_kinds_to_watch;
use crate::model::map::health::{judged, Judged};
use crate::model::map::missing::{MissingKind, MissingReason};
use crate::model::map::scope::Scope;
use crate::model::map::{draw, Map};
use crate::model::object::events::{event_record, events_api, events_watch_key, EventScope};
use crate::model::watch::{ObjectCache, Output, StreamPhase, WatchKey, WatchStatus};
use crate::model::{ApiTree, ResourceId};
use crate::state::clock::epoch_now;
use crate::state::pacing::PacedRun;
use crate::state::watch::use_watch_objects;

/// A recompute waits at least this multiple of what the last one took.
const MAP_COST_FACTOR: f64 = 4.0;

/// One kind the map watches: `(group, version, plural, names only)`. ConfigMaps,
/// Secrets and ServiceAccounts are watched by name only (`PartialObjectMetadata`): the map
/// draws what refers to them, and a Secret's data has no business in the page.
type WatchedKind = (&'static str, &'static str, &'static str, bool);

const KINDS: [WatchedKind; 21] = [
    ("gateway.networking.k8s.io", "v1", "gateways", false),
    ("gateway.networking.k8s.io", "v1", "httproutes", false),
    ("networking.k8s.io", "v1", "ingresses", false),
    ("", "v1", "services", false),
    ("discovery.k8s.io", "v1", "endpointslices", false),
    ("apps", "v1", "deployments", false),
    ("apps", "v1", "statefulsets", false),
    ("apps", "v1", "daemonsets", false),
    ("apps", "v1", "replicasets", false),
    ("batch", "v1", "cronjobs", false),
    ("batch", "v1", "jobs", false),
    ("", "v1", "pods", false),
    ("autoscaling", "v2", "horizontalpodautoscalers", false),
    ("policy", "v1", "poddisruptionbudgets", false),
    ("networking.k8s.io", "v1", "networkpolicies", false),
    ("", "v1", "configmaps", true),
    ("", "v1", "secrets", true),
    ("", "v1", "serviceaccounts", true),
    ("", "v1", "persistentvolumeclaims", false),
    ("", "v1", "persistentvolumes", false),
    ("storage.k8s.io", "v1", "storageclasses", false),
];

/// One watched kind's live objects.
struct KindWatch {
    kind: String,
    api_version: String,
    store: Signal<ObjectCache>,
    status: Signal<WatchStatus>,
}

pub struct UseMapOptions<'a> {
    pub tree: &'a ApiTree,
    pub namespace: String,
    /// What of the namespace is drawn (the namespace, an application, a neighbourhood).
    pub scope: Scope,
}

/// The map and what the view needs beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct MapDrawing {
    pub map: Map,
    /// Each view node's diagnosis line (the worst member's, for a group), by node index.
    pub lines: Vec<Option<String>>,
}

#[derive(Clone, Copy)]
pub struct UseMapReturn {
    /// None until every watched kind has listed once (or was refused).
    pub drawing: ReadSignal<Option<Arc<MapDrawing>>>,
    /// The group ids the user expanded; changing it redraws at once.
    pub expanded: RwSignal<BTreeSet<String>>,
}

/// The map of `options.namespace`, live.
pub fn use_map(options: UseMapOptions<'_>) -> UseMapReturn {
    let UseMapOptions {
        tree,
        namespace,
        scope,
    } = options;
    // The everyday kinds, then the custom resources the cluster serves (drawn through their
    // ownerReferences and `…Ref` fields).
    let builtin = KINDS
        .iter()
        .filter_map(|&(group, version, plural, names_only)| {
            Some((
                tree.find(&ResourceId::new(group, version, plural))?,
                names_only,
            ))
        });
    let custom = custom_kinds_to_watch(tree)
        .into_iter()
        .map(|found| (found, false));
    let watches: Vec<KindWatch> = builtin
        .chain(custom)
        .filter(|(found, _)| found.resource.supports("list") && found.resource.supports("watch"))
        .map(|(found, names_only)| {
            let scope = if found.resource.namespaced {
                NamespaceArg::Named(&namespace)
            } else {
                NamespaceArg::All
            };
            let output = if names_only {
                Output::Metadata
            } else {
                Output::Objects
            };
            let live = use_watch_objects(WatchKey::new(
                found.collection_path(scope).template(),
                output,
            ));
            KindWatch {
                kind: found.resource.kind.clone(),
                api_version: found.api_version(),
                store: live.store.into(),
                status: live.status.into(),
            }
        })
        .collect();
    let events: Option<Signal<ObjectCache>> = events_api(tree)
        .and_then(|api| {
            events_watch_key(tree, api, &EventScope::Namespace(namespace.clone()), true)
        })
        .map(|key| use_watch_objects(key).store.into());

    let watches = StoredValue::new(watches);
    let scope = StoredValue::new(scope);
    let expanded = RwSignal::new(BTreeSet::new());
    let (drawing, set_drawing) = signal(None::<Arc<MapDrawing>>);
    let compute = move || -> Option<Arc<MapDrawing>> {
        let (objects, missing) = watches.with_value(|watches| gather(watches))?;
        let records: Vec<_> = events
            .map(|store| store.with_untracked(|c| c.iter().filter_map(event_record).collect()))
            .unwrap_or_default();
        let verdicts = judged(&objects, &records, epoch_now());
        let health = verdicts
            .iter()
            .map(|(uid, verdict)| (uid.clone(), verdict.health))
            .collect();
        let map = scope
            .with_value(|scope| draw(&objects, scope, &health, &expanded.get_untracked(), missing));
        let lines = node_lines(&map, &verdicts);
        Some(Arc::new(MapDrawing { map, lines }))
    };
    let paced = PacedRun::new(MAP_COST_FACTOR);
    let show = move |drawn: Option<Arc<MapDrawing>>| {
        if drawn.is_some() {
            set_drawing.set(drawn);
        }
    };
    Effect::new(move |_| {
        watches.with_value(|watches| {
            for watch in watches {
                watch.store.track();
                watch.status.track();
            }
        });
        if let Some(events) = events {
            events.track();
        }
        paced.ask_when_idle(compute, show);
    });
    // The user's expanding and collapsing answers at once.
    Effect::new(move |first: Option<()>| {
        expanded.track();
        if first.is_some() {
            paced.run_now(move || show(compute()));
        }
    });
    UseMapReturn { drawing, expanded }
}

/// Every watched object, with its kind and apiVersion (list items and names-only objects
/// come without them), and the kinds refused or failing; None while a kind is still listing.
fn gather(watches: &[KindWatch]) -> Option<(Vec<Value>, Vec<MissingKind>)> {
    // Every kind's state first: while one still lists, nothing is copied (the asks of a
    // map still loading stay cheap, and so does the pacing they set for the first drawing).
    let mut drawn = Vec::new();
    let mut missing = Vec::new();
    for watch in watches {
        let (phase, listed, error) = watch
            .status
            .with_untracked(|s| (s.phase, s.resource_version.is_some(), s.last_error.clone()));
        if phase == StreamPhase::Forbidden {
            missing.push(MissingKind::forbidden(&watch.kind));
            continue;
        }
        match (listed, error) {
            (true, _) => drawn.push(watch),
            // Never listed, and failing: the map is drawn without it, saying why.
            (false, Some(error)) if phase == StreamPhase::Reconnecting => {
                missing.push(MissingKind {
                    kind: watch.kind.clone(),
                    reason: MissingReason::Failed(error),
                });
            }
            (false, _) => return None,
        }
    }
    let mut objects = Vec::new();
    for watch in drawn {
        watch.store.with_untracked(|cache| {
            objects.extend(cache.iter().map(|object| {
                let mut object = object.clone();
                if let Some(fields) = object.as_object_mut() {
                    fields.insert("kind".into(), watch.kind.clone().into());
                    fields.insert("apiVersion".into(), watch.api_version.clone().into());
                }
                object
            }));
        });
    }
    Some((objects, missing))
}

/// Each node's diagnosis line: its object's, or for a group the line of its worst member
/// that has one.
fn node_lines(map: &Map, verdicts: &HashMap<String, Judged>) -> Vec<Option<String>> {
    map.view
        .nodes
        .iter()
        .map(|node| {
            node.members
                .iter()
                .filter_map(|&member| verdicts.get(&map.graph.objects[member].uid))
                .filter(|verdict| verdict.line.is_some())
                .max_by_key(|verdict| verdict.health)
                .and_then(|verdict| verdict.line.clone())
        })
        .collect()
}
