//! One Event object on the timeline: its type, reason, message, what it is about (linked),
//! its count and its first and last time.

use leptos::prelude::*;

use crate::model::navigation::route::{ObjectRoute, Page};
use crate::model::object::events::EventRecord;
use crate::model::time::age::{human_duration, EpochMillis};
use crate::model::ApiTree;

/// The object page of what an Event is about, when discovery maps its kind.
pub(crate) fn regarding_href(record: &EventRecord, tree: &ApiTree) -> Option<String> {
    let regarding = &record.regarding;
    if regarding.name.is_empty() {
        return None;
    }
    let (resource, namespaced) = regarding.resource(tree)?;
    let namespace = regarding.namespace.clone().filter(|_| namespaced);
    Some(
        Page::Object(ObjectRoute::new(
            resource,
            namespace,
            regarding.name.clone(),
        ))
        .to_hash(),
    )
}

/// `12s ago`, from a time and the ticking clock.
pub(crate) fn ago(at: Option<EpochMillis>, now: EpochMillis) -> String {
    match at {
        Some(at) => format!("{} ago", human_duration(now - at)),
        None => "unknown".to_string(),
    }
}

#[component]
pub(crate) fn EventRow(
    record: EventRecord,
    tree: StoredValue<ApiTree>,
    clock: RwSignal<EpochMillis>,
) -> impl IntoView {
    let href = tree.with_value(|tree| regarding_href(&record, tree));
    let warning = record.event_type.is_warning();
    let type_text = record.event_type.as_str().to_string();
    let (first, last) = (record.first_seen_ms, record.last_seen_ms);
    let repeated = record.count > 1 || (first.is_some() && first != last);
    let last_text = move || ago(last, clock.get());
    let first_text = move || format!("first {}", ago(first, clock.get()));
    let object_label = record.regarding.describe();
    let field_path = record.regarding.field_path.clone();
    let source = match (
        record.reporting_component.as_str(),
        record.reporting_instance.as_str(),
    ) {
        ("", "") => "unknown".to_string(),
        (component, "") => component.to_string(),
        ("", instance) => instance.to_string(),
        (component, instance) => format!("{component} on {instance}"),
    };
    let action = (!record.action.is_empty()).then(|| record.action.clone());
    let related = record.related.as_ref().map(|r| r.describe());
    let count = record.count;
    view! {
        <tr
            class="event-row"
            class:event-warning=warning
            class:expired=record.expired
            data-type=type_text.clone()
            data-reason=record.reason.clone()
            data-uid=record.uid.clone()
            data-count=count.to_string()
            data-expired=record.expired.to_string()
        >
            <td class="event-when">
                <span class="event-last">{last_text}</span>
                {repeated.then(|| view! { <span class="event-first">{first_text}</span> })}
                {record.expired.then(|| view! {
                    <span class="event-expired" title="Deleted from the cluster (Events expire after an hour); kept here">
                        "expired from the cluster"
                    </span>
                })}
            </td>
            <td class="event-type">
                <span class="event-type-badge" data-type=type_text.clone()>{type_text.clone()}</span>
            </td>
            <td class="event-reason">
                {record.reason.clone()}
                {action.map(|a| view! { <span class="event-action">{a}</span> })}
            </td>
            <td class="event-object">
                {match href {
                    Some(href) => view! { <a href=href>{object_label}</a> }.into_any(),
                    None => view! { <span>{object_label}</span> }.into_any(),
                }}
                {field_path.map(|p| view! { <span class="event-field-path">{p}</span> })}
                {related.map(|r| view! { <span class="event-related">"related: " {r}</span> })}
            </td>
            <td class="event-message">{record.message.clone()}</td>
            <td class="event-source">{source}</td>
            <td class="event-count">
                {(count > 1).then(|| view! { <span class="event-times">{format!("×{count}")}</span> })}
            </td>
        </tr>
    }
}
