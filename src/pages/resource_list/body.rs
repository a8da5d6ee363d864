//! The list's rows (the virtual table, or the merged list of every cluster) and its status
//! line.

use leptos::prelude::*;

use crate::browser::monotonic_now;
use crate::components::{
    BulkBar, ForbiddenNotice, HealthBadge, RowSelection, StreamStatusLine, VirtualTable,
};
use crate::model::diagnosis::Health;
use crate::model::list::display::{
    display_row, header_cells, shown_columns, with_labels_column, with_usage_columns, DrawnAt,
};
use crate::model::list::table::{SortSpec, TableSource};
use crate::model::navigation::route::{ListRoute, Page};
use crate::model::watch::{LiveTable, StreamPhase, WatchStatus, WatchStore};
use crate::pages::resource_list::ListIdentity;
use crate::state::clock::use_clock;
use crate::state::list::{use_list_order, use_paint_marks, ListOrder};
use crate::state::navigation::use_navigation;
use crate::state::row_selection::{use_row_selection, UseRowSelectionOptions};
use crate::state::usage_columns::UseUsageColumnsReturn;
use crate::state::watch::LiveWatch;

#[component]
pub(super) fn ListBody(
    identity: ListIdentity,
    live: LiveWatch<LiveTable>,
    title: String,
    /// Whether the kind is namespaced (a forbidden list offers other namespaces).
    namespaced: bool,
    /// The CPU and MEMORY columns (pods and nodes).
    usage: Option<UseUsageColumnsReturn>,
    /// The kind listed (the bulk actions' targets).
    kind: String,
) -> impl IntoView {
    let usage_columns = Signal::derive(move || usage.and_then(|u| u.columns.get()));
    let usage_missing = Signal::derive(move || usage.and_then(|u| u.missing.get()));
    let navigation = use_navigation();
    let now = use_clock();
    let store: ReadSignal<LiveTable> = live.store.clone().into();
    let status: ReadSignal<WatchStatus> = live.status.clone().into();

    let view_options = Memo::new(move |_| match navigation.page.get() {
        Page::ResourceList(route) => (route.sort, route.filter, route.wide, route.unhealthy),
        _ => (None, String::new(), false, false),
    });
    let asked_order = Memo::new(move |_| {
        view_options.with(|(sort, filter, _, unhealthy)| ListOrder {
            sort: sort.clone(),
            filter: filter.clone(),
            only_unhealthy: *unhealthy,
        })
    });
    let order = use_list_order(store, asked_order, usage_columns);
    let has_usage = Memo::new(move |_| usage_columns.with(Option::is_some));
    let show_labels = Memo::new(move |_| {
        navigation
            .page
            .with(|p| matches!(p, Page::ResourceList(route) if route.show_labels))
    });
    let columns = Memo::new(move |_| {
        let wide = view_options.with(|(_, _, wide, _)| *wide);
        let mut shown = store.with(|live| shown_columns(live.table(), wide));
        if has_usage.get() {
            shown = with_usage_columns(shown);
        }
        if show_labels.get() {
            shown = with_labels_column(shown);
        }
        shown
    });
    // A memo: the header row is redrawn when the columns or the sort change, not on every
    // batch of watch events.
    let headers = Memo::new(move |_| {
        let sort = view_options.with(|(sort, _, _, _)| sort.clone());
        store.with(|live| header_cells(live.table(), &columns.get(), sort.as_ref()))
    });
    let resource = identity.resource.clone();
    let row_at = Callback::new(move |index: usize| {
        let position = order.with(|positions| positions.get(index).copied())?;
        let at = DrawnAt {
            wall: now.get(),
            monotonic: monotonic_now(),
        };
        let shown = columns.get();
        usage_columns.with(|usage| {
            store.with(|live| display_row(live, position, &shown, &resource, at, usage.as_deref()))
        })
    });
    let on_sort = Callback::new(move |column: String| {
        if let Page::ResourceList(mut route) = navigation.page.get_untracked() {
            route.sort = Some(SortSpec::after_click(route.sort.take(), column));
            navigation.replace(Page::ResourceList(route));
        }
    });
    let on_open = Callback::new(move |href: String| navigation.go(Page::parse(&href)));
    let row_count = Signal::derive(move || order.with(Vec::len));
    let selected = use_row_selection(UseRowSelectionOptions {
        store,
        order,
        resource: identity.resource.clone(),
        kind,
    });
    let selection = RowSelection {
        is_selected: selected.is_selected,
        on_gesture: selected.gesture,
        on_clear: selected.clear,
        all_selected: selected.all_selected,
        on_all: selected.select_all,
    };
    let marks = use_paint_marks(row_count, status);
    // The same list in another namespace (offered when this one is forbidden).
    let elsewhere = Callback::new(
        move |namespace: String| match navigation.page.get_untracked() {
            Page::ResourceList(route) => Page::ResourceList(ListRoute {
                namespace: Some(namespace),
                ..route
            })
            .to_hash(),
            _ => String::new(),
        },
    );

    view! {
        <span
            class="list-timing"
            hidden
            data-first-rows-ms=move || marks.first_rows_ms.get().map(|ms| format!("{ms:.1}"))
            data-loaded-ms=move || marks.loaded_ms.get().map(|ms| format!("{ms:.1}"))
        ></span>
        <ListStatus store=store status=status shown=row_count/>
        {move || usage_missing.get().map(|reason| view! {
            <p class="usage-missing" role="note">"CPU and memory: " {reason}</p>
        })}
        <ForbiddenNotice status=status namespaced=namespaced elsewhere=Some(elsewhere)/>
        <StreamStatusLine live=live.clone() clock=now/>
        <BulkBar
            objects=selected.objects
            sentence=selected.sentence
            count=selected.count
            matching=row_count
            all_selected=selected.all_selected
            on_select_all=selected.select_all
            on_clear=selected.clear
        />
        <VirtualTable
            label=title
            headers=headers
            row_count=row_count
            row_at=row_at
            on_sort=on_sort
            on_open=on_open
            selection=selection
        />
    }
}

/// Progress, the count, what went wrong and what the user should know.
#[component]
pub(super) fn ListStatus(
    store: ReadSignal<LiveTable>,
    status: ReadSignal<WatchStatus>,
    #[prop(into)] shown: Signal<usize>,
) -> impl IntoView {
    let loading = move || status.with(|s| s.phase == StreamPhase::Listing);
    // A memo: the counts are drawn again when they change, not with every batch of watch
    // events (2,000 a second into a big list).
    let not_ok = Memo::new(move |_| {
        store.with(|live| {
            live.health_counts()
                .iter()
                .rev()
                .filter(|(health, _)| health.is_unhealthy() || **health == Health::Progressing)
                .map(|(health, n)| (*health, *n))
                .collect::<Vec<_>>()
        })
    });
    let counts = move || {
        let loaded = store.with(LiveTable::len);
        let remaining = status.with(|s| s.remaining_items);
        let shown = shown.get();
        let mut text = if loading() {
            match remaining {
                Some(remaining) => {
                    format!("Loading… {loaded} of about {}", loaded as u64 + remaining)
                }
                None => format!("Loading… {loaded} so far"),
            }
        } else {
            format!("{loaded} loaded")
        };
        if shown != loaded {
            text.push_str(&format!(" · {shown} shown"));
        }
        text
    };
    let fraction = move || {
        loading().then(|| {
            let loaded = store.with(LiveTable::len) as f64;
            match status.with(|s| s.remaining_items) {
                Some(remaining) if loaded + remaining as f64 > 0.0 => {
                    loaded / (loaded + remaining as f64)
                }
                _ => 0.0,
            }
        })
    };
    let table_source = move || store.with(|live| live.table().source().cloned());
    view! {
        <div class="list-status" role="status">
            <span class="list-count">{counts}</span>
            {move || {
                let unhealthy: Vec<_> = not_ok
                    .get()
                    .into_iter()
                    .map(|(health, n)| view! {
                        <span class="health-count" data-health=health.label().to_lowercase()>
                            <HealthBadge health=health/>{format!(": {n}")}
                        </span>
                    })
                    .collect();
                (!unhealthy.is_empty()).then(|| view! { <span class="health-counts">{unhealthy}</span> })
            }}
            {move || fraction().map(|f| view! {
                <progress max="1" value=f aria-label="Loading progress"></progress>
            })}
            {move || matches!(table_source(), Some(TableSource::ClientFallback { .. }))
                .then(|| view! {
                    <span>"The server does not print Tables for this resource: showing name and age."</span>
                })}
            {move || status.with(|s| s.notice.clone()).map(|notice| view! { <span class="notice">{notice}</span> })}
        </div>
        {move || {
            let (error, filled, forbidden) = status.with(|s| {
                (s.last_error.clone(), s.resource_version.is_some(), s.phase == StreamPhase::Forbidden)
            });
            // Before anything was listed an error is the whole story; afterwards the stream
            // status line says it. A refusal has its own notice, and is not retried.
            error.filter(|_| !filled && !forbidden).map(|error| view! {
                <div class="error" role="alert">
                    <strong>"The list could not be loaded. "</strong>
                    {error}
                    " Retrying…"
                </div>
            })
        }}
        {move || {
            let empty = !loading() && status.with(|s| s.resource_version.is_some())
                && store.with(WatchStore::is_empty);
            empty.then(|| view! { <p class="empty">"No objects match."</p> })
        }}
    }
}
