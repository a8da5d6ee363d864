//! The ports an object offers to forward or open: a pod's container ports, a Service's
//! ports, a Deployment's pod template's ports; and the API path that shows a pod's or a
//! Service's HTTP port in the browser (`…/proxy/`).

use serde_json::Value;

use super::{PortRef, TargetKind};

/// One port the page offers *Forward* (and, for pods and Services, *Open*) for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfferedPort {
    /// What the forward asks for: the port's name when it has one (kubectl resolves it the
    /// same way), else its number.
    pub port: PortRef,
    /// The number the object declares (a Service's `port`, a container's `containerPort`).
    pub number: u16,
    pub name: Option<String>,
    pub protocol: String,
    /// The container it belongs to, or the Service's `targetPort` in words.
    pub detail: String,
}

impl OfferedPort {
    /// Only TCP travels through `pods/portforward`.
    pub fn forwardable(&self) -> bool {
        self.protocol == "TCP"
    }

    /// `8080 (http)`.
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) => format!("{} ({name})", self.number),
            None => self.number.to_string(),
        }
    }
}

/// The kind a forward names for an object of API kind `kind` (`Pod`, `Service`,
/// `Deployment`); other kinds have no ports to forward.
pub fn target_kind(kind: &str) -> Option<TargetKind> {
    match kind {
        "Pod" => Some(TargetKind::Pod),
        "Service" => Some(TargetKind::Service),
        "Deployment" => Some(TargetKind::Deployment),
        _ => None,
    }
}

fn number_of(value: Option<&Value>) -> Option<u16> {
    value
        .and_then(Value::as_u64)
        .and_then(|n| u16::try_from(n).ok())
        .filter(|n| *n > 0)
}

fn text(value: &Value, key: &str) -> Option<String> {
    value
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn container_ports(containers: Option<&Value>) -> Vec<OfferedPort> {
    let containers = containers.and_then(Value::as_array);
    containers
        .into_iter()
        .flatten()
        .flat_map(|container| {
            let container_name = text(container, "name").unwrap_or_default();
            let ports = container.get("ports").and_then(Value::as_array);
            ports.into_iter().flatten().filter_map(move |port| {
                let number = number_of(port.get("containerPort"))?;
                let name = text(port, "name");
                Some(OfferedPort {
                    port: name.clone().map_or(PortRef::Number(number), PortRef::Name),
                    number,
                    name,
                    protocol: text(port, "protocol").unwrap_or_else(|| "TCP".into()),
                    detail: format!("container {container_name}"),
                })
            })
        })
        .collect()
}

fn service_ports(service: &Value) -> Vec<OfferedPort> {
    let ports = service.pointer("/spec/ports").and_then(Value::as_array);
    ports
        .into_iter()
        .flatten()
        .filter_map(|port| {
            let number = number_of(port.get("port"))?;
            let name = text(port, "name");
            let target = match port.get("targetPort") {
                Some(Value::String(named)) => named.clone(),
                Some(other) => number_of(Some(other)).unwrap_or(number).to_string(),
                None => number.to_string(),
            };
            Some(OfferedPort {
                // kubectl asks a Service port by number; its name is shown.
                port: PortRef::Number(number),
                number,
                name,
                protocol: text(port, "protocol").unwrap_or_else(|| "TCP".into()),
                detail: format!("to the pod's port {target}"),
            })
        })
        .collect()
}

/// The ports `object` (of `kind`) offers, in the order it declares them.
pub fn offered_ports(kind: TargetKind, object: &Value) -> Vec<OfferedPort> {
    match kind {
        TargetKind::Pod => container_ports(object.pointer("/spec/containers")),
        TargetKind::Deployment => container_ports(object.pointer("/spec/template/spec/containers")),
        TargetKind::Service => service_ports(object),
    }
}

/// The API path (after the API prefix) that proxies an HTTP request to `port` of a pod or a
/// Service: `/api/v1/namespaces/NS/pods/NAME:PORT/proxy/`. None for a Deployment, which has
/// no proxy subresource.
pub fn proxy_path(kind: TargetKind, namespace: &str, name: &str, port: u16) -> Option<String> {
    let plural = match kind {
        TargetKind::Pod => "pods",
        TargetKind::Service => "services",
        TargetKind::Deployment => return None,
    };
    let encode = crate::api::endpoints::encode_path_segment;
    Some(format!(
        "/api/v1/namespaces/{}/{plural}/{}:{port}/proxy/",
        encode(namespace),
        encode(name)
    ))
}
