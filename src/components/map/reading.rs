//! The map in words, for screen readers and for anyone who would rather read: each node in
//! the drawing's order (columns left to right, top to bottom) with what it points at and
//! what points at it; and the kinds left out because the user may not list them.

use leptos::prelude::*;

use crate::model::map::missing::{plural, MissingKind, MissingReason};
use crate::model::map::reading::ReadingEntry;

#[component]
pub fn MapReading(entries: Vec<ReadingEntry>, shown: Signal<bool>) -> impl IntoView {
    let items = entries
        .into_iter()
        .map(|entry| {
            let links: Vec<String> = entry.outgoing.into_iter().chain(entry.incoming).collect();
            view! {
                <li data-node=entry.node>
                    <span class="map-reading-heading">{entry.heading}</span>
                    {(!links.is_empty()).then(|| view! {
                        <ul>{links.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
                    })}
                </li>
            }
        })
        .collect_view();
    view! {
        <section
            class="map-reading"
            class:visually-hidden=move || !shown.get()
            aria-label="The map as a list"
        >
            <ol>{items}</ol>
        </section>
    }
}

/// "Not shown: you may not list Secrets, PersistentVolumes." and any kind that failed.
#[component]
pub fn MissingKinds(missing: Vec<MissingKind>) -> impl IntoView {
    if missing.is_empty() {
        return None;
    }
    let forbidden: Vec<String> = missing
        .iter()
        .filter(|m| m.reason == MissingReason::Forbidden)
        .map(|m| plural(&m.kind))
        .collect();
    let failed: Vec<String> = missing
        .iter()
        .filter(|m| m.reason != MissingReason::Forbidden)
        .map(MissingKind::sentence)
        .collect();
    let forbidden = (!forbidden.is_empty())
        .then(|| format!("Not shown: you may not list {}.", forbidden.join(", ")));
    Some(view! {
        <div class="map-missing" role="note">
            {forbidden.map(|text| view! { <p data-missing="forbidden">{text}</p> })}
            {failed.into_iter().map(|text| view! { <p data-missing="failed">{text}</p> }).collect_view()}
        </div>
    })
}
