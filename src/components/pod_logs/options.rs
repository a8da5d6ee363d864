//! The options bar of the pod logs: container, follow, timestamps, previous, tail.

use leptos::prelude::*;

use crate::model::object::pod_logs::{LogContainer, LogOptions, TailLines};

/// The options of `kubectl logs`: container, follow, timestamps, previous, tail.
#[component]
pub(super) fn LogOptionsBar(
    options: RwSignal<LogOptions>,
    containers: Vec<LogContainer>,
) -> impl IntoView {
    // A `<select>` over one option; `set` gets the chosen `<option>` value.
    let choice = move |label: &'static str,
                       aria_label: &'static str,
                       choices: Vec<(String, String)>,
                       get: fn(&LogOptions) -> String,
                       set: fn(&mut LogOptions, String)| {
        let choices = choices
            .into_iter()
            .map(|(value, text)| view! { <option value=value>{text}</option> })
            .collect_view();
        view! {
            <label>
                {label}
                <select
                    aria-label=aria_label
                    prop:value=move || options.with(get)
                    on:change=move |event| {
                        let value = event_target_value(&event);
                        options.update(|o| set(o, value));
                    }
                >
                    {choices}
                </select>
            </label>
        }
    };
    let container_choice = (!containers.is_empty()).then(|| {
        choice(
            "Container",
            "Container",
            containers
                .iter()
                .map(|c| (c.name.clone(), c.label()))
                .collect(),
            |o| o.container.clone().unwrap_or_default(),
            |o, name| o.container = Some(name),
        )
    });
    let tail_choice = choice(
        "Tail",
        "Tail lines",
        TailLines::CHOICES
            .into_iter()
            .map(|tail| (tail.param().unwrap_or_default(), tail.label()))
            .collect(),
        |o| o.tail.param().unwrap_or_default(),
        |o, value| {
            if let Some(tail) = TailLines::from_param(&value) {
                o.tail = tail;
            }
        },
    );
    let checkbox = move |label: &'static str,
                         title: &'static str,
                         get: fn(&LogOptions) -> bool,
                         set: fn(&mut LogOptions, bool)| {
        view! {
            <label class="check" title=title>
                <input
                    type="checkbox"
                    aria-label=label
                    prop:checked=move || options.with(get)
                    on:change=move |event| {
                        let on = event_target_checked(&event);
                        options.update(|o| set(o, on));
                    }
                />
                {label}
            </label>
        }
    };

    view! {
        <div class="pod-logs-toolbar">
            {container_choice}
            {checkbox(
                "Stream (-f)",
                "follow=true: keep the response open and show lines as they are printed",
                |o| o.follow,
                |o, on| o.follow = on,
            )}
            {checkbox(
                "Timestamps",
                "timestamps=true: the time the runtime received each line",
                |o| o.timestamps,
                |o, on| o.timestamps = on,
            )}
            {checkbox(
                "Previous",
                "previous=true: the log of the container's last terminated instance",
                |o| o.previous,
                |o, on| o.previous = on,
            )}
            {tail_choice}
        </div>
    }
}
