//! core/v1 Nodes: registered with their status by the kubelet, kubectl's node columns.

use serde_json::{json, Value};

use super::printing::{age, c, named, or_none, s, Col, Printer, NAME};
use super::{ResourceDef, StatusPolicy, Strategy};

pub struct Nodes;

impl Strategy for Nodes {
    fn field_selectors(&self) -> &'static [&'static str] {
        &["spec.unschedulable"]
    }

    fn status(&self, _: &ResourceDef) -> StatusPolicy {
        StatusPolicy::SubresourceSetOnCreate
    }

    fn printer(&self) -> Option<Printer> {
        Some(PRINTER)
    }
}

const PRINTER: Printer = Printer::new(COLUMNS, cells);

const COLUMNS: &[Col] = &[
    NAME,
    c("Status", 0),
    c("Roles", 0),
    c("Age", 0),
    c("Version", 0),
    c("Internal-IP", 1),
    c("External-IP", 1),
    c("OS-Image", 1),
    c("Kernel-Version", 1),
    c("Container-Runtime", 1),
];

fn cells(o: &Value) -> Vec<Value> {
    let st = &o["status"];
    let ready = st["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Ready");
    let mut status = match ready.map(|c| s(&c["status"])) {
        Some(x) if x == "True" => "Ready".to_string(),
        _ => "NotReady".to_string(),
    };
    if o["spec"]["unschedulable"].as_bool() == Some(true) {
        status.push_str(",SchedulingDisabled");
    }
    let roles: Vec<String> = o["metadata"]["labels"]
        .as_object()
        .map(|m| {
            m.keys()
                .filter_map(|k| k.strip_prefix("node-role.kubernetes.io/").map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let address = |t: &str| {
        st["addresses"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|a| a["type"] == t)
            .map(|a| s(&a["address"]))
            .unwrap_or_default()
    };
    let info = &st["nodeInfo"];
    named(
        o,
        [
            json!(status),
            or_none(roles.join(",")),
            age(o),
            json!(s(&info["kubeletVersion"])),
            or_none(address("InternalIP")),
            or_none(address("ExternalIP")),
            json!(s(&info["osImage"])),
            json!(s(&info["kernelVersion"])),
            json!(s(&info["containerRuntimeVersion"])),
        ],
    )
}
