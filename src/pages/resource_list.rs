//! A live list of any listable resource, with the server's Table columns (kubectl's for
//! built-in kinds, additionalPrinterColumns for custom resources) kept exact by a Table watch
//! (as `kubectl get -w`), namespace scope, label and field selectors checked before sending,
//! a quick filter, type-aware sorting, the wide view, changed cells marked, and a virtualized
//! table for lists of 100,000 rows.

use leptos::prelude::*;

use crate::browser::monotonic_now;
use crate::components::{
    use_denial, ForbiddenNotice, HealthBadge, MergedList, StreamStatusLine, VirtualTable,
};
use crate::model::diagnosis::Health;
use crate::model::list::display::{display_row, header_cells, shown_columns, DrawnAt};
use crate::model::list::selector::{parse_field_selector, parse_label_selector, SelectorError};
use crate::model::list::table::{DecodeOptions, SortSpec, TableSource};
use crate::model::navigation::route::{CreateRoute, ListRoute, Page};
use crate::model::permissions::{Question, Scope};
use crate::model::watch::{LiveTable, Output, StreamPhase, WatchKey, WatchStatus, WatchStore};
use crate::model::{api::endpoints::NamespaceArg, ResourceId};
use crate::state::clock::use_clock;
use crate::state::clusters::use_clusters;
use crate::state::discovery::DiscoveryState;
use crate::state::list::{use_list_order, use_paint_marks, ListOrder};
use crate::state::navigation::use_navigation;
use crate::state::verdicts::use_row_verdicts;
use crate::state::watch::{use_watch_table, LiveWatch};

/// What makes a list a different list (anything else is how it is shown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListIdentity {
    pub resource: ResourceId,
    pub namespace: Option<String>,
    pub label_selector: String,
    pub field_selector: String,
    /// Merged from every cluster behind kube-atlas.
    pub all_clusters: bool,
}

impl ListIdentity {
    pub fn of(route: &ListRoute) -> ListIdentity {
        ListIdentity {
            resource: route.resource.clone(),
            namespace: route.namespace.clone(),
            label_selector: route.label_selector.clone(),
            field_selector: route.field_selector.clone(),
            all_clusters: route.all_clusters,
        }
    }
}

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
    let key = WatchKey::new(path.clone(), Output::Table)
        .with_labels(identity.label_selector.clone())
        .with_fields(identity.field_selector.clone());
    let options = DecodeOptions {
        show_namespace: namespaced && identity.namespace.is_none(),
    };
    let merged = identity.all_clusters && use_clusters().is_some();
    let selectors_valid = label_error.is_none() && field_error.is_none();
    let state = (selectors_valid && !merged).then(|| use_watch_table(key.clone(), options));
    // A workload's row says what its page says: the worst of it and what it controls. Not
    // for filtered lists (the verdicts are of the whole collection's objects).
    if let Some(live) = state
        .as_ref()
        .filter(|_| identity.label_selector.is_empty() && identity.field_selector.is_empty())
    {
        discovery.loaded.with_untracked(|loaded| {
            if let Some(loaded) = loaded {
                use_row_verdicts(
                    &loaded.discovery.tree,
                    &identity.resource,
                    &kind,
                    identity.namespace.as_deref().filter(|_| namespaced),
                    live.store.clone().into(),
                );
            }
        });
    }
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
                let question = Question::new(
                    Scope::of(identity.namespace.as_deref().filter(|_| namespaced)),
                    "create",
                    &identity.resource.group,
                    &identity.resource.plural,
                );
                let denied = use_denial(move || Some((question.clone(), namespaced)));
                let label = format!("Create {kind}");
                view! {
                    <p class="list-actions">
                        {move || match denied.get() {
                            // A link cannot be disabled: a disabled button says why instead.
                            Some(reason) => view! {
                                <button type="button" class="button" disabled title=reason.clone()
                                    aria-describedby="denied-create">{label.clone()}</button>
                                <span id="denied-create" class="visually-hidden denial-reason">{reason}</span>
                            }
                            .into_any(),
                            None => view! { <a class="button" href=href.clone()>{label.clone()}</a> }.into_any(),
                        }}
                    </p>
                }
            })}
            <ListToolbar identity=identity.clone() label_error=label_error field_error=field_error/>
            {match state {
                Some(live) => view! { <ListBody identity=identity live=live title=title namespaced=namespaced/> }.into_any(),
                None if merged && selectors_valid => view! {
                    <MergedList key=key options=options resource=identity.resource.clone()/>
                }
                .into_any(),
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
            <label class="check" title="Only rows whose health is not OK: Progressing, Warning, Failing or Unknown">
                <input
                    type="checkbox"
                    aria-label="Only unhealthy"
                    prop:checked=move || current().is_some_and(|r| r.unhealthy)
                    on:change=move |e| {
                        let unhealthy = event_target_checked(&e);
                        if let Page::ResourceList(mut route) = navigation.page.get_untracked() {
                            route.unhealthy = unhealthy;
                            navigation.replace(Page::ResourceList(route));
                        }
                    }
                />
                "Only unhealthy"
            </label>
            {use_clusters().map(|_| view! {
                <label class="check" title="The same list from every cluster kube-atlas serves, with a CLUSTER column">
                    <input
                        type="checkbox"
                        aria-label="All clusters"
                        prop:checked=move || current().is_some_and(|r| r.all_clusters)
                        on:change=move |e| {
                            let all = event_target_checked(&e);
                            if let Page::ResourceList(mut route) = navigation.page.get_untracked() {
                                route.all_clusters = all;
                                navigation.go(Page::ResourceList(route));
                            }
                        }
                    />
                    "All clusters"
                </label>
            })}
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

#[component]
fn ListBody(
    identity: ListIdentity,
    live: LiveWatch<LiveTable>,
    title: String,
    /// Whether the kind is namespaced (a forbidden list offers other namespaces).
    namespaced: bool,
) -> impl IntoView {
    let navigation = use_navigation();
    let now = use_clock();
    let store: RwSignal<LiveTable> = live.store.clone().into();
    let status: RwSignal<WatchStatus> = live.status.clone().into();

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
    let order = use_list_order(store, asked_order);
    let columns = Memo::new(move |_| {
        let wide = view_options.with(|(_, _, wide, _)| *wide);
        store.with(|live| shown_columns(live.table(), wide))
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
        store.with(|live| display_row(live, position, &shown, &resource, at))
    });
    let on_sort = Callback::new(move |column: String| {
        if let Page::ResourceList(mut route) = navigation.page.get_untracked() {
            route.sort = Some(SortSpec::after_click(route.sort.take(), column));
            navigation.replace(Page::ResourceList(route));
        }
    });
    let on_open = Callback::new(move |href: String| navigation.go(Page::parse(&href)));
    let row_count = Signal::derive(move || order.with(Vec::len));
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
        <ForbiddenNotice status=status namespaced=namespaced elsewhere=Some(elsewhere)/>
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
