//! A live list of any listable resource, with the server's Table columns (kubectl's for
//! built-in kinds, additionalPrinterColumns for custom resources) kept exact by a Table watch
//! (as `kubectl get -w`), namespace scope, label and field selectors checked before sending,
//! a quick filter, type-aware sorting, the wide view, changed cells marked, and a virtualized
//! table for lists of 100,000 rows.

use leptos::prelude::*;

use crate::components::MergedList;
use crate::model::list::selector::{parse_field_selector, parse_label_selector};
use crate::model::list::table::DecodeOptions;
use crate::model::navigation::route::{CreateRoute, ListRoute, Page};
use crate::model::permissions::{Question, Scope};
use crate::model::watch::{Output, WatchKey};
use crate::model::{api::endpoints::NamespaceArg, ResourceId};
use crate::state::clusters::use_clusters;
use crate::state::discovery::DiscoveryState;
use crate::state::permissions::{use_denial, UseDenialOptions};
use crate::state::usage_columns::use_usage_columns;
use crate::state::verdicts::use_row_verdicts;
use crate::state::watch::use_watch_table;

mod body;
mod selector_logs;
mod toolbar;

use body::ListBody;
use selector_logs::SelectorLogs;
use toolbar::ListToolbar;

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
    let usage = state.as_ref().and_then(|live| {
        discovery.loaded.with_untracked(|loaded| {
            use_usage_columns(
                &loaded.as_ref()?.discovery.tree,
                &identity.resource,
                identity.namespace.as_deref().filter(|_| namespaced),
                &identity.label_selector,
                live,
            )
        })
    });
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
                    live,
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
                let denied = use_denial(UseDenialOptions {
                    question,
                    namespaced,
                })
                .reason;
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
            <ListToolbar identity=identity.clone() label_error=label_error.clone() field_error=field_error/>
            {selector_logs(&identity, label_error.is_none())}
            {match state {
                Some(live) => view! { <ListBody identity=identity live=live title=title namespaced=namespaced usage=usage kind=kind.clone()/> }.into_any(),
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

/// The merged logs of the pods a label selector chooses in one namespace (core/v1 pods only).
fn selector_logs(identity: &ListIdentity, selector_valid: bool) -> Option<impl IntoView> {
    let pods = identity.resource.group.is_empty() && identity.resource.plural == "pods";
    let namespace = identity.namespace.clone()?;
    (pods && selector_valid && !identity.label_selector.trim().is_empty()).then(|| {
        view! {
            <SelectorLogs namespace=namespace label_selector=identity.label_selector.clone()/>
        }
    })
}

fn plural_title(plural: &str) -> String {
    let mut chars = plural.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
