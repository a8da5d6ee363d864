//! autoscaling HorizontalPodAutoscalers, served as v2 (stored) and v1, converted as
//! kube-apiserver does: v1 has only a CPU utilization target, so what else v2 holds (other
//! metrics, behavior, conditions, current metrics) travels through v1 in annotations and
//! comes back when a v1 client writes the object back.

use serde_json::{json, Map, Value};

use crate::errors::Cause;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::{default_field, ensure_object};
use crate::registry::strategy::printing::{
    age, column, named, or_none, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::Strategy;

use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::autoscaling;

/// Discovery facts of `version` (v2 or v1).
pub(crate) fn definition(version: &str) -> ResourceDef {
    ResourceDefBuilder::new(
        "autoscaling",
        "horizontalpodautoscalers",
        "horizontalpodautoscaler",
        "HorizontalPodAutoscaler",
        true,
    )
    .short(&["hpa"])
    .all()
    .status()
    .version(version)
    .build()
}

/// The schema of the version served (v1's own type, else v2's).
pub(crate) const SCHEMA: SchemaOf = |generator, version| {
    if version == "v1" {
        schema_of::<autoscaling::v1::HorizontalPodAutoscaler>(generator)
    } else {
        schema_of::<autoscaling::v2::HorizontalPodAutoscaler>(generator)
    }
};

pub(crate) static STRATEGY: HorizontalPodAutoscalers = HorizontalPodAutoscalers;

pub struct HorizontalPodAutoscalers;

/// The version objects are stored in.
const STORED_API_VERSION: &str = "autoscaling/v2";
const METRICS: &str = "autoscaling.alpha.kubernetes.io/metrics";
const CURRENT_METRICS: &str = "autoscaling.alpha.kubernetes.io/current-metrics";
const CONDITIONS: &str = "autoscaling.alpha.kubernetes.io/conditions";
const BEHAVIOR: &str = "autoscaling.alpha.kubernetes.io/behavior";

fn served_as_v1(def: &ResourceDef) -> bool {
    def.version == "v1"
}

impl Strategy for HorizontalPodAutoscalers {
    fn default_fields(&self, obj: &mut Value) {
        let spec = ensure_object(obj, "spec");
        default_field(spec, "minReplicas", json!(1));
        let no_metrics = spec
            .get("metrics")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty);
        if no_metrics {
            spec.insert("metrics".into(), json!([cpu_target(80)]));
        }
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        let spec = &obj["spec"];
        let mut causes = vec![];
        if spec["scaleTargetRef"]["kind"]
            .as_str()
            .is_none_or(str::is_empty)
        {
            causes.push(Cause::required("spec.scaleTargetRef.kind"));
        }
        if spec["scaleTargetRef"]["name"]
            .as_str()
            .is_none_or(str::is_empty)
        {
            causes.push(Cause::required("spec.scaleTargetRef.name"));
        }
        let min = spec["minReplicas"].as_i64().unwrap_or(1);
        match spec["maxReplicas"].as_i64() {
            None => causes.push(Cause::required("spec.maxReplicas")),
            Some(max) if max < min => causes.push(Cause::invalid(
                "spec.maxReplicas",
                &max.to_string(),
                "must be greater than or equal to `minReplicas`",
            )),
            Some(_) => {}
        }
        if min < 1 {
            causes.push(Cause::invalid(
                "spec.minReplicas",
                &min.to_string(),
                "must be greater than or equal to 1",
            ));
        }
        causes
    }

    fn stored_shape(&self, def: &ResourceDef, obj: Value) -> Value {
        if served_as_v1(def) {
            v2_from_v1(obj)
        } else {
            obj
        }
    }

    fn served_shape(&self, def: &ResourceDef, obj: Value) -> Value {
        if served_as_v1(def) {
            v1_from_v2(obj)
        } else {
            obj
        }
    }

    fn reshapes(&self, def: &ResourceDef) -> bool {
        served_as_v1(def)
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(COLUMNS, cells))
    }
}

fn cpu_target(percent: i64) -> Value {
    json!({"type": "Resource", "resource": {"name": "cpu",
        "target": {"type": "Utilization", "averageUtilization": percent}}})
}

/// The CPU utilization a v2 metric targets (`target`) or reports (`current`), when it is one.
fn cpu_utilization(metric: &Value, field: &str) -> Option<i64> {
    let resource = &metric["resource"];
    let is_cpu = metric["type"] == "Resource" && resource["name"] == "cpu";
    let utilization = field == "current" || resource["target"]["type"] == "Utilization";
    if is_cpu && utilization {
        resource[field]["averageUtilization"].as_i64()
    } else {
        None
    }
}

/// Splits v2 metrics into the CPU utilization v1 can say and the rest.
fn split_cpu(metrics: &Value, field: &str) -> (Option<i64>, Vec<Value>) {
    let mut cpu = None;
    let mut rest = vec![];
    for metric in metrics.as_array().into_iter().flatten() {
        match cpu_utilization(metric, field) {
            Some(percent) if cpu.is_none() => cpu = Some(percent),
            _ => rest.push(metric.clone()),
        }
    }
    (cpu, rest)
}

fn annotate(annotations: &mut Map<String, Value>, key: &str, value: &Value) {
    let empty = value.is_null() || value.as_array().is_some_and(Vec::is_empty);
    if !empty {
        annotations.insert(key.into(), json!(value.to_string()));
    }
}

fn copy_fields(from: &Value, to: &mut Map<String, Value>, fields: &[&str]) {
    for field in fields {
        if let Some(v) = from.get(*field).filter(|v| !v.is_null()) {
            to.insert((*field).into(), v.clone());
        }
    }
}

fn v1_from_v2(mut obj: Value) -> Value {
    let spec = obj["spec"].take();
    let status = obj["status"].take();
    let mut annotations = obj["metadata"]["annotations"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut v1_spec = Map::new();
    copy_fields(
        &spec,
        &mut v1_spec,
        &["scaleTargetRef", "minReplicas", "maxReplicas"],
    );
    let (cpu, other_metrics) = split_cpu(&spec["metrics"], "target");
    if let Some(percent) = cpu {
        v1_spec.insert("targetCPUUtilizationPercentage".into(), json!(percent));
    }
    annotate(&mut annotations, METRICS, &json!(other_metrics));
    annotate(&mut annotations, BEHAVIOR, &spec["behavior"]);
    obj["spec"] = Value::Object(v1_spec);
    if status.is_object() {
        let mut v1_status = Map::new();
        copy_fields(
            &status,
            &mut v1_status,
            &[
                "observedGeneration",
                "lastScaleTime",
                "currentReplicas",
                "desiredReplicas",
            ],
        );
        // autoscaling/v1 serialises currentReplicas even when 0 (v2 omits it).
        v1_status
            .entry("currentReplicas")
            .or_insert_with(|| json!(0));
        let (cpu, other_current) = split_cpu(&status["currentMetrics"], "current");
        if let Some(percent) = cpu {
            v1_status.insert("currentCPUUtilizationPercentage".into(), json!(percent));
        }
        annotate(&mut annotations, CURRENT_METRICS, &json!(other_current));
        annotate(&mut annotations, CONDITIONS, &status["conditions"]);
        obj["status"] = Value::Object(v1_status);
    } else if let Some(m) = obj.as_object_mut() {
        m.remove("status");
    }
    if !annotations.is_empty() {
        obj["metadata"]["annotations"] = Value::Object(annotations);
    }
    obj
}

/// The annotation `key` parsed back (and removed), when a v1 object carries it.
fn take_annotation(obj: &mut Value, key: &str) -> Value {
    // Not `obj["metadata"]["annotations"]`: indexing mutably would insert a null.
    let Some(annotations) = obj
        .get_mut("metadata")
        .and_then(|meta| meta.get_mut("annotations"))
        .and_then(Value::as_object_mut)
    else {
        return Value::Null;
    };
    let taken = annotations
        .remove(key)
        .and_then(|v| v.as_str().and_then(|text| serde_json::from_str(text).ok()))
        .unwrap_or(Value::Null);
    if annotations.is_empty() {
        if let Some(meta) = obj["metadata"].as_object_mut() {
            meta.remove("annotations");
        }
    }
    taken
}

fn v2_from_v1(mut obj: Value) -> Value {
    let spec = obj["spec"].take();
    let status = obj["status"].take();
    let mut metrics: Vec<Value> = spec["targetCPUUtilizationPercentage"]
        .as_i64()
        .map(cpu_target)
        .into_iter()
        .collect();
    if let Value::Array(others) = take_annotation(&mut obj, METRICS) {
        metrics.extend(others);
    }
    let mut v2_spec = Map::new();
    copy_fields(
        &spec,
        &mut v2_spec,
        &["scaleTargetRef", "minReplicas", "maxReplicas"],
    );
    if !metrics.is_empty() {
        v2_spec.insert("metrics".into(), json!(metrics));
    }
    let behavior = take_annotation(&mut obj, BEHAVIOR);
    if !behavior.is_null() {
        v2_spec.insert("behavior".into(), behavior);
    }
    obj["spec"] = Value::Object(v2_spec);
    let current_others = take_annotation(&mut obj, CURRENT_METRICS);
    let conditions = take_annotation(&mut obj, CONDITIONS);
    if status.is_object() {
        let mut v2_status = Map::new();
        copy_fields(
            &status,
            &mut v2_status,
            &[
                "observedGeneration",
                "lastScaleTime",
                "currentReplicas",
                "desiredReplicas",
            ],
        );
        let mut current: Vec<Value> = status["currentCPUUtilizationPercentage"]
            .as_i64()
            .map(|percent| {
                json!({"type": "Resource", "resource": {"name": "cpu",
                    "current": {"averageUtilization": percent}}})
            })
            .into_iter()
            .collect();
        if let Value::Array(others) = current_others {
            current.extend(others);
        }
        if !current.is_empty() {
            v2_status.insert("currentMetrics".into(), json!(current));
        }
        if !conditions.is_null() {
            v2_status.insert("conditions".into(), conditions);
        }
        obj["status"] = Value::Object(v2_status);
    } else if let Some(m) = obj.as_object_mut() {
        m.remove("status");
    }
    obj["apiVersion"] = json!(STORED_API_VERSION);
    obj
}

const COLUMNS: &[Col] = &[
    NAME,
    column("Reference", 0),
    column("Targets", 0),
    column("MinPods", 0),
    column("MaxPods", 0),
    column("Replicas", 0),
    column("Age", 0),
];

/// kubectl's TARGETS: `cpu: 50%/80%` per metric, `<unknown>` before the first reading.
fn targets(spec: &Value, status: &Value) -> String {
    let current = status["currentMetrics"].as_array();
    let shown: Vec<String> = spec["metrics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|metric| {
            let name = value_text(&metric["resource"]["name"]);
            let target = &metric["resource"]["target"];
            let (want, unit) = match target["averageUtilization"].as_i64() {
                Some(percent) => (percent.to_string(), "%"),
                None => (value_text(&target["averageValue"]), ""),
            };
            let reading = current
                .into_iter()
                .flatten()
                .find(|c| c["resource"]["name"] == metric["resource"]["name"])
                .and_then(|c| c["resource"]["current"]["averageUtilization"].as_i64())
                .map_or("<unknown>".to_string(), |p| format!("{p}{unit}"));
            format!("{name}: {reading}/{want}{unit}")
        })
        .collect();
    shown.join(", ")
}

fn cells(o: &Value) -> Vec<Value> {
    // Tables of autoscaling/v1 print the same columns from the v2 shape.
    let v2;
    let o = if o["apiVersion"] == "autoscaling/v1" {
        v2 = v2_from_v1(o.clone());
        &v2
    } else {
        o
    };
    let (spec, st) = (&o["spec"], &o["status"]);
    let target = &spec["scaleTargetRef"];
    named(
        o,
        [
            json!(format!(
                "{}/{}",
                value_text(&target["kind"]),
                value_text(&target["name"])
            )),
            or_none(targets(spec, st)),
            spec["minReplicas"].clone(),
            spec["maxReplicas"].clone(),
            json!(st["currentReplicas"].as_i64().unwrap_or(0)),
            age(o),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kinds::builtin_resources;

    fn hpa_def(version: &str) -> ResourceDef {
        builtin_resources()
            .into_iter()
            .find(|d| {
                d.group == "autoscaling"
                    && d.resource == "horizontalpodautoscalers"
                    && d.version == version
            })
            .unwrap()
    }

    fn hpa() -> Value {
        json!({"apiVersion": "autoscaling/v2", "metadata": {"name": "web"}, "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 2, "maxReplicas": 10,
            "metrics": [
                {"type": "Resource", "resource": {"name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 50}}},
                {"type": "Resource", "resource": {"name": "memory",
                    "target": {"type": "AverageValue", "averageValue": "500Mi"}}}]},
            "status": {"currentReplicas": 3, "desiredReplicas": 3, "currentMetrics": [
                {"type": "Resource", "resource": {"name": "cpu",
                    "current": {"averageUtilization": 30}}}]}})
    }

    #[test]
    fn defaults_target_80_percent_cpu_from_one_replica() {
        let mut bare = json!({"metadata": {"name": "web"}, "spec": {
            "scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5}});
        HorizontalPodAutoscalers.default_fields(&mut bare);
        assert_eq!(bare["spec"]["minReplicas"], 1);
        assert_eq!(
            bare["spec"]["metrics"],
            json!([{"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 80}}}])
        );
        let mut given = hpa();
        HorizontalPodAutoscalers.default_fields(&mut given);
        assert_eq!(given, hpa());
    }

    #[test]
    fn validation_needs_a_target_and_a_max_not_below_the_min() {
        let fields = |obj: &Value| -> Vec<String> {
            HorizontalPodAutoscalers
                .validate(obj)
                .into_iter()
                .map(|c| c.field)
                .collect()
        };
        assert!(fields(&hpa()).is_empty());
        let mut inverted = hpa();
        inverted["spec"]["maxReplicas"] = json!(1);
        assert_eq!(fields(&inverted), ["spec.maxReplicas"]);
        let mut zero = hpa();
        zero["spec"]["minReplicas"] = json!(0);
        assert_eq!(fields(&zero), ["spec.minReplicas"]);
        let empty = json!({"metadata": {"name": "web"}, "spec": {}});
        assert_eq!(
            fields(&empty),
            [
                "spec.scaleTargetRef.kind",
                "spec.scaleTargetRef.name",
                "spec.maxReplicas"
            ]
        );
    }

    #[test]
    fn v1_clients_see_the_cpu_target_and_write_back_the_rest() {
        let v1 = hpa_def("v1");
        assert!(HorizontalPodAutoscalers.reshapes(&v1));
        assert!(!HorizontalPodAutoscalers.reshapes(&hpa_def("v2")));
        let served = HorizontalPodAutoscalers.served_shape(&v1, hpa());
        assert_eq!(served["spec"]["targetCPUUtilizationPercentage"], 50);
        assert!(served["spec"].get("metrics").is_none());
        assert_eq!(served["status"]["currentCPUUtilizationPercentage"], 30);
        assert!(served["metadata"]["annotations"][METRICS]
            .as_str()
            .unwrap()
            .contains("500Mi"));
        let mut written = served;
        written["apiVersion"] = json!("autoscaling/v1");
        let stored = HorizontalPodAutoscalers.stored_shape(&v1, written);
        assert_eq!(stored["apiVersion"], "autoscaling/v2");
        assert_eq!(stored["spec"], hpa()["spec"]);
        assert!(stored["metadata"].get("annotations").is_none());
    }

    #[test]
    fn the_printer_shows_reference_targets_and_replicas() {
        let row = cells(&hpa());
        assert_eq!(
            row[..6],
            [
                json!("web"),
                json!("Deployment/web"),
                json!("cpu: 30%/50%, memory: <unknown>/500Mi"),
                json!(2),
                json!(10),
                json!(3)
            ]
        );
        let mut fresh = hpa();
        fresh["status"] = json!({});
        assert_eq!(
            cells(&fresh)[2],
            "cpu: <unknown>/50%, memory: <unknown>/500Mi"
        );
    }
}
