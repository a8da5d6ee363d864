//! The object page's tabs that need more than the object: activity, overview, timeline,
//! blame, Event objects, the editor.

use leptos::prelude::*;
use serde_json::Value;

use crate::components::object_actions::MetadataEditor;
use crate::components::object_editor::ObjectEditor;
use crate::components::terminal::{TerminalDenials, TerminalPlace, TerminalTab};
use crate::components::{
    ActivityView, BlameView, DiagnosisPanel, EventTimeline, RolloutView, TimelineView,
};
use crate::model::edit::{has_status_subresource, EditTarget, MetadataMap};
use crate::model::history::past::shown::past_rows;
use crate::model::history::{rollout_history, ObjectTimeline};
use crate::model::navigation::route::{ObjectTab, Page};
use crate::model::object::events::EventScope;
use crate::model::object::pointer::Pointer;
use crate::model::ApiTree;
use crate::pages::object::summary::overview;
use crate::pages::object::ObjectIdentity;
use crate::state::activity::use_activity;
use crate::state::object::{Gone, UseObjectReturn};
use crate::state::rollback::use_rollback;
use crate::state::watch::WatchHub;

/// What an object page's tabs draw from.
#[derive(Clone)]
pub(super) struct ObjectPageParts {
    pub(super) identity: ObjectIdentity,
    pub(super) tree: ApiTree,
    /// The object's API path.
    pub(super) path: String,
    pub(super) state: UseObjectReturn,
    pub(super) has_object: Memo<bool>,
}

impl ObjectPageParts {
    /// The controllers at work on everything the object owns, watched from now on (even
    /// before the object exists).
    pub(super) fn activity_tab(&self) -> AnyView {
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

    pub(super) fn overview_tab(&self) -> AnyView {
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
        let (usage, usage_findings) = match self.usage_section() {
            Some((view, findings)) => (Some(view), Some(findings)),
            None => (None, None),
        };
        let ports = self.ports_section();
        // The usage rules' findings (they need the metrics API) join the object's own.
        let object_diagnosis = state.diagnosis;
        let diagnosis = Signal::derive(move || {
            let found = usage_findings.map(|f| f.get()).unwrap_or_default();
            object_diagnosis.get().with_findings(found)
        });
        view! {
            <DiagnosisPanel diagnosis=diagnosis tree=tree.clone()/>
            {usage}
            {ports}
            {move || object.get().map(|o| overview(&o, &tree, state.clone()))}
            {editors}
        }
        .into_any()
    }

    /// The watched revisions, then the past before watching began, reconstructed; a
    /// Deployment's revisions first, each with its template diff and a rollback to it.
    pub(super) fn timeline_tab(&self, focus: Option<String>) -> AnyView {
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
    pub(super) fn blame_tab(&self) -> AnyView {
        let identity = self.identity.clone();
        let href_of = Callback::new(move |rv: String| {
            let mut route = identity.route(ObjectTab::Timeline);
            route.revision = Some(rv);
            Page::Object(route).to_hash()
        });
        view! { <BlameView object=self.state.object timeline=timeline_of(&self.state) href_of=href_of/> }
            .into_any()
    }

    pub(super) fn events_tab(&self) -> AnyView {
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

    /// Shells in the pod's containers, attach, debug containers.
    pub(super) fn terminal_tab(&self, attach: Option<String>) -> AnyView {
        let object = self.state.object;
        let place = TerminalPlace {
            tree: self.tree.clone(),
            namespace: self.identity.namespace.clone().unwrap_or_default(),
            name: self.identity.name.clone(),
            pod: Signal::derive(move || object.get()),
            attach,
            denials: self.terminal_denials(),
            deleted: Signal::derive({
                let gone = self.state.gone;
                move || gone.get() == Some(Gone::Deleted)
            }),
        };
        view! { <TerminalTab place=place/> }.into_any()
    }

    /// What the permissions model says of the terminal's requests.
    pub(super) fn terminal_denials(&self) -> TerminalDenials {
        TerminalDenials {
            exec: self.identity.denial("create", "exec"),
            attach: self.identity.denial("create", "attach"),
            debug: self.identity.denial("patch", "ephemeralcontainers"),
        }
    }

    pub(super) fn edit_tab(&self) -> AnyView {
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
pub(super) fn read_error(error: Signal<Option<String>>) -> Option<impl IntoView> {
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
pub(super) fn timeline_of(state: &UseObjectReturn) -> Signal<Option<ObjectTimeline>> {
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
