//! batch/v1 CronJobs: defaults and kubectl's columns.

use serde_json::{json, Value};

use super::common::{default_field, default_pod_spec, ensure_object};
use super::printing::{
    age, age_of, boolean, c, count, named, or_none, s, template_cells, Col, Printer, NAME,
};
use super::Strategy;

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
    c("Schedule", 0),
    c("Timezone", 0),
    boolean("Suspend", 0),
    count("Active", 0),
    c("Last Schedule", 0),
    c("Age", 0),
    c("Containers", 1),
    c("Images", 1),
    c("Selector", 1),
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
            json!(s(&spec["schedule"])),
            or_none(s(&spec["timeZone"])),
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
