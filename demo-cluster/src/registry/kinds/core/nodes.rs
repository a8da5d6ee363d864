//! core/v1 Nodes: registered with their status by the kubelet, kubectl's node columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::{ResourceDefBuilder, PROXY_VERBS};
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{
    age, column, named, or_none, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::{StatusPolicy, Strategy};
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::Node;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("", "nodes", "node", "Node", false)
        .short(&["no"])
        .sub("proxy", "NodeProxyOptions", PROXY_VERBS)
        .status()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<Node>(generator);

pub(crate) static STRATEGY: Nodes = Nodes;

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
    column("Status", 0),
    column("Roles", 0),
    column("Age", 0),
    column("Version", 0),
    column("Internal-IP", 1),
    column("External-IP", 1),
    column("OS-Image", 1),
    column("Kernel-Version", 1),
    column("Container-Runtime", 1),
];

fn cells(o: &Value) -> Vec<Value> {
    let st = &o["status"];
    let ready = st["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Ready");
    let mut status = match ready.map(|c| value_text(&c["status"])) {
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
            .map(|a| value_text(&a["address"]))
            .unwrap_or_default()
    };
    let info = &st["nodeInfo"];
    named(
        o,
        [
            json!(status),
            or_none(roles.join(",")),
            age(o),
            json!(value_text(&info["kubeletVersion"])),
            or_none(address("InternalIP")),
            or_none(address("ExternalIP")),
            json!(value_text(&info["osImage"])),
            json!(value_text(&info["kernelVersion"])),
            json!(value_text(&info["containerRuntimeVersion"])),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kinds::ResourceDef;
    use crate::registry::strategy::CreateContext;

    fn nodes_def() -> ResourceDef {
        crate::registry::strategy::builtin_def("", "nodes")
    }

    fn node() -> Value {
        json!({
            "metadata": {"name": "node-1", "labels": {
                "node-role.kubernetes.io/control-plane": "", "kubernetes.io/os": "linux"}},
            "spec": {},
            "status": {
                "conditions": [{"type": "MemoryPressure", "status": "False"},
                               {"type": "Ready", "status": "True"}],
                "addresses": [{"type": "InternalIP", "address": "192.168.0.10"},
                              {"type": "Hostname", "address": "node-1"}],
                "nodeInfo": {"kubeletVersion": "v1.31.0", "osImage": "Debian 12",
                             "kernelVersion": "6.1.0", "containerRuntimeVersion": "containerd://1.7"},
            },
        })
    }

    #[test]
    fn a_kubelet_registers_with_its_status_and_later_writes_keep_it() {
        let def = nodes_def();
        let mut created = node();
        let ctx = CreateContext::without_service_ips();
        crate::registry::strategy::prepare_for_create(&def, &mut created, &ctx);
        assert_eq!(created["status"], node()["status"]);

        let mut cordoned = node();
        cordoned["spec"]["unschedulable"] = json!(true);
        cordoned["status"] = json!({});
        crate::registry::strategy::prepare_for_update(&def, &created, &mut cordoned, "");
        assert_eq!(cordoned["spec"]["unschedulable"], true);
        assert_eq!(cordoned["status"], node()["status"]);
        assert!(Nodes.field_selectors().contains(&"spec.unschedulable"));
    }

    #[test]
    fn the_printer_shows_status_roles_and_version() {
        let mut n = node();
        let row = cells(&n);
        assert_eq!(
            row[..3],
            [json!("node-1"), json!("Ready"), json!("control-plane")]
        );
        assert_eq!(
            row[4..],
            [
                json!("v1.31.0"),
                json!("192.168.0.10"),
                json!("<none>"),
                json!("Debian 12"),
                json!("6.1.0"),
                json!("containerd://1.7")
            ]
        );
        n["spec"]["unschedulable"] = json!(true);
        assert_eq!(cells(&n)[1], "Ready,SchedulingDisabled");
        n["status"]["conditions"] = json!([{"type": "Ready", "status": "Unknown"}]);
        n["metadata"]["labels"] = json!({});
        let row = cells(&n);
        assert_eq!(
            row[1..3],
            [json!("NotReady,SchedulingDisabled"), json!("<none>")]
        );
    }
}
