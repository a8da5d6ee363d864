//! core/v1 PodTemplates: kubectl's columns (the template's containers, images and labels).

use serde_json::Value;

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{
    column, key_values, named, or_none, template_cells, Col, Printer, NAME,
};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::PodTemplate;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("", "podtemplates", "PodTemplate", true).build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<PodTemplate>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[
    NAME,
    column("Containers", 0),
    column("Images", 0),
    column("Pod Labels", 0),
];

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_printer_shows_the_templates_containers_images_and_labels() {
        let template = json!({"metadata": {"name": "web"}, "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25"},
                                    {"name": "log", "image": "busybox"}]}}});
        assert_eq!(
            cells(&template),
            [
                json!("web"),
                json!("nginx,log"),
                json!("nginx:1.25,busybox"),
                json!("app=web")
            ]
        );
        let unlabelled = json!({"metadata": {"name": "x"}, "template": {"spec": {}}});
        assert_eq!(cells(&unlabelled)[3], "<none>");
    }
}
