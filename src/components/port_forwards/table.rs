//! A table of forwards: what each reaches (pod and port), its local address as a link,
//! connections open, bytes each way, since when, what happened to it, and *Stop*. The
//! object page shows its object's; the header's list shows every one.

use leptos::prelude::*;

use crate::model::api::forwards::{ForwardInfo, PortRef};
use crate::model::metrics::quantity::format_bytes;
use crate::model::time::age::age_of;
use crate::state::clock::use_clock;
use crate::state::forwards::ForwardsHub;

#[component]
pub fn ForwardsTable(
    forwards: Signal<Vec<ForwardInfo>>,
    /// Shows the context and namespace (the header's list of every forward).
    #[prop(optional)]
    wide: bool,
) -> impl IntoView {
    let hub = ForwardsHub::get();
    let now = use_clock();
    let problem = RwSignal::new(None::<String>);
    let row = move |forward: ForwardInfo| {
        let id = StoredValue::new(forward.id.clone());
        let stopping = RwSignal::new(false);
        let stop = move |_| {
            stopping.set(true);
            leptos::task::spawn_local(async move {
                let result = hub.stop(&id.get_value()).await;
                stopping.try_set(false);
                problem.try_set(result.err());
            });
        };
        let ended = forward.ended.clone();
        let since = forward.since.clone();
        let age = {
            let since = since.clone();
            move || age_of(&since, now.get()).unwrap_or_default()
        };
        let target = forward.target_name();
        let asked = match &forward.port {
            PortRef::Number(number) => number.to_string(),
            PortRef::Name(name) => name.clone(),
        };
        let reaches = format!(
            " port {asked} → pod {}:{}",
            forward.pod, forward.remote_port
        );
        let kept = forward
            .keep_after_page_closes
            .then_some(" · kept after the page closes");
        view! {
            <tr class="forward-row" data-forward=forward.id.clone()>
                {wide.then(|| view! { <td>{format!("{}/{}", forward.context, forward.namespace)}</td> })}
                <td>
                    <span class="forward-target">{target}</span>
                    <span class="hint">{reaches}</span>
                </td>
                <td>
                    {match &ended {
                        None => view! {
                            <a class="forward-link" href=forward.url.clone() target="_blank"
                                rel="noopener noreferrer">{forward.local_address.clone()}</a>
                        }
                        .into_any(),
                        Some(_) => view! { <span class="hint">{forward.local_address.clone()}</span> }.into_any(),
                    }}
                    <span class="hint">{kept}</span>
                </td>
                <td class="numeric" title="Connections open">{forward.connections}</td>
                <td class="numeric" title="Received from the pod / sent to it">
                    {format!("{} / {}", format_bytes(forward.bytes_in as i64), format_bytes(forward.bytes_out as i64))}
                </td>
                <td title=since>{age}</td>
                <td class="forward-notes">
                    {ended.clone().map(|why| view! { <span class="forward-ended" role="status">{format!("Ended: {why}")}</span> })}
                    {forward.notes.last().cloned().map(|note| view! { <span class="hint">{note}</span> })}
                </td>
                <td>
                    {ended.is_none().then(|| view! {
                        <button type="button" disabled=move || stopping.get() on:click=stop>"Stop"</button>
                    })}
                </td>
            </tr>
        }
    };
    view! {
        {move || problem.get().map(|p| view! { <p class="error" role="alert">{p}</p> })}
        <table class="forwards-table">
            <thead>
                <tr>
                    {wide.then(|| view! { <th scope="col">"Cluster/namespace"</th> })}
                    <th scope="col">"Forwards"</th>
                    <th scope="col">"Local address"</th>
                    <th scope="col">"Open"</th>
                    <th scope="col">"Bytes in / out"</th>
                    <th scope="col">"Since"</th>
                    <th scope="col">"Notes"</th>
                    <th scope="col"><span class="visually-hidden">"Actions"</span></th>
                </tr>
            </thead>
            <tbody>
                <For each=move || forwards.get() key=|f| (f.id.clone(), f.connections, f.bytes_in, f.bytes_out, f.ended.clone(), f.notes.len()) children=row/>
            </tbody>
        </table>
    }
}
