//! Waiting for a forward's pod to stop serving: deleted (or its deletion started), no longer
//! running, or (behind a Service or Deployment) no longer ready. A watch on the one pod, so the
//! forward reacts at once; when the watch breaks, the pod is read again and watched anew.

use std::time::Duration;

use futures_util::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, WatchEvent, WatchParams};
use kube_atlas_model::api::forwards::{pod_gone, PodGone};

/// How long to wait before reading the pod again after a failed request.
const RETRY_AFTER: Duration = Duration::from_secs(1);

fn gone(pod: Option<&Pod>, need_ready: bool) -> Option<PodGone> {
    let value = pod.and_then(|pod| serde_json::to_value(pod).ok());
    pod_gone(value.as_ref(), need_ready)
}

/// Resolves when pod `name` no longer serves, with why.
pub async fn until_gone(api: &Api<Pod>, name: &str, need_ready: bool) -> PodGone {
    loop {
        let pod = match api.get_opt(name).await {
            Ok(pod) => pod,
            Err(_) => {
                tokio::time::sleep(RETRY_AFTER).await;
                continue;
            }
        };
        if let Some(why) = gone(pod.as_ref(), need_ready) {
            return why;
        }
        let version = pod
            .and_then(|pod| pod.metadata.resource_version)
            .unwrap_or_default();
        let params = WatchParams::default()
            .fields(&format!("metadata.name={name}"))
            .timeout(290);
        let mut events = match api.watch(&params, &version).await {
            Ok(events) => events.boxed(),
            Err(_) => {
                tokio::time::sleep(RETRY_AFTER).await;
                continue;
            }
        };
        while let Some(event) = events.next().await {
            match event {
                Ok(WatchEvent::Added(pod) | WatchEvent::Modified(pod)) => {
                    if let Some(why) = gone(Some(&pod), need_ready) {
                        return why;
                    }
                }
                Ok(WatchEvent::Deleted(_)) => return PodGone::Deleted,
                Ok(WatchEvent::Bookmark(_)) => {}
                // An expired version or a broken stream: read the pod again.
                Ok(WatchEvent::Error(_)) | Err(_) => break,
            }
        }
    }
}
