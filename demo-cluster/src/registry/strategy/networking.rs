//! networking.k8s.io/v1 IngressClasses (controller fixed at creation), Ingresses and
//! NetworkPolicies: kubectl's columns.

use serde_json::{json, Value};

use super::common::immutable_fields;
use super::printing::{age, c, key_values, named, or_none, reference, s, Col, Printer, NAME};
use super::{Printed, Strategy};
use crate::status::Cause;

pub struct IngressClasses;

impl Strategy for IngressClasses {
    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        immutable_fields(old, new, &[&["spec", "controller"]])
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(CLASS_COLUMNS, class_cells))
    }
}

const CLASS_COLUMNS: &[Col] = &[NAME, c("Controller", 0), c("Parameters", 0), c("Age", 0)];

fn class_cells(o: &Value) -> Vec<Value> {
    let parameters = reference(&o["spec"]["parameters"], "kind", "name").unwrap_or_default();
    named(
        o,
        [
            json!(s(&o["spec"]["controller"])),
            or_none(parameters),
            age(o),
        ],
    )
}

pub static INGRESSES: Printed = Printed(Printer::new(INGRESS_COLUMNS, ingress_cells));

const INGRESS_COLUMNS: &[Col] = &[
    NAME,
    c("Class", 0),
    c("Hosts", 0),
    c("Address", 0),
    c("Ports", 0),
    c("Age", 0),
];

fn ingress_cells(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let rules = spec["rules"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let hosts: Vec<String> = rules.iter().map(|r| s(&r["host"])).collect();
    let hosts = if hosts.iter().all(String::is_empty) {
        "*".to_string()
    } else {
        hosts.join(",")
    };
    let addresses: Vec<String> = o["status"]["loadBalancer"]["ingress"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| {
            if i["ip"].is_string() {
                s(&i["ip"])
            } else {
                s(&i["hostname"])
            }
        })
        .collect();
    let ports = if spec["tls"].as_array().is_some_and(|t| !t.is_empty()) {
        "80, 443"
    } else {
        "80"
    };
    named(
        o,
        [
            or_none(s(&spec["ingressClassName"])),
            json!(hosts),
            json!(addresses.join(",")),
            json!(ports),
            age(o),
        ],
    )
}

pub static NETWORK_POLICIES: NetworkPolicies = NetworkPolicies;

/// networking.k8s.io/v1 NetworkPolicies: `policyTypes` defaulted as kube-apiserver does
/// (Ingress always, Egress when egress rules are given), kubectl's columns.
pub struct NetworkPolicies;

impl Strategy for NetworkPolicies {
    fn default_fields(&self, obj: &mut Value) {
        if !obj["spec"].is_object() || obj["spec"]["policyTypes"].is_array() {
            return;
        }
        let mut types = vec![json!("Ingress")];
        if obj["spec"]["egress"]
            .as_array()
            .is_some_and(|e| !e.is_empty())
        {
            types.push(json!("Egress"));
        }
        obj["spec"]["policyTypes"] = json!(types);
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(POLICY_COLUMNS, policy_cells))
    }
}

const POLICY_COLUMNS: &[Col] = &[NAME, c("Pod-Selector", 0), c("Age", 0)];

fn policy_cells(o: &Value) -> Vec<Value> {
    let selector = key_values(&o["spec"]["podSelector"]["matchLabels"]);
    named(o, [or_none(selector), age(o)])
}

pub static SERVICE_CIDRS: Printed = Printed(Printer::new(CIDR_COLUMNS, cidr_cells));

const CIDR_COLUMNS: &[Col] = &[NAME, c("CIDRs", 0), c("Age", 0)];

fn cidr_cells(o: &Value) -> Vec<Value> {
    let cidrs: Vec<String> = o["spec"]["cidrs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(s)
        .collect();
    named(o, [json!(cidrs.join(",")), age(o)])
}

pub static IP_ADDRESSES: Printed = Printed(Printer::new(ADDRESS_COLUMNS, address_cells));

const ADDRESS_COLUMNS: &[Col] = &[NAME, c("ParentRef", 0)];

/// The owner of an address as `<resource>[.<group>]/[<namespace>/]<name>`.
fn address_cells(o: &Value) -> Vec<Value> {
    let parent = &o["spec"]["parentRef"];
    if !parent.is_object() {
        return named(o, [json!("<none>")]);
    }
    let mut owner = s(&parent["resource"]).to_lowercase();
    if let Some(group) = parent["group"].as_str().filter(|g| !g.is_empty()) {
        owner = format!("{owner}.{}", group.to_lowercase());
    }
    if let Some(namespace) = parent["namespace"].as_str().filter(|n| !n.is_empty()) {
        owner = format!("{owner}/{namespace}");
    }
    named(o, [json!(format!("{owner}/{}", s(&parent["name"])))])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ingress_prints_class_hosts_address_and_ports() {
        let ingress = json!({"metadata": {"name": "web"}, "spec": {
            "ingressClassName": "nginx",
            "rules": [{"host": "a.example.com"}, {"host": "b.example.com"}],
            "tls": [{"hosts": ["a.example.com"], "secretName": "tls"}]},
            "status": {"loadBalancer": {"ingress": [{"ip": "1.2.3.4"}, {"hostname": "lb.example.com"}]}}});
        let row = ingress_cells(&ingress);
        assert_eq!(
            row[..5],
            [
                json!("web"),
                json!("nginx"),
                json!("a.example.com,b.example.com"),
                json!("1.2.3.4,lb.example.com"),
                json!("80, 443")
            ]
        );
        let bare = json!({"metadata": {"name": "any"}, "spec": {"rules": [{"http": {}}]}});
        assert_eq!(
            ingress_cells(&bare)[1..5],
            [json!("<none>"), json!("*"), json!(""), json!("80")]
        );
    }

    #[test]
    fn an_ingress_class_controller_is_immutable() {
        let old = json!({"metadata": {"name": "nginx"},
            "spec": {"controller": "k8s.io/ingress-nginx"}});
        let mut new = old.clone();
        new["spec"]["parameters"] = json!({"kind": "IngressParameters", "name": "p"});
        assert!(IngressClasses.validate_update(&old, &new).is_empty());
        assert_eq!(
            class_cells(&new)[1..3],
            [json!("k8s.io/ingress-nginx"), json!("IngressParameters/p")]
        );
        new["spec"]["controller"] = json!("example.com/other");
        let causes = IngressClasses.validate_update(&old, &new);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "spec.controller");
    }

    #[test]
    fn policies_cidrs_and_addresses_print_as_kubectl() {
        let policy = json!({"metadata": {"name": "deny"}, "spec": {"podSelector": {}}});
        assert_eq!(policy_cells(&policy)[1], "<none>");
        let policy = json!({"metadata": {"name": "db"},
            "spec": {"podSelector": {"matchLabels": {"app": "db"}}}});
        assert_eq!(policy_cells(&policy)[1], "app=db");
        let cidr = json!({"metadata": {"name": "kubernetes"},
            "spec": {"cidrs": ["10.96.0.0/12", "fd00::/108"]}});
        assert_eq!(cidr_cells(&cidr)[1], "10.96.0.0/12,fd00::/108");
        let address = json!({"metadata": {"name": "10.96.0.1"}, "spec": {"parentRef": {
            "group": "", "resource": "services", "namespace": "default", "name": "kubernetes"}}});
        assert_eq!(address_cells(&address)[1], "services/default/kubernetes");
    }
}
