//! The blame view: the object's YAML with each line's owning manager.

use crate::components::time::{clock_and_age, clock_time};
use crate::model::history::{blame_lines, FieldPath, ObjectTimeline};
use crate::model::time::age::parse_timestamp;
use leptos::prelude::*;
use serde_json::Value;

/// The object's YAML with each line's owning manager; lines changed since the page opened
/// link to the revision that last changed them.
#[component]
pub fn BlameView(
    #[prop(into)] object: Signal<Option<Value>>,
    #[prop(into)] timeline: Signal<Option<ObjectTimeline>>,
    /// The timeline link of a resourceVersion.
    href_of: Callback<String, String>,
) -> impl IntoView {
    move || {
        let Some(object) = object.get() else {
            return ().into_any();
        };
        let lines = blame_lines(&object);
        timeline.with(|t| {
            let rows = lines
                .into_iter()
                .map(|line| {
                    let owner = line.owners.first().cloned();
                    let changed = t
                        .as_ref()
                        .filter(|_| !line.field_path.is_empty())
                        .and_then(|t| t.last_change_of(&line.field_path))
                        .map(|r| (r.resource_version.clone(), clock_time(r.observed_ms)));
                    let manager = owner
                        .as_ref()
                        .map(|o| {
                            let extra = line.owners.len().saturating_sub(1);
                            if extra > 0 {
                                format!("{} +{extra}", o.manager)
                            } else {
                                o.manager.clone()
                            }
                        })
                        .unwrap_or_default();
                    let operation = owner
                        .as_ref()
                        .map(|o| {
                            if o.subresource.is_empty() {
                                o.operation.clone()
                            } else {
                                format!("{}/{}", o.operation, o.subresource)
                            }
                        })
                        .unwrap_or_default();
                    let written = owner.as_ref().and_then(|o| o.time.clone()).unwrap_or_default();
                    let when = parse_timestamp(&written).map(clock_and_age).unwrap_or_default();
                    let path = FieldPath(line.field_path.clone()).to_string();
                    let changed_cell = match changed {
                        Some((rv, time)) => {
                            let href = href_of.run(rv.clone());
                            view! { <a href=href title=format!("last changed at rv {rv}")>{time}</a> }.into_any()
                        }
                        None => ().into_any(),
                    };
                    view! {
                        <tr class="blame-line" data-manager=manager.clone() data-path=path.clone()>
                            <td class="manager">{manager.clone()}</td>
                            <td class="operation">{operation}</td>
                            <td class="when mono" title=written>{when}</td>
                            <td class="changed mono">{changed_cell}</td>
                            <td class="text"><pre>{line.text}</pre></td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <table class="blame" aria-label="Blame">
                    <thead><tr>
                        <th scope="col">"Manager"</th>
                        <th scope="col">"Operation"</th>
                        <th scope="col">"Last write"</th>
                        <th scope="col">"Changed here"</th>
                        <th scope="col">"YAML"</th>
                    </tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            }
            .into_any()
        })
    }
}
