//! The workload logs' filters: pod, container, text or regex, severity, since; pause and
//! follow; download.

use std::collections::BTreeSet;

use leptos::ev;
use leptos::prelude::*;

use crate::browser::download_text;
use crate::model::object::workload_logs::download::download_file_name;
use crate::model::object::workload_logs::log::DownloadScope;
use crate::model::object::workload_logs::{
    LineFilter, Severity, Since, TextMode, TextPattern, WorkloadLog,
};
use crate::state::workload_logs::StreamRow;

/// What the user chose; each change filters the view again.
#[derive(Clone, Copy)]
pub(super) struct Filters {
    pod: RwSignal<String>,
    container: RwSignal<String>,
    text: RwSignal<String>,
    regex: RwSignal<bool>,
    severity: RwSignal<Option<Severity>>,
    paused: RwSignal<bool>,
}

impl Filters {
    pub(super) fn new() -> Filters {
        Filters {
            pod: RwSignal::new(String::new()),
            container: RwSignal::new(String::new()),
            text: RwSignal::new(String::new()),
            regex: RwSignal::new(false),
            severity: RwSignal::new(None),
            paused: RwSignal::new(false),
        }
    }

    /// The model's filter, or why the text is not a valid pattern.
    fn line_filter(&self) -> Result<LineFilter, String> {
        let mode = if self.regex.get() {
            TextMode::Regex
        } else {
            TextMode::Plain
        };
        let text = TextPattern::new(&self.text.get(), mode)?;
        let one = |value: String| -> BTreeSet<String> {
            (!value.is_empty()).then_some(value).into_iter().collect()
        };
        Ok(LineFilter {
            pods: one(self.pod.get()),
            containers: one(self.container.get()),
            text,
            min_severity: self.severity.get(),
        })
    }
}

#[component]
pub(super) fn FilterBar(
    filters: Filters,
    log: StoredValue<WorkloadLog, LocalStorage>,
    since: RwSignal<Since>,
    streams: ReadSignal<Vec<StreamRow>>,
    kind: String,
    name: String,
    /// After the view's lines changed here (filtered, paused, followed).
    on_change: Callback<()>,
) -> impl IntoView {
    let pattern_error = RwSignal::new(None::<String>);
    Effect::new(move |_| match filters.line_filter() {
        Ok(filter) => {
            pattern_error.set(None);
            log.update_value(|l| l.set_filter(filter));
            on_change.run(());
        }
        Err(why) => pattern_error.set(Some(why)),
    });
    Effect::new(move |_| {
        let paused = filters.paused.get();
        log.update_value(|l| if paused { l.pause() } else { l.follow() });
        on_change.run(());
    });
    let names = move |of: fn(&StreamRow) -> &str| {
        streams.with(|rows| {
            rows.iter()
                .map(|row| of(row).to_string())
                .collect::<BTreeSet<_>>()
        })
    };
    let choice =
        |value: String, label: String| view! { <option value=value.clone()>{label}</option> };
    let download_error = RwSignal::new(None::<String>);
    let download = move |_| {
        let text = log.with_value(|l| l.download(DownloadScope::All));
        let file = download_file_name(&kind, &name);
        download_error.set(
            download_text(&text, &file)
                .err()
                .map(|e| format!("The download failed: {e:?}")),
        );
    };
    let value_of = |event: &ev::Event| event_target_value(event);
    view! {
        <div class="pod-logs-toolbar workload-logs-toolbar">
            <label>
                "Pod "
                <select aria-label="Pod" on:change=move |e| filters.pod.set(value_of(&e))>
                    <option value="">"All pods"</option>
                    {move || names(|r| &r.key.pod).into_iter().map(|p| choice(p.clone(), p)).collect_view()}
                </select>
            </label>
            <label>
                "Container "
                <select aria-label="Container" on:change=move |e| filters.container.set(value_of(&e))>
                    <option value="">"All containers"</option>
                    {move || names(|r| &r.key.container).into_iter().map(|c| choice(c.clone(), c)).collect_view()}
                </select>
            </label>
            <input
                type="search"
                class="workload-logs-filter"
                placeholder="Filter lines"
                aria-label="Filter lines"
                on:input=move |e| filters.text.set(value_of(&e))
            />
            <label title="The filter is a regular expression">
                <input type="checkbox" aria-label="Regular expression" on:change=move |e| filters.regex.set(event_target_checked(&e))/>
                " Regex"
            </label>
            <label>
                "Severity "
                <select aria-label="Severity" on:change=move |e| {
                    let chosen = value_of(&e);
                    filters.severity.set(Severity::LEVELS.into_iter().find(|s| s.label() == chosen));
                }>
                    <option value="">"Any"</option>
                    {Severity::LEVELS.into_iter().map(|s| choice(s.label().to_string(), format!("{} or worse", s.label()))).collect_view()}
                </select>
            </label>
            <label>
                "Since "
                <select aria-label="Since" on:change=move |e| {
                    if let Some(chosen) = Since::from_param(&value_of(&e)) {
                        since.set(chosen);
                    }
                }>
                    {Since::CHOICES.into_iter().map(|s| view! {
                        <option value=s.param() selected=since.get_untracked() == s>{s.label()}</option>
                    }).collect_view()}
                </select>
            </label>
            <span class="pod-logs-spacer"></span>
            <button
                type="button"
                class="workload-logs-pause"
                aria-pressed=move || filters.paused.get().to_string()
                on:click=move |_| filters.paused.update(|p| *p = !*p)
            >
                {move || if filters.paused.get() { "Follow" } else { "Pause" }}
            </button>
            <button type="button" class="pod-logs-download" on:click=download>"Download"</button>
        </div>
        {move || pattern_error.get().map(|e| view! { <p class="error workload-logs-pattern-error" role="alert">{e}</p> })}
        {move || download_error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
    }
}
