//! A pod's Terminal tab: a container picker (init and ephemeral containers too, with their
//! state), the command (bash, else sh, or typed), sessions in tabs of their own, attach to a
//! container's process, and debug containers ([`debug`]). Closing a session or the page closes
//! its socket.

use leptos::prelude::*;
use serde_json::Value;

use crate::model::object::terminal::containers::{
    default_terminal_container, terminal_containers, TerminalContainer,
};
use crate::model::object::terminal::request::{is_served, PodSubresource};
use crate::model::object::terminal::shell::command_argv;
use crate::model::ApiTree;
use crate::state::terminal::TerminalCommand;

mod bundle;
mod debug;
mod screen;

pub use bundle::TERMINAL_BUNDLE;
use screen::{SessionSpec, TerminalScreen};

/// What may not be done here, and why (the permissions model's no; None: allowed or unknown).
#[derive(Clone, Copy)]
pub struct TerminalDenials {
    pub exec: Signal<Option<String>>,
    pub attach: Signal<Option<String>>,
    pub debug: Signal<Option<String>>,
}

/// Where the Terminal tab is: the pod, and what it may do.
#[derive(Clone)]
pub struct TerminalPlace {
    pub tree: ApiTree,
    pub namespace: String,
    pub name: String,
    /// The pod as its page watches it (containers come and go: debug containers).
    pub pod: Signal<Option<Value>>,
    /// `attach=`: open attached to this container instead of a shell.
    pub attach: Option<String>,
    pub denials: TerminalDenials,
    /// The page saw the pod deleted: its sessions end.
    pub deleted: Signal<bool>,
}

crate::split::split_view!(
    /// The tab itself: a module of its own (with the session and protocol code), so the
    /// object page does not load it before a Terminal tab is opened.
    kube_atlas_terminal(place: TerminalPlace) => view! {
        <TerminalTabView
            tree=place.tree
            namespace=place.namespace
            name=place.name
            pod=place.pod
            attach=place.attach
            denials=place.denials
            deleted=place.deleted
        />
    }
);

/// A pod's terminals, their code fetched when first shown (and xterm.js when the first
/// session's screen is drawn).
#[component]
pub fn TerminalTab(place: TerminalPlace) -> impl IntoView {
    crate::split::loaded_with(
        || view! { <p class="loading">"Loading the terminal…"</p> }.into_any(),
        "The terminal could not be loaded. ",
        move || kube_atlas_terminal(place.clone()),
    )
}

/// One open session and its tab.
#[derive(Clone)]
struct OpenSession {
    id: u64,
    label: String,
    spec: SessionSpec,
}

#[component]
fn TerminalTabView(
    tree: ApiTree,
    namespace: String,
    name: String,
    pod: Signal<Option<Value>>,
    attach: Option<String>,
    denials: TerminalDenials,
    deleted: Signal<bool>,
) -> impl IntoView {
    if !is_served(&tree, PodSubresource::Exec) {
        return view! { <p class="muted">"The server does not serve pods/exec: no terminal here."</p> }
            .into_any();
    }
    let containers =
        Memo::new(move |_| pod.with(|p| p.as_ref().map(terminal_containers).unwrap_or_default()));
    let chosen = RwSignal::new(attach.clone().unwrap_or_default());
    let command_text = RwSignal::new(String::new());
    let command_error = RwSignal::new(None::<String>);
    let sessions = RwSignal::new(Vec::<OpenSession>::new());
    let active = RwSignal::new(0_u64);
    let next_id = StoredValue::new(1_u64);
    let open = {
        let namespace = namespace.clone();
        let name = name.clone();
        move |container: String, command: TerminalCommand| {
            let id = next_id.get_value();
            next_id.set_value(id + 1);
            let label = match &command {
                TerminalCommand::DefaultShell => format!("{container}: shell"),
                TerminalCommand::Typed(argv) => format!("{container}: {}", argv.join(" ")),
                TerminalCommand::Attach(_) => format!("{container}: attached"),
            };
            let spec = SessionSpec {
                namespace: namespace.clone(),
                pod: name.clone(),
                container,
                command,
            };
            sessions.update(|all| all.push(OpenSession { id, label, spec }));
            active.set(id);
        }
    };
    let container_now = move || -> Option<TerminalContainer> {
        let name = chosen.get_untracked();
        containers.with_untracked(|all| all.iter().find(|c| c.name == name).cloned())
    };
    let open_shell = {
        let open = open.clone();
        move || {
            let Some(container) = container_now() else {
                return;
            };
            let typed = command_text.get_untracked();
            let command = if typed.trim().is_empty() {
                TerminalCommand::DefaultShell
            } else {
                match command_argv(&typed) {
                    Ok(argv) => TerminalCommand::Typed(argv),
                    Err(error) => {
                        command_error.set(Some(error.to_string()));
                        return;
                    }
                }
            };
            command_error.set(None);
            open(container.name, command);
        }
    };
    let open_attach = {
        let open = open.clone();
        move |container: TerminalContainer| {
            let options = container.attach_options();
            open(container.name, TerminalCommand::Attach(options));
        }
    };
    // The tab opens on a session once the pod is known: a shell in the default container,
    // or the attach asked for.
    let opened_first = StoredValue::new(false);
    {
        let open_shell = open_shell.clone();
        let open_attach = open_attach.clone();
        Effect::new(move |_| {
            if opened_first.get_value() {
                return;
            }
            let default = pod.with(|p| {
                let p = p.as_ref()?;
                let all = terminal_containers(p);
                default_terminal_container(p, &all).map(|c| c.name.clone())
            });
            let Some(default) = default else {
                return;
            };
            opened_first.set_value(true);
            if chosen.get_untracked().is_empty() {
                chosen.set(default);
            }
            let runs = containers
                .with_untracked(|all| all.iter().any(|c| c.name == chosen.get_untracked()))
                && container_now().is_some_and(|c| c.unavailable_reason().is_none());
            if !runs || denials.exec.get_untracked().is_some() {
                return;
            }
            match attach.as_ref().and_then(|_| container_now()) {
                Some(container) => open_attach(container),
                None => open_shell(),
            }
        });
    }
    let unavailable = move || {
        let name = chosen.get();
        containers.with(|all| {
            all.iter()
                .find(|c| c.name == name)
                .and_then(TerminalContainer::unavailable_reason)
        })
    };
    let exec_blocked = move || denials.exec.get().or_else(unavailable);
    let attach_blocked = move || denials.attach.get().or_else(unavailable);
    let options = move || {
        containers
            .get()
            .into_iter()
            .map(|c| {
                let label = format!("{} · {}", c.label(), c.state.text());
                view! { <option value=c.name.clone() selected=c.name == chosen.get_untracked()>{label}</option> }
            })
            .collect_view()
    };
    let tabs = move || {
        sessions
            .get()
            .into_iter()
            .map(|session| {
                let id = session.id;
                view! {
                    <span class="terminal-tab" role="tab" aria-selected=move || (active.get() == id).to_string()>
                        <button type="button" class="link" on:click=move |_| active.set(id)>{session.label.clone()}</button>
                        <button type="button" class="icon" aria-label=format!("Close {}", session.label)
                            on:click=move |_| sessions.update(|all| all.retain(|s| s.id != id))>"×"</button>
                    </span>
                }
            })
            .collect_view()
    };
    let on_submit = {
        let open_shell = open_shell.clone();
        move |event: leptos::ev::SubmitEvent| {
            event.prevent_default();
            open_shell();
        }
    };
    let on_attach = move |_| {
        if let Some(container) = container_now() {
            open_attach(container);
        }
    };
    view! {
        <div class="terminal-tab-panel">
            <form class="terminal-toolbar" on:submit=on_submit>
                <label>"Container "
                    <select aria-label="Container" on:change=move |ev| chosen.set(event_target_value(&ev))>{options}</select>
                </label>
                <label>"Command "
                    <input type="text" aria-label="Command" placeholder="bash, else sh"
                        prop:value=move || command_text.get()
                        on:input=move |ev| command_text.set(event_target_value(&ev))/>
                </label>
                <button type="submit" disabled=move || exec_blocked().is_some() title=exec_blocked>"Open terminal"</button>
                <button type="button" on:click=on_attach disabled=move || attach_blocked().is_some() title=attach_blocked>"Attach"</button>
                <debug::DebugContainerForm tree=tree.clone() pod=pod denied=denials.debug containers=containers
                    on_running=Callback::new(move |container: TerminalContainer| {
                        chosen.set(container.name.clone());
                        let options = container.attach_options();
                        open(container.name, TerminalCommand::Attach(options));
                    })/>
            </form>
            {move || command_error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {move || exec_blocked().map(|why| view! { <p class="muted terminal-blocked" role="status">{why}</p> })}
            <div class="terminal-tabs" role="tablist" aria-label="Terminal sessions">{tabs}</div>
            <For each=move || sessions.get() key=|s| s.id let:session>
                <TerminalScreen tree=tree.clone() spec=session.spec.clone() deleted=deleted visible=Signal::derive(move || active.get() == session.id)/>
            </For>
            {move || sessions.with(Vec::is_empty).then(|| view! {
                <p class="muted">"No terminal open. Pick a container and open one."</p>
            })}
        </div>
    }
    .into_any()
}
