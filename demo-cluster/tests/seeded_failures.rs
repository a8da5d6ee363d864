//! The seeded cluster's namespace `troubled` shows the classic reasons a workload is not
//! ready, in the words the real components use (kube-scheduler's and the kubelet's as they
//! are in v1.36, the PersistentVolume controller's): pods that cannot be scheduled, an image
//! that does not exist, a readiness probe that fails, a claim that waits for its first pod.
//! The dashboard's diagnosis reads these, so its demo must show them as a real cluster does.

use std::time::Duration;

use k8s_openapi::api::core::v1::{Event, PersistentVolumeClaim, Pod};
use kube::api::{Api, ListParams};
use kube::Client;
use serde_json::Value;

mod common;

use common::PATIENCE;

const NAMESPACE: &str = "troubled";

/// The pods and Event objects of the namespace, as JSON.
struct Namespace {
    pods: Vec<Value>,
    events: Vec<Value>,
}

impl Namespace {
    async fn read(client: &Client) -> Namespace {
        Namespace {
            pods: list_json(&Api::<Pod>::namespaced(client.clone(), NAMESPACE)).await,
            events: list_json(&Api::<Event>::namespaced(client.clone(), NAMESPACE)).await,
        }
    }

    /// The pods of Deployment `app` (by its `app` label).
    fn pods_of(&self, app: &str) -> Vec<&Value> {
        self.pods
            .iter()
            .filter(|p| p["metadata"]["labels"]["app"] == app)
            .collect()
    }

    /// The Events about `pod` with `reason`.
    fn events_about(&self, pod: &Value, reason: &str) -> Vec<&Value> {
        self.events
            .iter()
            .filter(|e| e["involvedObject"]["uid"] == pod["metadata"]["uid"])
            .filter(|e| e["reason"] == reason)
            .collect()
    }
}

/// Every object `api` lists, as JSON (none while the server does not answer).
async fn list_json<K>(api: &Api<K>) -> Vec<Value>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + serde::Serialize + std::fmt::Debug,
{
    api.list(&ListParams::default())
        .await
        .map(|list| {
            list.items
                .iter()
                .filter_map(|item| serde_json::to_value(item).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Reads the namespace until `settled` says what it waits for is there (and returns that),
/// failing with `what` after [`PATIENCE`].
async fn until<T>(client: &Client, what: &str, settled: impl Fn(&Namespace) -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let namespace = Namespace::read(client).await;
        if let Some(found) = settled(&namespace) {
            return found;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}; pods: {:#?}",
            namespace.pods
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn condition<'a>(pod: &'a Value, type_: &str) -> Option<&'a Value> {
    pod["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == type_)
}

fn first_container_status(pod: &Value) -> &Value {
    &pod["status"]["containerStatuses"][0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pods_whose_node_selector_no_node_matches_are_unschedulable_in_kube_schedulers_words() {
    let (cluster, client) = common::start_fast(false).await;
    // kube-scheduler v1.36 on three nodes of which none has the label.
    let expected = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. \
                    no new claims to deallocate, preemption: 0/3 nodes are available: \
                    3 Preemption is not helpful for scheduling.";
    let (pods, events) = until(&client, "two unschedulable gpu-trainer pods", |ns| {
        let pods = ns.pods_of("gpu-trainer");
        let reported = pods.iter().all(|p| {
            condition(p, "PodScheduled").is_some_and(|c| c["message"] == expected)
                && !ns.events_about(p, "FailedScheduling").is_empty()
        });
        (pods.len() == 2 && reported).then(|| {
            let events: Vec<Value> = pods
                .iter()
                .flat_map(|p| ns.events_about(p, "FailedScheduling"))
                .cloned()
                .collect();
            (pods.into_iter().cloned().collect::<Vec<_>>(), events)
        })
    })
    .await;
    for pod in &pods {
        assert_eq!(pod["status"]["phase"], "Pending");
        assert!(pod["spec"]["nodeName"].is_null(), "{pod:#}");
        let scheduled = condition(pod, "PodScheduled").expect("PodScheduled");
        assert_eq!(scheduled["status"], "False");
        assert_eq!(scheduled["reason"], "Unschedulable");
        assert_eq!(
            scheduled["observedGeneration"],
            pod["metadata"]["generation"]
        );
    }
    for event in &events {
        assert_eq!(event["type"], "Warning");
        assert_eq!(event["message"], expected);
        // Written through events.k8s.io/v1, as kube-scheduler's recorder does.
        assert_eq!(event["reportingComponent"], "default-scheduler");
        assert_eq!(event["action"], "Scheduling");
    }
    cluster.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_that_does_not_exist_goes_from_err_image_pull_to_image_pull_back_off() {
    let (cluster, client) = common::start_fast(false).await;
    let image = "ghcr.io/kube-atlas/billing:doesnotexist";
    let not_found = format!(
        "rpc error: code = NotFound desc = failed to pull and unpack image \"{image}\": \
         failed to resolve reference \"{image}\": {image}: not found"
    );
    let (pod, events) = until(&client, "billing in ImagePullBackOff", |ns| {
        let pod = *ns.pods_of("billing").first()?;
        let waiting = &first_container_status(pod)["state"]["waiting"];
        let events: Vec<(String, String, String)> = ns
            .events
            .iter()
            .filter(|e| e["involvedObject"]["uid"] == pod["metadata"]["uid"])
            .map(|e| {
                let text = |k: &str| e[k].as_str().unwrap_or_default().to_string();
                (text("type"), text("reason"), text("message"))
            })
            .collect();
        let backed_off = events.iter().any(|(_, reason, _)| reason == "BackOff");
        (waiting["reason"] == "ImagePullBackOff" && backed_off).then(|| (pod.clone(), events))
    })
    .await;
    assert_eq!(pod["status"]["phase"], "Pending");
    let status = first_container_status(&pod);
    // Never pulled: reported as the spec names it, not started, no container.
    assert_eq!(status["image"], image);
    assert_eq!(status["imageID"], "");
    assert_eq!(status["started"], false);
    assert!(status["containerID"].is_null(), "{status:#}");
    assert_eq!(
        status["state"]["waiting"]["message"],
        format!("Back-off pulling image \"{image}\": ErrImagePull: {not_found}")
    );
    let ready = condition(&pod, "Ready").expect("Ready");
    assert_eq!(
        (&ready["status"], &ready["reason"]),
        (&Value::from("False"), &Value::from("ContainersNotReady"))
    );
    // The sandbox is up (it has an IP) before the pull fails.
    assert!(pod["status"]["podIP"].is_string(), "{pod:#}");
    let has = |type_: &str, reason: &str, message: &str| {
        events
            .iter()
            .any(|e| e.0 == type_ && e.1 == reason && e.2 == message)
    };
    // The real kubelet's Events: the image manager's, then the container manager's.
    assert!(
        has("Normal", "Pulling", &format!("Pulling image \"{image}\"")),
        "{events:#?}"
    );
    assert!(
        has(
            "Warning",
            "Failed",
            &format!("Failed to pull image \"{image}\": {not_found}")
        ),
        "{events:#?}"
    );
    assert!(
        has("Warning", "Failed", "Error: ErrImagePull"),
        "{events:#?}"
    );
    // The pull back-off is a Normal Event (the image manager logs it as information).
    assert!(
        has(
            "Normal",
            "BackOff",
            &format!("Back-off pulling image \"{image}\"")
        ),
        "{events:#?}"
    );
    assert!(
        has("Warning", "Failed", "Error: ImagePullBackOff"),
        "{events:#?}"
    );
    cluster.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_readiness_probe_keeps_a_running_pod_unready_with_unhealthy_events() {
    let (cluster, client) = common::start_fast(false).await;
    let (pod, unhealthy) = until(&client, "checkout probed twice", |ns| {
        let pod = *ns.pods_of("checkout").first()?;
        let unhealthy = (*ns.events_about(pod, "Unhealthy").first()?).clone();
        (pod["status"]["phase"] == "Running" && unhealthy["count"].as_i64()? >= 2)
            .then(|| (pod.clone(), unhealthy))
    })
    .await;
    let status = first_container_status(&pod);
    assert!(status["state"]["running"].is_object(), "{status:#}");
    assert_eq!(
        (&status["started"], &status["ready"]),
        (&true.into(), &false.into())
    );
    let ready = condition(&pod, "Ready").expect("Ready");
    assert_eq!(ready["status"], "False");
    assert_eq!(ready["reason"], "ContainersNotReady");
    assert_eq!(
        ready["message"],
        "containers with unready status: [checkout]"
    );
    assert_eq!(unhealthy["type"], "Warning");
    assert_eq!(
        unhealthy["message"],
        "Readiness probe failed: HTTP probe failed with statuscode: 503"
    );
    assert_eq!(unhealthy["source"]["component"], "kubelet");
    assert_eq!(
        unhealthy["involvedObject"]["fieldPath"],
        "spec.containers{checkout}"
    );
    cluster.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_of_a_wait_for_first_consumer_class_without_a_pod_stays_pending() {
    let (cluster, client) = common::start_fast(false).await;
    let claims: Api<PersistentVolumeClaim> = Api::namespaced(client.clone(), NAMESPACE);
    let waiting = until(&client, "the claim's WaitForFirstConsumer Event", |ns| {
        ns.events
            .iter()
            .find(|e| {
                e["involvedObject"]["name"] == "uploads" && e["reason"] == "WaitForFirstConsumer"
            })
            .cloned()
    })
    .await;
    assert_eq!(waiting["type"], "Normal");
    assert_eq!(
        waiting["message"],
        "waiting for first consumer to be created before binding"
    );
    assert_eq!(
        waiting["source"]["component"],
        "persistentvolume-controller"
    );
    assert_eq!(waiting["involvedObject"]["kind"], "PersistentVolumeClaim");
    let claim =
        serde_json::to_value(claims.get("uploads").await.expect("the claim")).expect("claim JSON");
    assert_eq!(claim["status"]["phase"], "Pending");
    assert!(claim["spec"]["volumeName"].is_null(), "{claim:#}");
    cluster.shutdown().await.expect("shutdown");
}
