//! A live list of any listable resource, with the server's Table columns (kubectl's for
//! built-in kinds, additionalPrinterColumns for custom resources) kept exact by a Table watch
//! (as `kubectl get -w`), namespace scope, label and field selectors checked before sending,
//! a quick filter, type-aware sorting, the wide view, changed cells marked, and a virtualized
//! table for lists of 100,000 rows.

use leptos::prelude::*;

use crate::browser::{after_next_paint, now_ms};
use crate::components::{DisplayCell, DisplayRow, HeaderCell, StreamStatusLine, VirtualTable};
use crate::model::age::EpochMillis;
use crate::model::route::{CreateRoute, ListRoute, ObjectRoute, Page};
use crate::model::selector::{parse_field_selector, parse_label_selector, SelectorError};
use crate::model::table::{
    Align, ColumnKind, DecodeOptions, RowPosition, SortDirection, SortSpec, Table, TableSource,
};
use crate::model::watch::{LiveTable, Output, StreamPhase, WatchKey, WatchStatus, WatchStore};
use crate::model::{mapping::NamespaceArg, ResourceId};
use crate::state::discovery::DiscoveryState;
use crate::state::navigation::use_navigation;
use crate::state::pacing::PacedRun;
use crate::state::watch::{use_watch_table, LiveWatch};

/// What makes a list a different list (anything else is how it is shown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListIdentity {
    pub resource: ResourceId,
    pub namespace: Option<String>,
    pub label_selector: String,
    pub field_selector: String,
}

impl ListIdentity {
    pub fn of(route: &ListRoute) -> ListIdentity {
        ListIdentity {
            resource: route.resource.clone(),
            namespace: route.namespace.clone(),
            label_selector: route.label_selector.clone(),
            field_selector: route.field_selector.clone(),
        }
    }
}

/// Milliseconds since the epoch, for ages.
pub fn epoch_now() -> EpochMillis {
    js_sys::Date::now() as EpochMillis
}

/// Ages are refreshed this often (kubectl's have second resolution under two minutes). Only
/// rows whose text changed are redrawn, and a hidden tab does not tick.
const AGE_TICK_MS: u64 = 1_000;

/// The sorted, filtered order is recomputed at most this often relative to its own cost
/// (4: at most a fifth of the time), so a burst of events into a big sorted list never
/// takes every frame.
const ORDER_COST_FACTOR: f64 = 4.0;

#[component]
pub fn ResourceListPage(identity: ListIdentity) -> impl IntoView {
    let discovery = expect_context::<DiscoveryState>();
    let found = discovery.loaded.with_untracked(|loaded| {
        let loaded = loaded.as_ref()?;
        let r = loaded.discovery.tree.find(&identity.resource)?;
        let namespace = identity
            .namespace
            .as_deref()
            .filter(|_| r.resource.namespaced);
        let path = r
            .collection_path(match namespace {
                Some(ns) => NamespaceArg::Named(ns),
                None => NamespaceArg::All,
            })
            .template();
        Some((
            r.resource.kind.clone(),
            r.resource.namespaced,
            r.resource.supports("list"),
            path,
            r.resource.supports("create"),
        ))
    });
    let Some((kind, namespaced, listable, path, creatable)) = found else {
        return view! {
            <p class="error" role="alert">
                {format!("The server does not serve {}.", identity.resource.key())}
            </p>
        }
        .into_any();
    };
    if !listable {
        return view! {
            <p class="error" role="alert">
                {format!("{} cannot be listed (the server does not allow the list verb).", identity.resource.key())}
            </p>
        }
        .into_any();
    }
    let label_error = parse_label_selector(&identity.label_selector).err();
    let field_error = parse_field_selector(&identity.field_selector).err();
    let state = (label_error.is_none() && field_error.is_none()).then(|| {
        let key = WatchKey::new(path.clone(), Output::Table)
            .with_labels(identity.label_selector.clone())
            .with_fields(identity.field_selector.clone());
        use_watch_table(
            key,
            DecodeOptions {
                show_namespace: namespaced && identity.namespace.is_none(),
            },
        )
    });
    let scope = match (&identity.namespace, namespaced) {
        (_, false) => "cluster-scoped".to_string(),
        (Some(ns), true) => format!("namespace {ns}"),
        (None, true) => "all namespaces".to_string(),
    };
    let title = format!("{} · {}", plural_title(&identity.resource.plural), scope);
    let section_label = format!("{} list", identity.resource.plural);
    let heading = format!("{kind} · {} · {scope}", identity.resource.key());

    view! {
        <section class="list-page" aria-label=section_label>
            <h1>
                {plural_title(&identity.resource.plural)} " "
                <span class="kind">{heading}</span>
            </h1>
            {creatable.then(|| {
                let href = Page::Create(CreateRoute {
                    resource: identity.resource.clone(),
                    namespace: identity.namespace.clone(),
                })
                .to_hash();
                view! { <p class="list-actions"><a class="button" href=href>{format!("Create {kind}")}</a></p> }
            })}
            <ListToolbar identity=identity.clone() label_error=label_error field_error=field_error/>
            {match state {
                Some(live) => view! { <ListBody identity=identity live=live title=title/> }.into_any(),
                None => view! {
                    <p class="list-status">"Nothing was requested: fix the selector above."</p>
                }
                .into_any(),
            }}
        </section>
    }
    .into_any()
}

fn plural_title(plural: &str) -> String {
    let mut chars = plural.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Selector inputs (applied on Enter or when leaving the field), the filter and Wide.
#[component]
fn ListToolbar(
    identity: ListIdentity,
    label_error: Option<SelectorError>,
    field_error: Option<SelectorError>,
) -> impl IntoView {
    let navigation = use_navigation();
    let current = move || match navigation.page.get() {
        Page::ResourceList(route) => Some(route),
        _ => None,
    };
    let apply = move |change: &dyn Fn(&mut ListRoute)| {
        if let Page::ResourceList(mut route) = navigation.page.get_untracked() {
            let before = route.clone();
            change(&mut route);
            if route != before {
                navigation.go(Page::ResourceList(route));
            }
        }
    };
    let apply_label =
        Callback::new(move |value: String| apply(&|r| r.label_selector = value.trim().to_string()));
    let apply_field =
        Callback::new(move |value: String| apply(&|r| r.field_selector = value.trim().to_string()));
    view! {
        <div class="list-toolbar">
            <SelectorInput
                label="Label selector"
                placeholder="app=web,tier notin (db)"
                value=identity.label_selector.clone()
                error=label_error
                on_apply=apply_label
            />
            <SelectorInput
                label="Field selector"
                placeholder="status.phase=Running"
                value=identity.field_selector.clone()
                error=field_error
                on_apply=apply_field
            />
            <label>
                "Filter"
                <input
                    type="search"
                    aria-label="Filter"
                    placeholder="Filter loaded rows"
                    prop:value=move || current().map(|r| r.filter).unwrap_or_default()
                    on:input=move |e| {
                        let value = event_target_value(&e);
                        if let Page::ResourceList(mut route) = navigation.page.get_untracked() {
                            route.filter = value;
                            navigation.replace(Page::ResourceList(route));
                        }
                    }
                />
            </label>
            <label class="check">
                <input
                    type="checkbox"
                    aria-label="Wide"
                    prop:checked=move || current().is_some_and(|r| r.wide)
                    on:change=move |e| {
                        let wide = event_target_checked(&e);
                        if let Page::ResourceList(mut route) = navigation.page.get_untracked() {
                            route.wide = wide;
                            navigation.replace(Page::ResourceList(route));
                        }
                    }
                />
                "Wide"
            </label>
        </div>
    }
}

/// A selector input, applied on Enter or when leaving it; its syntax error shown beneath.
#[component]
fn SelectorInput(
    label: &'static str,
    placeholder: &'static str,
    value: String,
    error: Option<SelectorError>,
    on_apply: Callback<String>,
) -> impl IntoView {
    let error_id = format!("{}-error", label.to_lowercase().replace(' ', "-"));
    let described = error.as_ref().map(|_| error_id.clone());
    view! {
        <label>
            {label}
            <input
                type="text"
                aria-label=label
                placeholder=placeholder
                spellcheck="false"
                aria-invalid=error.is_some().to_string()
                aria-describedby=described
                prop:value=value
                on:change=move |e| on_apply.run(event_target_value(&e))
            />
            {error.map(|e| view! { <span class="field-error" id=error_id role="alert">{e.to_string()}</span> })}
        </label>
    }
}

/// One visible column: an index into the table's columns, or the synthetic name column
/// shown when the server's name column is wide-only (Events).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ShownColumn {
    Server(usize),
    Name,
}

fn shown_columns(table: &Table, wide: bool) -> Vec<ShownColumn> {
    let visible = table.visible_columns(wide);
    let has_name = visible
        .iter()
        .any(|&i| table.columns()[i].kind() == ColumnKind::Name);
    let mut shown: Vec<ShownColumn> = Vec::with_capacity(visible.len() + 1);
    if !has_name && !table.columns().is_empty() {
        shown.push(ShownColumn::Name);
    }
    shown.extend(visible.into_iter().map(ShownColumn::Server));
    shown
}

/// Whether the order of the rows follows from which rows there are alone: arrival order or
/// by name or namespace (which never change for a row), no filter (cells decide matches).
fn order_depends_only_on_rows((sort, filter, _): &(Option<SortSpec>, String, bool)) -> bool {
    filter.trim().is_empty()
        && sort.as_ref().is_none_or(|s| {
            s.column.eq_ignore_ascii_case("name") || s.column.eq_ignore_ascii_case("namespace")
        })
}

/// Ticks once a second while the tab is visible: ages and "last change" texts.
pub fn use_clock() -> RwSignal<EpochMillis> {
    let now = RwSignal::new(epoch_now());
    let tick = set_interval_with_handle(
        move || {
            let hidden = web_sys::window()
                .and_then(|w| w.document())
                .is_some_and(|d| d.hidden());
            if !hidden {
                now.set(epoch_now());
            }
        },
        std::time::Duration::from_millis(AGE_TICK_MS),
    )
    .ok();
    on_cleanup(move || {
        if let Some(handle) = tick {
            handle.clear();
        }
    });
    now
}

#[component]
fn ListBody(identity: ListIdentity, live: LiveWatch<LiveTable>, title: String) -> impl IntoView {
    let navigation = use_navigation();
    let now = use_clock();
    let store: RwSignal<LiveTable> = live.store.clone().into();
    let status: RwSignal<WatchStatus> = live.status.clone().into();

    let view_options = Memo::new(move |_| match navigation.page.get() {
        Page::ResourceList(route) => (route.sort, route.filter, route.wide),
        _ => (None, String::new(), false),
    });
    // The rows in display order, as positions in the table: recomputed when rows, sort or
    // filter change (not on scroll, not on the age tick), so a frame only formats the visible
    // rows; numbers, so 50,000 rows are not 50,000 copied keys each time.
    let order = RwSignal::new(Vec::<RowPosition>::new());
    // The rows `order` was computed from (`LiveTable::membership`).
    let ordered_membership = StoredValue::new(None::<(u64, usize)>);
    let compute_order = move || {
        let (sort, filter, _) = view_options.get_untracked();
        let keys = store.with_untracked(|live| {
            ordered_membership.set_value(Some(live.membership()));
            live.table()
                .view_positions(sort.as_ref(), &filter, epoch_now())
        });
        order.set(keys);
    };
    let paced_order = PacedRun::new(ORDER_COST_FACTOR);
    Effect::new(move |previous: Option<(Option<SortSpec>, String, bool)>| {
        store.track();
        let options = view_options.get();
        let same_rows =
            store.with_untracked(|live| ordered_membership.get_value() == Some(live.membership()));
        if previous.as_ref() != Some(&options) {
            // The user changed the view: at once.
            paced_order.run_now(compute_order);
        } else if same_rows && order_depends_only_on_rows(&options) {
            // Rows only changed in place (the usual watch event): the order stands, and a
            // big list is not walked again each frame.
        } else {
            paced_order.ask(compute_order);
        }
        options
    });
    let columns = Memo::new(move |_| {
        let wide = view_options.with(|(_, _, wide)| *wide);
        store.with(|live| shown_columns(live.table(), wide))
    });
    // A memo: the header row is redrawn when the columns or the sort change, not on every
    // batch of watch events.
    let headers = Memo::new(move |_| {
        let sort = view_options.with(|(sort, _, _)| sort.clone());
        store.with(|live| {
            let table = live.table();
            columns
                .get()
                .into_iter()
                .map(|column| {
                    let (name, description, numeric) = match column {
                        ShownColumn::Name => {
                            ("Name".to_string(), "The object's name.".to_string(), false)
                        }
                        ShownColumn::Server(i) => {
                            let c = &table.columns()[i];
                            (
                                c.name.clone(),
                                c.description.clone(),
                                c.align() == Align::Right,
                            )
                        }
                    };
                    let sorted = sort
                        .as_ref()
                        .filter(|s| s.column.eq_ignore_ascii_case(&name))
                        .map(|s| s.direction == SortDirection::Ascending);
                    HeaderCell {
                        id: name.clone(),
                        label: name.to_uppercase(),
                        description,
                        numeric,
                        sorted,
                    }
                })
                .collect()
        })
    });
    let resource = identity.resource.clone();
    let row_at = Callback::new(move |index: usize| {
        let position = order.with(|positions| positions.get(index).copied())?;
        let now = now.get();
        let shown = columns.get();
        store.with(|live| {
            let table = live.table();
            let row = table.at(position)?;
            let key = &row.key;
            let mark = live.mark(key, now_ms());
            let name = row.name(table.columns()).to_string();
            let href = Page::Object(ObjectRoute::new(
                resource.clone(),
                row.meta.namespace.clone(),
                name.clone(),
            ))
            .to_hash();
            let cells: Vec<DisplayCell> = shown
                .iter()
                .map(|column| match *column {
                    ShownColumn::Name => DisplayCell {
                        text: name.clone(),
                        numeric: false,
                        link: true,
                        changed: mark.is_some_and(|m| m.added),
                    },
                    ShownColumn::Server(i) => {
                        let cell = table.format_cell(row, i, now);
                        let is_name = table.columns()[i].kind() == ColumnKind::Name;
                        // A row whose cells could not be read still shows whose row it is.
                        let text = if is_name && cell.text.is_empty() {
                            name.clone()
                        } else {
                            cell.text
                        };
                        DisplayCell {
                            text,
                            numeric: cell.align == Align::Right,
                            link: is_name,
                            changed: mark.is_some_and(|m| m.cells.contains(&i)),
                        }
                    }
                })
                .collect();
            let problem = (!row.problems.is_empty()).then(|| {
                row.problems
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            });
            // Redrawn when the object or the columns changed; an age that ticks updates its
            // text in place.
            Some(DisplayRow {
                id: format!("{key:?}"),
                key: format!(
                    "{key:?}|{}|{}",
                    row.meta.resource_version.as_deref().unwrap_or_default(),
                    cells.len()
                ),
                href,
                cells,
                problem,
            })
        })
    });
    let on_sort = Callback::new(move |column: String| {
        if let Page::ResourceList(mut route) = navigation.page.get_untracked() {
            route.sort = match route.sort.take() {
                Some(s) if s.column.eq_ignore_ascii_case(&column) => Some(match s.direction {
                    SortDirection::Ascending => SortSpec::descending(column),
                    SortDirection::Descending => SortSpec::ascending(column),
                }),
                _ => Some(SortSpec::ascending(column)),
            };
            navigation.replace(Page::ResourceList(route));
        }
    });
    let on_open = Callback::new(move |href: String| navigation.go(Page::parse(&href)));
    let row_count = Signal::derive(move || order.with(Vec::len));
    let loading = Memo::new(move |_| status.with(|s| s.phase == StreamPhase::Listing));

    // When the first rows and the whole list were painted (performance.now() ms), for the
    // benchmarks and DevTools traces.
    let first_rows_ms = RwSignal::new(None::<f64>);
    let loaded_ms = RwSignal::new(None::<f64>);
    let marks_pending = StoredValue::new((false, false));
    Effect::new(move |_| {
        let has_rows = row_count.get() > 0;
        let done = !loading.get() && status.with(|s| s.resource_version.is_some());
        let (first_pending, loaded_pending) = marks_pending.get_value();
        if has_rows && !first_pending {
            marks_pending.update_value(|m| m.0 = true);
            after_next_paint("kube-atlas:list-first-rows", move |ms| {
                first_rows_ms.try_set(Some(ms));
            });
        }
        if done && !loaded_pending {
            marks_pending.update_value(|m| m.1 = true);
            after_next_paint("kube-atlas:list-loaded", move |ms| {
                loaded_ms.try_set(Some(ms));
            });
        }
    });

    view! {
        <span
            class="list-timing"
            hidden
            data-first-rows-ms=move || first_rows_ms.get().map(|ms| format!("{ms:.1}"))
            data-loaded-ms=move || loaded_ms.get().map(|ms| format!("{ms:.1}"))
        ></span>
        <ListStatus store=store status=status shown=row_count/>
        <StreamStatusLine live=live.clone() clock=now/>
        <VirtualTable
            label=title
            headers=headers
            row_count=row_count
            row_at=row_at
            on_sort=on_sort
            on_open=on_open
        />
    }
}

/// Progress, the count, what went wrong and what the user should know.
#[component]
fn ListStatus(
    store: RwSignal<LiveTable>,
    status: RwSignal<WatchStatus>,
    #[prop(into)] shown: Signal<usize>,
) -> impl IntoView {
    let loading = move || status.with(|s| s.phase == StreamPhase::Listing);
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
            let (error, filled) = status.with(|s| (s.last_error.clone(), s.resource_version.is_some()));
            // Before anything was listed an error is the whole story; afterwards the stream
            // status line says it.
            error.filter(|_| !filled).map(|error| view! {
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
