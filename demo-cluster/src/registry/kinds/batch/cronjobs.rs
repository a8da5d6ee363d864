//! batch/v1 CronJobs: defaults and kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::{default_field, default_pod_spec, ensure_object};
use crate::registry::strategy::printing::{
    age, age_of, boolean, column, count, named, or_none, template_cells, value_text, Col, Printer,
    NAME,
};
use crate::registry::strategy::Strategy;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::batch::v1::CronJob;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("batch", "cronjobs", "cronjob", "CronJob", true)
        .short(&["cj"])
        .workload()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<CronJob>(generator);

pub(crate) static STRATEGY: CronJobs = CronJobs;

pub struct CronJobs;

impl Strategy for CronJobs {
    fn default_fields(&self, obj: &mut Value) {
        let spec = ensure_object(obj, "spec");
        default_field(spec, "concurrencyPolicy", json!("Allow"));
        default_field(spec, "suspend", json!(false));
        default_field(spec, "successfulJobsHistoryLimit", json!(3));
        default_field(spec, "failedJobsHistoryLimit", json!(1));
        if let Some(job_template) = obj["spec"]["jobTemplate"].as_object_mut() {
            default_field(job_template, "metadata", json!({}));
        }
        let template = &mut obj["spec"]["jobTemplate"]["spec"]["template"];
        if template["spec"].is_object() {
            if let Some(t) = template.as_object_mut() {
                default_field(t, "metadata", json!({}));
            }
            default_pod_spec(&mut template["spec"]);
        }
    }

    fn printer(&self) -> Option<Printer> {
        Some(PRINTER)
    }
}

const PRINTER: Printer = Printer::new(COLUMNS, cells);

const COLUMNS: &[Col] = &[
    NAME,
    column("Schedule", 0),
    column("Timezone", 0),
    boolean("Suspend", 0),
    count("Active", 0),
    column("Last Schedule", 0),
    column("Age", 0),
    column("Containers", 1),
    column("Images", 1),
    column("Selector", 1),
];

fn cells(o: &Value) -> Vec<Value> {
    let (spec, st) = (&o["spec"], &o["status"]);
    let active = st["active"].as_array().map(Vec::len).unwrap_or(0);
    let last = if st["lastScheduleTime"].is_string() {
        age_of(&st["lastScheduleTime"])
    } else {
        json!("<none>")
    };
    let mut cells = named(
        o,
        [
            json!(value_text(&spec["schedule"])),
            or_none(value_text(&spec["timeZone"])),
            // kube-apiserver's printBoolPtr: `True`, `False`, or `<unset>`.
            json!(match spec["suspend"].as_bool() {
                Some(true) => "True",
                Some(false) => "False",
                None => "<unset>",
            }),
            json!(active),
            last,
            age(o),
        ],
    );
    cells.extend(template_cells(
        &spec["jobTemplate"]["spec"]["template"]["spec"],
    ));
    cells.push(json!("<none>"));
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_allow_concurrency_and_keep_some_history() {
        let mut cron = json!({"metadata": {"name": "hello"},
            "spec": {"schedule": "*/5 * * * *", "concurrencyPolicy": "Forbid"}});
        CronJobs.default_fields(&mut cron);
        let spec = &cron["spec"];
        assert_eq!(spec["concurrencyPolicy"], "Forbid");
        assert_eq!(spec["suspend"], false);
        assert_eq!(spec["successfulJobsHistoryLimit"], 3);
        assert_eq!(spec["failedJobsHistoryLimit"], 1);
    }

    #[test]
    fn the_printer_shows_schedule_active_jobs_and_the_job_template() {
        let cron = json!({"metadata": {"name": "hello"}, "spec": {
            "schedule": "*/5 * * * *", "timeZone": "Etc/UTC",
            "jobTemplate": {"spec": {"template": {"spec": {
                "containers": [{"name": "hello", "image": "busybox:1.36"}]}}}}},
            "status": {"active": [{"name": "hello-1"}, {"name": "hello-2"}]}});
        let names: Vec<&str> = COLUMNS.iter().map(|c| c.name).collect();
        assert_eq!(
            names[..6],
            [
                "Name",
                "Schedule",
                "Timezone",
                "Suspend",
                "Active",
                "Last Schedule"
            ]
        );
        let row = cells(&cron);
        assert_eq!(
            row[..3],
            [json!("hello"), json!("*/5 * * * *"), json!("Etc/UTC")]
        );
        assert_eq!(row[3], json!("<unset>"));
        assert_eq!(row[4..6], [json!(2), json!("<none>")]);
        let mut suspended = cron.clone();
        suspended["spec"]["suspend"] = json!(true);
        assert_eq!(cells(&suspended)[3], json!("True"));
        assert_eq!(row[7..9], [json!("hello"), json!("busybox:1.36")]);
        let bare = json!({"metadata": {"name": "x"}, "spec": {"schedule": "@daily"}});
        assert_eq!(cells(&bare)[2], "<none>");
    }
}
