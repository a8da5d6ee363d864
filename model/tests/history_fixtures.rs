//! The reconstructed past of a rollout recorded from both backends
//! (`fixtures/history/{real,demo}/rollout.json`, recorded by
//! `demo-cluster/examples/record_history_fixtures.rs`): a real kube-apiserver with
//! kube-controller-manager and kube-scheduler v1.36 (pods run by the stand-in kubelet), and the
//! demo cluster. Each holds a Deployment `web` created with nginx:1.25 and 2 replicas, scaled
//! to 3, then set to nginx:1.27 and rolled out; its ReplicaSets and Pods (managedFields kept)
//! and the namespace's Event objects through both Event APIs. What a user reads of the past
//! must be the same on both.

use std::path::PathBuf;

use kube_atlas_model::history::past::{
    past_entries, rollback_template, rollout_history, ActorSource, Loaded, PastEntry, PastKind,
    PastTime, Placement, ScaleDirection,
};
use kube_atlas_model::object::events::{event_record, EventApi, EventRecord};
use kube_atlas_model::time::age::parse_timestamp;
use serde_json::Value;

const BACKENDS: [&str; 2] = ["real", "demo"];

struct Fixture {
    backend: &'static str,
    deployment: Value,
    replica_sets: Vec<Value>,
    pods: Vec<Value>,
    /// Both APIs' reads of the namespace's Events.
    events: Vec<EventRecord>,
}

impl Fixture {
    fn load(backend: &'static str) -> Fixture {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/history")
            .join(backend)
            .join("rollout.json");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let fixture: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let list = |key: &str| fixture[key].as_array().cloned().unwrap_or_default();
        let owned = list("owned");
        let of_kind = |kind: &str| -> Vec<Value> {
            owned
                .iter()
                .filter(|o| o["kind"] == kind)
                .cloned()
                .collect()
        };
        let (core, v1) = (list("events"), list("events_v1"));
        let events: Vec<EventRecord> = core.iter().chain(&v1).filter_map(event_record).collect();
        assert_eq!(
            events.len(),
            core.len() + v1.len(),
            "{backend}: every Event object is read"
        );
        Fixture {
            backend,
            deployment: fixture["root"].clone(),
            replica_sets: of_kind("ReplicaSet"),
            pods: of_kind("Pod"),
            events,
        }
    }

    fn replica_set_with(&self, image: &str) -> &Value {
        self.replica_sets
            .iter()
            .find(|rs| rs["spec"]["template"]["spec"]["containers"][0]["image"] == image)
            .unwrap_or_else(|| panic!("{}: no ReplicaSet of {image}", self.backend))
    }

    fn name_of(object: &Value) -> &str {
        object["metadata"]["name"].as_str().unwrap_or_default()
    }

    fn deployment_past(&self) -> Vec<PastEntry> {
        past_entries(&Loaded {
            events: &self.events,
            owned: &self.replica_sets,
            ..Loaded::object(&self.deployment)
        })
    }

    fn pod_past(&self, pod: &Value) -> Vec<PastEntry> {
        let owners = [
            self.replica_set_with("nginx:1.27").clone(),
            self.deployment.clone(),
        ];
        past_entries(&Loaded {
            events: &self.events,
            owners: &owners,
            ..Loaded::object(pod)
        })
    }
}

fn lines(past: &[PastEntry]) -> Vec<String> {
    past.iter()
        .map(|e| {
            format!(
                "{:?} {:?} {} [{}] {:?}",
                e.time.start_ms(),
                e.placement,
                e.kind.describe(),
                e.actor_label(),
                e.unknown
            )
        })
        .collect()
}

fn find<'a>(
    backend: &str,
    past: &'a [PastEntry],
    wanted: impl Fn(&PastKind) -> bool,
) -> &'a PastEntry {
    past.iter()
        .find(|e| wanted(&e.kind))
        .unwrap_or_else(|| panic!("{backend}: no such entry in {:#?}", lines(past)))
}

fn at(text: &Value) -> PastTime {
    PastTime::At(
        text.as_str()
            .and_then(parse_timestamp)
            .unwrap_or_else(|| panic!("a timestamp: {text}")),
    )
}

#[test]
fn both_event_apis_show_the_same_events() {
    for backend in BACKENDS {
        let fixture = Fixture::load(backend);
        let uids = |api: EventApi| {
            let mut uids: Vec<&str> = fixture
                .events
                .iter()
                .filter(|e| e.api == api)
                .map(|e| e.uid.as_str())
                .collect();
            uids.sort_unstable();
            uids
        };
        assert!(!uids(EventApi::CoreV1).is_empty(), "{backend}");
        assert_eq!(
            uids(EventApi::CoreV1),
            uids(EventApi::EventsV1),
            "{backend}"
        );
    }
}

#[test]
fn revision_1_to_2_changes_exactly_the_image() {
    for backend in BACKENDS {
        let fixture = Fixture::load(backend);
        let history = rollout_history(&fixture.deployment, &fixture.replica_sets);
        let old = fixture.replica_set_with("nginx:1.25");
        let new = fixture.replica_set_with("nginx:1.27");
        let summary: Vec<(u64, &str, Option<u64>, bool)> = history
            .iter()
            .map(|r| (r.revision, r.name.as_str(), r.replicas, r.current))
            .collect();
        assert_eq!(
            summary,
            vec![
                (1, Fixture::name_of(old), Some(0), false),
                (2, Fixture::name_of(new), Some(3), true)
            ],
            "{backend}"
        );
        assert!(history[0].changes.is_empty(), "{backend}");
        assert_eq!(history[1].previous, Some(1), "{backend}");
        assert_eq!(
            history[1].change_lines(),
            vec!["containers[name=web].image: nginx:1.25 → nginx:1.27"],
            "{backend}"
        );
        assert_eq!(
            history[1].created_ms,
            new["metadata"]["creationTimestamp"]
                .as_str()
                .and_then(parse_timestamp)
        );
        for revision in &history {
            assert!(
                revision.template["metadata"]["labels"]
                    .get("pod-template-hash")
                    .is_none(),
                "{backend}"
            );
            assert_eq!(revision.template["metadata"]["labels"]["app"], "web");
        }
        // Rolling back to revision 1 gives the Deployment revision 1's template, hash-free.
        let rolled_back = rollback_template(&fixture.deployment, old);
        assert_eq!(
            rolled_back["spec"]["template"], history[0].template,
            "{backend}"
        );
        assert_eq!(
            rolled_back["spec"]["template"]["spec"]["containers"][0]["image"],
            "nginx:1.25"
        );
        assert_eq!(
            rolled_back["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "2",
            "{backend}: the Deployment's own revision stays (the controller numbers the rollback)"
        );
    }
}

#[test]
fn the_deployments_past_reads_as_its_rollout() {
    for backend in BACKENDS {
        let fixture = Fixture::load(backend);
        let past = fixture.deployment_past();
        let old = Fixture::name_of(fixture.replica_set_with("nginx:1.25"));
        let new = Fixture::name_of(fixture.replica_set_with("nginx:1.27"));
        let created = find(backend, &past, |k| *k == PastKind::Created);
        assert_eq!(
            created.time,
            at(&fixture.deployment["metadata"]["creationTimestamp"])
        );
        assert_eq!(created.actor_label(), "kubectl-create", "{backend}");
        // kubectl-set wrote later: managedFields cannot rule it out as the creator.
        assert!(
            created.unknown.iter().any(|u| u.contains("kubectl-set")),
            "{backend}: {:?}",
            created.unknown
        );
        let revisions: Vec<String> = past
            .iter()
            .filter(|e| matches!(e.kind, PastKind::RolloutRevision { .. }))
            .map(|e| e.kind.describe())
            .collect();
        assert_eq!(
            revisions,
            vec![
                format!("revision 1 ({old})"),
                format!(
                    "revision 1 → 2 ({new}): containers[name=web].image: nginx:1.25 → nginx:1.27"
                ),
            ],
            "{backend}"
        );
        // What the deployment controller reported, in its own words.
        let scalings: Vec<String> = past
            .iter()
            .filter(|e| matches!(e.kind, PastKind::Scaled { .. }))
            .map(|e| {
                assert_eq!(e.actor_label(), "deployment-controller", "{backend}");
                e.kind.describe()
            })
            .collect();
        assert_eq!(
            scalings[..2],
            [
                format!("scaled up {old} from 0 to 2"),
                format!("scaled up {old} from 2 to 3")
            ],
            "{backend}: {:#?}",
            lines(&past)
        );
        // The rollout: the new set up from 0 to 3, the old one down from 3 to 0, a step at a
        // time (maxSurge 1, maxUnavailable 0 for 3 replicas).
        let rollout = &scalings[2..];
        for step in [
            format!("scaled up {new} from 0 to 1"),
            format!("scaled up {new} from 2 to 3"),
            format!("scaled down {old} from 3 to 2"),
            format!("scaled down {old} from 1 to 0"),
        ] {
            assert!(rollout.contains(&step), "{backend}: {step} in {rollout:#?}");
        }
        assert_eq!(rollout.len(), 6, "{backend}: {rollout:#?}");
        // The user's writes: the image set by kubectl-set.
        let set = find(
            backend,
            &past,
            |k| matches!(k, PastKind::Written { manager, .. } if manager == "kubectl-set"),
        );
        assert_eq!(
            set.kind.describe(),
            "last write by kubectl-set (spec.template)"
        );
        // The scale through the scale subresource.
        let scale = find(
            backend,
            &past,
            |k| matches!(k, PastKind::Written { subresource, .. } if subresource == "scale"),
        );
        assert_eq!(scale.actor_label(), "kubectl", "{backend}");
        if backend == "real" {
            // kube-apiserver v1.36 records the scale subresource's entry with no time: the
            // write is known, its moment is not.
            assert_eq!(scale.time, PastTime::Unknown, "{backend}");
            assert_eq!(scale.placement, Placement::Untimed);
            assert_eq!(past.last(), Some(scale), "untimed entries come last");
        }
        // Time order, with same-second entries marked.
        assert_eq!(past[0].placement, Placement::Later);
        let timed: Vec<i64> = past.iter().filter_map(|e| e.time.start_ms()).collect();
        assert!(timed.windows(2).all(|w| w[0] / 1000 <= w[1] / 1000));
    }
}

#[test]
fn each_pod_is_created_scheduled_and_started_by_the_components_that_did_it() {
    for backend in BACKENDS {
        let fixture = Fixture::load(backend);
        assert_eq!(fixture.pods.len(), 3, "{backend}");
        for pod in &fixture.pods {
            let name = Fixture::name_of(pod);
            let node = pod["spec"]["nodeName"].as_str().unwrap_or_default();
            let past = fixture.pod_past(pod);
            let created = find(backend, &past, |k| *k == PastKind::Created);
            assert_eq!(created.time, at(&pod["metadata"]["creationTimestamp"]));
            let actors: Vec<(&str, ActorSource)> = created
                .actors
                .iter()
                .map(|a| (a.name.as_str(), a.source))
                .collect();
            assert_eq!(
                actors,
                vec![
                    ("kube-controller-manager", ActorSource::ManagedFieldsEntry),
                    ("replicaset-controller", ActorSource::EventReporter)
                ],
                "{backend}/{name}"
            );
            assert!(created.unknown.is_empty(), "{backend}/{name}");
            let evidence: Vec<String> = created.evidence.iter().map(|e| e.describe()).collect();
            assert!(
                evidence.contains(&"Event SuccessfulCreate (replicaset-controller)".to_string()),
                "{backend}/{name}: {evidence:?}"
            );

            let scheduled = find(backend, &past, |k| matches!(k, PastKind::Scheduled { .. }));
            assert_eq!(
                scheduled.kind,
                PastKind::Scheduled {
                    node: Some(node.to_string())
                },
                "{backend}/{name}"
            );
            assert_eq!(scheduled.actor_label(), "default-scheduler", "{backend}");
            assert_eq!(
                scheduled.evidence[0].describe(),
                "Event Scheduled (default-scheduler)"
            );
            assert!(matches!(scheduled.time, PastTime::At(_)));

            let status = find(
                backend,
                &past,
                |k| matches!(k, PastKind::StatusWritten { manager, .. } if manager == "kubelet"),
            );
            assert!(matches!(status.time, PastTime::At(_)), "{backend}/{name}");
            assert_eq!(
                status.evidence[0].describe(),
                format!(
                    "managedFields[manager=kubelet,operation=Update,subresource=status].time = {}",
                    status_time(pod)
                )
            );

            let started = find(
                backend,
                &past,
                |k| matches!(k, PastKind::ContainerStarted { container, .. } if container == "web"),
            );
            assert_eq!(
                started.actor_label(),
                format!("kubelet on {node}"),
                "{backend}/{name}"
            );
            assert_eq!(
                started.time,
                at(&pod["status"]["containerStatuses"][0]["state"]["running"]["startedAt"])
            );
            // Created before it was scheduled, scheduled before its container started.
            let position = |entry: &PastEntry| past.iter().position(|e| e == entry);
            assert!(position(created) < position(scheduled), "{backend}/{name}");
            assert!(position(scheduled) < position(started), "{backend}/{name}");
            // Nothing in its past is restarts or deletions.
            assert!(!past.iter().any(|e| matches!(
                e.kind,
                PastKind::ContainerRestarted { .. } | PastKind::DeletionStarted { .. }
            )));
        }
    }
}

fn status_time(pod: &Value) -> &str {
    pod["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["manager"] == "kubelet" && e["subresource"] == "status")
        .and_then(|e| e["time"].as_str())
        .unwrap_or_default()
}

#[test]
fn the_old_replica_set_was_scaled_up_then_down_to_zero() {
    for backend in BACKENDS {
        let fixture = Fixture::load(backend);
        let old = fixture.replica_set_with("nginx:1.25");
        let owners = [fixture.deployment.clone()];
        let past = past_entries(&Loaded {
            events: &fixture.events,
            owners: &owners,
            ..Loaded::object(old)
        });
        let steps: Vec<(ScaleDirection, Option<u64>, u64)> = past
            .iter()
            .filter_map(|e| match &e.kind {
                PastKind::Scaled {
                    direction,
                    from,
                    to,
                    ..
                } => Some((*direction, *from, *to)),
                _ => None,
            })
            .collect();
        assert_eq!(
            steps,
            vec![
                (ScaleDirection::Up, Some(0), 2),
                (ScaleDirection::Up, Some(2), 3),
                (ScaleDirection::Down, Some(3), 2),
                (ScaleDirection::Down, Some(2), 1),
                (ScaleDirection::Down, Some(1), 0),
            ],
            "{backend}: {:#?}",
            lines(&past)
        );
        // The pods it created and deleted are told by its own Events.
        let seen = |reason: &str| {
            past.iter()
                .filter(|e| matches!(&e.kind, PastKind::EventSeen { reason: r, .. } if r == reason))
                .count()
        };
        assert_eq!(seen("SuccessfulCreate"), 3, "{backend}");
        assert_eq!(seen("SuccessfulDelete"), 3, "{backend}");
    }
}

/// The fixture as the activity view finds it when opened after the rollout: every object
/// and Event object listed, nothing watched yet.
fn listed_activity(fixture: &Fixture) -> kube_atlas_model::history::Activity {
    use kube_atlas_model::history::{
        activity_with_past, ActivityCache, HistoryStore, RevisionKind,
    };
    let mut objects = HistoryStore::default();
    for object in std::iter::once(&fixture.deployment)
        .chain(&fixture.replica_sets)
        .chain(&fixture.pods)
    {
        objects.record(RevisionKind::Listed, object, 1.0);
    }
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/history")
        .join(fixture.backend)
        .join("rollout.json");
    let raw: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("fixture"))
        .expect("fixture JSON");
    let mut events = HistoryStore::default();
    for event in raw["events"].as_array().into_iter().flatten() {
        events.record(RevisionKind::Listed, event, 1.0);
    }
    let uid = fixture.deployment["metadata"]["uid"]
        .as_str()
        .expect("a uid");
    let timelines: Vec<_> = objects.timelines().collect();
    let event_timelines: Vec<_> = events.timelines().collect();
    activity_with_past(
        uid,
        &timelines,
        &[],
        &event_timelines,
        &mut ActivityCache::default(),
    )
}

#[test]
fn an_activity_opened_after_the_rollout_shows_it_on_its_lanes() {
    use kube_atlas_model::history::ItemDetail;
    for backend in BACKENDS {
        let fixture = Fixture::load(backend);
        let activity = listed_activity(&fixture);
        let lane = |index: usize| activity.lanes[index].label.as_str();
        let shown: Vec<(&str, String)> = activity
            .items
            .iter()
            .map(|item| {
                let text = match &item.detail {
                    ItemDetail::Past(past) => past.summary.clone(),
                    ItemDetail::Event(event) => {
                        assert!(event.listed, "{backend}");
                        format!("Event {}: {}", event.reason, event.message)
                    }
                    ItemDetail::Write(_) => panic!("{backend}: nothing was watched"),
                };
                (lane(item.lane), text)
            })
            .collect();
        let has = |lane_label: &str, words: &[&str]| {
            shown
                .iter()
                .any(|(l, t)| *l == lane_label && words.iter().all(|w| t.contains(w)))
        };
        let old = Fixture::name_of(fixture.replica_set_with("nginx:1.25"));
        let new = Fixture::name_of(fixture.replica_set_with("nginx:1.27"));
        // Both ReplicaSets, created by the deployment controller, and the revisions.
        assert!(
            has(
                "deployment-controller",
                &[&format!("ReplicaSet {old}: created")]
            ),
            "{backend}: {shown:#?}"
        );
        assert!(
            has(
                "deployment-controller",
                &[&format!("ReplicaSet {new}: created")]
            ),
            "{backend}: {shown:#?}"
        );
        assert!(
            has(
                "deployment-controller",
                &["revision 1 → 2", new, "nginx:1.25 → nginx:1.27"]
            ),
            "{backend}: {shown:#?}"
        );
        // Its Events of the last hour, on their reporters' lanes, the old pods' included.
        assert!(
            has("deployment-controller", &["Event ScalingReplicaSet", old]),
            "{backend}"
        );
        assert!(
            has("deployment-controller", &["Event ScalingReplicaSet", new]),
            "{backend}"
        );
        assert!(
            has("replicaset-controller", &["Event SuccessfulDelete"]),
            "{backend}: {shown:#?}"
        );
        let scheduled = shown
            .iter()
            .filter(|(l, t)| *l == "default-scheduler" && t.starts_with("Event Scheduled"))
            .count();
        assert_eq!(scheduled, 6, "{backend}: the old pods' and the new ones'");
        // The pods running now: created, bound, their kubelet's last status write.
        for pod in &fixture.pods {
            let name = Fixture::name_of(pod);
            let node = pod["spec"]["nodeName"].as_str().unwrap_or_default();
            assert!(
                has("replicaset-controller", &[&format!("Pod {name}: created")]),
                "{backend}"
            );
            assert!(
                has(
                    &format!("kubelet on {node}"),
                    &[&format!("Pod {name}: last status write by kubelet")]
                ),
                "{backend}: {shown:#?}"
            );
        }
        // In time order.
        assert!(activity.items.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    }
}
