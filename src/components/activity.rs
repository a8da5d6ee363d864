//! The controller activity of an owner's chain: one lane per actor, one row per write or
//! Event object in time order.

use crate::components::time::clock_time;
use crate::components::timeline::revision_href;
use crate::model::history::{Activity, ActivityItem, ItemDetail};
use crate::model::ApiTree;
use leptos::prelude::*;

/// Rows drawn at first, the newest, and how many more each "Show older" adds: every change
/// re-lays out the drawn rows (a table), so a busy chain with hundreds drawn made long
/// frames, and 150 still made 40 ms of layout during a 100-pod rollout. 50 is three to four
/// screens of the scrolling region.
const SHOWN_ACTIVITY_ROWS: usize = 50;

/// Swimlanes: one column per actor, one row per write or Event object in time order.
#[component]
pub fn ActivityView(#[prop(into)] activity: Signal<Activity>, tree: ApiTree) -> impl IntoView {
    let grouped = RwSignal::new(true);
    let limit = RwSignal::new(SHOWN_ACTIVITY_ROWS);
    let tree = StoredValue::new(tree);
    let lanes = Memo::new(move |_| activity.with(|a| a.lanes.clone()));
    // Rows newest first, keyed so that a new write draws one row, not the whole table; and
    // how many older ones are left out.
    let shown = Memo::new(move |_| {
        activity.with(|activity| {
            let all = activity.rows(grouped.get());
            let limit = limit.get();
            let hidden = all.len().saturating_sub(limit);
            let rows = all
                .into_iter()
                .rev()
                .take(limit)
                .map(|row| ShownRow::of(activity, &row.items))
                .collect::<Vec<_>>();
            (rows, hidden)
        })
    });
    let header = move || {
        lanes.with(|lanes| {
            lanes
                .iter()
                .map(|lane| {
                    view! {
                        <th scope="col" class="lane" data-lane=lane.id.clone() title=lane.inferred_from.clone()>
                            {lane.label.clone()}
                            <small class="inferred">{lane.inferred_from.clone()}</small>
                        </th>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <p class="muted">
            "Every write along this object's owner chain, newest first, on one lane per actor. \
             Lanes come from managedFields (the writing binary), bindings (spec.nodeName with no \
             managedFields entry) and the components named by Event objects; each lane's header \
             says how it was inferred. Event objects are reports written by components, shown \
             beside the write they concern. Below what was seen since the view opened, the chain's \
             past before that, reconstructed (marked): its objects' creations, bindings, revisions \
             and each manager's last write, and the Event objects of the last hour."
        </p>
        <label class="toggle">
            <input type="checkbox" prop:checked=move || grouped.get() on:change=move |_| grouped.update(|g| *g = !*g)/>
            " Group repeated actions (e.g. a ReplicaSet's pods)"
        </label>
        {move || activity.with(|a| a.items.is_empty()).then(|| view! {
            <p class="muted">"No writes yet. Change the object (scale it, edit its image) or wait for its controllers: every write along its chain appears here as it happens."</p>
        })}
        // Scrolls both ways with the time column and the lane headers held in view; focusable
        // so a keyboard scrolls it too.
        <div class="activity-scroll" role="region" tabindex="0" aria-label="Controller activity lanes (scrollable)">
            <table
                class="activity"
                aria-label="Controller activity"
                style:width=move || format!("{}px", 96 + 190 * lanes.with(Vec::len))
            >
                <thead><tr><th scope="col">"Time"</th>{header}</tr></thead>
                <tbody>
                    <For each=move || shown.with(|(rows, _)| rows.clone()) key=|row| row.key.clone() let:row>
                        {
                            let time = clock_time(row.items[0].at_ms);
                            // The lane is named beside the time, so a row whose write sits in
                            // a lane scrolled out of view never looks empty, and each cell's
                            // accessible name carries its lane and time.
                            let lane_label = lanes.with_untracked(|lanes| {
                                lanes
                                    .get(row.items[0].lane)
                                    .map(|lane| lane.label.clone())
                                    .unwrap_or_default()
                            });
                            // The lanes before and after the row's own are one spanning cell
                            // each; the one after follows the lane count, so a new lane (lanes
                            // are added at the end) widens it instead of drawing every row
                            // again.
                            let lane = row.items[0].lane;
                            let heard_as = format!("{lane_label}, {time}: ");
                            let cell = tree.with_value(|tree| item_cell(&row.items, tree, heard_as));
                            let before = (lane > 0).then(|| view! { <td colspan=lane.to_string()></td> });
                            let after = move || {
                                let rest = lanes.with(Vec::len).saturating_sub(lane + 1);
                                (rest > 0).then(|| view! { <td colspan=rest.to_string()></td> })
                            };
                            view! {
                                <tr class="activity-row">
                                    <td class="when">
                                        <span class="mono">{time.clone()}</span>
                                        <span class="when-lane" aria-hidden="true">{lane_label.clone()}</span>
                                    </td>
                                    {before}
                                    {cell}
                                    {after}
                                </tr>
                            }
                        }
                    </For>
                </tbody>
            </table>
        </div>
        {move || {
            let hidden = shown.with(|(_, hidden)| *hidden);
            (hidden > 0).then(|| view! {
                <p class="muted">
                    {format!("{hidden} older row(s) not shown; the newest {} are. ", limit.get())}
                    <button type="button" on:click=move |_| limit.update(|l| *l += SHOWN_ACTIVITY_ROWS)>
                        "Show older"
                    </button>
                </p>
            })
        }}
    }
}

/// One drawn row: its items, and a key that changes whenever its drawing would.
#[derive(Debug, Clone, PartialEq)]
struct ShownRow {
    key: String,
    items: Vec<ActivityItem>,
}

impl ShownRow {
    /// The row of `indexes`' items; its key changes when what it draws does (its lane, its
    /// group's size and ends), not when a lane is added elsewhere.
    fn of(activity: &Activity, indexes: &[usize]) -> ShownRow {
        let items: Vec<ActivityItem> = indexes.iter().map(|i| activity.items[*i].clone()).collect();
        let identity = |item: &ActivityItem| match &item.detail {
            ItemDetail::Write(w) => format!("{}#{}", w.uid, w.seq),
            ItemDetail::Event(e) => format!("{}x{}{}", e.uid, e.count, e.listed),
            ItemDetail::Past(p) => format!("{}:{}", p.uid, p.summary),
        };
        let key = format!(
            "{}|{}|{}|{}",
            items.first().map(|item| item.lane).unwrap_or_default(),
            items.len(),
            items.first().map(identity).unwrap_or_default(),
            items.last().map(identity).unwrap_or_default()
        );
        ShownRow { key, items }
    }
}

/// One lane's cell of a row; `heard_as` (its lane and time) starts its accessible text.
fn item_cell(items: &[ActivityItem], tree: &ApiTree, heard_as: String) -> AnyView {
    let first = &items[0];
    let count = items.len();
    let times = if count > 1 {
        format!(" ×{count}")
    } else {
        String::new()
    };
    match &first.detail {
        ItemDetail::Past(past) => past_cell(items, past, heard_as),
        ItemDetail::Write(write) => {
            let title = write.changes.join("\n");
            // A grouped row ("×3") opens its newest revision: what the object is now.
            let newest = items
                .iter()
                .rev()
                .find_map(|item| match &item.detail {
                    ItemDetail::Write(w) => Some(w),
                    _ => None,
                })
                .unwrap_or(write);
            let href = revision_href(
                tree,
                &newest.api_version,
                &newest.kind,
                newest.namespace.as_deref(),
                &newest.name,
                &newest.resource_version,
            );
            let names: Vec<String> = items
                .iter()
                .filter_map(|i| match &i.detail {
                    ItemDetail::Write(w) => Some(w.name.clone()),
                    _ => None,
                })
                .collect();
            let label = if count > 1 {
                format!("{}{times}", write.summary)
            } else {
                write.summary.clone()
            };
            let link = match href {
                Some(href) => view! { <a href=href>{label}</a> }.into_any(),
                None => view! { <span>{label}</span> }.into_any(),
            };
            view! {
                <td class="write" data-kind=write.kind.clone() data-type=write.revision_kind.label() title=title>
                    <span class="visually-hidden">{heard_as}</span>
                    {link}
                    {(count > 1).then(|| view! { <small class="names">{names.join(", ")}</small> })}
                </td>
            }
            .into_any()
        }
        ItemDetail::Event(event) => {
            let class = if event.warning {
                "event-object warning"
            } else {
                "event-object"
            };
            let count_text = if event.count > 1 {
                format!(" (×{})", event.count)
            } else {
                String::new()
            };
            let linked = event
                .linked_write
                .as_ref()
                .map(|(uid, seq)| format!("concerns write #{seq} of {uid}"))
                .unwrap_or_else(|| "no write linked".into());
            let class = if event.listed {
                format!("{class} reconstructed")
            } else {
                class.to_string()
            };
            let linked = if event.listed {
                "listed when watching began: it happened before the page opened".to_string()
            } else {
                linked
            };
            view! {
                <td class=class data-reason=event.reason.clone() data-listed=event.listed.to_string() title=format!("{}\n{}", event.message, linked)>
                    <span class="visually-hidden">{heard_as}</span>
                    <span class="badge">{if event.warning { "Warning Event" } else { "Event" }}</span>
                    " "
                    <strong>{event.reason.clone()}</strong>
                    {format!("{times}{count_text} — {}", event.message)}
                </td>
            }
            .into_any()
        }
    }
}

fn past_cell(
    items: &[ActivityItem],
    first: &crate::model::history::PastItem,
    heard_as: String,
) -> AnyView {
    let count = items.len();
    let objects: Vec<String> = items
        .iter()
        .filter_map(|i| match &i.detail {
            ItemDetail::Past(p) => Some(p.object.clone()),
            _ => None,
        })
        .collect();
    let label = if count > 1 {
        format!("{} ×{count}", first.summary)
    } else {
        first.summary.clone()
    };
    let title = format!(
        "reconstructed (before watching began); by {}\n{}{}",
        first.actor,
        first.evidence.join("\n"),
        if first.unknown.is_empty() {
            String::new()
        } else {
            format!("\nnot recorded: {}", first.unknown.join("; "))
        }
    );
    view! {
        <td class="past reconstructed" data-kind=first.kind title=title>
            <span class="visually-hidden">{heard_as}</span>
            <span class="badge reconstructed">"reconstructed"</span>
            " "
            <span class="summary">{label}</span>
            {(count > 1).then(|| view! { <small class="names">{objects.join(", ")}</small> })}
        </td>
    }
    .into_any()
}
