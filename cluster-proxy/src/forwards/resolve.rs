//! Which pod and port a forward reaches now: the pod itself, or a ready pod picked behind a
//! Service or Deployment (`kube_atlas_model::api::forwards` decides), and the API's errors in
//! the words of [`ForwardError`].

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Pod, Service};
use kube::api::{Api, ListParams};
use kube::Client;
use kube_atlas_model::api::forwards::{
    container_port, pick_pod, pod_gone, selector_of, service_target_port, ForwardError, PodGone,
    PortRef, Target, TargetKind,
};
use serde_json::Value;

use crate::contexts::error_chain;

/// The pod a forward's connections go to now, and its port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub pod: String,
    pub remote_port: u16,
}

/// An API error of a request about `kind` `name` in words: a 404 names the object.
pub fn api_error(
    error: kube::Error,
    kind: TargetKind,
    namespace: &str,
    name: &str,
) -> ForwardError {
    match error {
        kube::Error::Api(status) if status.code == 404 => ForwardError::NotFound {
            kind,
            namespace: namespace.to_string(),
            name: name.to_string(),
        },
        kube::Error::Api(status) => ForwardError::Other(status.message),
        other => ForwardError::Other(error_chain(&other)),
    }
}

fn as_value<T: serde::Serialize>(object: &T) -> Value {
    serde_json::to_value(object).unwrap_or(Value::Null)
}

/// Resolves `target` in `namespace`, passing over the pods named in `excluded` (one just gone).
pub async fn resolve(
    client: &Client,
    namespace: &str,
    target: &Target,
    port: &PortRef,
    excluded: &[&str],
) -> Result<Resolved, ForwardError> {
    let name = target.name.as_str();
    let in_words = |error| api_error(error, target.kind, namespace, name);
    match target.kind {
        TargetKind::Pod => {
            let api: Api<Pod> = Api::namespaced(client.clone(), namespace);
            let pod = as_value(&api.get(name).await.map_err(in_words)?);
            if let Some(gone) = pod_gone(Some(&pod), false) {
                let phase = match gone {
                    PodGone::NotRunning { phase } => phase,
                    PodGone::Deleted | PodGone::NotReady => "Terminating".to_string(),
                };
                return Err(ForwardError::PodNotRunning {
                    namespace: namespace.to_string(),
                    name: name.to_string(),
                    phase,
                });
            }
            let remote_port = container_port(&pod, port)?;
            Ok(Resolved {
                pod: name.to_string(),
                remote_port,
            })
        }
        TargetKind::Service => {
            let api: Api<Service> = Api::namespaced(client.clone(), namespace);
            let service = as_value(&api.get(name).await.map_err(in_words)?);
            let target_port = service_target_port(&service, port)?;
            pick_behind(client, namespace, target, &service, &target_port, excluded).await
        }
        TargetKind::Deployment => {
            let api: Api<Deployment> = Api::namespaced(client.clone(), namespace);
            let deployment = as_value(&api.get(name).await.map_err(in_words)?);
            pick_behind(client, namespace, target, &deployment, port, excluded).await
        }
    }
}

/// A ready pod selected by `owner` (a Service or a Deployment), and its port for `port`.
async fn pick_behind(
    client: &Client,
    namespace: &str,
    target: &Target,
    owner: &Value,
    port: &PortRef,
    excluded: &[&str],
) -> Result<Resolved, ForwardError> {
    let no_selector = || ForwardError::NoSelector {
        kind: target.kind,
        namespace: namespace.to_string(),
        name: target.name.clone(),
    };
    let selector = selector_of(target.kind, owner)
        .map_err(ForwardError::Other)?
        .ok_or_else(no_selector)?;
    let api: Api<Pod> = Api::namespaced(client.clone(), namespace);
    let pods = api
        .list(&ListParams::default().labels(&selector))
        .await
        .map_err(|error| api_error(error, TargetKind::Pod, namespace, &selector))?;
    let pods: Vec<Value> = pods.items.iter().map(as_value).collect();
    let picked = pick_pod(&pods, excluded).ok_or_else(|| ForwardError::NoReadyPod {
        kind: target.kind,
        namespace: namespace.to_string(),
        name: target.name.clone(),
        selector: selector.clone(),
    })?;
    let remote_port = container_port(picked, port)?;
    let pod = picked
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    Ok(Resolved { pod, remote_port })
}
