//! A simulated ingress-nginx controller, as a kind cluster runs it on its nodes: every
//! Ingress of an IngressClass with its controller name (by `ingressClassName`, or the
//! default class when it names none) gets the nodes' address in `status.loadBalancer`, so
//! `kubectl get ingress` shows an ADDRESS.

use std::sync::Arc;

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::{is_deleting, name_of, spawn_reconciler, write_status, Context};

/// The controller name IngressClasses give to be served by this controller.
pub const CONTROLLER: &str = "k8s.io/ingress-nginx";
const DEFAULT_CLASS: &str = "ingressclass.kubernetes.io/is-default-class";

pub fn spawn(ctx: Arc<Context>) -> JoinHandle<()> {
    spawn_reconciler(
        ctx,
        &[
            ("networking.k8s.io", "ingresses"),
            ("networking.k8s.io", "ingressclasses"),
        ],
        reconcile,
    )
}

/// The first node's InternalIP: where kind publishes ingress-nginx's host ports.
fn node_address(ctx: &Context) -> Option<String> {
    let (nodes, _) = ctx.registry.list(&ctx.def("", "nodes"), None);
    nodes.iter().find_map(|node| {
        node["status"]["addresses"]
            .as_array()?
            .iter()
            .find(|a| a["type"] == "InternalIP")?["address"]
            .as_str()
            .map(String::from)
    })
}

pub fn reconcile(ctx: &Context) {
    let (classes, _) = ctx
        .registry
        .list(&ctx.def("networking.k8s.io", "ingressclasses"), None);
    let ours: Vec<&Value> = classes
        .iter()
        .filter(|c| c["spec"]["controller"] == CONTROLLER)
        .collect();
    if ours.is_empty() {
        return;
    }
    let default_is_ours = ours
        .iter()
        .any(|c| c["metadata"]["annotations"][DEFAULT_CLASS] == "true");
    let Some(address) = node_address(ctx) else {
        return;
    };
    let def = ctx.def("networking.k8s.io", "ingresses");
    let (ingresses, _) = ctx.registry.list(&def, None);
    for ingress in ingresses.iter().filter(|i| !is_deleting(i)) {
        let served = match ingress["spec"]["ingressClassName"].as_str() {
            Some(class) => ours.iter().any(|c| name_of(c) == class),
            None => default_is_ours,
        };
        if served {
            let status = json!({"loadBalancer": {"ingress": [{"ip": address}]}});
            write_status(ctx, &def, ingress, status);
        }
    }
}
