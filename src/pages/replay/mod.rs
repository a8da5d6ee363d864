//! Replay of a recording (`#/replay`): open a JSON Lines file the recorder wrote (or the
//! example in the repository), then play, pause, step, 1x / 10x and seek through it; the
//! timeline, blame, Event objects and controller activity of any recorded object are drawn
//! by the same views as the live pages, from the replayed stores. No cluster is needed.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::components::time::clock_time;
use crate::components::{ActivityView, BlameView, TimelineView};
use crate::model::history::{Activity, Player, Recording};
use crate::model::ApiTree;
use crate::state::discovery::DiscoveryState;

mod recording;

use recording::{
    objects_of, read_file, replayed_activity, replayed_events_view, timeline_in, Chosen, TICK_MS,
};

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
