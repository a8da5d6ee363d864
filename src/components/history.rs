//! Views of what happened to objects: an object's timeline (every change, who made it, its
//! diff, any two revisions compared), the blame view (the YAML with each line's manager),
//! and the controller activity of an owner's chain (one lane per actor). They take model
//! data (timelines, activity) as signals, so the live pages and the replay of a recording
//! draw them the same way.

use leptos::prelude::*;
use serde_json::Value;

use crate::model::history::past::shown::{OrderNote, PastRow};
use crate::model::history::{
    blame_lines, compare, fold_noise, Activity, ActivityItem, FieldPath, ItemDetail,
    ObjectTimeline, PastTime, Revision, RevisionKind, TimelineEntry,
};
use crate::model::navigation::route::{ObjectRoute, ObjectTab, Page};
use crate::model::time::age::{human_duration, parse_timestamp};
use crate::model::{api::endpoints::kind_to_resource, ApiTree};
use crate::state::clock::epoch_now;

/// `10:04:05.123`, local time.
pub fn clock_time(epoch_ms: f64) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(epoch_ms));
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        date.get_hours(),
        date.get_minutes(),
        date.get_seconds(),
        date.get_milliseconds()
    )
}

/// `10:04:05`, local time: the times the cluster keeps are written to the second.
pub fn clock_second(epoch_ms: f64) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(epoch_ms));
    format!(
        "{:02}:{:02}:{:02}",
        date.get_hours(),
        date.get_minutes(),
        date.get_seconds()
    )
}

/// `10:04:05 (3m20s ago)`.
fn clock_and_age(epoch_ms: i64) -> String {
    format!(
        "{} ({} ago)",
        clock_second(epoch_ms as f64),
        human_duration(epoch_now() - epoch_ms)
    )
}

/// A reconstructed entry's time: a moment, an Event's first and last time, or none.
pub fn past_time_text(time: &PastTime) -> String {
    match time {
        PastTime::At(at) => clock_and_age(*at),
        PastTime::Span { first, last, count } => format!(
            "{} – {} ({count} times)",
            clock_second(*first as f64),
            clock_and_age(*last)
        ),
        PastTime::Unknown => "time not recorded".into(),
    }
}

fn past_row_view(row: PastRow) -> impl IntoView {
    let class = if row.warning {
        "past-entry warning"
    } else {
        "past-entry"
    };
    let order = row
        .order
        .text()
        .filter(|_| row.order != OrderNote::TimeNotRecorded);
    let changes = (!row.changes.is_empty()).then(|| {
        view! {
            <ul class="template-diff" aria-label="Template diff">
                {row.changes.iter().map(|c| view! { <li class="mono">{c.clone()}</li> }).collect_view()}
            </ul>
        }
    });
    view! {
        <li class=class data-kind=row.kind>
            <span class="when mono">{past_time_text(&row.time)}</span>
            {order.map(|o| view! { <span class="order-note">{o}</span> })}
            <span class="badge reconstructed" title="Not seen by a watch: read from what the cluster keeps">"reconstructed"</span>
            <span class="what">{row.what.clone()}</span>
            <span class="actor" title="who did it, as the data names them">{row.actor.clone()}</span>
            {changes}
            <details class="evidence">
                <summary>"evidence"</summary>
                <ul>{row.evidence.iter().map(|e| view! { <li class="mono">{e.clone()}</li> }).collect_view()}</ul>
                {(!row.unknown.is_empty()).then(|| view! {
                    <p class="muted">"Not recorded: "</p>
                    <ul class="unknown">{row.unknown.iter().map(|u| view! { <li>{u.clone()}</li> }).collect_view()}</ul>
                })}
            </details>
        </li>
    }
}

/// The object page of an object on its timeline at one revision, when discovery maps it.
pub fn revision_href(
    tree: &ApiTree,
    api_version: &str,
    kind: &str,
    namespace: Option<&str>,
    name: &str,
    resource_version: &str,
) -> Option<String> {
    let (group, version) = crate::model::api::endpoints::split_api_version(api_version);
    let found = kind_to_resource(tree, group, version, kind).ok()?;
    let namespace = namespace
        .filter(|_| found.resource.namespaced)
        .map(str::to_string);
    let mut route = ObjectRoute::new(found.id(), namespace, name);
    route.tab = ObjectTab::Timeline;
    route.revision = Some(resource_version.to_string()).filter(|r| !r.is_empty());
    Some(Page::Object(route).to_hash())
}

fn writers_view(revision: &Revision) -> AnyView {
    if revision.writers.is_empty() {
        let text = match revision.kind {
            RevisionKind::Listed => "as listed when watching began",
            RevisionKind::Deleted => "deleted (the API records no deleter)",
            RevisionKind::Relisted | RevisionKind::GoneInRelist => {
                "seen in a relist: the writes in between were missed"
            }
            _ => "writer not recorded",
        };
        return view! { <span class="muted">{text}</span> }.into_any();
    }
    revision
        .writers
        .iter()
        .map(|w| {
            let class = if w.is_status_write() {
                "writer status-write"
            } else {
                "writer"
            };
            let title = format!(
                "{}{}",
                w.evidence.explain(),
                w.time
                    .as_ref()
                    .map(|t| format!("; entry time {t}"))
                    .unwrap_or_default()
            );
            view! {
                <span class=class data-manager=w.manager.clone() data-operation=w.operation.clone() title=title>
                    {w.label()}
                </span>
            }
        })
        .collect_view()
        .into_any()
}

fn changes_view(revision: &Revision) -> AnyView {
    if revision.changes.is_empty() {
        return ().into_any();
    }
    let lines: Vec<String> = revision.changes.iter().map(|c| c.describe()).collect();
    let open = lines.len() <= 6;
    view! {
        <details class="changes" open=open>
            <summary>{format!("{} field(s) changed", lines.len())}</summary>
            <ul>{lines.into_iter().map(|l| view! { <li class="mono">{l}</li> }).collect_view()}</ul>
        </details>
    }
    .into_any()
}

fn revision_row(revision: &Revision, picked: RwSignal<Vec<u64>>, focused: bool) -> AnyView {
    let seq = revision.seq;
    let kind = revision.kind.label();
    let class = if focused {
        "revision focused"
    } else {
        "revision"
    };
    view! {
        <li class=class data-kind=kind data-rv=revision.resource_version.clone() id=format!("rev-{}", revision.resource_version)>
            <label class="pick" title="Pick two revisions to compare">
                <input
                    type="checkbox"
                    prop:checked=move || picked.with(|p| p.contains(&seq))
                    on:change=move |_| picked.update(|p| {
                        if let Some(i) = p.iter().position(|s| *s == seq) {
                            p.remove(i);
                        } else {
                            p.push(seq);
                            if p.len() > 2 {
                                p.remove(0);
                            }
                        }
                    })
                />
            </label>
            <span class="when mono">{clock_time(revision.observed_ms)}</span>
            <span class="type">{kind}</span>
            <span class="rv mono">{format!("rv {}", revision.resource_version)}</span>
            <span class="writers">{writers_view(revision)}</span>
            {changes_view(revision)}
        </li>
    }
    .into_any()
}

/// An object's timeline, newest first, noise folded; two picked revisions compared.
#[component]
pub fn TimelineView(
    #[prop(into)] timeline: Signal<Option<ObjectTimeline>>,
    /// A resourceVersion to mark (from a link).
    #[prop(optional)]
    focus: Option<String>,
    /// The past before watching began, reconstructed, newest first.
    #[prop(optional)]
    past: Option<Signal<Vec<PastRow>>>,
) -> impl IntoView {
    let picked = RwSignal::new(Vec::<u64>::new());
    let expanded = RwSignal::new(std::collections::HashSet::<u64>::new());
    let comparison = move || {
        let seqs = picked.get();
        let [a, b] = seqs.as_slice() else {
            return view! { <p class="muted">"Pick two revisions to compare them."</p> }.into_any();
        };
        timeline.with(|t| {
            let t = t.as_ref()?;
            let (from, to) = (t.revision(*a.min(b))?, t.revision(*a.max(b))?);
            let changes = compare(from, to)?;
            Some(view! {
                <div class="comparison" aria-label="Comparison">
                    <h3>{format!("rv {} → rv {}: {} change(s)", from.resource_version, to.resource_version, changes.len())}</h3>
                    <ul>{changes.iter().map(|c| view! { <li class="mono">{c.describe()}</li> }).collect_view()}</ul>
                </div>
            }.into_any())
        })
        .unwrap_or_else(|| ().into_any())
    };
    let entries = move || {
        timeline.with(|t| {
            let Some(t) = t.as_ref() else {
                return view! { <p class="loading">"Waiting for the object…"</p> }.into_any();
            };
            let rows = fold_noise(t)
                .into_iter()
                .map(|entry| match entry {
                    TimelineEntry::Revision(seq) => t
                        .revision(seq)
                        .map(|r| {
                            let focused = focus.as_deref() == Some(r.resource_version.as_str());
                            revision_row(r, picked, focused)
                        })
                        .unwrap_or_else(|| ().into_any()),
                    TimelineEntry::Folded(seqs) => {
                        let first = seqs[0];
                        if expanded.with(|e| e.contains(&first)) {
                            seqs.iter()
                                .filter_map(|s| t.revision(*s))
                                .map(|r| revision_row(r, picked, false))
                                .collect_view()
                                .into_any()
                        } else {
                            view! {
                                <li class="folded">
                                    <button type="button" on:click=move |_| expanded.update(|e| { e.insert(first); })>
                                        {format!("{} bookkeeping-only write(s) (resourceVersion, managedFields times, renewals) — show", seqs.len())}
                                    </button>
                                </li>
                            }
                            .into_any()
                        }
                    }
                })
                .collect_view();
            let dropped = (t.dropped > 0).then(|| {
                view! { <p class="muted">{format!("{} older revision(s) dropped to bound memory.", t.dropped)}</p> }
            });
            view! {
                <ol class="timeline" aria-label="Timeline">{rows}</ol>
                {dropped}
            }
            .into_any()
        })
    };
    let past_section =
        past.map(|past| {
            move || {
                let rows = past.get();
                (!rows.is_empty()).then(|| view! {
                <h3 class="past-heading">"Before watching began (reconstructed)"</h3>
                <p class="muted">
                    "Not seen by a watch: read from what the cluster keeps (creationTimestamp, \
                     managedFields times, conditions, container states, revisions, the Event \
                     objects of the last hour). Each entry's evidence and what is not recorded \
                     open below it; times are to the second."
                </p>
                <ol class="timeline past" aria-label="Reconstructed past">
                    {rows.into_iter().map(past_row_view).collect_view()}
                </ol>
            })
            }
        });
    view! {
        <p class="muted">
            "Every watch event (ADDED, MODIFIED, DELETED) received for this object since it was \
             first watched, newest first, with the manager that made each write (from \
             managedFields) and the fields it changed; below them, its past before that."
        </p>
        {comparison}
        {entries}
        {past_section}
    }
}

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

/// Record / stop in the header: records every watch change the page receives from now on,
/// and offers it as a JSON Lines download when stopped.
#[component]
pub fn RecordControl() -> impl IntoView {
    let hub = expect_context::<crate::state::watch::WatchHub>();
    let recording = hub.recording;
    let toggle = move |_| {
        if recording.get_untracked().is_some() {
            if let Some(text) = hub.stop_recording() {
                let name = format!(
                    "kube-atlas-recording-{}.jsonl",
                    js_sys::Date::new_0()
                        .to_iso_string()
                        .as_string()
                        .unwrap_or_default()
                        .replace([':', '.'], "-")
                );
                // A failed download leaves nothing to recover; the page stays as it was.
                crate::browser::download_text(&text, &name).ok();
            }
        } else {
            hub.start_recording();
        }
    };
    view! {
        <span class="recorder">
            <button
                type="button"
                class="record"
                title="Record the watch traffic this page receives (JSON Lines), to replay without a cluster"
                on:click=toggle
            >
                {move || if recording.get().is_some() { "■ Stop and download" } else { "● Record" }}
            </button>
            {move || recording.get().is_some().then(|| view! { <span class="recording">"recording"</span> })}
            <a class="header-link" href=Page::Replay.to_hash()>"Replay"</a>
        </span>
    }
}
