//! Replay of a recording (`#/replay`): open a JSON Lines file the recorder wrote (or the
//! example in the repository), then play, pause, step, 1x / 10x and seek through it; the
//! timeline, blame, Event objects and controller activity of any recorded object are drawn
//! by the same views as the live pages, from the replayed stores. No cluster is needed.

use std::collections::BTreeMap;

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::components::history::clock_time;
use crate::components::{ActivityView, BlameView, TimelineView};
use crate::model::history::{
    activity, seen_events, Activity, ObjectTimeline, Player, Recording, SeenEvent,
};
use crate::model::object::events::event_record;
use crate::model::ApiTree;
use crate::state::discovery::DiscoveryState;

/// How often a playing recording moves on.
const TICK_MS: u32 = 100;

/// An object of the recording: its key in the stores and its uid.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Chosen {
    uid: String,
}

fn is_events_key(key: &str) -> bool {
    key.split([' ', '?'])
        .next()
        .is_some_and(|path| path.ends_with("/events"))
}

/// Every recorded object (Events aside) as (label, uid), by kind and name.
fn objects_of(player: &Player) -> Vec<(String, String)> {
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
fn timeline_in(player: &Player, uid: &str) -> Option<ObjectTimeline> {
    player
        .stores()
        .values()
        .filter_map(|s| s.timeline(uid))
        .max_by_key(|t| t.revisions.len())
        .cloned()
}

fn replayed_activity(player: &Player, root: &str) -> Activity {
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
fn replayed_events_view(player: &Player) -> AnyView {
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
async fn read_file(input: web_sys::HtmlInputElement) -> Result<String, String> {
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

#[component]
pub fn ReplayPage() -> impl IntoView {
    let discovery = expect_context::<DiscoveryState>();
    let tree: ApiTree = discovery
        .loaded
        .with_untracked(|l| l.as_ref().map(|l| l.discovery.tree.clone()))
        .unwrap_or_default();
    let player = RwSignal::new(None::<Player>);
    let error = RwSignal::new(None::<String>);
    let playing = RwSignal::new(false);
    let speed = RwSignal::new(1.0_f64);
    let chosen = RwSignal::new(None::<Chosen>);
    let view_kind = RwSignal::new("activity");

    let on_file = move |event: leptos::ev::Event| {
        let Some(input) = event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        spawn_local(async move {
            match read_file(input)
                .await
                .and_then(|text| Recording::parse(&text))
            {
                Ok(recording) => {
                    error.set(None);
                    playing.set(false);
                    chosen.set(None);
                    let started = recording
                        .header
                        .as_ref()
                        .and_then(|h| crate::model::time::age::parse_timestamp(&h.started_at))
                        .map_or_else(js_sys::Date::now, |ms| ms as f64);
                    let mut loaded = Player::new(recording, started);
                    loaded.seek(0.0);
                    player.set(Some(loaded));
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };

    // Playing: advance every tick; nothing runs while paused.
    let ticker = StoredValue::new_local(None::<IntervalHandle>);
    Effect::new(move |_| {
        if playing.get() {
            let handle = set_interval_with_handle(
                move || {
                    let step = f64::from(TICK_MS) * speed.get_untracked();
                    player.update(|p| {
                        if let Some(p) = p {
                            let next = p.position_ms() + step;
                            p.seek(next);
                            if p.at_end() {
                                playing.set(false);
                            }
                        }
                    });
                },
                std::time::Duration::from_millis(u64::from(TICK_MS)),
            )
            .ok();
            ticker.set_value(handle);
        } else if let Some(handle) = ticker.try_update_value(Option::take).flatten() {
            handle.clear();
        }
    });
    on_cleanup(move || {
        if let Some(handle) = ticker.try_update_value(Option::take).flatten() {
            handle.clear();
        }
    });

    let controls = move || {
        player.with(|p| {
            let p = p.as_ref()?;
            let duration = p.recording().duration_ms();
            let position = p.position_ms();
            let applied = p.applied();
            let total = p.recording().records.len();
            let now = p.start_ms() + position;
            Some(view! {
                <div class="player" role="group" aria-label="Player">
                    <button type="button" class="play" on:click=move |_| playing.update(|v| *v = !*v)>
                        {move || if playing.get() { "Pause" } else { "Play" }}
                    </button>
                    <button type="button" class="step" on:click=move |_| player.update(|p| {
                        if let Some(p) = p { p.step(); }
                    })>"Step"</button>
                    <button type="button" class="speed" on:click=move |_| speed.update(|s| *s = if *s > 1.0 { 1.0 } else { 10.0 })>
                        {move || if speed.get() > 1.0 { "10×" } else { "1×" }}
                    </button>
                    <input
                        type="range"
                        class="seek"
                        aria-label="Position"
                        min="0"
                        max=duration.to_string()
                        prop:value=position.to_string()
                        on:input=move |e| {
                            if let Ok(ms) = event_target_value(&e).parse::<f64>() {
                                player.update(|p| if let Some(p) = p { p.seek(ms); });
                            }
                        }
                    />
                    <span class="position mono" data-applied=applied.to_string()>
                        {format!("{} · {:.1} s of {:.1} s · {applied}/{total} records", clock_time(now), position / 1000.0, duration / 1000.0)}
                    </span>
                </div>
            })
        })
    };

    let picker = move || {
        player.with(|p| {
            let objects = objects_of(p.as_ref()?);
            Some(view! {
                <label class="replay-object">
                    "Object "
                    <select on:change=move |e| {
                        let uid = event_target_value(&e);
                        chosen.set((!uid.is_empty()).then_some(Chosen { uid }));
                    }>
                        <option value="">"Choose an object…"</option>
                        {objects.into_iter().map(|(label, uid)| {
                            let selected = chosen.with_untracked(|c| c.as_ref().is_some_and(|c| c.uid == uid));
                            view! { <option value=uid selected=selected>{label}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <span class="replay-views" role="tablist">
                    {["activity", "timeline", "blame", "events"].into_iter().map(|kind| view! {
                        <button type="button" role="tab" aria-selected=move || (view_kind.get() == kind).to_string()
                            on:click=move |_| view_kind.set(kind)>{kind}</button>
                    }).collect_view()}
                </span>
            })
        })
    };

    let uid = Signal::derive(move || chosen.with(|c| c.as_ref().map(|c| c.uid.clone())));
    let timeline = Signal::derive(move || {
        let uid = uid.get()?;
        player.with(|p| timeline_in(p.as_ref()?, &uid))
    });
    // The newest version whole (a deleted object's `latest` is slim).
    let object = Signal::derive(move || {
        timeline.with(|t| {
            t.as_ref()
                .and_then(|t| t.revisions.back())
                .and_then(|r| r.object())
        })
    });
    let replay_activity = Signal::derive(move || {
        let Some(uid) = uid.get() else {
            return Activity::default();
        };
        player.with(|p| {
            p.as_ref()
                .map(|p| replayed_activity(p, &uid))
                .unwrap_or_default()
        })
    });
    let body = move || {
        if view_kind.get() == "events" {
            return Some(
                player
                    .with(|p| p.as_ref().map(replayed_events_view))
                    .into_any(),
            );
        }
        uid.get()?;
        Some(match view_kind.get() {
            "timeline" => view! { <TimelineView timeline=timeline/> }.into_any(),
            "blame" => {
                let href_of = Callback::new(|rv: String| format!("#rev-{rv}"));
                view! { <BlameView object=object timeline=timeline href_of=href_of/> }.into_any()
            }
            _ => view! { <ActivityView activity=replay_activity tree=tree.clone()/> }.into_any(),
        })
    };

    view! {
        <section class="replay-page" aria-label="Replay">
            <h1>"Replay a recording"</h1>
            <p class="muted">
                "Open a recording of watch traffic (JSON Lines, made with the Record button in the \
                 header, or the example in the repository's examples/ folder) and play it back: no \
                 cluster is needed."
            </p>
            <input type="file" class="recording-file" aria-label="Recording file to play back" accept=".jsonl,.json,application/x-ndjson,text/plain" on:change=on_file/>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {controls}
            <div class="replay-choice">{picker}</div>
            {body}
        </section>
    }
}
