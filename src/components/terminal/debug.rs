//! "Debug container": adds an ephemeral container (busybox by default) sharing a container's
//! process namespace, shows it starting with the pod's Events, and attaches once it runs.

use leptos::prelude::*;
use serde_json::Value;

use crate::components::EventTimeline;
use crate::model::object::events::EventScope;
use crate::model::object::pod_logs::ContainerKind;
use crate::model::object::terminal::containers::TerminalContainer;
use crate::model::object::terminal::debug::DEFAULT_DEBUG_IMAGE;
use crate::model::ApiTree;
use crate::state::debug_container::{use_debug_container, DebugProgress};

#[component]
pub fn DebugContainerForm(
    tree: ApiTree,
    pod: Signal<Option<Value>>,
    denied: Signal<Option<String>>,
    containers: Memo<Vec<TerminalContainer>>,
    /// Called once the debug container runs.
    on_running: Callback<TerminalContainer>,
) -> impl IntoView {
    let debug = use_debug_container(tree, pod);
    let image = RwSignal::new(DEFAULT_DEBUG_IMAGE.to_string());
    let target = RwSignal::new(String::new());
    let attached = StoredValue::new(None::<String>);
    Effect::new(move |_| {
        let DebugProgress::Running { name } = debug.progress.get() else {
            return;
        };
        if attached.with_value(|a| a.as_deref() == Some(name.as_str())) {
            return;
        }
        let container = containers.with(|all| all.iter().find(|c| c.name == name).cloned());
        if let Some(container) = container {
            attached.set_value(Some(name));
            on_running.run(container);
        }
    });
    let targets = move || {
        containers
            .get()
            .into_iter()
            .filter(|c| c.kind == ContainerKind::Regular)
            .map(|c| view! { <option value=c.name.clone()>{c.name.clone()}</option> })
            .collect_view()
    };
    let start = move |_| {
        let target = Some(target.get_untracked()).filter(|t| !t.is_empty());
        debug
            .start
            .run((image.get_untracked().trim().to_string(), target));
    };
    let busy = move || {
        matches!(
            debug.progress.get(),
            DebugProgress::Adding | DebugProgress::Starting { .. }
        )
    };
    let events = move || {
        let DebugProgress::Starting { .. } = debug.progress.get() else {
            return None;
        };
        let scope = pod.with_untracked(|p| {
            let p = p.as_ref()?;
            Some(EventScope::Object {
                namespace: p["metadata"]["namespace"].as_str().map(str::to_string),
                uid: p["metadata"]["uid"].as_str()?.to_string(),
                kind: "Pod".into(),
                name: p["metadata"]["name"].as_str()?.to_string(),
            })
        })?;
        Some(view! { <div class="debug-events"><EventTimeline scope=scope/></div> })
    };
    view! {
        <details class="debug-container">
            <summary>"Debug container…"</summary>
            <div class="debug-form">
                <label>"Image " <input type="text" aria-label="Debug image" prop:value=move || image.get()
                    on:input=move |ev| image.set(event_target_value(&ev))/></label>
                <label>"Target " <select aria-label="Debug target" on:change=move |ev| target.set(event_target_value(&ev))>
                    <option value="">"(none)"</option>
                    {targets}
                </select></label>
                <button type="button" on:click=start disabled=move || denied.get().is_some() || busy() title=move || denied.get()>
                    "Start debug container"
                </button>
                <span role="status" class="debug-progress">{move || match debug.progress.get() {
                    DebugProgress::Idle => String::new(),
                    DebugProgress::Adding => "Adding…".into(),
                    DebugProgress::Starting { name, state } => format!("Starting {name}: {state}"),
                    DebugProgress::Running { name } => format!("{name} is running; attached."),
                    DebugProgress::Failed(why) => why,
                }}</span>
                {events}
            </div>
        </details>
    }
}
