use serde_json::{json, Value};

use crate::object::workload_logs::coverage::{PodCoverage, PodRule, WorkloadKind};

fn workload(kind: &str, spec: Value) -> Value {
    json!({"kind": kind, "metadata": {"name": "web", "namespace": "shop", "uid": "w-1"},
           "spec": spec})
}

fn pod(namespace: &str, labels: Value) -> Value {
    json!({"kind": "Pod", "metadata": {"name": "p", "namespace": namespace, "labels": labels}})
}

#[test]
fn controllers_cover_the_pods_their_selector_matches() {
    let selector = json!({
        "matchLabels": {"app": "web"},
        "matchExpressions": [{"key": "track", "operator": "NotIn", "values": ["canary"]}],
    });
    for kind in [
        "Deployment",
        "StatefulSet",
        "DaemonSet",
        "ReplicaSet",
        "Job",
    ] {
        let coverage = PodCoverage::of(&workload(kind, json!({"selector": selector})));
        assert_eq!(coverage.kind, WorkloadKind::from_kind(kind));
        assert_eq!(
            coverage.label_selector().as_deref(),
            Some("app=web,track notin (canary)"),
            "{kind}"
        );
        assert_eq!(coverage.pods_path(), "/api/v1/namespaces/shop/pods");
        assert!(coverage.covers(&pod("shop", json!({"app": "web"}))));
        assert!(coverage.covers(&pod("shop", json!({"app": "web", "track": "stable"}))));
        assert!(!coverage.covers(&pod("shop", json!({"app": "web", "track": "canary"}))));
        assert!(!coverage.covers(&pod("shop", json!({"app": "api"}))));
        assert!(
            !coverage.covers(&pod("other", json!({"app": "web"}))),
            "another namespace"
        );
        assert_eq!(coverage.nothing_reason(), None);
        assert_eq!(coverage.jobs_watch(), None);
    }
}

#[test]
fn a_selector_that_cannot_select_covers_nothing_and_says_why() {
    let cases = [
        (
            workload("Deployment", json!({})),
            "This Deployment has no selector",
        ),
        (
            workload("ReplicaSet", json!({"selector": {}})),
            "This ReplicaSet's selector is empty",
        ),
        (
            workload(
                "Job",
                json!({"selector": {"matchExpressions": [{"key": "a", "operator": "Near"}]}}),
            ),
            "This Job's selector is not valid: `a` has an unknown operator `Near`",
        ),
        (workload("ConfigMap", json!({})), "not for a ConfigMap"),
    ];
    for (object, why) in cases {
        let coverage = PodCoverage::of(&object);
        let reason = coverage.nothing_reason().unwrap_or_default();
        assert!(reason.contains(why), "{reason:?} should say {why:?}");
        assert_eq!(coverage.label_selector(), None, "nothing to watch");
        assert!(!coverage.covers(&pod("shop", json!({"app": "web"}))));
    }
}

#[test]
fn a_service_covers_its_selector_and_without_one_nothing() {
    let service = PodCoverage::of(&workload("Service", json!({"selector": {"app": "web"}})));
    assert_eq!(service.label_selector().as_deref(), Some("app=web"));
    assert!(service.covers(&pod(
        "shop",
        json!({"app": "web", "pod-template-hash": "x"})
    )));
    assert!(!service.covers(&pod("shop", json!({}))));
    for spec in [json!({"type": "ExternalName"}), json!({"selector": {}})] {
        let manual = PodCoverage::of(&workload("Service", spec));
        let reason = manual.nothing_reason().unwrap_or_default();
        assert!(
            reason.starts_with("This Service has no selector"),
            "{reason}"
        );
        assert_eq!(manual.label_selector(), None);
    }
}

#[test]
fn a_cron_job_covers_the_pods_of_the_jobs_it_owns() {
    let cron_job = workload(
        "CronJob",
        json!({"jobTemplate": {
            "metadata": {"labels": {"team": "data"}},
            "spec": {"template": {"metadata": {"labels": {"app": "backup"}}}},
        }}),
    );
    let mut coverage = PodCoverage::of(&cron_job);
    assert!(matches!(coverage.rule, PodRule::JobsOf { .. }));
    assert_eq!(coverage.label_selector().as_deref(), Some("app=backup"));
    assert_eq!(
        coverage.jobs_watch(),
        Some((
            "/apis/batch/v1/namespaces/shop/jobs".to_string(),
            "team=data".to_string()
        ))
    );
    let owned_by = |uid: &str, owner: &str| {
        json!({"metadata": {"name": uid, "namespace": "shop", "uid": uid, "labels": {"app": "backup"},
               "ownerReferences": [{"kind": "X", "name": "x", "uid": owner, "controller": true}]}})
    };
    let jobs = [
        owned_by("job-1", "w-1"),
        owned_by("job-2", "w-1"),
        owned_by("job-9", "other"),
    ];
    let run_pod = owned_by("pod-1", "job-1");
    // Before its Jobs are known, no pod is the CronJob's.
    assert!(!coverage.covers(&run_pod));
    assert!(coverage.set_jobs(&jobs));
    assert!(!coverage.set_jobs(&jobs), "the same Jobs: no change");
    assert!(coverage.covers(&run_pod));
    assert!(coverage.covers(&owned_by("pod-2", "job-2")));
    assert!(
        !coverage.covers(&owned_by("pod-9", "job-9")),
        "another CronJob's Job"
    );
    assert!(
        !coverage.covers(&owned_by("pod-x", "w-1")),
        "owned by the CronJob itself"
    );
    // A Job deleted (history limit): its pods leave with it.
    assert!(coverage.set_jobs(&jobs[1..]));
    assert!(!coverage.covers(&run_pod));
    // Jobs only matter to a CronJob.
    let mut deployment = PodCoverage::of(&workload(
        "Deployment",
        json!({"selector": {"matchLabels": {"a": "b"}}}),
    ));
    assert!(!deployment.set_jobs(&jobs));
}

#[test]
fn a_label_selector_covers_the_pods_it_matches_in_its_namespace() {
    let chosen = PodCoverage::of_label_selector("shop", "app=web,tier!=db");
    assert_eq!(chosen.label_selector().as_deref(), Some("app=web,tier!=db"));
    assert!(chosen.covers(&pod("shop", json!({"app": "web"}))));
    assert!(!chosen.covers(&pod("shop", json!({"app": "web", "tier": "db"}))));
    assert!(!chosen.covers(&pod("other", json!({"app": "web"}))));
    let empty = PodCoverage::of_label_selector("shop", "  ");
    assert!(empty.nothing_reason().is_some());
    assert!(!empty.covers(&pod("shop", json!({"app": "web"}))));
    let broken = PodCoverage::of_label_selector("shop", "app in (web");
    assert!(
        broken
            .nothing_reason()
            .is_some_and(|why| why.starts_with("Not a label selector")),
        "{broken:?}"
    );
}
