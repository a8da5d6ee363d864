//! One object: kind, name, namespace, age, uid; labels and annotations; status conditions;
//! its owners (links up) and what it owns (links down) as a small graph; the object as YAML
//! and JSON; and the same object read through every served version of its group.

use leptos::prelude::*;

use crate::components::workload_logs::WorkloadLogs;
use crate::components::{ClusterCompare, ForbiddenNotice};
use crate::components::{PodLogs, StreamStatusLine};
use crate::model::navigation::route::{ObjectRoute, ObjectTab, Page};
use crate::model::object::page::{terminating, Terminating};
use crate::model::object::workload_logs::PodCoverage;
use crate::model::permissions::{Question, Scope};
use crate::model::watch::StreamPhase;
use crate::model::ResourceId;
use crate::pages::object::actions::object_actions;
use crate::pages::object::tabs::{read_error, ObjectPageParts};
use crate::pages::object::versions::{text_view, VersionsView};
use crate::state::clock::use_clock;
use crate::state::discovery::DiscoveryState;
use crate::state::navigation::use_navigation;
use crate::state::object::{object_path, use_object, use_object_tabs, Gone, UseObjectOptions};
use crate::state::permissions::{use_denial, UseDenialOptions};

mod actions;
mod ports;
mod summary;
mod tabs;
mod usage;
mod versions;

/// What makes it another object (the tab is how it is shown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectIdentity {
    pub resource: ResourceId,
    pub namespace: Option<String>,
    pub name: String,
}

impl ObjectIdentity {
    pub fn of(route: &ObjectRoute) -> ObjectIdentity {
        ObjectIdentity {
            resource: route.resource.clone(),
            namespace: route.namespace.clone(),
            name: route.name.clone(),
        }
    }

    /// Why the user may not `verb` this object (its `subresource`), reactive; None: allowed
    /// or not known.
    pub(super) fn denial(
        &self,
        verb: &'static str,
        subresource: &'static str,
    ) -> Signal<Option<String>> {
        let question = Question::new(
            Scope::of(self.namespace.as_deref()),
            verb,
            &self.resource.group,
            &self.resource.plural,
        )
        .subresource(subresource)
        .named(&self.name);
        let namespaced = self.namespace.is_some();
        use_denial(UseDenialOptions {
            question,
            namespaced,
        })
        .reason
    }

    fn route(&self, tab: ObjectTab) -> ObjectRoute {
        ObjectRoute {
            tab,
            revision: None,
            ..ObjectRoute::new(
                self.resource.clone(),
                self.namespace.clone(),
                self.name.clone(),
            )
        }
    }
}

#[component]
pub fn ObjectPage(identity: ObjectIdentity) -> impl IntoView {
    let discovery = expect_context::<DiscoveryState>();
    let navigation = use_navigation();
    let tree = discovery.tree_now();
    let Some(path) = object_path(
        &tree,
        &identity.resource,
        identity.namespace.as_deref(),
        &identity.name,
    ) else {
        return view! {
            <p class="error" role="alert">
                {format!("The server does not serve {}.", identity.resource.key())}
            </p>
        }
        .into_any();
    };
    // `object_path` found the resource, so `use_object` does too.
    let Some(state) = use_object(UseObjectOptions {
        tree: tree.clone(),
        resource: &identity.resource,
        namespace: identity.namespace.clone(),
        name: identity.name.clone(),
    }) else {
        return ().into_any();
    };
    let clock = use_clock();
    let tabs = use_object_tabs(&identity.resource, {
        let identity = identity.clone();
        move |tab| identity.route(tab)
    });
    let tab = tabs.current;
    let list_href = Page::ResourceList(crate::model::navigation::route::ListRoute::new(
        identity.resource.clone(),
        identity.namespace.clone(),
    ))
    .to_hash();
    // A tab the user may not use stays, disabled, with the reason (the Terminal without
    // `create pods/exec`).
    let exec_denied = identity.denial("create", "exec");
    let tab_links = tabs
        .links
        .into_iter()
        .map(|link| {
            let shown = link.tab;
            let denied = move || {
                (shown == ObjectTab::Terminal)
                    .then(|| exec_denied.get())
                    .flatten()
            };
            view! {
                <a role="tab" href=move || denied().is_none().then(|| link.href.clone())
                    aria-disabled=move || denied().is_some().then_some("true")
                    title=denied
                    aria-selected=move || (tab.get() == shown).to_string()>{link.label}</a>
            }
        })
        .collect_view();
    let has_object = Memo::new({
        let object = state.object;
        move |_| object.with(Option::is_some)
    });
    // The body is drawn again only when the read starts or stops failing, not at each new
    // error text; the Activity tab keeps its view (and what it has seen) through both.
    let read_failed = Memo::new({
        let error = state.error;
        move |_| error.with(Option::is_some)
    });
    let page = ObjectPageParts {
        identity: identity.clone(),
        tree: tree.clone(),
        path: path.clone(),
        state: state.clone(),
        has_object,
    };
    let body = move || {
        // These keep their view (and their streams) through read failures: they read the
        // object when they need it.
        match tab.get() {
            ObjectTab::Activity => return page.activity_tab(),
            ObjectTab::Terminal => {
                let attach = match navigation.page.get_untracked() {
                    Page::Object(route) => route.attach,
                    _ => None,
                };
                return page.terminal_tab(attach);
            }
            _ => {}
        }
        if read_failed.get() {
            return read_error(page.state.error).into_any();
        }
        if !has_object.get() {
            if page
                .state
                .live
                .status
                .with(|s| s.phase == StreamPhase::Forbidden)
            {
                return ().into_any();
            }
            return match page.state.gone.get() {
                Some(_) => view! {
                    <div class="error" role="alert">
                        {format!("There is no {} named {} here.", page.identity.resource.plural, page.identity.name)}
                    </div>
                }
                .into_any(),
                None => view! { <p class="loading">"Loading…"</p> }.into_any(),
            };
        }
        let object = page.state.object;
        // Each tab redraws with the object as it changes; the logs keep their stream.
        match tab.get() {
            ObjectTab::Overview => page.overview_tab(),
            ObjectTab::Yaml => (move || object.get().map(|o| text_view(&o, true))).into_any(),
            ObjectTab::Json => (move || object.get().map(|o| text_view(&o, false))).into_any(),
            ObjectTab::Versions => view! {
                <VersionsView tree=page.tree.clone() identity=page.identity.clone()/>
            }
            .into_any(),
            ObjectTab::Timeline => {
                let focus = match navigation.page.get_untracked() {
                    Page::Object(route) => route.revision,
                    _ => None,
                };
                page.timeline_tab(focus)
            }
            ObjectTab::Blame => page.blame_tab(),
            ObjectTab::Events => page.events_tab(),
            ObjectTab::Edit => page.edit_tab(),
            ObjectTab::Activity | ObjectTab::Terminal => ().into_any(),
            ObjectTab::Logs => match object.get_untracked() {
                Some(pod) if page.identity.resource.plural == "pods" => {
                    view! { <PodLogs pod_path=page.path.clone() pod=pod/> }.into_any()
                }
                Some(workload) => {
                    view! { <WorkloadLogs coverage=PodCoverage::of(&workload)/> }.into_any()
                }
                None => ().into_any(),
            },
        }
    };
    let actions = object_actions(&tree, &identity, &path, state.object);
    // Deletion asked for, finalizers still holding the object (`kubectl get` says Terminating).
    let terminating_note = {
        let object = state.object;
        move || {
            object.with(|o| {
                let Terminating { since, waiting_for } = terminating(o.as_ref()?)?;
                Some(view! {
                    <p class="warning terminating" role="status">
                        <strong>"Terminating"</strong>
                        {format!(" since {since}; waiting for {waiting_for}.")}
                    </p>
                })
            })
        }
    };
    let deleted_note = {
        let gone = state.gone;
        move || {
            (gone.get() == Some(Gone::Deleted) && has_object.get()).then(|| view! {
                <p class="warning" role="alert">"This object was deleted; what is shown is its last version."</p>
            })
        }
    };
    view! {
        <section class="object-page" class:fill-page=move || matches!(tab.get(), ObjectTab::Logs | ObjectTab::Terminal) aria-label=format!("{} {}", identity.resource.plural, identity.name)>
            <p class="breadcrumb">
                <a href=list_href>{identity.resource.plural.clone()}</a>
                {identity.namespace.clone().map(|ns| format!(" · namespace {ns}"))}
            </p>
            <h1>{identity.name.clone()}</h1>
            <p class="mono">{path.clone()}</p>
            <StreamStatusLine live=state.live.clone() clock=clock/>
            <ForbiddenNotice status=state.live.status.clone() namespaced=identity.namespace.is_some()/>
            {actions}
            <ClusterCompare path=path.clone() object=state.object/>
            {terminating_note}
            {deleted_note}
            <nav class="tabs" role="tablist" aria-label="Object views">{tab_links}</nav>
            {body}
        </section>
    }
    .into_any()
}
