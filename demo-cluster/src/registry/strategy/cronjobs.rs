//! batch/v1 CronJobs: defaults and kubectl's columns.

use serde_json::{json, Value};

use super::common::{default_field, ensure_object};
use super::printing::{
    age, age_of, c, count, named, or_none, s, template_cells, Col, Printer, NAME,
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
    c("Suspend", 0),
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
            json!(spec["suspend"].as_bool().unwrap_or(false).to_string()),
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
