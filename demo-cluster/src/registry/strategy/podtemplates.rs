//! core/v1 PodTemplates: kubectl's columns (the template's containers, images and labels).

use serde_json::Value;

use super::printing::{c, key_values, named, or_none, template_cells, Col, Printer, NAME};
use super::Printed;

pub static POD_TEMPLATES: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, c("Containers", 0), c("Images", 0), c("Pod Labels", 0)];

fn cells(o: &Value) -> Vec<Value> {
    let template = &o["template"];
    let [containers, images] = template_cells(&template["spec"]);
    named(
        o,
        [
            containers,
            images,
            or_none(key_values(&template["metadata"]["labels"])),
        ],
    )
}
