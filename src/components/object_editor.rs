//! The object page's editor: the object as YAML (without managedFields, and without status
//! where status is a subresource), checked as it is typed, reviewed by a server dry run,
//! saved by PUT with its resourceVersion, or applied server-side as `kube-atlas`. A 409
//! replays the edit onto the latest version (three-way) and asks only where both sides
//! changed the same field; a write seen on the watch meanwhile is announced, never pulled
//! into the text. The text is kept as a draft in localStorage until saved or discarded.
//! The decisions are the pure model's (`model::edit`); this view wires them to the editor.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::browser::{local_storage_get, local_storage_remove, local_storage_set};
use crate::components::code_editor::{CodeEditor, EditorDiagnostic, MergeView};
use crate::components::object_actions::WriteError;
use crate::model::edit::{
    apply_conflicts, document_to_save, draft_key, editable, line_of_field, resolve, review_diff,
    three_way, ApplyConflict, Draft, EditProblem, EditTarget, FieldChange, Merge, Pick,
};
use crate::model::errors::ApiError;
use crate::model::history::diff::short;
use crate::model::ResourceId;
use crate::state::edit::{self, Written};
use crate::state::navigation::use_navigation;

/// Texts shorter than this are checked on every change; longer ones once typing pauses for
/// [`CHECK_PAUSE_MS`].
const CHECK_AT_ONCE_BELOW: usize = 100_000;
const CHECK_PAUSE_MS: u64 = 300;

/// The object's YAML as the editor shows it.
fn yaml_of(object: &Value) -> String {
    crate::model::yaml::to_yaml(object).unwrap_or_else(|e| format!("# {e}\n"))
}

fn resource_version(object: &Value) -> Option<String> {
    object
        .pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// What the last action came to.
#[derive(Debug, Clone)]
enum Outcome {
    Saved {
        resource_version: String,
        warnings: Vec<String>,
        applied: bool,
    },
    Failed(ApiError),
    /// Not sent: the text cannot be used for this action.
    Refused(String),
    /// A 409 on save: the edit was replayed onto the latest version.
    Reapplied {
        theirs: Vec<FieldChange>,
        yours: Vec<FieldChange>,
    },
    /// Server-side apply refused: fields other managers own.
    ApplyConflicts(Vec<ApplyConflict>),
}

/// A server dry run of the text: the live object against what would be stored.
#[derive(Debug, Clone)]
struct Review {
    live: String,
    would_store: String,
    changes: Vec<FieldChange>,
    warnings: Vec<String>,
}

/// Both sides changed these fields: the user picks, one per conflict.
#[derive(Debug, Clone)]
struct Pending {
    merge: Merge,
    latest: Value,
}

#[component]
pub fn ObjectEditor(
    resource: ResourceId,
    target: EditTarget,
    /// The object's API path.
    path: String,
    status_is_subresource: bool,
    /// The object, live from the page's watch.
    object: Signal<Option<Value>>,
) -> impl IntoView {
    let navigation = use_navigation();
    let key = draft_key(
        &resource,
        target.namespace.as_deref(),
        target.name.as_deref(),
    );
    let live_editable = move || {
        object.with_untracked(|o| {
            o.as_ref()
                .map(|o| editable(o, status_is_subresource))
                .unwrap_or(Value::Null)
        })
    };
    // A draft from before (a reload, a failed save) wins over the live object.
    let restored = local_storage_get(&key).and_then(|text| Draft::from_json(&text).ok());
    let (start_base, start_text) = match &restored {
        Some(draft) => (draft.base.clone(), draft.text.clone()),
        None => {
            let base = live_editable();
            let text = yaml_of(&base);
            (base, text)
        }
    };
    let base = RwSignal::new(start_base);
    let text = RwSignal::new(start_text.clone());
    let clean_text = RwSignal::new(match &restored {
        Some(draft) => yaml_of(&draft.base),
        None => start_text.clone(),
    });
    let set_text = RwSignal::new(None::<(u64, String)>);
    let outcome = RwSignal::new(None::<Outcome>);
    let review = RwSignal::new(None::<Review>);
    let pending = RwSignal::new(None::<Pending>);
    let picks = RwSignal::new(Vec::<Pick>::new());
    let busy = RwSignal::new(false);
    let restored_note = RwSignal::new(restored.as_ref().map(|d| d.saved_at_ms));
    let target = StoredValue::new(target);
    let key = StoredValue::new(key);
    let path = StoredValue::new(path);
    let label = StoredValue::new(format!(
        "{} {}",
        target.with_value(|t| t.kind.clone()),
        target.with_value(|t| t.name.clone().unwrap_or_default())
    ));

    let dirty = Memo::new(move |_| text.with(|t| clean_text.with(|c| t != c)));
    // The text as a document to save, parsed now (what every action sends).
    let check_now = move || {
        text.try_with_untracked(|t| target.with_value(|target| document_to_save(target, t)))
            .unwrap_or_else(|| Err(EditProblem::MissingName))
    };
    // What the page shows of it: checked as typed, or for a big text once typing pauses
    // (parsing a megabyte on every key would make typing lag).
    let checked = RwSignal::new(check_now());
    // Parse errors, and the fields the server's last answer named (a 422's causes, apply
    // conflicts), each at its line.
    let diagnostics = Signal::derive(move || {
        let mut marks: Vec<EditorDiagnostic> = checked.with(|c| match c {
            Err(EditProblem::Yaml(e)) => vec![EditorDiagnostic::of_yaml(e)],
            _ => Vec::new(),
        });
        let named: Vec<(String, String)> = outcome.with(|o| match o {
            Some(Outcome::Failed(error)) => error
                .causes()
                .iter()
                .filter_map(|c| {
                    let field = c.field.clone()?;
                    Some((field, c.message.clone().unwrap_or_default()))
                })
                .collect(),
            Some(Outcome::ApplyConflicts(conflicts)) => conflicts
                .iter()
                .map(|c| (c.field.clone(), format!("owned by {}", c.manager)))
                .collect(),
            _ => Vec::new(),
        });
        text.with(|t| {
            for (field, message) in named {
                if let Some(line) = line_of_field(t, &field) {
                    let line = u32::try_from(line).unwrap_or(1);
                    marks.push(EditorDiagnostic::error(
                        line,
                        1,
                        format!("{field}: {message}"),
                    ));
                }
            }
        });
        marks
    });
    let leave_question = move || {
        Some(format!(
            "Your changes to {} are not saved. Leave anyway? (The draft stays in this browser.)",
            label.get_value()
        ))
    };
    let remember = move |new_text: &str| {
        let draft = Draft {
            key: key.get_value(),
            text: new_text.to_string(),
            base: base.get_untracked(),
            saved_at_ms: js_sys::Date::now(),
        };
        local_storage_set(&key.get_value(), &draft.to_json());
    };
    let forget = move || {
        local_storage_remove(&key.get_value());
        navigation.set_leave_question(None);
    };
    // Starts over from `new_base` with `new_text` in the editor (one undo step).
    let replace_text = move |new_base: Value, new_text: String, clean: String| {
        base.set(new_base);
        clean_text.set(clean);
        text.set(new_text.clone());
        checked.set(check_now());
        let n = set_text.with_untracked(|r| r.as_ref().map_or(1, |r| r.0 + 1));
        set_text.set(Some((n, new_text)));
    };
    if restored.is_some() {
        navigation.set_leave_question(leave_question());
    }
    on_cleanup(move || navigation.set_leave_question(None));

    // After a change: the check shown and the draft kept (or dropped when back to clean).
    let settle = move || {
        checked.set(check_now());
        if dirty.get_untracked() {
            text.with_untracked(|t| remember(t));
        } else {
            forget();
        }
    };
    let typing = StoredValue::new(0u64);
    let on_change = Callback::new(move |new_text: String| {
        let big = new_text.len() >= CHECK_AT_ONCE_BELOW;
        text.set(new_text);
        review.set(None);
        if dirty.get_untracked() {
            navigation.set_leave_question(leave_question());
        }
        if !big {
            settle();
            return;
        }
        let generation = typing.get_value() + 1;
        typing.set_value(generation);
        set_timeout(
            move || {
                if typing.try_get_value() == Some(generation) {
                    typing.set_value(0);
                    settle();
                }
            },
            std::time::Duration::from_millis(CHECK_PAUSE_MS),
        );
    });
    // Leaving while a big text's pause is pending: its draft is kept now.
    on_cleanup(move || {
        if typing.try_get_value().is_some_and(|g| g != 0) && dirty.try_get_untracked() == Some(true)
        {
            text.try_with_untracked(|t| remember(t));
        }
    });

    // The edit replayed onto `latest` (a 409, or a write seen on the watch).
    // What an action sends: the text parsed now; when it does not parse, the page shows why.
    let document_to_send = move || match check_now() {
        Ok(document) => Some(document),
        Err(problem) => {
            checked.set(Err(problem));
            None
        }
    };
    let reapply = move |latest: Value| {
        let Ok(yours) = check_now() else {
            outcome.set(Some(Outcome::Refused(
                "Fix the YAML first: your text cannot be merged while it does not parse.".into(),
            )));
            return;
        };
        let merge = three_way(
            &base.get_untracked(),
            &yours,
            &latest,
            status_is_subresource,
        );
        let latest_editable = editable(&latest, status_is_subresource);
        if merge.is_clean() {
            let merged_text = yaml_of(&merge.merged);
            outcome.set(Some(Outcome::Reapplied {
                theirs: merge.theirs.clone(),
                yours: merge.yours.clone(),
            }));
            let clean = yaml_of(&latest_editable);
            replace_text(latest_editable, merged_text.clone(), clean);
            remember(&merged_text);
        } else {
            picks.set(vec![Pick::Yours; merge.conflicts.len()]);
            pending.set(Some(Pending { merge, latest }));
        }
    };
    // A 409: someone wrote meanwhile; the edit goes onto what the server has now.
    let reapply_onto_latest = move || async move {
        let read = edit::read(&path.get_value()).await;
        // The editor was left meanwhile: its signals are gone (reading one would panic) and
        // its draft stays for when it opens again.
        if busy.is_disposed() {
            return;
        }
        match read {
            Ok(latest) => reapply(latest),
            Err(error) => outcome.set(Some(Outcome::Failed(error))),
        }
    };
    let save = move |apply: Option<bool>| {
        let Some(document) = document_to_send() else {
            return;
        };
        busy.set(true);
        outcome.set(None);
        let draft = key.get_value();
        spawn_local(async move {
            let path = path.get_value();
            let result = match apply {
                None => edit::replace(&path, &document, false).await,
                Some(force) => {
                    // Apply states intent, not a version: no resourceVersion precondition.
                    let mut intent = document.clone();
                    if let Some(meta) = intent.get_mut("metadata").and_then(Value::as_object_mut) {
                        meta.remove("resourceVersion");
                    }
                    edit::apply(&path, &intent, force, false).await
                }
            };
            // The editor was left while saving (its leave question answered): its signals
            // are gone. A saved edit's draft goes; a failed one's stays to be opened again.
            if busy.is_disposed() {
                if result.is_ok() {
                    local_storage_remove(&draft);
                }
                return;
            }
            busy.set(false);
            match result {
                Ok(Written { object, warnings }) => {
                    let saved = editable(&object, status_is_subresource);
                    let saved_text = yaml_of(&saved);
                    outcome.set(Some(Outcome::Saved {
                        resource_version: resource_version(&object).unwrap_or_default(),
                        warnings,
                        applied: apply.is_some(),
                    }));
                    replace_text(saved, saved_text.clone(), saved_text);
                    forget();
                    review.set(None);
                }
                Err(error) if error.is_conflict() && apply.is_some() => {
                    let conflicts = apply_conflicts(&error);
                    outcome.set(Some(if conflicts.is_empty() {
                        Outcome::Failed(error)
                    } else {
                        Outcome::ApplyConflicts(conflicts)
                    }));
                }
                Err(error) if error.is_conflict() => reapply_onto_latest().await,
                Err(error) => outcome.set(Some(Outcome::Failed(error))),
            }
        });
    };
    let run_review = move |_| {
        let Some(document) = document_to_send() else {
            return;
        };
        busy.set(true);
        outcome.set(None);
        spawn_local(async move {
            let result = edit::replace(&path.get_value(), &document, true).await;
            // A dry run for an editor that was left: nothing to show it in.
            if busy.is_disposed() {
                return;
            }
            busy.set(false);
            match result {
                Ok(Written {
                    object: would,
                    warnings,
                }) => {
                    let live = object.get_untracked().unwrap_or(Value::Null);
                    let live_shown = editable(&live, status_is_subresource);
                    let would_shown = editable(&would, status_is_subresource);
                    review.set(Some(Review {
                        live: yaml_of(&live_shown),
                        would_store: yaml_of(&would_shown),
                        changes: review_diff(&live, &would),
                        warnings,
                    }));
                }
                // Written meanwhile: the edit is replayed onto the latest, as on save, and
                // reviewed again from there.
                Err(error) if error.is_conflict() => reapply_onto_latest().await,
                Err(error) => outcome.set(Some(Outcome::Failed(error))),
            }
        });
    };
    let discard = move |_| {
        let latest = live_editable();
        let latest_text = yaml_of(&latest);
        replace_text(latest, latest_text.clone(), latest_text);
        forget();
        outcome.set(None);
        review.set(None);
        pending.set(None);
        restored_note.set(None);
    };
    let use_picks = move |_| {
        let Some(Pending { merge, latest }) = pending.get_untracked() else {
            return;
        };
        let merged = resolve(&merge, &picks.get_untracked());
        let merged_text = yaml_of(&merged);
        let latest_editable = editable(&latest, status_is_subresource);
        let clean = yaml_of(&latest_editable);
        replace_text(latest_editable, merged_text.clone(), clean);
        remember(&merged_text);
        pending.set(None);
        outcome.set(Some(Outcome::Reapplied {
            theirs: merge.theirs.clone(),
            yours: merge.yours.clone(),
        }));
    };

    // A write seen on the watch while the editor is open: announced, never merged unasked.
    let server_version = Memo::new(move |_| object.with(|o| o.as_ref().and_then(resource_version)));
    let behind = Memo::new(move |_| {
        let started = base.with(resource_version);
        let live = server_version.get();
        started.is_some() && live.is_some() && started != live
    });
    let invalid = move || checked.with(Result::is_err);
    let problem_text = move || {
        checked.with(|c| match c {
            Err(problem) => Some(problem.to_string()),
            Ok(_) => None,
        })
    };

    let editor_text = start_text;
    view! {
        <div class="object-editor">
            {move || restored_note.get().map(|_| view! {
                <p class="notice draft-restored" role="status">
                    "Your unsaved draft of this object was restored. "
                    <button type="button" on:click=discard>"Discard draft"</button>
                </p>
            })}
            {move || behind.get().then(|| {
                if dirty.get() {
                    view! {
                        <p class="warning server-changed" role="status">
                            "Changed on the server since you started editing. "
                            <button type="button" on:click=move |_| {
                                if let Some(latest) = object.get_untracked() { reapply(latest) }
                            }>"Merge with the latest"</button>
                        </p>
                    }.into_any()
                } else {
                    view! {
                        <p class="notice server-changed" role="status">
                            "Changed on the server. "
                            <button type="button" on:click=discard>"Load the latest"</button>
                        </p>
                    }.into_any()
                }
            })}
            <div class="editor-buttons" role="toolbar" aria-label="Edit actions">
                <button type="button" disabled=move || busy.get() || invalid() on:click=run_review>"Review"</button>
                <button type="button" class="primary" disabled=move || busy.get() || invalid() || !dirty.get()
                    on:click=move |_| save(None)>"Save"</button>
                <button type="button" disabled=move || busy.get() || invalid()
                    title="Server-side apply as the kube-atlas field manager"
                    on:click=move |_| save(Some(false))>"Apply"</button>
                <button type="button" disabled=move || busy.get() || !dirty.get() on:click=discard>"Discard changes"</button>
                {move || dirty.get().then(|| view! { <span class="muted">"Unsaved changes (kept as a draft)"</span> })}
            </div>
            {move || problem_text().map(|p| view! { <p class="error edit-problem" role="alert">{p}" — nothing was sent."</p> })}
            {move || pending.get().map(|Pending { merge, .. }| {
                let rows = merge.conflicts.iter().enumerate().map(|(i, c)| {
                    let side = |v: &Option<Value>| v.as_ref().map(short).unwrap_or_else(|| "(absent)".into());
                    let name = format!("conflict-{i}");
                    let pick = move |p: Pick| view! {
                        <input type="radio" name=name.clone()
                            prop:checked=move || picks.with(|ps| ps.get(i) == Some(&p))
                            on:change=move |_| picks.update(|ps| if let Some(slot) = ps.get_mut(i) { *slot = p })/>
                    };
                    view! {
                        <tr class="conflict" data-path=c.path_text.clone()>
                            <td class="mono">{c.path_text.clone()}</td>
                            <td class="mono">{side(&c.base)}</td>
                            <td class="mono"><label>{pick(Pick::Yours)}" "{side(&c.yours)}</label></td>
                            <td class="mono"><label>{pick(Pick::Theirs)}" "{side(&c.theirs)}</label></td>
                        </tr>
                    }
                }).collect_view();
                view! {
                    <div class="conflicts" role="alert">
                        <p><strong>"Someone else changed this object while you edited it, and some of the same fields."</strong>
                           " Pick a value for each; everything else is merged."</p>
                        <table aria-label="Conflicting fields">
                            <thead><tr><th>"Field"</th><th>"When you started"</th><th>"Yours"</th><th>"Theirs (on the server)"</th></tr></thead>
                            <tbody>{rows}</tbody>
                        </table>
                        {changes_view("Changed on the server meanwhile", merge.theirs.clone())}
                        <button type="button" on:click=use_picks>"Use these values"</button>
                    </div>
                }
            })}
            {move || outcome.get().map(|o| match o {
                Outcome::Saved { resource_version, warnings, applied } => view! {
                    <div class="notice saved" role="status">
                        {format!("{} — resourceVersion {resource_version}.", if applied { "Applied" } else { "Saved" })}
                        {warnings_view(warnings)}
                    </div>
                }.into_any(),
                Outcome::Failed(error) => view! { <WriteError error=error/> }.into_any(),
                Outcome::Refused(text) => view! { <p class="error" role="alert">{text}</p> }.into_any(),
                Outcome::Reapplied { theirs, yours } => view! {
                    <div class="warning reapplied" role="alert">
                        <p><strong>"Someone else saved this object while you edited it."</strong>
                           " Your changes were reapplied onto the latest version: review and save again."</p>
                        {changes_view("Their changes", theirs)}
                        {changes_view("Your changes", yours)}
                    </div>
                }.into_any(),
                Outcome::ApplyConflicts(conflicts) => view! {
                    <div class="error apply-conflicts" role="alert">
                        <p><strong>"Apply conflicts: other managers own these fields."</strong></p>
                        <ul>
                            {conflicts.into_iter().map(|c| view! {
                                <li class="apply-conflict"><span class="mono">{c.field}</span>" owned by "<strong>{c.manager}</strong></li>
                            }).collect_view()}
                        </ul>
                        <button type="button" class="danger" on:click=move |_| save(Some(true))>"Force apply"</button>
                        " takes these fields for kube-atlas."
                    </div>
                }.into_any(),
            })}
            {move || review.get().map(|r| view! {
                <div class="review" aria-label="Review">
                    <h3>"What the server would store (dry run)"</h3>
                    {warnings_view(r.warnings.clone())}
                    {if r.changes.is_empty() {
                        view! { <p class="muted">"No change."</p> }.into_any()
                    } else {
                        changes_view("Changes", r.changes.clone()).into_any()
                    }}
                    <MergeView original=Signal::derive(move || r.live.clone())
                        modified=Signal::derive({ let w = r.would_store.clone(); move || w.clone() })
                        original_label="Live object" modified_label="After saving"/>
                </div>
            })}
            <CodeEditor text=editor_text on_change=on_change diagnostics=diagnostics set_text=set_text/>
        </div>
    }
}

fn changes_view(title: &'static str, changes: Vec<FieldChange>) -> impl IntoView {
    view! {
        <details class="changes" open=true>
            <summary>{format!("{title} ({})", changes.len())}</summary>
            <ul>{changes.iter().map(|c| view! { <li class="mono">{c.describe()}</li> }).collect_view()}</ul>
        </details>
    }
}

fn warnings_view(warnings: Vec<String>) -> impl IntoView {
    (!warnings.is_empty()).then(|| {
        view! {
            <ul class="warnings" aria-label="Server warnings">
                {warnings.into_iter().map(|w| view! { <li class="warning">{format!("Warning: {w}")}</li> }).collect_view()}
            </ul>
        }
    })
}
