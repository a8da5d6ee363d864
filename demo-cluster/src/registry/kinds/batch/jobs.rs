//! batch/v1 Jobs: defaults, a selector generated from the uid, selector and pod template
//! fixed at creation, kubectl's columns, completed rows marked.

use serde_json::{json, Value};

use crate::errors::Cause;
use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::{
    default_field, default_template, ensure_object, immutable_fields,
};
use crate::registry::strategy::printing::{
    age, column, fraction, int, job_duration, named, selector_string, template_cells, Col, Printer,
    NAME,
};
use crate::registry::strategy::{CreateContext, Strategy};
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::batch::v1::Job;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("batch", "jobs", "job", "Job", true)
        .workload()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<Job>(generator);

pub(crate) static STRATEGY: Jobs = Jobs;

pub struct Jobs;

impl Strategy for Jobs {
    fn field_selectors(&self) -> &'static [&'static str] {
        &["status.successful"]
    }

    fn default_fields(&self, obj: &mut Value) {
        let spec = ensure_object(obj, "spec");
        default_field(spec, "parallelism", json!(1));
        default_field(spec, "completions", json!(1));
        default_field(spec, "backoffLimit", json!(6));
        default_field(spec, "completionMode", json!("NonIndexed"));
        default_field(spec, "suspend", json!(false));
        // Failed only with a pod failure policy (kube-apiserver's defaults).
        let replacement = if spec.contains_key("podFailurePolicy") {
            "Failed"
        } else {
            "TerminatingOrFailed"
        };
        default_field(spec, "podReplacementPolicy", json!(replacement));
        default_template(obj);
    }

    fn prepare_for_create(&self, obj: &mut Value, _: &CreateContext) {
        generate_selector(obj);
        // As kube-apiserver: a Job without labels of its own takes its pod template's
        // (which now carry the generated controller-uid and job-name labels).
        let labels = &obj["metadata"]["labels"];
        if labels.as_object().is_none_or(|l| l.is_empty()) {
            let template_labels = obj["spec"]["template"]["metadata"]["labels"].clone();
            if template_labels.is_object() {
                obj["metadata"]["labels"] = template_labels;
            }
        }
    }

    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        immutable_fields(old, new, &[&["spec", "selector"], &["spec", "template"]])
    }

    fn printer(&self) -> Option<Printer> {
        Some(PRINTER)
    }

    fn row_conditions(&self, obj: &Value) -> Option<Value> {
        complete(obj).then(|| json!([{"type": "Completed", "status": "True"}]))
    }
}

fn complete(obj: &Value) -> bool {
    int(&obj["status"]["succeeded"]) >= obj["spec"]["completions"].as_i64().unwrap_or(1)
}

/// kube-apiserver's Job strategy: unless `spec.manualSelector`, the selector is generated from
/// the Job's uid and the template gets the matching labels (both the old and the new keys).
fn generate_selector(obj: &mut Value) {
    if obj["spec"]["manualSelector"].as_bool() == Some(true) || !obj["spec"]["selector"].is_null() {
        return;
    }
    let (Some(uid), Some(name)) = (
        obj["metadata"]["uid"].as_str().map(String::from),
        obj["metadata"]["name"].as_str().map(String::from),
    ) else {
        return;
    };
    obj["spec"]["selector"] = json!({"matchLabels": {"batch.kubernetes.io/controller-uid": uid}});
    obj["spec"]["manualSelector"] = json!(false);
    if !obj["spec"]["template"].is_object() {
        return;
    }
    let meta = ensure_object(&mut obj["spec"]["template"], "metadata");
    if !meta.get("labels").is_some_and(Value::is_object) {
        meta.insert("labels".into(), json!({}));
    }
    if let Some(labels) = obj["spec"]["template"]["metadata"]["labels"].as_object_mut() {
        for (k, v) in [
            ("batch.kubernetes.io/controller-uid", &uid),
            ("batch.kubernetes.io/job-name", &name),
            ("controller-uid", &uid),
            ("job-name", &name),
        ] {
            labels.insert(k.into(), json!(v));
        }
    }
}

const PRINTER: Printer = Printer::new(COLUMNS, cells);

const COLUMNS: &[Col] = &[
    NAME,
    column("Status", 0),
    column("Completions", 0),
    column("Duration", 0),
    column("Age", 0),
    column("Containers", 1),
    column("Images", 1),
    column("Selector", 1),
];

fn cells(o: &Value) -> Vec<Value> {
    let (spec, st) = (&o["spec"], &o["status"]);
    let succeeded = int(&st["succeeded"]);
    let status = if complete(o) {
        "Complete"
    } else if int(&st["failed"]) > 0 {
        "Failed"
    } else {
        "Running"
    };
    let completions = spec["completions"].as_i64().unwrap_or(1);
    let mut cells = named(
        o,
        [
            json!(status),
            fraction(succeeded, completions),
            json!(job_duration(st)),
            age(o),
        ],
    );
    cells.extend(template_cells(&spec["template"]["spec"]));
    cells.push(json!(selector_string(&spec["selector"])));
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    fn created_job() -> Value {
        let mut job = json!({
            "metadata": {"name": "pi", "uid": "1234"},
            "spec": {"template": {"spec": {"restartPolicy": "Never",
                "containers": [{"name": "pi", "image": "perl:5.34"}]}}},
        });
        Jobs.default_fields(&mut job);
        let ctx = CreateContext::without_service_ips();
        Jobs.prepare_for_create(&mut job, &ctx);
        job
    }

    #[test]
    fn create_generates_the_selector_and_template_labels_from_the_uid() {
        let job = created_job();
        let spec = &job["spec"];
        assert_eq!(
            spec["selector"],
            json!({"matchLabels": {"batch.kubernetes.io/controller-uid": "1234"}})
        );
        let labels = &spec["template"]["metadata"]["labels"];
        assert_eq!(labels["batch.kubernetes.io/job-name"], "pi");
        assert_eq!(labels["controller-uid"], "1234");
        assert_eq!(labels["job-name"], "pi");
        assert_eq!(spec["backoffLimit"], 6);
        assert_eq!(spec["completionMode"], "NonIndexed");
        assert_eq!(spec["template"]["spec"]["restartPolicy"], "Never");

        let mut manual = json!({"metadata": {"name": "q", "uid": "9"},
            "spec": {"manualSelector": true, "template": {}}});
        let ctx = CreateContext::without_service_ips();
        Jobs.prepare_for_create(&mut manual, &ctx);
        assert!(manual["spec"]["selector"].is_null());
    }

    #[test]
    fn the_template_and_selector_are_immutable() {
        let old = created_job();
        let mut new = old.clone();
        new["spec"]["template"]["spec"]["containers"][0]["image"] = json!("perl:5.36");
        let fields: Vec<String> = Jobs
            .validate_update(&old, &new)
            .into_iter()
            .map(|c| c.field)
            .collect();
        assert_eq!(fields, ["spec.template"]);
        let mut suspended = old.clone();
        suspended["spec"]["suspend"] = json!(true);
        assert!(Jobs.validate_update(&old, &suspended).is_empty());
    }

    #[test]
    fn the_printer_shows_status_and_completions_and_marks_complete_rows() {
        let mut job = created_job();
        job["spec"]["completions"] = json!(2);
        job["status"] = json!({"active": 1, "succeeded": 1});
        let row = cells(&job);
        assert_eq!(row[..3], [json!("pi"), json!("Running"), json!("1/2")]);
        assert_eq!(row[7], "batch.kubernetes.io/controller-uid=1234");
        assert_eq!(Jobs.row_conditions(&job), None);
        job["status"] = json!({"succeeded": 2, "startTime": "2024-01-01T00:00:00Z",
            "completionTime": "2024-01-01T00:01:30Z"});
        let row = cells(&job);
        assert_eq!(row[1..4], [json!("Complete"), json!("2/2"), json!("90s")]);
        assert_eq!(
            Jobs.row_conditions(&job),
            Some(json!([{"type": "Completed", "status": "True"}]))
        );
        job["status"] = json!({"failed": 7});
        assert_eq!(cells(&job)[1], "Failed");
    }
}
