//! What a pod needs to run: the ConfigMaps, Secrets and claims its volumes mount (plain and
//! projected), those its containers read as environment (`envFrom`, `env[].valueFrom`), its
//! image pull Secrets and its ServiceAccount. Workload templates name the same objects; only
//! pods are read, so each reference is drawn once, from what actually runs.

use serde_json::Value;

use super::edge::{EdgeKind, EdgeSink};
use super::graph::Index;
use super::rules::array;

const CONTAINER_LISTS: [&str; 3] = ["initContainers", "containers", "ephemeralContainers"];

/// A name field inside `parent`: `parent.<source>.<field>`.
fn name_at<'v>(parent: &'v Value, source: &str, field: &str) -> Option<&'v str> {
    parent.get(source)?.get(field)?.as_str()
}

pub(crate) fn pod_edges(index: &Index, at: usize, pod: &Value, sink: &mut EdgeSink) {
    let Some(spec) = pod.get("spec") else { return };
    let namespace = index.objects[at].namespace.as_deref();
    // The field's path is written only for a reference that names an object present.
    let mut link = |kind: &str, name: Option<&str>, edge: EdgeKind, field: &dyn Fn() -> String| {
        let name = name.filter(|n| !n.is_empty());
        if let Some(to) = name.and_then(|n| index.find(namespace, kind, n, Some(""))) {
            sink.add(at, to, edge, field());
        }
    };
    for (v, volume) in array(spec.get("volumes")).enumerate() {
        let Some(sources) = volume.as_object() else {
            continue;
        };
        // One source a volume (besides its name): read the one it has.
        for (source, _) in sources {
            let field = |rest: &str| format!("spec.volumes[{v}].{source}.{rest}");
            match source.as_str() {
                "configMap" => link(
                    "ConfigMap",
                    name_at(volume, source, "name"),
                    EdgeKind::Mounts,
                    &|| field("name"),
                ),
                "secret" => link(
                    "Secret",
                    name_at(volume, source, "secretName"),
                    EdgeKind::Mounts,
                    &|| field("secretName"),
                ),
                "persistentVolumeClaim" => link(
                    "PersistentVolumeClaim",
                    name_at(volume, source, "claimName"),
                    EdgeKind::Mounts,
                    &|| field("claimName"),
                ),
                "projected" => {
                    let projected = volume.get("projected");
                    for (s, item) in array(projected.and_then(|p| p.get("sources"))).enumerate() {
                        let field = |kind: &str| {
                            format!("spec.volumes[{v}].projected.sources[{s}].{kind}.name")
                        };
                        let (config_map, secret) = (
                            name_at(item, "configMap", "name"),
                            name_at(item, "secret", "name"),
                        );
                        link("ConfigMap", config_map, EdgeKind::Mounts, &|| {
                            field("configMap")
                        });
                        link("Secret", secret, EdgeKind::Mounts, &|| field("secret"));
                    }
                }
                _ => {}
            }
        }
    }
    for list in CONTAINER_LISTS {
        for (c, container) in array(spec.get(list)).enumerate() {
            for (e, from) in array(container.get("envFrom")).enumerate() {
                let field = |rest: &str| format!("spec.{list}[{c}].envFrom[{e}].{rest}");
                let config_map = name_at(from, "configMapRef", "name");
                let secret = name_at(from, "secretRef", "name");
                link("ConfigMap", config_map, EdgeKind::ReadsEnv, &|| {
                    field("configMapRef.name")
                });
                link("Secret", secret, EdgeKind::ReadsEnv, &|| {
                    field("secretRef.name")
                });
            }
            for (e, variable) in array(container.get("env")).enumerate() {
                let Some(from) = variable.get("valueFrom") else {
                    continue;
                };
                let field = |rest: &str| format!("spec.{list}[{c}].env[{e}].valueFrom.{rest}");
                let config_map = name_at(from, "configMapKeyRef", "name");
                let secret = name_at(from, "secretKeyRef", "name");
                link("ConfigMap", config_map, EdgeKind::ReadsEnv, &|| {
                    field("configMapKeyRef.name")
                });
                link("Secret", secret, EdgeKind::ReadsEnv, &|| {
                    field("secretKeyRef.name")
                });
            }
        }
    }
    for (s, secret) in array(spec.get("imagePullSecrets")).enumerate() {
        let name = secret.get("name").and_then(Value::as_str);
        let field = || format!("spec.imagePullSecrets[{s}].name");
        link("Secret", name, EdgeKind::PullsWith, &field);
    }
    // `serviceAccount` is the deprecated spelling the server still fills in.
    let (account, field) = match spec.get("serviceAccountName").and_then(Value::as_str) {
        Some(name) => (Some(name), "spec.serviceAccountName"),
        None => (
            spec.get("serviceAccount").and_then(Value::as_str),
            "spec.serviceAccount",
        ),
    };
    link("ServiceAccount", account, EdgeKind::RunsAs, &|| {
        field.to_string()
    });
}
