//! The day-two actions (issue #48) held to kube-apiserver: the requests the model builds
//! (`kube_atlas_model::edit::actions`, compared with kubectl's own in the model's fixtures)
//! are sent to a real control plane (etcd, kube-apiserver, kube-controller-manager,
//! kube-scheduler and the stand-in kubelet: the real controllers are the oracle) and to a
//! demo cluster with its controllers, and what each answers and sets in motion is compared:
//! evictions with and without a blocking PodDisruptionBudget (status code, reason, message,
//! causes), the disruption controller's PDB status, the restartedAt rollout (a new
//! ReplicaSet), a Job triggered from a CronJob (it runs, with kubectl's annotation and owner),
//! a Job re-run, suspend, cordon and uncordon.

use std::future::Future;
use std::time::{Duration, Instant};

use demo_cluster::Config;
use kube::Client;
use kube_atlas_model::api::request::ApiRequest;
use kube_atlas_model::edit::actions::{Action, ActionOptions, Target, INSTANTIATE_ANNOTATION};
use serde_json::{json, Value};

mod common;

use common::raw::{self, Reply};

const NS: &str = "day-two";
/// The real side's controllers and stand-in kubelet poll; both sides get this long.
const PATIENCE: Duration = Duration::from_secs(120);

/// A client of `url` that answers a 429 as it comes (kube's client would retry it: an
/// eviction a budget refuses is the answer under test).
fn client_for(url: &str) -> Client {
    let mut config = kube::Config::new(url.parse().expect("server URL"));
    config.read_timeout = Some(Duration::from_secs(60));
    config.default_retry = false;
    Client::try_from(config).expect("kube client")
}

async fn send(client: &Client, request: &ApiRequest) -> Reply {
    let mut builder = http::Request::builder()
        .method(request.method())
        .uri(request.url())
        .header("accept", "application/json");
    if let Some(content_type) = request.content_type() {
        builder = builder.header("content-type", content_type);
    }
    let body = request.body.clone().unwrap_or_default().into_bytes();
    raw::send(
        client,
        builder,
        body,
        &format!("{} {}", request.method(), request.url()),
    )
    .await
}

async fn get(client: &Client, path: &str) -> Value {
    let reply = send(client, &ApiRequest::get(path)).await;
    assert_eq!(reply.status, 200, "GET {path}: {}", reply.text());
    reply.json()
}

async fn create(client: &Client, path: &str, object: Value) -> Value {
    let reply = send(client, &ApiRequest::create(path, object.to_string())).await;
    assert_eq!(reply.status, 201, "POST {path}: {}", reply.text());
    reply.json()
}

/// Polls `probe` until it gives a value, failing after [`PATIENCE`] with `what`.
async fn eventually<T, F, Fut>(what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let start = Instant::now();
    loop {
        if let Some(value) = probe().await {
            return value;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "{what}: not within {PATIENCE:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// A list's items, each with the list's kind (a list's items carry none).
fn items(list: &Value) -> Vec<Value> {
    let kind = list["kind"]
        .as_str()
        .and_then(|k| k.strip_suffix("List"))
        .unwrap_or_default();
    let mut items = list["items"].as_array().cloned().unwrap_or_default();
    for item in &mut items {
        item["apiVersion"] = list["apiVersion"].clone();
        item["kind"] = json!(kind);
    }
    items
}

fn ready(pod: &Value) -> bool {
    pod["status"]["conditions"].as_array().is_some_and(|c| {
        c.iter()
            .any(|c| c["type"] == "Ready" && c["status"] == "True")
    }) && pod["metadata"]["deletionTimestamp"].is_null()
}

async fn ready_pods(client: &Client, selector: &str) -> Vec<Value> {
    let path = format!("/api/v1/namespaces/{NS}/pods?labelSelector={selector}");
    items(&get(client, &path).await)
        .into_iter()
        .filter(ready)
        .collect()
}

/// What one side answered and did, to be compared with the other's.
async fn run_actions(client: &Client) -> Value {
    let mut seen = serde_json::Map::new();
    let options = ActionOptions::named("kube-atlas");
    create(
        client,
        "/api/v1/namespaces",
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}),
    )
    .await;
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": NS},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}}}});
    let deployment = create(
        client,
        &format!("/apis/apps/v1/namespaces/{NS}/deployments"),
        deployment,
    )
    .await;
    let pods = eventually("2 ready web pods", || async {
        Some(ready_pods(client, "app%3Dweb").await).filter(|p| p.len() == 2)
    })
    .await;

    // A budget that allows no disruption (minAvailable = replicas).
    let budgets = format!("/apis/policy/v1/namespaces/{NS}/poddisruptionbudgets");
    create(
        client,
        &budgets,
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "web-pdb", "namespace": NS},
        "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}}),
    )
    .await;
    let status = |generation: i64| {
        let path = format!("{budgets}/web-pdb");
        async move {
            eventually("the disruption controller's status", || {
                let path = path.clone();
                async move {
                    let budget = get(client, &path).await;
                    let s = &budget["status"];
                    (s["observedGeneration"] == generation && s["expectedPods"] == 2).then(|| {
                        json!({"currentHealthy": s["currentHealthy"], "desiredHealthy": s["desiredHealthy"],
                               "expectedPods": s["expectedPods"], "disruptionsAllowed": s["disruptionsAllowed"],
                               "observedGeneration": s["observedGeneration"]})
                    })
                }
            })
            .await
        }
    };
    seen.insert("budget status, minAvailable 2".into(), status(1).await);
    let victim = Target::of(&pods[0]).expect("a pod");
    let evict = Action::Evict
        .request(&victim, &pods[0], &options)
        .expect("evict applies to pods");
    let refused = send(client, &evict).await;
    seen.insert(
        "eviction refused by the budget".into(),
        json!({"code": refused.status, "body": refused.json()}),
    );

    // Relaxed: the same eviction goes through.
    let relax = ApiRequest::patch(
        &format!("{budgets}/web-pdb"),
        kube_atlas_model::api::request::PatchType::Merge,
        json!({"spec": {"minAvailable": 1}}).to_string(),
    );
    assert_eq!(send(client, &relax).await.status, 200);
    seen.insert("budget status, minAvailable 1".into(), status(2).await);
    let allowed = send(client, &evict).await;
    seen.insert(
        "eviction allowed by the budget".into(),
        json!({"code": allowed.status, "body": allowed.json()}),
    );
    let evicted_uid = pods[0]["metadata"]["uid"].clone();
    eventually("the evicted pod goes", || async {
        let path = format!("/api/v1/namespaces/{NS}/pods/{}", victim.name);
        let reply = send(client, &ApiRequest::get(&path)).await;
        let gone = reply.status == 404
            || reply.json()["metadata"]["uid"] != evicted_uid
            || !reply.json()["metadata"]["deletionTimestamp"].is_null();
        gone.then_some(())
    })
    .await;

    // A pod no budget selects is evicted at once.
    create(
        client,
        &format!("/api/v1/namespaces/{NS}/pods"),
        json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "lonely", "namespace": NS, "labels": {"app": "lonely"}},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}),
    )
    .await;
    let lonely = eventually("lonely ready", || async {
        ready_pods(client, "app%3Dlonely").await.pop()
    })
    .await;
    let lonely_target = Target::of(&lonely).expect("a pod");
    let reply = send(
        client,
        &Action::Evict
            .request(&lonely_target, &lonely, &options)
            .expect("a pod"),
    )
    .await;
    seen.insert(
        "eviction without a budget".into(),
        json!({"code": reply.status, "body": reply.json()}),
    );
    let mut dry = lonely_target.clone();
    dry.name = "no-such-pod".into();
    let reply = send(
        client,
        &Action::Evict
            .request(&dry, &Value::Null, &options)
            .expect("a pod"),
    )
    .await;
    seen.insert("eviction of a missing pod".into(), json!({"code": reply.status, "reason": reply.json()["reason"], "message": reply.json()["message"]}));

    // Restart: the restartedAt template annotation rolls a new ReplicaSet.
    let web = Target::of(&deployment).expect("a deployment");
    let restart = Action::restart(1_796_617_368_000.0);
    let reply = send(
        client,
        &restart
            .request(&web, &deployment, &options)
            .expect("restart applies"),
    )
    .await;
    seen.insert(
        "restart".into(),
        json!({"code": reply.status,
        "annotation": reply.json()["spec"]["template"]["metadata"]["annotations"]}),
    );
    let rolled = eventually("a new ReplicaSet with the annotation", || async {
        let list = get(
            client,
            &format!("/apis/apps/v1/namespaces/{NS}/replicasets?labelSelector=app%3Dweb"),
        )
        .await;
        let sets = items(&list);
        let annotated = sets
            .iter()
            .filter(|rs| {
                rs["spec"]["template"]["metadata"]["annotations"]
                    ["kubectl.kubernetes.io/restartedAt"]
                    == "2026-12-07T04:22:48Z"
            })
            .count();
        (sets.len() == 2 && annotated == 1)
            .then(|| json!({"replicaSets": sets.len(), "annotated": annotated}))
    })
    .await;
    seen.insert("restart rolled".into(), rolled);

    // Trigger now: the Job kubectl makes from a CronJob, and it runs.
    let cronjob = create(client, &format!("/apis/batch/v1/namespaces/{NS}/cronjobs"), json!({
        "apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly", "namespace": NS},
        "spec": {"schedule": "0 3 * * *", "jobTemplate": {"metadata": {"labels": {"team": "ops"}},
            "spec": {"template": {"spec": {"restartPolicy": "OnFailure",
                "containers": [{"name": "run", "image": "busybox", "command": ["true"]}]}}}}}})).await;
    let nightly = Target::of(&cronjob).expect("a cronjob");
    let trigger = Action::Trigger {
        job_name: "nightly-manual-abcde".into(),
    };
    let reply = send(
        client,
        &trigger
            .request(&nightly, &cronjob, &options)
            .expect("trigger applies"),
    )
    .await;
    let job = reply.json();
    seen.insert(
        "trigger".into(),
        json!({"code": reply.status,
        "annotations": job["metadata"]["annotations"], "labels": job["metadata"]["labels"]["team"],
        "owner": {"kind": job["metadata"]["ownerReferences"][0]["kind"],
                  "controller": job["metadata"]["ownerReferences"][0]["controller"]}}),
    );
    eventually("the manual Job's pod", || async {
        let path =
            format!("/api/v1/namespaces/{NS}/pods?labelSelector=job-name%3Dnightly-manual-abcde");
        (!items(&get(client, &path).await).is_empty()).then_some(())
    })
    .await;
    assert_eq!(
        job["metadata"]["annotations"][INSTANTIATE_ANNOTATION],
        "manual"
    );

    // Re-run: a copy of the Job without the controller's selector and labels runs too.
    let live_job = get(
        client,
        &format!("/apis/batch/v1/namespaces/{NS}/jobs/nightly-manual-abcde"),
    )
    .await;
    let job_target = Target::of(&live_job).expect("a job");
    let rerun = Action::Rerun {
        job_name: "nightly-rerun-fghij".into(),
    };
    let reply = send(
        client,
        &rerun
            .request(&job_target, &live_job, &options)
            .expect("rerun applies"),
    )
    .await;
    seen.insert("rerun".into(), json!({"code": reply.status,
        "selectorIsItsOwn": reply.json()["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"] == reply.json()["metadata"]["uid"]}));
    eventually("the re-run Job's pod", || async {
        let path =
            format!("/api/v1/namespaces/{NS}/pods?labelSelector=job-name%3Dnightly-rerun-fghij");
        (!items(&get(client, &path).await).is_empty()).then_some(())
    })
    .await;

    // Suspend, cordon, uncordon.
    let reply = send(
        client,
        &Action::Suspend
            .request(&nightly, &cronjob, &options)
            .expect("suspend"),
    )
    .await;
    seen.insert(
        "suspend".into(),
        json!({"code": reply.status, "suspend": reply.json()["spec"]["suspend"]}),
    );
    let nodes = items(&get(client, "/api/v1/nodes").await);
    let node = Target::of(&nodes[0]).expect("a node");
    let reply = send(
        client,
        &Action::Cordon
            .request(&node, &nodes[0], &options)
            .expect("cordon"),
    )
    .await;
    seen.insert(
        "cordon".into(),
        json!({"code": reply.status, "unschedulable": reply.json()["spec"]["unschedulable"]}),
    );
    let reply = send(
        client,
        &Action::Uncordon
            .request(&node, &nodes[0], &options)
            .expect("uncordon"),
    )
    .await;
    seen.insert(
        "uncordon".into(),
        json!({"code": reply.status, "unschedulable": reply.json()["spec"]["unschedulable"]}),
    );
    Value::Object(seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup`"
)]
async fn day_two_actions_do_on_the_demo_cluster_what_they_do_on_kube_apiserver() {
    let plane = envtest::ControlPlane::start(envtest::Options {
        controllers: true,
        nodes: 2,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let scratch = tempfile::tempdir().expect("scratch");
    let proxy = envtest::KubectlProxy::start(&plane.admin_kubeconfig(), None, scratch.path())
        .unwrap_or_else(|e| panic!("{e}"));
    let demo = common::start_on_own_runtime(Config {
        listen: "127.0.0.1:0".parse().expect("loopback address"),
        empty: true,
        controllers: true,
        speed: 20.0,
        ..Config::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let real = run_actions(&client_for(&proxy.url())).await;
    let demo = run_actions(&client_for(&demo)).await;
    let (real_map, demo_map) = (
        real.as_object().expect("map"),
        demo.as_object().expect("map"),
    );
    let mut differences = Vec::new();
    for (what, real_seen) in real_map {
        if demo_map.get(what) != Some(real_seen) {
            differences.push(format!(
                "{what}:\n  kube-apiserver: {real_seen}\n  demo cluster:   {}",
                demo_map.get(what).unwrap_or(&Value::Null)
            ));
        }
    }
    assert!(
        differences.is_empty(),
        "the demo cluster differs:\n{}",
        differences.join("\n")
    );
    // What was compared, for the log.
    println!(
        "{}",
        serde_json::to_string_pretty(&real).unwrap_or_default()
    );
    drop(proxy);
    drop(plane);
}
