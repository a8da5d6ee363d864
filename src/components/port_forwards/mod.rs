//! The object page's Ports: each port a pod, Service or Deployment declares, with *Forward*
//! (a local listener in kube-atlas, `kubectl port-forward`) and, for pods and Services,
//! *Open* (the port's HTTP answer through the API's proxy, sandboxed); then the forwards to
//! this object with their links. Each is disabled with its reason where the permissions say
//! no, and *Forward* explains it needs kube-atlas where no kube-atlas serves the page.

mod menu;
mod opened;
mod table;

pub use menu::ForwardsMenu;
pub use opened::OpenedPort;
pub use table::ForwardsTable;

use leptos::prelude::*;
use serde_json::Value;

use crate::model::api::forwards::{offered_ports, proxy_path, OfferedPort, Target, TargetKind};
use crate::state::forwards::{ForwardsHub, NEEDS_KUBE_ATLAS};

/// What the panel is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortsTarget {
    pub kind: TargetKind,
    pub namespace: String,
    pub name: String,
}

#[component]
pub fn PortsPanel(
    target: PortsTarget,
    object: Signal<Option<Value>>,
    /// Why the user may not forward (`create pods/portforward`), if not.
    forward_denied: Signal<Option<String>>,
    /// Why the user may not open (`get pods/proxy` or `services/proxy`), if not.
    open_denied: Signal<Option<String>>,
) -> impl IntoView {
    let hub = ForwardsHub::get();
    hub.show();
    let kind = target.kind;
    let ports = Memo::new(move |_| {
        object.with(|o| {
            o.as_ref()
                .map(|o| offered_ports(kind, o))
                .unwrap_or_default()
        })
    });
    let local_port = RwSignal::new(String::new());
    let keep = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    let starting = RwSignal::new(false);
    let opened = RwSignal::new(None::<(String, String)>);
    let target = StoredValue::new(target);
    let context = hub.context();
    let has_server = context.is_some();
    // The permission first: kube-atlas would not help a user who may not forward.
    let forward_reason = Signal::derive(move || {
        forward_denied
            .get()
            .or_else(|| (!has_server).then(|| NEEDS_KUBE_ATLAS.to_string()))
    });
    let mine = Signal::derive(move || {
        let (context, target) = (context.clone(), target.get_value());
        let Some(context) = context else {
            return Vec::new();
        };
        hub.list.with(|list| {
            list.forwards
                .iter()
                .chain(list.ended.iter().rev().take(3))
                .filter(|f| f.is_for(&context, &target.namespace, target.kind, &target.name))
                .cloned()
                .collect()
        })
    });
    let forward = move |port: OfferedPort| {
        let local = local_port.get_untracked();
        let local = match local.trim() {
            "" => None,
            text => match text.parse::<u16>() {
                Ok(number) if number > 0 => Some(number),
                _ => {
                    problem.set(Some(format!(
                        "{text:?} is not a local port: a number from 1 to 65535, or empty for a free one"
                    )));
                    return;
                }
            },
        };
        starting.set(true);
        problem.set(None);
        let target = target.get_value();
        let keep = keep.get_untracked();
        leptos::task::spawn_local(async move {
            let asked = Target {
                kind: target.kind,
                name: target.name.clone(),
            };
            let result = hub
                .start(&target.namespace, asked, port.port, local, keep)
                .await;
            starting.try_set(false);
            problem.try_set(result.err());
        });
    };
    let open = move |port: &OfferedPort| {
        let target = target.get_value();
        if let Some(path) = proxy_path(target.kind, &target.namespace, &target.name, port.number) {
            let kind = if target.kind == TargetKind::Pod {
                "pod"
            } else {
                "service"
            };
            let title = format!("{kind} {} port {}", target.name, port.label());
            opened.set(Some((
                title,
                format!("{}{path}", crate::state::clusters::api_base()),
            )));
        }
    };
    let can_open = kind != TargetKind::Deployment;
    let port_row = move |port: OfferedPort| {
        let forwardable = port.forwardable();
        let forward_title = move || {
            match forward_reason.get() {
            Some(reason) => reason,
            None if !forwardable => "Only TCP ports can be forwarded".to_string(),
            None => "Listen on 127.0.0.1 in kube-atlas and tunnel each connection to this port (kubectl port-forward)".to_string(),
        }
        };
        let open_title = move || {
            open_denied.get().unwrap_or_else(|| {
                "Show this port's HTTP answer here, through the API server's proxy".into()
            })
        };
        let for_forward = port.clone();
        let for_open = port.clone();
        view! {
            <tr class="port-row">
                <td>{port.label()}</td>
                <td>{port.protocol.clone()}</td>
                <td class="hint">{port.detail.clone()}</td>
                <td>
                    <button type="button" class="forward-button"
                        disabled=move || starting.get() || !forwardable || forward_reason.get().is_some()
                        title=forward_title
                        on:click=move |_| forward(for_forward.clone())>"Forward"</button>
                    {can_open.then(|| view! {
                        <button type="button" class="open-button"
                            disabled=move || !forwardable || open_denied.get().is_some()
                            title=open_title
                            on:click=move |_| open(&for_open)>"Open"</button>
                    })}
                </td>
            </tr>
        }
    };
    move || {
        let shown = ports.get();
        (!shown.is_empty()).then(|| view! {
            <section class="ports-panel" aria-label="Ports">
                <h2>"Ports"</h2>
                {(!has_server).then(|| view! { <p class="hint forward-needs-server">{NEEDS_KUBE_ATLAS}</p> })}
                <table class="ports-table">
                    <thead><tr>
                        <th scope="col">"Port"</th><th scope="col">"Protocol"</th>
                        <th scope="col">"Leads to"</th><th scope="col"><span class="visually-hidden">"Actions"</span></th>
                    </tr></thead>
                    <tbody>{shown.into_iter().map(port_row).collect_view()}</tbody>
                </table>
                {has_server.then(|| view! {
                    <p class="forward-options">
                        <label>"Local port "
                            <input type="text" inputmode="numeric" size="6" placeholder="any free"
                                aria-label="Local port" prop:value=local_port
                                on:input=move |e| local_port.set(event_target_value(&e))/>
                        </label>
                        <label>
                            <input type="checkbox" prop:checked=keep
                                on:change=move |e| keep.set(event_target_checked(&e))/>
                            " Keep forwarding after this page closes"
                        </label>
                    </p>
                })}
                {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
                {move || (!mine.with(Vec::is_empty)).then(|| view! { <ForwardsTable forwards=mine/> })}
                {move || opened.get().map(|(title, src)| view! {
                    <OpenedPort title=title src=src on_close=Callback::new(move |()| opened.set(None))/>
                })}
            </section>
        })
    }
}
