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
