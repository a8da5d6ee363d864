//! Siblings fold into counted groups; health and readiness are counted; groups expand.

use std::collections::{BTreeSet, HashMap};

use super::{graph_of, shop};
use crate::diagnosis::Health;
use crate::map::graph::EdgeKind;
use crate::map::group::{fold, group_id, MapView};
use crate::map::health::{health_from_status, judged};
use crate::map::reading::edge_sentence;

const RS_UID: &str = "0b6f1d8e-0002-4000-8000-000000000002";
const CRONJOB_UID: &str = "0b6f1d8e-0024-4000-8000-000000000024";

fn node<'v>(view: &'v MapView, id: &str) -> &'v crate::map::group::MapNode {
    view.nodes
        .iter()
        .find(|n| n.id == id)
        .unwrap_or_else(|| panic!("no node {id}"))
}

#[test]
fn a_replica_sets_pods_and_a_cron_jobs_jobs_fold_into_counted_groups() {
    let graph = graph_of(&shop());
    let all: Vec<usize> = (0..graph.objects.len()).collect();
    let view = fold(&graph, &all, &HashMap::new(), &BTreeSet::new());
    let pods = node(&view, &group_id(RS_UID, "Pod"));
    assert_eq!(
        pods.title(&graph),
        "ReplicaSet web-7d9f8c6b5: 3 pods, 2 ready"
    );
    assert_eq!(pods.members.len(), 3);
    let group = view.nodes.iter().position(|n| n.id == pods.id);
    assert!(pods.members.iter().all(|&m| view.node_of(m) == group));
    let jobs = node(&view, &group_id(CRONJOB_UID, "Job"));
    assert_eq!(jobs.title(&graph), "CronJob report: 2 jobs");
    // One pod per Job: nothing to fold.
    assert!(view
        .nodes
        .iter()
        .any(|n| n.name == "report-29420100-x0" && n.group.is_none()));
    assert_eq!(view.nodes.iter().filter(|n| n.kind == "Pod").count(), 4);

    // Edges to the members fold into one, counted.
    let service = view
        .nodes
        .iter()
        .position(|n| n.kind == "Service")
        .expect("service");
    let group = view
        .nodes
        .iter()
        .position(|n| n.id == pods.id)
        .expect("group");
    let selects = view
        .edges
        .iter()
        .find(|e| e.from == service && e.to == group && e.kind == EdgeKind::Selects)
        .expect("the Service selects the group");
    assert_eq!((selects.count, selects.ready), (3, Some(2)));
    assert_eq!(
        edge_sentence(&graph, &view, selects),
        "Service web selects 3 pods of ReplicaSet web-7d9f8c6b5 (selector app=web; 2 of 3 ready)"
    );
}

#[test]
fn a_groups_health_is_its_worst_members() {
    let objects = shop();
    let graph = graph_of(&objects);
    let all: Vec<usize> = (0..graph.objects.len()).collect();
    let uid = |kind_name: &str| {
        let (kind, name) = kind_name.split_once('/').expect("Kind/name");
        let found = graph
            .objects
            .iter()
            .find(|o| o.kind == kind && o.name == name);
        found.map(|o| o.uid.clone()).expect("object")
    };
    let health = HashMap::from([
        (uid("Pod/web-7d9f8c6b5-4xk2p"), Health::Ok),
        (uid("Pod/web-7d9f8c6b5-9qzcm"), Health::Failing),
        (uid("Pod/web-7d9f8c6b5-tr7wd"), Health::Progressing),
    ]);
    let view = fold(&graph, &all, &health, &BTreeSet::new());
    let pods = node(&view, &group_id(RS_UID, "Pod"));
    assert_eq!(pods.health, Health::Failing);
    let counts = pods.group.as_ref().expect("a group");
    assert_eq!(
        counts.by_health,
        [
            (Health::Ok, 1),
            (Health::Progressing, 1),
            (Health::Failing, 1)
        ]
        .into()
    );
    // Objects the caller gave no health are Unknown.
    assert_eq!(
        node(&view, &uid("ConfigMap/web-config")).health,
        Health::Unknown
    );

    // Without the caller's health, the diagnosis's from status: the pod not ready is on its
    // way, a finished Job's pod is fine, the Deployment (2 of 3 ready) as its page judges it.
    let health = health_from_status(&objects, 0);
    assert_eq!(
        health.get(&uid("Pod/web-7d9f8c6b5-4xk2p")),
        Some(&Health::Ok)
    );
    assert_eq!(health[&uid("Pod/web-7d9f8c6b5-tr7wd")], Health::Progressing);
    assert_eq!(health[&uid("Pod/report-29420100-x0")], Health::Ok);
    assert_eq!(health[&uid("Deployment/web")], Health::Progressing);
    let view = fold(&graph, &all, &health, &BTreeSet::new());
    assert_eq!(
        node(&view, &group_id(RS_UID, "Pod")).health,
        health[&uid("Pod/web-7d9f8c6b5-tr7wd")]
    );
}

#[test]
fn an_expanded_group_shows_its_members_each_saying_where_it_folds() {
    let graph = graph_of(&shop());
    let all: Vec<usize> = (0..graph.objects.len()).collect();
    let id = group_id(RS_UID, "Pod");
    let view = fold(&graph, &all, &HashMap::new(), &BTreeSet::from([id.clone()]));
    assert!(view.nodes.iter().all(|n| n.id != id));
    let members: Vec<&str> = view
        .nodes
        .iter()
        .filter(|n| n.expanded_from.as_deref() == Some(id.as_str()))
        .map(|n| n.name.as_str())
        .collect();
    assert_eq!(
        members,
        [
            "web-7d9f8c6b5-4xk2p",
            "web-7d9f8c6b5-9qzcm",
            "web-7d9f8c6b5-tr7wd"
        ]
    );
    let service = view
        .nodes
        .iter()
        .position(|n| n.kind == "Service")
        .expect("service");
    let selects = view
        .edges
        .iter()
        .filter(|e| e.from == service && e.kind == EdgeKind::Selects);
    assert_eq!(selects.count(), 3);
}

#[test]
fn judged_objects_say_why_with_the_pod_and_its_deployment_failing_alike() {
    let mut objects = shop();
    let stuck = objects
        .iter_mut()
        .find(|o| o["metadata"]["name"] == "web-7d9f8c6b5-tr7wd")
        .expect("the unready pod");
    stuck["status"] = serde_json::json!({"phase": "Pending", "conditions": [{
        "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
        "message": "0/2 nodes are available: 2 Insufficient cpu."}]});
    let uid_of = |name: &str| {
        let found = objects.iter().find(|o| o["metadata"]["name"] == name);
        found
            .and_then(|o| o["metadata"]["uid"].as_str())
            .map(str::to_string)
    };
    let judged = judged(&objects, &[], 0);
    let pod = &judged[&uid_of("web-7d9f8c6b5-tr7wd").expect("uid")];
    assert_eq!(pod.health, Health::Failing);
    let line = pod.line.as_deref().unwrap_or_default();
    assert!(
        line.starts_with("Pod shop/web-7d9f8c6b5-tr7wd cannot be scheduled"),
        "{line}"
    );
    let deployment = &judged[&uid_of("web").expect("uid")];
    assert_eq!(deployment.health, Health::Failing);
    assert_eq!(deployment.line.as_deref(), Some(line));
    // A ConfigMap has nothing to say; a ready pod neither.
    let config = &judged[&uid_of("web-config").expect("uid")];
    assert_eq!((config.health, config.line.as_deref()), (Health::Ok, None));
    let ready = &judged[&uid_of("web-7d9f8c6b5-4xk2p").expect("uid")];
    assert_eq!((ready.health, ready.line.as_deref()), (Health::Ok, None));
}
