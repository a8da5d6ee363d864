//! Creating objects from YAML, one or many documents, as `kubectl apply -f` does: each
//! document goes to the collection its apiVersion and kind map to through discovery, with a
//! result per document. The editor starts from a template of the chosen kind; the text is a
//! draft in localStorage until everything it holds was created.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::browser::{local_storage_get, local_storage_remove, local_storage_set};
use crate::components::code_editor::{CodeEditor, EditorDiagnostic};
use crate::components::object_actions::WriteError;
use crate::components::DenialReason;
use crate::model::api::errors::ApiError;
use crate::model::edit::{
    draft_key, parse_documents, plan_creates, template_for, to_yaml, CreatePlan, Draft,
};
use crate::model::navigation::route::{CreateRoute, ObjectRoute, Page};
use crate::model::object::pointer::Pointer;
use crate::model::permissions::{Question, Scope};
use crate::state::discovery::DiscoveryState;
use crate::state::edit;
use crate::state::navigation::use_navigation;
use crate::state::permissions::use_permissions;

/// What became of one document.
#[derive(Debug, Clone)]
enum DocumentResult {
    /// Not sent: the document itself is wrong.
    Problem(String),
    Created {
        label: String,
        href: Option<String>,
        warnings: Vec<String>,
        dry_run: bool,
    },
    Failed {
        label: String,
        error: ApiError,
    },
}

#[component]
pub fn CreatePage(route: CreateRoute) -> impl IntoView {
    let discovery = expect_context::<DiscoveryState>();
    let navigation = use_navigation();
    let tree = discovery.tree_now();
    let Some(found) = tree.find(&route.resource) else {
        return view! {
            <p class="error" role="alert">{format!("The server does not serve {}.", route.resource.key())}</p>
        }
        .into_any();
    };
    let namespace = route
        .namespace
        .clone()
        .filter(|_| found.resource.namespaced);
    let kind = found.resource.kind.clone();
    let key = draft_key(&route.resource, namespace.as_deref(), None);
    let template = template_for(&found.api_version(), &kind, namespace.as_deref());
    let template_text = to_yaml(&template).unwrap_or_default();
    let restored = local_storage_get(&key).and_then(|t| Draft::from_json(&t).ok());
    let start_text = restored
        .as_ref()
        .map(|d| d.text.clone())
        .unwrap_or_else(|| template_text.clone());
    let text = RwSignal::new(start_text.clone());
    let results = RwSignal::new(Vec::<DocumentResult>::new());
    let busy = RwSignal::new(false);
    let key = StoredValue::new(key);
    let tree = StoredValue::new(tree.clone());
    let namespace = StoredValue::new(namespace);
    let parsed = Memo::new(move |_| text.with(|t| parse_documents(t)));
    let diagnostics = Signal::derive(move || {
        parsed.with(|p| match p {
            Err(e) => vec![EditorDiagnostic::of_yaml(e)],
            Ok(_) => Vec::new(),
        })
    });
    let question = format!(
        "Your {kind} YAML is not created yet. Leave anyway? (The draft stays in this browser.)"
    );
    let on_change = Callback::new(move |new_text: String| {
        text.set(new_text.clone());
        let draft = Draft {
            key: key.get_value(),
            text: new_text,
            base: serde_json::Value::Null,
            saved_at_ms: js_sys::Date::now(),
        };
        local_storage_set(&key.get_value(), &draft.to_json());
        navigation.set_leave_question(Some(question.clone()));
    });
    on_cleanup(move || navigation.set_leave_question(None));

    let run = move |dry_run: bool| {
        let Ok(documents) = parsed.get_untracked() else {
            return;
        };
        let plans = tree.with_value(|tree| {
            plan_creates(
                tree,
                documents,
                namespace.with_value(|ns| ns.clone()).as_deref(),
            )
        });
        busy.set(true);
        results.set(Vec::new());
        // Read now: the page may be left before the creates answer (its values gone then).
        let draft = key.get_value();
        spawn_local(async move {
            let mut out = Vec::new();
            for plan in plans {
                out.push(match plan {
                    Err(problem) => DocumentResult::Problem(problem.to_string()),
                    Ok(plan) => create_one(plan, dry_run).await,
                });
            }
            let all_created = out
                .iter()
                .all(|r| matches!(r, DocumentResult::Created { .. }));
            if all_created && !dry_run {
                local_storage_remove(&draft);
                navigation.set_leave_question(None);
            }
            results.set(out);
            busy.set(false);
        });
    };
    let invalid = move || parsed.with(|p| p.as_ref().map_or(true, Vec::is_empty));
    // Each document's create, asked of the user's permissions: the first one refused says why
    // Create is disabled (Review too: a dry run needs the same permission).
    let permissions = use_permissions();
    let denied = Signal::derive(move || {
        let Ok(documents) = parsed.get() else {
            return None;
        };
        let plans = tree.with_value(|tree| {
            plan_creates(
                tree,
                documents,
                namespace.with_value(|ns| ns.clone()).as_deref(),
            )
        });
        plans.into_iter().flatten().find_map(|plan| {
            let question = Question::new(
                Scope::of(plan.namespace.as_deref()),
                "create",
                &plan.resource.group,
                &plan.resource.plural,
            );
            permissions
                .may(&question)
                .is_denied()
                .then(|| question.denial(plan.namespace.is_some()))
        })
    });
    let parse_error = move || {
        parsed.with(|p| {
            p.as_ref()
                .err()
                .map(|e| format!("Not valid YAML at {e} — nothing was sent."))
        })
    };
    let list_href = Page::ResourceList(crate::model::navigation::route::ListRoute::new(
        route.resource.clone(),
        route.namespace.clone(),
    ))
    .to_hash();
    view! {
        <section class="create-page" aria-label="Create">
            <p class="breadcrumb"><a href=list_href>{route.resource.plural.clone()}</a></p>
            <h1>{format!("Create {kind}")}</h1>
            <p class="muted">
                "One or more YAML documents (separated by ---), of any kind: each is sent to the collection \
                 discovery maps its apiVersion and kind to"
                {namespace.get_value().map(|ns| format!("; documents without a namespace go to {ns}"))}
                "."
            </p>
            {restored.is_some().then(|| view! {
                <p class="notice draft-restored" role="status">"Your unsaved draft was restored."</p>
            })}
            <div class="editor-buttons" role="toolbar" aria-label="Create actions">
                <button type="button" disabled=move || busy.get() || invalid() || denied.get().is_some()
                    title=move || denied.get() aria-describedby="denied-create"
                    on:click=move |_| run(true)>"Review"</button>
                <button type="button" class="primary" disabled=move || busy.get() || invalid() || denied.get().is_some()
                    title=move || denied.get() aria-describedby="denied-create"
                    on:click=move |_| run(false)>"Create"</button>
                <DenialReason id="denied-create".into() reason=denied/>
            </div>
            {move || parse_error().map(|e| view! { <p class="error edit-problem" role="alert">{e}</p> })}
            <ol class="create-results" aria-label="Results">
                {move || results.get().into_iter().map(result_view).collect_view()}
            </ol>
            <CodeEditor text=start_text on_change=on_change diagnostics=diagnostics/>
        </section>
    }
    .into_any()
}

async fn create_one(plan: CreatePlan, dry_run: bool) -> DocumentResult {
    match edit::create(&plan.path, &plan.body, dry_run).await {
        Ok(written) => {
            let name = written
                .object
                .at("/metadata/name")
                .and_then(|n| n.as_str())
                .map(str::to_string)
                .or(plan.name.clone());
            let href = name.filter(|_| !dry_run).map(|name| {
                Page::Object(ObjectRoute::new(
                    plan.resource.clone(),
                    plan.namespace.clone(),
                    name,
                ))
                .to_hash()
            });
            let label = match &plan.name {
                Some(_) => plan.label.clone(),
                None => format!(
                    "{} (generated: {})",
                    plan.label,
                    written
                        .object
                        .at("/metadata/name")
                        .and_then(|n| n.as_str())
                        .unwrap_or("?")
                ),
            };
            DocumentResult::Created {
                label,
                href,
                warnings: written.warnings,
                dry_run,
            }
        }
        Err(error) => DocumentResult::Failed {
            label: plan.label,
            error,
        },
    }
}

fn result_view(result: DocumentResult) -> AnyView {
    match result {
        DocumentResult::Problem(problem) => view! {
            <li class="error create-result" data-result="problem">{format!("Not sent: {problem}")}</li>
        }
        .into_any(),
        DocumentResult::Created {
            label,
            href,
            warnings,
            dry_run,
        } => {
            let verb = if dry_run { "would be created (dry run)" } else { "created" };
            view! {
                <li class="notice create-result" data-result="created">
                    {match href {
                        Some(href) => view! { <a href=href>{label}</a> }.into_any(),
                        None => view! { <span class="mono">{label}</span> }.into_any(),
                    }}
                    {format!(" {verb}")}
                    {warnings.into_iter().map(|w| view! { <p class="warning">{format!("Warning: {w}")}</p> }).collect_view()}
                </li>
            }
            .into_any()
        }
        DocumentResult::Failed { label, error } => view! {
            <li class="create-result" data-result="failed">
                <span class="mono">{label}</span>
                <WriteError error=error/>
            </li>
        }
        .into_any(),
    }
}
