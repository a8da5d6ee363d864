//! "Logs of these pods": on a pods list filtered by a label selector in one namespace, the
//! merged logs of the pods it matches (`kubectl logs -l app=web --prefix -f`, merged by time),
//! drawn only while the user has it open (each pod's stream holds a connection).

use leptos::prelude::*;

use crate::components::workload_logs::WorkloadLogs;
use crate::model::object::workload_logs::PodCoverage;

#[component]
pub(super) fn SelectorLogs(namespace: String, label_selector: String) -> impl IntoView {
    let open = RwSignal::new(false);
    let coverage = PodCoverage::of_label_selector(&namespace, &label_selector);
    view! {
        <details
            class="selector-logs"
            on:toggle=move |event| {
                let details: web_sys::HtmlDetailsElement = event_target(&event);
                open.set(details.open());
            }
        >
            <summary>{format!("Logs of these pods ({label_selector})")}</summary>
            {move || open.get().then(|| view! { <WorkloadLogs coverage=coverage.clone()/> })}
        </details>
    }
}
