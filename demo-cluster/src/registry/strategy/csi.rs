//! storage.k8s.io/v1 CSI kinds — CSIDrivers, CSINodes, CSIStorageCapacities,
//! VolumeAttachments — and VolumeAttributesClasses: kubectl's columns.

use serde_json::{json, Value};

use super::printing::{age, c, count, name_format, named, s, Col, Printer, CREATED_AT, NAME};
use super::Printed;

/// A boolean column, as kube-apiserver declares them.
const fn flag(name: &'static str) -> Col {
    Col {
        kind: "boolean",
        ..c(name, 0)
    }
}

/// `items` joined with commas, or `empty` when there are none.
fn joined(items: Vec<String>, empty: &str) -> String {
    if items.is_empty() {
        empty.to_string()
    } else {
        items.join(",")
    }
}

pub static CSI_DRIVERS: Printed = Printed(Printer::new(DRIVER_COLUMNS, driver_cells));

const DRIVER_COLUMNS: &[Col] = &[
    NAME,
    flag("AttachRequired"),
    flag("PodInfoOnMount"),
    flag("StorageCapacity"),
    c("TokenRequests", 0),
    flag("RequiresRepublish"),
    c("Modes", 0),
    c("Age", 0),
];

fn driver_cells(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let strings = |v: &Value, field: &str| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .map(|x| if field.is_empty() { s(x) } else { s(&x[field]) })
            .collect()
    };
    named(
        o,
        [
            json!(spec["attachRequired"].as_bool().unwrap_or(true)),
            json!(spec["podInfoOnMount"].as_bool().unwrap_or(false)),
            json!(spec["storageCapacity"].as_bool().unwrap_or(false)),
            json!(joined(
                strings(&spec["tokenRequests"], "audience"),
                "<unset>"
            )),
            json!(spec["requiresRepublish"].as_bool().unwrap_or(false)),
            json!(joined(strings(&spec["volumeLifecycleModes"], ""), "<none>")),
            age(o),
        ],
    )
}

pub static CSI_NODES: Printed = Printed(Printer::new(NODE_COLUMNS, node_cells));

const NODE_COLUMNS: &[Col] = &[NAME, count("Drivers", 0), c("Age", 0)];

fn node_cells(o: &Value) -> Vec<Value> {
    let drivers = o["spec"]["drivers"].as_array().map_or(0, Vec::len);
    named(o, [json!(drivers), age(o)])
}

/// kube-apiserver v1.36 has no printer for CSIStorageCapacities: NAME and CREATED AT.
pub static CSI_STORAGE_CAPACITIES: Printed = Printed(CREATED_AT);

pub static VOLUME_ATTACHMENTS: Printed =
    Printed(Printer::new(ATTACHMENT_COLUMNS, attachment_cells));

const ATTACHMENT_COLUMNS: &[Col] = &[
    NAME,
    name_format("Attacher", 0),
    c("PV", 0),
    c("Node", 0),
    flag("Attached"),
    c("Age", 0),
];

fn attachment_cells(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    named(
        o,
        [
            json!(s(&spec["attacher"])),
            json!(s(&spec["source"]["persistentVolumeName"])),
            json!(s(&spec["nodeName"])),
            json!(o["status"]["attached"].as_bool().unwrap_or(false)),
            age(o),
        ],
    )
}

pub static VOLUME_ATTRIBUTES_CLASSES: Printed =
    Printed(Printer::new(ATTRIBUTES_COLUMNS, attributes_cells));

const ATTRIBUTES_COLUMNS: &[Col] = &[NAME, c("DriverName", 0), c("Age", 0)];

fn attributes_cells(o: &Value) -> Vec<Value> {
    named(o, [json!(s(&o["driverName"])), age(o)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drivers_print_defaults_and_lists_as_kubectl() {
        let driver = json!({"metadata": {"name": "csi.example.com"},
            "spec": {"tokenRequests": [{"audience": "a"}, {"audience": "b"}]}});
        let row = driver_cells(&driver);
        assert_eq!(
            row[1..7],
            [
                json!(true),
                json!(false),
                json!(false),
                json!("a,b"),
                json!(false),
                json!("<none>")
            ]
        );
        let bare =
            json!({"metadata": {"name": "x"}, "spec": {"volumeLifecycleModes": ["Persistent"]}});
        assert_eq!(driver_cells(&bare)[4], "<unset>");
        assert_eq!(driver_cells(&bare)[6], "Persistent");
    }
}
