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

pub static NETWORK_POLICIES: Printed = Printed(Printer::new(POLICY_COLUMNS, policy_cells));

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
