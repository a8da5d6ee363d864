//! The actions' reducers and plans: a drain's progress, bulk plans with permissions, and
//! bulk results folded per object. (What each action sends is compared with kubectl's
//! recorded requests in `model/tests/actions_fixtures.rs`.)

use serde_json::{json, Value};

use super::*;
use crate::api::errors::ApiError;
use crate::api::request::PropagationPolicy;
use crate::permissions::{Permissions, RulesReview};

fn pod(name: &str, uid: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "default", "uid": uid},
           "spec": {"nodeName": "node-1"}})
}

fn target(object: &Value) -> Target {
    Target::of(object).expect("a built-in kind")
}

/// kube-apiserver's 429, as recorded from `kubectl drain` (drain-node.json).
fn budget_refusal() -> ApiError {
    ApiError::from_response(
        429,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests","details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget web-pdb needs 2 healthy pods and has 2 currently"}]},"code":429}"#,
    )
}

#[test]
fn a_budget_refusal_is_retried_with_backoff_never_forced_and_named() {
    let web = target(&pod("web-1", "u1"));
    let db = target(&pod("db-0", "u2"));
    let mut drain = DrainProgress::start("node-1", vec![web.clone(), db.clone()]);
    assert_eq!(drain.due(0.0), vec![web.clone(), db.clone()]);
    assert_eq!(drain.due(0.0), vec![], "nothing is sent twice");
    drain.answered(&web, Err(&budget_refusal()), 1_000.0);
    drain.answered(&db, Ok(()), 1_000.0);
    assert_eq!(drain.pods[1].1, PodProgress::Evicted);
    let PodProgress::RefusedByBudget {
        budget,
        retry_at,
        attempt,
        message,
        ..
    } = &drain.pods[0].1
    else {
        panic!("refused: {:?}", drain.pods[0].1);
    };
    assert_eq!(budget.as_deref(), Some("web-pdb"));
    assert_eq!(
        message,
        "Cannot evict pod as it would violate the pod's disruption budget."
    );
    assert_eq!(
        (*attempt, retry_at.ms()),
        (1, 6_000.0),
        "kubectl's 5 s first"
    );
    drain.note_budgets(&[
        json!({"metadata": {"name": "web-pdb", "namespace": "default"},
                                "status": {"disruptionsAllowed": 0}}),
    ]);
    assert!(matches!(
        drain.pods[0].1,
        PodProgress::RefusedByBudget {
            disruptions_allowed: Some(0),
            ..
        }
    ));
    assert_eq!(drain.next_wake().map(|t| t.ms()), Some(6_000.0));
    assert_eq!(drain.due(5_999.0), vec![]);
    assert_eq!(drain.due(6_000.0), vec![web.clone()]);
    drain.answered(&web, Err(&budget_refusal()), 6_000.0);
    let PodProgress::RefusedByBudget {
        attempt: 2,
        retry_at,
        ..
    } = drain.pods[0].1
    else {
        panic!("refused again: {:?}", drain.pods[0].1);
    };
    assert_eq!(retry_at.ms(), 16_000.0, "the pause doubles");
    // db-0 leaves the watch: gone. web-1 is still there.
    drain.observe_pods(&[pod("web-1", "u1")]);
    assert_eq!(drain.pods[1].1, PodProgress::Gone);
    assert!(!drain.is_finished());
    // Stop: nothing more is sent, and the summary names what remains.
    let summary = drain.stop();
    assert_eq!(drain.due(1e9), vec![]);
    assert_eq!(drain.next_wake(), None);
    assert_eq!(
        summary.sentence(),
        "Stopped: node-1 stays cordoned; 1 pod remains: default/web-1 (refused by budget web-pdb)."
    );
}

#[test]
fn other_answers_settle_or_retry_each_pod_on_its_own() {
    let pods: Vec<Target> = ["a", "b", "c", "d"]
        .iter()
        .map(|n| target(&pod(n, n)))
        .collect();
    let mut drain = DrainProgress::start("node-1", pods.clone());
    drain.due(0.0);
    let forbidden = ApiError::from_response(
        403,
        r#"{"kind":"Status","message":"pods \"b\" is forbidden","reason":"Forbidden","code":403}"#,
    );
    let throttled = ApiError::from_response(
        429,
        r#"{"kind":"Status","message":"Too many requests, please try again later.","reason":"TooManyRequests","code":429,"details":{"retryAfterSeconds":30}}"#,
    );
    let not_found = ApiError::from_response(
        404,
        r#"{"kind":"Status","message":"pods \"a\" not found","reason":"NotFound","code":404}"#,
    );
    drain.answered(&pods[0], Err(&not_found), 0.0);
    drain.answered(&pods[1], Err(&forbidden), 0.0);
    drain.answered(&pods[2], Err(&throttled), 0.0);
    drain.answered(&pods[3], Ok(()), 0.0);
    assert_eq!(drain.pods[0].1, PodProgress::Gone);
    assert_eq!(
        drain.pods[1].1,
        PodProgress::Failed {
            reason: "pods \"b\" is forbidden".into()
        }
    );
    let PodProgress::Retrying { retry_at, .. } = drain.pods[2].1 else {
        panic!("retrying: {:?}", drain.pods[2].1);
    };
    assert_eq!(retry_at.ms(), 30_000.0, "Retry-After is honoured");
    // A StatefulSet pod recreated under the same name is another pod: the evicted one is gone.
    drain.observe_pods(&[pod("c", "c"), pod("d", "d-new")]);
    assert_eq!(drain.pods[3].1, PodProgress::Gone);
    drain.due(30_000.0);
    drain.answered(&pods[2], Ok(()), 30_000.0);
    drain.observe_pods(&[]);
    assert!(drain.is_finished());
}

fn rules(rules: Value) -> Permissions {
    let mut permissions = Permissions::default();
    let review =
        RulesReview::from_answer(&json!({"status": {"resourceRules": rules}})).expect("rules");
    permissions.record_rules("default", review);
    permissions
}

#[test]
fn a_bulk_plan_says_per_object_what_applies_and_what_the_user_may_not_do() {
    let pods: Vec<(Target, Value)> = (1..=12)
        .map(|i| {
            let object = pod(&format!("p{i}"), &format!("u{i}"));
            (target(&object), object)
        })
        .collect();
    // A Role naming only 10 of the 12 pods.
    let names: Vec<String> = (1..=10).map(|i| format!("p{i}")).collect();
    let permissions = rules(
        json!([{"verbs": ["delete"], "apiGroups": [""], "resources": ["pods"], "resourceNames": names},
                                    {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}]),
    );
    let delete = Action::Delete {
        propagation: PropagationPolicy::Background,
    };
    let plan = plan_bulk(
        &delete,
        &pods,
        &permissions,
        &ActionOptions::named("kube-atlas"),
    );
    assert_eq!(plan.requests().len(), 10);
    assert_eq!(
        plan.denial_sentence().as_deref(),
        Some("2 of 12 you may not delete")
    );
    assert_eq!(
        plan.objects[11].verdict,
        Verdict::Denied("You may not delete pods \"p12\" in namespace default.".into())
    );
    assert_eq!(plan.objects[0].kubectl, "kubectl delete pod/p1 -n default");
    // Restart does not apply to pods: nothing is sent, and no bar offers it.
    let restart = plan_bulk(
        &Action::Restart { at: "t".into() },
        &pods,
        &permissions,
        &ActionOptions::kubectl(),
    );
    assert_eq!(restart.not_applicable(), 12);
    assert!(!restart.sends_anything());
    assert_eq!(
        bar_actions(&["Pod", "Pod"]),
        [
            BarAction::Delete,
            BarAction::Label,
            BarAction::Annotate,
            BarAction::Evict
        ]
    );
    assert_eq!(
        bar_actions(&["Deployment", "StatefulSet"]),
        [
            BarAction::Delete,
            BarAction::Label,
            BarAction::Annotate,
            BarAction::Restart,
            BarAction::Scale
        ]
    );
    assert_eq!(bar_actions(&["Node"]).last(), Some(&BarAction::Uncordon));
    assert!(bar_actions(&[]).is_empty());
}

#[test]
fn labels_that_would_need_overwrite_or_are_missing_do_not_apply() {
    let mut object = pod("p", "u");
    object["metadata"]["labels"] = json!({"tier": "backend"});
    let selected = vec![(target(&object), object)];
    let all = Permissions::default();
    let options = ActionOptions::kubectl();
    let add = Action::Label(MetadataEdit::Add {
        key: "tier".into(),
        value: "frontend".into(),
    });
    let plan = plan_bulk(&add, &selected, &all, &options);
    assert_eq!(
        plan.objects[0].verdict,
        Verdict::NotApplicable(
            "'tier' already has a value (backend), and --overwrite is false".into()
        )
    );
    let same = Action::Label(MetadataEdit::Add {
        key: "tier".into(),
        value: "backend".into(),
    });
    assert_eq!(
        plan_bulk(&same, &selected, &all, &options).requests().len(),
        1
    );
    let remove = Action::Annotate(MetadataEdit::Remove {
        key: "owner".into(),
    });
    assert_eq!(
        plan_bulk(&remove, &selected, &all, &options).objects[0].verdict,
        Verdict::NotApplicable("annotation \"owner\" not found.".into())
    );
}

#[test]
fn results_fold_per_object_never_stop_and_retry_a_conflict_once_from_the_latest() {
    let objects: Vec<(Target, Value)> = ["d", "a", "b", "c"]
        .iter()
        .map(|n| {
            let mut object = pod(n, n);
            object["metadata"]["labels"] = json!({"tier": "old"});
            (target(&object), object)
        })
        .collect();
    let label = Action::Label(MetadataEdit::Add {
        key: "team".into(),
        value: "ops".into(),
    });
    let permissions = rules(
        json!([{"verbs": ["patch"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a", "b", "c"]}]),
    );
    let options = ActionOptions::named("kube-atlas");
    let plan = plan_bulk(&label, &objects, &permissions, &options);
    let mut run = BulkRun::start(&plan, &options);
    let sent = run.to_send();
    assert_eq!(
        sent.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
        [1, 2, 3],
        "the denied first object stops nothing"
    );
    let refused = ApiError::from_response(
        422,
        r#"{"kind":"Status","message":"metadata.labels: Invalid value","reason":"Invalid","code":422}"#,
    );
    let conflict = ApiError::from_response(
        409,
        r#"{"kind":"Status","message":"the object has been modified","reason":"Conflict","code":409}"#,
    );
    run.answered(1, Err(&refused));
    run.answered(2, Err(&conflict));
    run.answered(3, Ok(()));
    assert_eq!(run.summary(), "1 done, 2 refused, 1 under way");
    assert_eq!(run.needing_latest().len(), 1);
    // The latest has the label already with another value: no longer applies.
    let mut latest = objects[2].1.clone();
    latest["metadata"]["labels"]["team"] = json!("dev");
    run.latest(2, Ok(&latest));
    assert!(run.is_finished());
    assert_eq!(
        run.refused()
            .iter()
            .map(|(t, m)| (t.name.as_str(), *m))
            .collect::<Vec<_>>(),
        [
            ("d", "You may not patch pods \"d\" in namespace default."),
            ("a", "metadata.labels: Invalid value"),
            (
                "b",
                "'team' already has a value (dev), and --overwrite is false"
            ),
        ]
    );
}

#[test]
fn a_second_conflict_is_a_refusal() {
    let object = pod("a", "a");
    let selected = vec![(target(&object), object.clone())];
    let options = ActionOptions::kubectl();
    let plan = plan_bulk(&Action::Evict, &selected, &Permissions::default(), &options);
    let mut run = BulkRun::start(&plan, &options);
    let conflict = ApiError::from_response(
        409,
        r#"{"kind":"Status","message":"the object has been modified","reason":"Conflict","code":409}"#,
    );
    run.to_send();
    run.answered(0, Err(&conflict));
    run.latest(0, Ok(&object));
    assert_eq!(run.to_send().len(), 1, "sent once more");
    run.answered(0, Err(&conflict));
    assert_eq!(
        run.items[0].result,
        ObjectResult::Refused {
            code: Some(409),
            message: "the object has been modified".into()
        }
    );
}

#[test]
fn each_action_says_its_kubectl_command_and_permission() {
    let deploy = target(
        &json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"}}),
    );
    let node = target(&json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}}));
    let cronjob = target(
        &json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly", "namespace": "default"}}),
    );
    let job = target(
        &json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "once", "namespace": "default"}}),
    );
    let p = target(&pod("p", "p"));
    let cases: Vec<(Action, &Target, &str)> = vec![
        (
            Action::Restart { at: "t".into() },
            &deploy,
            "kubectl rollout restart deployment/web -n default",
        ),
        (
            Action::Pause,
            &deploy,
            "kubectl rollout pause deployment/web -n default",
        ),
        (
            Action::Scale { replicas: 3 },
            &deploy,
            "kubectl scale deployment/web -n default --replicas=3",
        ),
        (
            Action::Suspend,
            &cronjob,
            r#"kubectl patch cronjob/nightly -n default -p '{"spec":{"suspend":true}}'"#,
        ),
        (
            Action::Trigger {
                job_name: "nightly-manual-x7k2p".into(),
            },
            &cronjob,
            "kubectl create job nightly-manual-x7k2p --from=cronjob/nightly -n default",
        ),
        (Action::Cordon, &node, "kubectl cordon node-1"),
        (Action::Uncordon, &node, "kubectl uncordon node-1"),
        (
            Action::Delete {
                propagation: PropagationPolicy::Foreground,
            },
            &p,
            "kubectl delete pod/p -n default --cascade=foreground",
        ),
        (
            Action::Label(MetadataEdit::Change {
                key: "a".into(),
                value: "b c".into(),
            }),
            &p,
            "kubectl label pod/p -n default 'a=b c' --overwrite",
        ),
        (
            Action::Annotate(MetadataEdit::Remove { key: "a".into() }),
            &p,
            "kubectl annotate pod/p -n default a-",
        ),
        (
            Action::Evict,
            &p,
            r#"kubectl create --raw /api/v1/namespaces/default/pods/p/eviction -f - <<< '{"kind":"Eviction","apiVersion":"policy/v1","metadata":{"name":"p","namespace":"default","creationTimestamp":null},"deleteOptions":{}}'"#,
        ),
    ];
    for (action, target, command) in cases {
        assert_eq!(action.kubectl(target), command, "{action:?}");
    }
    let rerun = Action::Rerun {
        job_name: "once-rerun-a".into(),
    }
    .kubectl(&job);
    assert!(
        rerun.starts_with("kubectl get job/once -n default -o json | jq 'del(.status, "),
        "{rerun}"
    );
    assert!(
        rerun.ends_with(r#".metadata.name = "once-rerun-a"' | kubectl create -f -"#),
        "{rerun}"
    );
    let question = |action: Action, target: &Target| {
        let q = action.question(target);
        (q.verb.clone(), q.group.clone(), q.resource_phrase(), q.name)
    };
    assert_eq!(
        question(Action::Evict, &p),
        (
            "create".into(),
            "".into(),
            "pods/eviction".into(),
            "p".into()
        )
    );
    assert_eq!(
        question(Action::Scale { replicas: 1 }, &deploy),
        (
            "patch".into(),
            "apps".into(),
            "deployments/scale".into(),
            "web".into()
        )
    );
    assert_eq!(
        question(
            Action::Trigger {
                job_name: "x".into()
            },
            &cronjob
        ),
        ("create".into(), "batch".into(), "jobs".into(), "".into())
    );
    assert_eq!(question(Action::Cordon, &node).2, "nodes");
}

#[test]
fn the_dry_run_gives_refusals_in_the_servers_words() {
    let pods: Vec<(Target, Value)> = (1..=4)
        .map(|i| {
            let object = pod(&format!("p{i}"), &format!("u{i}"));
            (target(&object), object)
        })
        .collect();
    let permissions = rules(
        json!([{"verbs": ["delete"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["p1", "p2", "p3"]}]),
    );
    let delete = Action::Delete {
        propagation: PropagationPolicy::Orphan,
    };
    let options = ActionOptions::kubectl();
    let mut plan = plan_bulk(&delete, &pods, &permissions, &options);
    let dry_runs = plan.dry_runs();
    assert_eq!(
        dry_runs.len(),
        4,
        "the denied one is asked too, for the server's words"
    );
    assert_eq!(dry_runs[0].1.query_value("dryRun"), Some("All"));
    // In the body too: kube-apiserver ignores a DELETE's query options when it has a body.
    assert_eq!(
        dry_runs[0].1.body.as_deref(),
        Some(r#"{"propagationPolicy":"Orphan","dryRun":["All"]}"#)
    );
    let eviction = plan_bulk(
        &Action::Evict,
        &pods[..1],
        &Permissions::default(),
        &options,
    );
    let body: Value =
        serde_json::from_str(eviction.dry_runs()[0].1.body.as_deref().unwrap_or_default())
            .unwrap_or_default();
    assert_eq!(body["deleteOptions"], json!({"dryRun": ["All"]}));
    assert_eq!(
        eviction.requests()[0]
            .1
            .body
            .as_deref()
            .map(|b| b.contains("dryRun")),
        Some(false)
    );
    assert!(!plan.checked());
    let forbidden = ApiError::from_response(
        403,
        r#"{"kind":"Status","message":"pods \"p4\" is forbidden: User \"viewer\" cannot delete resource \"pods\"","reason":"Forbidden","code":403}"#,
    );
    let gone = ApiError::from_response(
        404,
        r#"{"kind":"Status","message":"pods \"p2\" not found","reason":"NotFound","code":404}"#,
    );
    plan.dry_run_answered(0, Ok(()));
    plan.dry_run_answered(1, Err(&gone));
    plan.dry_run_answered(2, Ok(()));
    plan.dry_run_answered(3, Err(&forbidden));
    assert!(plan.checked());
    assert_eq!(plan.objects[0].checked, DryRun::Passed);
    assert_eq!(
        plan.objects[1].verdict,
        Verdict::NotApplicable("pods \"p2\" not found".into())
    );
    assert_eq!(
        plan.objects[3].verdict,
        Verdict::Denied(
            "pods \"p4\" is forbidden: User \"viewer\" cannot delete resource \"pods\"".into()
        )
    );
    assert_eq!(plan.requests().len(), 2);
    assert_eq!(plan.requests()[0].1.query_value("dryRun"), None);
    let run = BulkRun::start(&plan, &options);
    assert_eq!(
        run.refused()[1].1,
        "pods \"p4\" is forbidden: User \"viewer\" cannot delete resource \"pods\""
    );
}

#[test]
fn the_bar_disables_an_action_only_when_no_selected_object_allows_it() {
    let pods: Vec<Target> = ["a", "b"].iter().map(|n| target(&pod(n, n))).collect();
    let some = rules(
        json!([{"verbs": ["delete"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["b"]}]),
    );
    assert_eq!(bar_denial(BarAction::Delete, &pods, |q| some.may(q)), None);
    let reason = bar_denial(BarAction::Evict, &pods, |q| some.may(q));
    assert_eq!(
        reason.as_deref(),
        Some("You may not evict any of the 2 selected: You may not create pods/eviction \"a\" in namespace default.")
    );
    assert_eq!(
        bar_denial(BarAction::Delete, &pods[..1], |q| some.may(q)).as_deref(),
        Some("You may not delete pods \"a\" in namespace default.")
    );
    assert_eq!(bar_denial(BarAction::Delete, &[], |q| some.may(q)), None);
}
