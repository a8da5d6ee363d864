//! core/v1 Services: a ClusterIP allocated at creation and kept on updates, port defaults,
//! DNS-1035 names, kubectl's service columns.

use serde_json::{json, Value};

use super::common::{default_field, ensure_object};
use super::printing::{age, c, key_values, named, or_none, s, Col, Printer, NAME};
use super::{CreateContext, NameRule, Strategy};

pub struct Services;

impl Strategy for Services {
    fn prepare_for_create(&self, obj: &mut Value, ctx: &CreateContext) {
        let spec = ensure_object(obj, "spec");
        default_field(spec, "type", json!("ClusterIP"));
        default_field(spec, "sessionAffinity", json!("None"));
        if spec.get("type").and_then(Value::as_str) != Some("ExternalName") {
            if !spec.contains_key("clusterIP") {
                spec.insert("clusterIP".into(), json!((ctx.allocate_service_ip)()));
            }
            let ip = spec.get("clusterIP").cloned().unwrap_or(Value::Null);
            default_field(spec, "clusterIPs", json!([ip]));
            default_field(spec, "ipFamilies", json!(["IPv4"]));
            default_field(spec, "ipFamilyPolicy", json!("SingleStack"));
            default_field(spec, "internalTrafficPolicy", json!("Cluster"));
        }
        for p in spec
            .get_mut("ports")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            let port = p["port"].clone();
            if let Some(pm) = p.as_object_mut() {
                default_field(pm, "protocol", json!("TCP"));
                default_field(pm, "targetPort", port);
            }
        }
        obj["status"] = json!({"loadBalancer": {}});
    }

    fn prepare_for_update(&self, old: &Value, new: &mut Value) {
        if new["spec"]["clusterIP"].is_null() && old["spec"]["clusterIP"].is_string() {
            // Omitting the allocated clusterIP on update keeps it (it is immutable anyway).
            new["spec"]["clusterIP"] = old["spec"]["clusterIP"].clone();
            new["spec"]["clusterIPs"] = old["spec"]["clusterIPs"].clone();
        }
    }

    fn name_rule(&self) -> NameRule {
        NameRule::Label1035
    }

    fn printer(&self) -> Option<Printer> {
        Some(PRINTER)
    }
}

const PRINTER: Printer = Printer::new(COLUMNS, cells);

const COLUMNS: &[Col] = &[
    NAME,
    c("Type", 0),
    c("Cluster-IP", 0),
    c("External-IP", 0),
    c("Port(s)", 0),
    c("Age", 0),
    c("Selector", 1),
];

fn cells(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let ports: Vec<String> = spec["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| match p["nodePort"].as_i64() {
            Some(np) => format!("{}:{np}/{}", s(&p["port"]), s(&p["protocol"])),
            None => format!("{}/{}", s(&p["port"]), s(&p["protocol"])),
        })
        .collect();
    named(
        o,
        [
            json!(s(&spec["type"])),
            json!(s(&spec["clusterIP"])),
            json!("<none>"),
            or_none(ports.join(",")),
            age(o),
            or_none(key_values(&spec["selector"])),
        ],
    )
}
