//! An object's timeline: every change, who made it, its diff, any two revisions compared,
//! and the entries reconstructed from what the cluster keeps. It takes model data as
//! signals, so the live pages and the replay of a recording draw it the same way.

use crate::components::time::{clock_time, past_time_text};
use crate::model::history::past::shown::{OrderNote, PastRow};
use crate::model::history::{
    compare, fold_noise, ObjectTimeline, Revision, RevisionKind, TimelineEntry,
};
use crate::model::navigation::route::{ObjectRoute, ObjectTab, Page};
use crate::model::{api::endpoints::kind_to_resource, ApiTree};
use leptos::prelude::*;

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
