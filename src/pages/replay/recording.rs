//! What the replay page reads of a recording: its objects, an object's timeline and
//! activity, the Event objects replayed, and the chosen file's text.

use std::collections::BTreeMap;

use leptos::prelude::*;

use crate::components::time::clock_time;
use crate::model::history::{activity, seen_events, Activity, ObjectTimeline, Player, SeenEvent};
use crate::model::object::events::event_record;

/// How often a playing recording moves on.
pub(super) const TICK_MS: u32 = 100;

/// An object of the recording: its key in the stores and its uid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Chosen {
    pub(super) uid: String,
}

pub(super) fn is_events_key(key: &str) -> bool {
    key.split([' ', '?'])
        .next()
        .is_some_and(|path| path.ends_with("/events"))
}

/// Every recorded object (Events aside) as (label, uid), by kind and name.
pub(super) fn objects_of(player: &Player) -> Vec<(String, String)> {
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for (key, store) in player.stores() {
        if is_events_key(key) {
            continue;
        }
        for timeline in store.timelines() {
            let id = &timeline.identity;
            let label = format!(
                "{} {}{}",
                id.kind,
                id.namespace
                    .as_deref()
                    .map(|ns| format!("{ns}/"))
                    .unwrap_or_default(),
                id.name
            );
            seen.insert(label, id.uid.clone());
        }
    }
    seen.into_iter().collect()
}

/// The longest timeline of `uid` among the recorded keys.
pub(super) fn timeline_in(player: &Player, uid: &str) -> Option<ObjectTimeline> {
    player
        .stores()
        .values()
        .filter_map(|s| s.timeline(uid))
        .max_by_key(|t| t.revisions.len())
        .cloned()
}

pub(super) fn replayed_activity(player: &Player, root: &str) -> Activity {
    let events: Vec<SeenEvent> = player
        .stores()
        .iter()
        .filter(|(key, _)| is_events_key(key))
        .flat_map(|(_, store)| seen_events(store))
        .collect();
    let timelines: Vec<&ObjectTimeline> = player
        .stores()
        .iter()
        .filter(|(key, _)| !is_events_key(key))
        .flat_map(|(_, store)| store.timelines())
        .collect();
    activity(root, &timelines, &events)
}

/// The Event objects recorded up to the position, newest first: one row per Event with its
/// count, Warnings in words.
pub(super) fn replayed_events_view(player: &Player) -> AnyView {
    let mut events: Vec<_> = player
        .stores()
        .iter()
        .filter(|(key, _)| is_events_key(key))
        .flat_map(|(_, store)| store.timelines())
        .filter_map(|t| Some((t.revisions.back()?.observed_ms, event_record(&t.latest)?)))
        .collect();
    crate::model::list::stable_sort::sort_by(&mut events, |a, b| b.0.total_cmp(&a.0));
    let rows = events
        .into_iter()
        .map(|(at, e)| {
            let kind = e.event_type.as_str().to_string();
            view! {
                <tr class="replay-event" data-type=kind.clone() data-reason=e.reason.clone()>
                    <td class="mono">{clock_time(at)}</td>
                    <td>{kind.clone()}</td>
                    <td><strong>{e.reason.clone()}</strong></td>
                    <td>{e.regarding.describe()}</td>
                    <td>{e.message.clone()}</td>
                    <td>{e.reporting_component.clone()}</td>
                    <td>{format!("×{}", e.count)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <p class="muted">"Event objects (reports written by components) recorded up to this point, newest first."</p>
        <table class="event-table" aria-label="Event objects">
            <thead><tr>
                <th scope="col">"Last seen"</th><th scope="col">"Type"</th><th scope="col">"Reason"</th>
                <th scope="col">"Object"</th><th scope="col">"Message"</th><th scope="col">"Reported by"</th>
                <th scope="col">"Count"</th>
            </tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
    .into_any()
}

/// Reads the chosen file's text.
pub(super) async fn read_file(input: web_sys::HtmlInputElement) -> Result<String, String> {
    let file = input
        .files()
        .and_then(|files| files.get(0))
        .ok_or("no file chosen")?;
    let text = wasm_bindgen_futures::JsFuture::from(file.text())
        .await
        .map_err(|_| "the file could not be read".to_string())?;
    text.as_string()
        .ok_or_else(|| "the file is not text".into())
}
