//! What a pod needs to run: the ConfigMaps, Secrets and claims its volumes mount (plain and
//! projected), those its containers read as environment (`envFrom`, `env[].valueFrom`), its
//! image pull Secrets and its ServiceAccount. Workload templates name the same objects; only
//! pods are read, so each reference is drawn once, from what actually runs.

use serde_json::Value;

use super::edge::{EdgeKind, EdgeSink};
use super::graph::Index;
use super::rules::array;
use crate::object::pointer::Pointer;

const CONTAINER_LISTS: [&str; 3] = ["initContainers", "containers", "ephemeralContainers"];

pub(crate) fn pod_edges(index: &Index, at: usize, pod: &Value, sink: &mut EdgeSink) {
    let namespace = index.objects[at].namespace.as_deref();
    let mut link = |kind: &str, name: Option<&Value>, edge: EdgeKind, field: String| {
        let name = name.and_then(Value::as_str).filter(|n| !n.is_empty());
        if let Some(to) = name.and_then(|n| index.find(namespace, kind, n, Some(""))) {
            sink.add(at, to, edge, field);
        }
    };
    for (v, volume) in array(pod.at("/spec/volumes")).enumerate() {
        let field = format!("spec.volumes[{v}]");
        link(
            "ConfigMap",
            volume.at("/configMap/name"),
            EdgeKind::Mounts,
            format!("{field}.configMap.name"),
        );
        link(
            "Secret",
            volume.at("/secret/secretName"),
            EdgeKind::Mounts,
            format!("{field}.secret.secretName"),
        );
        link(
            "PersistentVolumeClaim",
            volume.at("/persistentVolumeClaim/claimName"),
            EdgeKind::Mounts,
            format!("{field}.persistentVolumeClaim.claimName"),
        );
        for (s, source) in array(volume.at("/projected/sources")).enumerate() {
            let field = format!("{field}.projected.sources[{s}]");
            link(
                "ConfigMap",
                source.at("/configMap/name"),
                EdgeKind::Mounts,
                format!("{field}.configMap.name"),
            );
            link(
                "Secret",
                source.at("/secret/name"),
                EdgeKind::Mounts,
                format!("{field}.secret.name"),
            );
        }
    }
    for list in CONTAINER_LISTS {
        for (c, container) in array(pod.at(&format!("/spec/{list}"))).enumerate() {
            let field = format!("spec.{list}[{c}]");
            for (e, from) in array(container.get("envFrom")).enumerate() {
                let field = format!("{field}.envFrom[{e}]");
                link(
                    "ConfigMap",
                    from.at("/configMapRef/name"),
                    EdgeKind::ReadsEnv,
                    format!("{field}.configMapRef.name"),
                );
                link(
                    "Secret",
                    from.at("/secretRef/name"),
                    EdgeKind::ReadsEnv,
                    format!("{field}.secretRef.name"),
                );
            }
            for (e, variable) in array(container.get("env")).enumerate() {
                let field = format!("{field}.env[{e}].valueFrom");
                link(
                    "ConfigMap",
                    variable.at("/valueFrom/configMapKeyRef/name"),
                    EdgeKind::ReadsEnv,
                    format!("{field}.configMapKeyRef.name"),
                );
                link(
                    "Secret",
                    variable.at("/valueFrom/secretKeyRef/name"),
                    EdgeKind::ReadsEnv,
                    format!("{field}.secretKeyRef.name"),
                );
            }
        }
    }
    for (s, secret) in array(pod.at("/spec/imagePullSecrets")).enumerate() {
        link(
            "Secret",
            secret.get("name"),
            EdgeKind::PullsWith,
            format!("spec.imagePullSecrets[{s}].name"),
        );
    }
    // `serviceAccount` is the deprecated spelling the server still fills in.
    let (account, field) = match pod.at("/spec/serviceAccountName") {
        Some(name) => (Some(name), "spec.serviceAccountName"),
        None => (pod.at("/spec/serviceAccount"), "spec.serviceAccount"),
    };
    link(
        "ServiceAccount",
        account,
        EdgeKind::RunsAs,
        field.to_string(),
    );
}
