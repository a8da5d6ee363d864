//! One object: kind, name, namespace, age, uid; labels and annotations; status conditions;
//! its owners (links up) and what it owns (links down) as a small graph; the object as YAML
//! and JSON; and the same object read through every served version of its group.

use leptos::prelude::*;
use serde_json::Value;

use crate::components::object_actions::{DeleteAction, MetadataEditor, ScaleAction};
use crate::components::object_editor::ObjectEditor;
use crate::components::{use_denial, ClusterCompare, ForbiddenNotice};
use crate::components::{
    ActivityView, BlameView, Copyable, DiagnosisPanel, EventTimeline, PodLogs, RolloutView,
    StreamStatusLine, TimelineView,
};
use crate::model::api::endpoints::split_api_version;
use crate::model::edit::{has_status_subresource, EditTarget, MetadataMap};
use crate::model::history::past::shown::past_rows;
use crate::model::history::{rollout_history, ObjectTimeline};
use crate::model::navigation::route::{ObjectRoute, ObjectTab, Page};
use crate::model::object::events::EventScope;
use crate::model::object::owners::{OwnerGraph, OwnerNode, DEFAULT_MAX_DEPTH};
use crate::model::object::page::{
    object_overview, pretty_json, shown_object, terminating, ConditionRow, MetadataEntry,
    Terminating,
};
use crate::model::object::pointer::Pointer;
use crate::model::object::visible_text::with_visible_controls;
use crate::model::object::yaml::to_yaml;
use crate::model::permissions::{Question, Scope};
use crate::model::watch::StreamPhase;
use crate::model::{api::endpoints::kind_to_resource, ApiTree, ResourceId};
use crate::state::activity::use_activity;
use crate::state::clock::{epoch_now, use_clock};
use crate::state::discovery::DiscoveryState;
use crate::state::navigation::use_navigation;
use crate::state::object::{
    load_object, load_versions, object_path, use_object_tabs, Gone, ObjectState, VersionRead,
};
use crate::state::rollback::use_rollback;
use crate::state::watch::WatchHub;

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
    fn denial(&self, verb: &'static str, subresource: &'static str) -> Signal<Option<String>> {
        let question = Question::new(
            Scope::of(self.namespace.as_deref()),
            verb,
            &self.resource.group,
            &self.resource.plural,
        )
        .subresource(subresource)
        .named(&self.name);
        let namespaced = self.namespace.is_some();
        use_denial(move || Some((question.clone(), namespaced)))
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
    // `object_path` found the resource, so `load_object` does too.
    let Some(state) = load_object(
        tree.clone(),
        &identity.resource,
        identity.namespace.clone(),
        identity.name.clone(),
    ) else {
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
    let tab_links = tabs
        .links
        .into_iter()
        .map(|link| {
            let shown = link.tab;
            view! {
                <a role="tab" href=link.href aria-selected=move || (tab.get() == shown).to_string()>{link.label}</a>
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
        if tab.get() == ObjectTab::Activity {
            return page.activity_tab();
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
            ObjectTab::Activity => ().into_any(),
            ObjectTab::Edit => page.edit_tab(),
            ObjectTab::Logs => match object.get_untracked() {
                Some(pod) => view! { <PodLogs pod_path=page.path.clone() pod=pod/> }.into_any(),
                None => ().into_any(),
            },
        }
    };
    let actions = {
        let found = tree.find(&identity.resource);
        let deletable = found
            .as_ref()
            .is_some_and(|r| r.resource.supports("delete"));
        let scale_path = found.as_ref().and_then(|r| {
            let scale = r.resource.subresource("scale")?;
            scale.supports("patch").then(|| format!("{path}/scale"))
        });
        let label = format!(
            "{} {}",
            found
                .as_ref()
                .map(|r| r.resource.kind.clone())
                .unwrap_or_default(),
            identity.name
        );
        let object = state.object;
        let path = path.clone();
        let scale_denied = identity.denial("patch", "scale");
        let delete_denied = identity.denial("delete", "");
        view! {
            <div class="object-actions" role="toolbar" aria-label="Object actions">
                {scale_path.map(|scale_path| view! { <ScaleAction scale_path=scale_path object=object denied=scale_denied/> })}
                {deletable.then(|| view! { <DeleteAction path=path.clone() label=label.clone() denied=delete_denied/> })}
            </div>
        }
    };
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
        <section class="object-page" class:fill-page=move || tab.get() == ObjectTab::Logs aria-label=format!("{} {}", identity.resource.plural, identity.name)>
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

/// What an object page's tabs draw from.
#[derive(Clone)]
struct ObjectPageParts {
    identity: ObjectIdentity,
    tree: ApiTree,
    /// The object's API path.
    path: String,
    state: ObjectState,
    has_object: Memo<bool>,
}

impl ObjectPageParts {
    /// The controllers at work on everything the object owns, watched from now on (even
    /// before the object exists).
    fn activity_tab(&self) -> AnyView {
        let object = self.state.object;
        let root = Signal::derive(move || {
            object.with(|o| {
                o.as_ref()
                    .and_then(|o| o.at("/metadata/uid"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
        });
        let (activity, ready) = use_activity(
            &self.tree,
            &self.identity.resource,
            self.identity.namespace.clone(),
            root,
        );
        let has_object = self.has_object;
        let waiting = move || {
            (!has_object.get()).then(|| view! {
                <p class="loading activity-wait">"Waiting for the object to exist; its activity is watched from now on."</p>
            })
        };
        let error = self.state.error;
        view! {
            <div class="activity-panel" data-ready=move || ready.get().to_string()>
                {move || read_error(error)}
                {move || (!ready.get()).then(|| view! { <p class="loading">"Starting the watches…"</p> })}
                {waiting}
                <ActivityView activity=activity tree=self.tree.clone()/>
            </div>
        }
        .into_any()
    }

    fn overview_tab(&self) -> AnyView {
        let object = self.state.object;
        let patchable = self
            .tree
            .find(&self.identity.resource)
            .is_some_and(|r| r.resource.supports("patch"));
        let path = self.path.clone();
        let editors = patchable.then(|| {
            // Outside the redrawn overview, so typing survives the object's changes.
            let keys = move |map: MetadataMap| {
                Signal::derive(move || {
                    object.with(|o| {
                        o.as_ref()
                            .and_then(|o| o.at(&format!("/metadata/{}", map.field())))
                            .and_then(Value::as_object)
                            .map(|m| m.keys().cloned().collect::<Vec<_>>())
                            .unwrap_or_default()
                    })
                })
            };
            let denied = self.identity.denial("patch", "");
            view! {
                <h2>"Edit labels and annotations"</h2>
                <MetadataEditor path=path.clone() map=MetadataMap::Labels keys=keys(MetadataMap::Labels) denied=denied/>
                <MetadataEditor path=path.clone() map=MetadataMap::Annotations keys=keys(MetadataMap::Annotations) denied=denied/>
            }
        });
        let tree = self.tree.clone();
        let state = self.state.clone();
        view! {
            <DiagnosisPanel diagnosis=state.diagnosis tree=tree.clone()/>
            {move || object.get().map(|o| overview(&o, &tree, state.clone()))}
            {editors}
        }
        .into_any()
    }

    /// The watched revisions, then the past before watching began, reconstructed; a
    /// Deployment's revisions first, each with its template diff and a rollback to it.
    fn timeline_tab(&self, focus: Option<String>) -> AnyView {
        let past = self.state.past;
        let rows = Signal::derive(move || past.with(|p| past_rows(p)));
        let rollout = self
            .tree
            .find(&self.identity.resource)
            .filter(|r| r.resource.kind == "Deployment")
            .map(|r| {
                let object = self.state.object;
                let controlled = self.state.controlled;
                let revisions = Signal::derive(move || {
                    object.with(|o| {
                        o.as_ref()
                            .map(|o| controlled.with(|owned| rollout_history(o, owned)))
                            .unwrap_or_default()
                    })
                });
                let target = EditTarget::new(
                    &r,
                    self.identity.namespace.as_deref(),
                    Some(&self.identity.name),
                );
                let rollback = use_rollback(target, self.path.clone(), object);
                view! {
                    <RolloutView
                        revisions=revisions
                        holders=controlled
                        rollback=rollback
                        denied=self.identity.denial("update", "")
                    />
                }
            });
        view! {
            {rollout}
            <TimelineView timeline=timeline_of(&self.state) focus=focus.unwrap_or_default() past=rows/>
        }
        .into_any()
    }

    /// The YAML with the manager owning each line; a line links to its change on the
    /// timeline.
    fn blame_tab(&self) -> AnyView {
        let identity = self.identity.clone();
        let href_of = Callback::new(move |rv: String| {
            let mut route = identity.route(ObjectTab::Timeline);
            route.revision = Some(rv);
            Page::Object(route).to_hash()
        });
        view! { <BlameView object=self.state.object timeline=timeline_of(&self.state) href_of=href_of/> }
            .into_any()
    }

    fn events_tab(&self) -> AnyView {
        let scope = self.state.object.with_untracked(|o| {
            let o = o.as_ref()?;
            Some(EventScope::Object {
                namespace: self.identity.namespace.clone(),
                uid: o.at("/metadata/uid")?.as_str()?.to_string(),
                kind: o
                    .get("kind")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                name: self.identity.name.clone(),
            })
        });
        match scope {
            Some(scope) => view! { <EventTimeline scope=scope/> }.into_any(),
            None => ().into_any(),
        }
    }

    fn edit_tab(&self) -> AnyView {
        let Some(r) = self.tree.find(&self.identity.resource) else {
            return ().into_any();
        };
        if !r.resource.supports("update") {
            return view! { <p class="muted">"The server does not allow updating this kind."</p> }
                .into_any();
        }
        let target = EditTarget::new(
            &r,
            self.identity.namespace.as_deref(),
            Some(&self.identity.name),
        );
        view! {
            <ObjectEditor
                resource=self.identity.resource.clone()
                target=target
                path=self.path.clone()
                status_is_subresource=has_status_subresource(r.resource)
                object=self.state.object
                denied_update=self.identity.denial("update", "")
                denied_patch=self.identity.denial("patch", "")
            />
        }
        .into_any()
    }
}

/// Why the object could not be read, while it cannot.
fn read_error(error: Signal<Option<String>>) -> Option<impl IntoView> {
    error.get().map(|error| {
        view! {
            <div class="error" role="alert">
                <strong>"The object could not be read. "</strong>{error}" Retrying…"
            </div>
        }
    })
}

/// The object's timeline from its page's watch, following the object as it changes, with
/// what another open watch saw of it before (taken once: an activity view's writes stay
/// when its watches close).
fn timeline_of(state: &ObjectState) -> Signal<Option<ObjectTimeline>> {
    let history = state.history.clone();
    let object = state.object;
    let key = state.live.key.clone();
    let hub = use_context::<WatchHub>();
    let earlier = StoredValue::new(None::<ObjectTimeline>);
    Signal::derive(move || {
        let uid = object.with(|o| {
            o.as_ref()
                .and_then(|o| o.at("/metadata/uid"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })?;
        let own = history.with(|h| h.timeline(&uid).cloned())?;
        if earlier.with_value(Option::is_none) {
            if let Some(other) = hub.and_then(|hub| hub.other_timeline(&key, &uid)) {
                earlier.set_value(Some(other));
            }
        }
        let merged = earlier.with_value(|e| e.as_ref().and_then(|e| own.with_earlier(e)));
        Some(merged.unwrap_or(own))
    })
}

fn overview(object: &Value, tree: &ApiTree, state: ObjectState) -> impl IntoView {
    let facts = object_overview(object, epoch_now());
    let uid = facts.uid.clone().unwrap_or_default();
    let reconciling = facts.reconciling();
    let tree = tree.clone();
    let graph_uid = uid.clone();
    let graph = move || {
        let graph = state
            .owners
            .with(|index| index.graph(&graph_uid, DEFAULT_MAX_DEPTH));
        owner_graph_view(&graph, &tree)
    };
    view! {
        <table class="props" aria-label="Object">
            <tr><th>"Kind"</th><td>{format!("{} ({})", facts.kind, facts.api_version)}</td></tr>
            <tr><th>"Name"</th><td class="mono">{facts.name.clone()}</td></tr>
            {facts.namespace.clone().map(|ns| view! { <tr><th>"Namespace"</th><td>{ns}</td></tr> })}
            <tr>
                <th>"Age"</th>
                <td title=facts.creation_timestamp.clone().unwrap_or_default()>
                    {facts.age.clone().unwrap_or_default()}
                </td>
            </tr>
            <tr><th>"UID"</th><td class="mono">{uid.clone()}</td></tr>
            <tr><th>"resourceVersion"</th><td class="mono">{facts.resource_version.clone().unwrap_or_default()}</td></tr>
            {facts.generation.map(|g| view! {
                <tr><th>"Generation"</th><td>
                    {match facts.observed_generation {
                        Some(o) => format!("{g} (observed {o})"),
                        None => g.to_string(),
                    }}
                    {reconciling.then_some(" — not reconciled yet")}
                </td></tr>
            })}
            {facts.deletion_timestamp.clone().map(|t| view! {
                <tr><th>"Deleting"</th><td>{format!("since {t}; finalizers: {}", facts.finalizers.join(", "))}</td></tr>
            })}
        </table>
        <h2>"Labels"</h2>
        {metadata_view(facts.labels.clone(), "Labels")}
        <h2>"Annotations"</h2>
        {metadata_view(facts.annotations.clone(), "Annotations")}
        <h2>"Conditions"</h2>
        {conditions_view(facts.conditions.clone())}
        <h2>"Owners and owned objects"</h2>
        <div class="owner-graph" aria-label="Owner graph">{graph}</div>
        {move || state.owners_loading.get().then(|| view! { <p class="loading">"Looking for owned objects…"</p> })}
        {move || {
            let gaps = state.owner_gaps.get();
            (!gaps.is_empty()).then(|| view! {
                <p class="warning">{format!("Some kinds could not be searched: {}", gaps.join("; "))}</p>
            })
        }}
    }
}

fn metadata_view(entries: Vec<MetadataEntry>, label: &'static str) -> AnyView {
    if entries.is_empty() {
        return view! { <p class="muted">"None."</p> }.into_any();
    }
    view! {
        <div class="kv" role="list" aria-label=label>
            {entries
                .into_iter()
                .map(|entry| {
                    // Copied as it is; shown with its control characters made visible.
                    let whole = format!("{}={}", entry.key, entry.value);
                    let shown = |text: &str| with_visible_controls(text).into_owned();
                    if entry.fold {
                        view! {
                            <details class="pair" role="listitem">
                                <summary>{shown(&format!("{}={}", entry.key, entry.folded_value()))}</summary>
                                <Copyable text=whole.clone()/>
                            </details>
                        }
                        .into_any()
                    } else {
                        let text = shown(&whole);
                        let title = text.clone();
                        view! { <span class="pair" role="listitem" title=title>{text}</span> }.into_any()
                    }
                })
                .collect_view()}
        </div>
    }
    .into_any()
}

fn conditions_view(conditions: Vec<ConditionRow>) -> AnyView {
    if conditions.is_empty() {
        return view! { <p class="muted">"None reported."</p> }.into_any();
    }
    view! {
        <table class="conditions" aria-label="Conditions">
            <thead>
                <tr>
                    <th scope="col">"Type"</th>
                    <th scope="col">"Status"</th>
                    <th scope="col">"Reason"</th>
                    <th scope="col">"Message"</th>
                    <th scope="col">"Last transition"</th>
                </tr>
            </thead>
            <tbody>
                {conditions
                    .into_iter()
                    .map(|c| view! {
                        <tr class="condition" data-type=c.condition_type.clone()>
                            <td>{c.condition_type.clone()}</td>
                            <td>{c.status.clone()}</td>
                            <td>{c.reason.clone()}</td>
                            <td class="message">{c.message.clone()}</td>
                            <td title=c.last_transition_time.clone().unwrap_or_default()>
                                {c.age.clone().map(|a| format!("{a} ago")).unwrap_or_default()}
                            </td>
                        </tr>
                    })
                    .collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

/// The object page of a graph node, when discovery maps its kind.
fn node_href(node: &OwnerNode, tree: &ApiTree) -> Option<String> {
    let (group, version) = split_api_version(&node.api_version);
    let r = kind_to_resource(tree, group, version, &node.kind).ok()?;
    let namespace = node.namespace.clone().filter(|_| r.resource.namespaced);
    Some(Page::Object(ObjectRoute::new(r.id(), namespace, node.name.clone())).to_hash())
}

/// One column per level: owners to the left, the object, what it owns to the right.
fn owner_graph_view(graph: &OwnerGraph, tree: &ApiTree) -> AnyView {
    let Some(min) = graph.nodes.iter().map(|n| n.depth).min() else {
        return view! { <p class="muted">"No owners, nothing owned."</p> }.into_any();
    };
    let max = graph.nodes.iter().map(|n| n.depth).max().unwrap_or(0);
    if min == 0 && max == 0 {
        return view! { <p class="muted">"No owners, nothing owned."</p> }.into_any();
    }
    let levels = (min..=max)
        .map(|depth| {
            let nodes: Vec<AnyView> = graph
                .nodes
                .iter()
                .filter(|n| n.depth == depth)
                .map(|n| {
                    let label = format!("{} {}", n.node.kind, n.node.name);
                    let relation = match depth.signum() {
                        -1 => "owner",
                        1 => "owned",
                        _ => "this",
                    };
                    match (depth, node_href(&n.node, tree)) {
                        (0, _) | (_, None) => view! {
                            <li class=relation data-kind=n.node.kind.clone()>{label}</li>
                        }
                        .into_any(),
                        (_, Some(href)) => view! {
                            <li class=relation data-kind=n.node.kind.clone()>
                                <a href=href>{label}</a>
                                {(!n.node.loaded).then_some(" (not found)")}
                            </li>
                        }
                        .into_any(),
                    }
                })
                .collect();
            let heading = match depth {
                d if d < 0 => "Owned by",
                0 => "This object",
                _ => "Owns",
            };
            view! {
                <div class="owner-level" data-depth=depth>
                    <h3>{heading}</h3>
                    <ul>{nodes}</ul>
                </div>
            }
        })
        .collect_view();
    view! {
        <div class="owner-levels">{levels}</div>
        {graph.truncated.then(|| view! { <p class="muted">"The graph was cut at its size limit."</p> })}
    }
    .into_any()
}

fn text_view(object: &Value, yaml: bool) -> impl IntoView {
    let show_managed = RwSignal::new(false);
    let object = object.clone();
    move || {
        let (text, folded) = if yaml {
            let (shown, folded) = shown_object(&object, show_managed.get());
            (to_yaml(&shown).unwrap_or_else(|e| e), folded)
        } else {
            let pretty = pretty_json(&object, show_managed.get());
            (pretty.text, pretty.managed_fields_folded)
        };
        view! {
            <div class="text-tools">
                <Copyable text=text.clone()/>
                {(folded > 0).then(|| view! {
                    <button type="button" on:click=move |_| show_managed.set(true)>
                        {format!("Show {folded} managedFields entries")}
                    </button>
                })}
                {move || show_managed.get().then(|| view! {
                    <button type="button" on:click=move |_| show_managed.set(false)>"Fold managedFields"</button>
                })}
            </div>
            <pre class="object-text" tabindex="0" aria-label=if yaml { "YAML" } else { "JSON" }>{text}</pre>
        }
    }
}

#[component]
fn VersionsView(tree: ApiTree, identity: ObjectIdentity) -> impl IntoView {
    let reads = load_versions(
        tree,
        identity.resource.clone(),
        identity.namespace.clone(),
        identity.name.clone(),
    );
    view! {
        <p>
            "The API server stores one copy of each object and converts it to whichever served \
             version a client asks for: here is this object read through each version of its group."
        </p>
        {move || {
            reads
                .get()
                .into_iter()
                .map(|read: VersionRead| {
                    let title = format!(
                        "{}{}",
                        read.version,
                        if read.preferred { " (preferred)" } else { "" }
                    );
                    let body = match &read.result {
                        Ok(object) => {
                            let (shown, _) = shown_object(object, false);
                            let text = to_yaml(&shown).unwrap_or_else(|e| e);
                            view! { <pre class="object-text" tabindex="0" aria-label="Object as read through this version">{text}</pre> }.into_any()
                        }
                        Err(error) => view! { <p class="error">{error.to_string()}</p> }.into_any(),
                    };
                    view! {
                        <details class="version-read" open=read.preferred data-version=read.version.clone()>
                            <summary>{title}</summary>
                            {body}
                        </details>
                    }
                })
                .collect_view()
        }}
    }
}
