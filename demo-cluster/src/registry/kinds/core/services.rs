//! core/v1 Services: a ClusterIP allocated at creation and kept on updates, port defaults,
//! DNS-1035 names, kubectl's service columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::{ResourceDefBuilder, PROXY_VERBS};
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::{default_field, ensure_object};
use crate::registry::strategy::printing::{
    age, column, key_values, named, or_none, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::{CreateContext, NameRule, Strategy};
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::Service;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("", "services", "service", "Service", true)
        .short(&["svc"])
        .all()
        .returns_deleted()
        .sub("proxy", "ServiceProxyOptions", PROXY_VERBS)
        .status()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<Service>(generator);

pub(crate) static STRATEGY: Services = Services;

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
        let service_type = spec
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let external = matches!(service_type.as_str(), "NodePort" | "LoadBalancer");
        if external {
            default_field(spec, "externalTrafficPolicy", json!("Cluster"));
        }
        if service_type == "LoadBalancer" {
            default_field(spec, "allocateLoadBalancerNodePorts", json!(true));
        }
        // NodePort and LoadBalancer services get a node port on every port (unless a
        // LoadBalancer opts out), as kube-apiserver's allocator gives them.
        let allocate = service_type == "NodePort"
            || (service_type == "LoadBalancer"
                && spec.get("allocateLoadBalancerNodePorts") != Some(&json!(false)));
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
                if allocate && pm.get("nodePort").and_then(Value::as_i64).unwrap_or(0) == 0 {
                    pm.insert("nodePort".into(), json!((ctx.allocate_node_port)()));
                }
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
    column("Type", 0),
    column("Cluster-IP", 0),
    column("External-IP", 0),
    column("Port(s)", 0),
    column("Age", 0),
    column("Selector", 1),
];

fn cells(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let ports: Vec<String> = spec["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| match p["nodePort"].as_i64() {
            Some(np) => format!(
                "{}:{np}/{}",
                value_text(&p["port"]),
                value_text(&p["protocol"])
            ),
            None => format!("{}/{}", value_text(&p["port"]), value_text(&p["protocol"])),
        })
        .collect();
    named(
        o,
        [
            json!(value_text(&spec["type"])),
            json!(value_text(&spec["clusterIP"])),
            external_ip(o),
            or_none(ports.join(",")),
            age(o),
            or_none(key_values(&spec["selector"])),
        ],
    )
}

/// kube-apiserver's EXTERNAL-IP: an ExternalName service's name, a LoadBalancer's
/// ingress addresses (`<pending>` before it has one) with the external IPs, else the
/// external IPs or `<none>`.
fn external_ip(o: &Value) -> Value {
    let spec = &o["spec"];
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|x| x.as_str().map(String::from))
            .collect()
    };
    let external_ips = strings(&spec["externalIPs"]);
    match spec["type"].as_str() {
        Some("ExternalName") => json!(value_text(&spec["externalName"])),
        Some("LoadBalancer") => {
            let mut ips: Vec<String> = o["status"]["loadBalancer"]["ingress"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|i| {
                    i["ip"]
                        .as_str()
                        .or_else(|| i["hostname"].as_str())
                        .map(String::from)
                })
                .collect();
            ips.extend(external_ips);
            if ips.is_empty() {
                json!("<pending>")
            } else {
                json!(ips.join(","))
            }
        }
        _ if !external_ips.is_empty() => json!(external_ips.join(",")),
        _ => json!("<none>"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kinds::ResourceDef;

    fn services_def() -> ResourceDef {
        crate::registry::strategy::builtin_def("", "services")
    }

    fn next_ip() -> String {
        "10.96.0.42".to_string()
    }

    fn created(mut svc: Value) -> Value {
        let ctx = CreateContext {
            allocate_service_ip: &next_ip,
            allocate_node_port: &|| 30000,
        };
        crate::registry::strategy::prepare_for_create(&services_def(), &mut svc, &ctx);
        svc
    }

    #[test]
    fn create_allocates_a_cluster_ip_and_defaults_type_and_ports() {
        let svc = created(json!({"metadata": {"name": "web"}, "spec": {
            "selector": {"app": "web"},
            "ports": [{"port": 80}, {"port": 53, "protocol": "UDP", "targetPort": 5353}]},
            "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}}));
        let spec = &svc["spec"];
        assert_eq!(spec["type"], "ClusterIP");
        assert_eq!(spec["sessionAffinity"], "None");
        assert_eq!(spec["clusterIP"], "10.96.0.42");
        assert_eq!(spec["clusterIPs"], json!(["10.96.0.42"]));
        assert_eq!(spec["ipFamilies"], json!(["IPv4"]));
        assert_eq!(spec["ports"][0]["protocol"], "TCP");
        assert_eq!(spec["ports"][0]["targetPort"], 80);
        assert_eq!(spec["ports"][1]["protocol"], "UDP");
        assert_eq!(spec["ports"][1]["targetPort"], 5353);
        assert_eq!(svc["status"], json!({"loadBalancer": {}}));

        let headless = created(json!({"metadata": {"name": "db"}, "spec": {"clusterIP": "None"}}));
        assert_eq!(headless["spec"]["clusterIP"], "None");
        let external = created(json!({"metadata": {"name": "ext"},
            "spec": {"type": "ExternalName", "externalName": "example.com"}}));
        assert!(external["spec"].get("clusterIP").is_none());
    }

    #[test]
    fn an_update_without_the_cluster_ip_keeps_it() {
        let old = created(json!({"metadata": {"name": "web"}, "spec": {"ports": [{"port": 80}]}}));
        let mut new = json!({"metadata": {"name": "web"}, "spec": {"type": "ClusterIP",
            "ports": [{"port": 8080, "protocol": "TCP"}]}});
        crate::registry::strategy::prepare_for_update(&services_def(), &old, &mut new, "");
        assert_eq!(new["spec"]["clusterIP"], "10.96.0.42");
        assert_eq!(new["spec"]["clusterIPs"], json!(["10.96.0.42"]));
        assert_eq!(new["spec"]["ports"][0]["port"], 8080);
    }

    #[test]
    fn names_are_dns_1035_labels_and_the_printer_shows_ports() {
        let def = services_def();
        let named = |name: &str| json!({"metadata": {"name": name}, "spec": {}});
        assert!(crate::registry::strategy::validate(&def, &named("web")).is_empty());
        for bad in ["1web", "web.internal"] {
            let causes = crate::registry::strategy::validate(&def, &named(bad));
            assert_eq!(causes.len(), 1, "{bad}");
            assert_eq!(causes[0].field, "metadata.name");
        }
        let svc = json!({"metadata": {"name": "web"}, "spec": {"type": "NodePort",
            "clusterIP": "10.96.0.42", "selector": {"app": "web"},
            "ports": [{"port": 80, "protocol": "TCP", "nodePort": 30080},
                      {"port": 443, "protocol": "TCP"}]}});
        let row = cells(&svc);
        assert_eq!(
            row[..5],
            [
                json!("web"),
                json!("NodePort"),
                json!("10.96.0.42"),
                json!("<none>"),
                json!("80:30080/TCP,443/TCP")
            ]
        );
        assert_eq!(row[6], "app=web");
        let bare = json!({"metadata": {"name": "x"}, "spec": {"clusterIP": "None"}});
        assert_eq!(cells(&bare)[4], "<none>");
        assert_eq!(cells(&bare)[6], "<none>");
    }
}
