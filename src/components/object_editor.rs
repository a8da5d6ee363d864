//! The object page's editor: the object as YAML (without managedFields, and without status
//! where status is a subresource), checked as it is typed, reviewed by a server dry run,
//! saved by PUT with its resourceVersion, or applied server-side as `kube-atlas`. A 409
//! replays the edit onto the latest version (three-way) and asks only where both sides
//! changed the same field; a write seen on the watch meanwhile is announced, never pulled
//! into the text. The text is kept as a draft in localStorage until saved or discarded.
//! The decisions are the pure model's (`model::edit::EditSession`), the requests and the
//! draft the session hook's (`state::edit_session`); this view only draws them.

use leptos::prelude::*;
use serde_json::Value;

use crate::components::code_editor::{CodeEditor, EditorDiagnostic, MergeView};
use crate::components::object_actions::WriteError;
use crate::components::permissions::DenialReason;
use crate::model::edit::{EditProblem, EditTarget, FieldChange, Outcome, Pick, Write};
use crate::model::history::diff::short;
use crate::model::ResourceId;
use crate::state::edit_session::use_edit_session;

#[component]
pub fn ObjectEditor(
    resource: ResourceId,
    target: EditTarget,
    /// The object's API path.
    path: String,
    status_is_subresource: bool,
    /// The object, live from the page's watch.
    object: Signal<Option<Value>>,
    /// Why the user may not update the object (Review and Save disabled); unset: allowed or
    /// not known.
    #[prop(into, optional)]
    denied_update: MaybeProp<String>,
    /// Why the user may not patch it (Apply disabled).
    #[prop(into, optional)]
    denied_patch: MaybeProp<String>,
) -> impl IntoView {
    let edit = use_edit_session(&resource, target, path, status_is_subresource, object);
    let session = edit.session;
    let (busy, dirty, invalid) = (edit.busy, edit.dirty, edit.invalid);
    // Parse errors, and the fields the server's last answer named (a 422's causes, apply
    // conflicts), each at its line.
    let diagnostics = Signal::derive(move || {
        session.with(|s| {
            let mut marks: Vec<EditorDiagnostic> = match s.checked() {
                Err(EditProblem::Yaml(e)) => vec![EditorDiagnostic::of_yaml(e)],
                _ => Vec::new(),
            };
            marks.extend(s.named_fields().into_iter().map(|field| {
                let line = u32::try_from(field.line).unwrap_or(1);
                EditorDiagnostic::error(line, 1, field.message)
            }));
            marks
        })
    });
    let problem_text = Memo::new(move |_| {
        session.with(|s| match s.checked() {
            Err(problem) => Some(problem.to_string()),
            Ok(_) => None,
        })
    });
    let restored = Memo::new(move |_| session.with(|s| s.restored_at_ms().is_some()));
    let outcome = Memo::new(move |_| session.with(|s| s.outcome().cloned()));
    let review = Memo::new(move |_| session.with(|s| s.review().cloned()));
    let choice = Memo::new(move |_| session.with(|s| s.choice().map(|c| c.merge.clone())));
    let picks = Memo::new(move |_| session.with(|s| s.choice().map(|c| c.picks.clone())));
    let discard = move |_| edit.discard.run(());
    let save = move |write: Write| edit.save.run(write);

    let editor_text = edit.start_text.get_value();
    view! {
        <div class="object-editor">
            {move || restored.get().then(|| view! {
                <p class="notice draft-restored" role="status">
                    "Your unsaved draft of this object was restored. "
                    <button type="button" on:click=discard>"Discard draft"</button>
                </p>
            })}
            {move || edit.behind.get().then(|| {
                if dirty.get() {
                    view! {
                        <p class="warning server-changed" role="status">
                            "Changed on the server since you started editing. "
                            <button type="button" on:click=move |_| edit.merge_with_latest.run(())>
                                "Merge with the latest"
                            </button>
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
                <button type="button" disabled=move || busy.get() || invalid.get() || denied_update.get().is_some()
                    title=move || denied_update.get() aria-describedby="denied-update"
                    on:click=move |_| edit.review.run(())>"Review"</button>
                <button type="button" class="primary" disabled=move || busy.get() || invalid.get() || !dirty.get() || denied_update.get().is_some()
                    title=move || denied_update.get() aria-describedby="denied-update"
                    on:click=move |_| save(Write::Replace)>"Save"</button>
                <button type="button" disabled=move || busy.get() || invalid.get() || denied_patch.get().is_some()
                    title=move || denied_patch.get().unwrap_or_else(|| "Server-side apply as the kube-atlas field manager".into())
                    aria-describedby="denied-patch"
                    on:click=move |_| save(Write::Apply { force: false })>"Apply"</button>
                <button type="button" disabled=move || busy.get() || !dirty.get() on:click=discard>"Discard changes"</button>
                {move || dirty.get().then(|| view! { <span class="muted">"Unsaved changes (kept as a draft)"</span> })}
                <DenialReason id="denied-update".into() reason=Signal::derive(move || denied_update.get())/>
                <DenialReason id="denied-patch".into() reason=Signal::derive(move || denied_patch.get())/>
            </div>
            {move || problem_text.get().map(|p| view! { <p class="error edit-problem" role="alert">{p}" — nothing was sent."</p> })}
            {move || choice.get().map(|merge| {
                let rows = merge.conflicts.iter().enumerate().map(|(i, c)| {
                    let side = |v: &Option<Value>| v.as_ref().map(short).unwrap_or_else(|| "(absent)".into());
                    let name = format!("conflict-{i}");
                    let pick = move |p: Pick| view! {
                        <input type="radio" name=name.clone()
                            prop:checked=move || picks.with(|ps| ps.as_ref().and_then(|ps| ps.get(i)) == Some(&p))
                            on:change=move |_| edit.pick.run((i, p))/>
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
                        <button type="button" on:click=move |_| edit.use_picks.run(())>"Use these values"</button>
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
                        <button type="button" class="danger" on:click=move |_| save(Write::Apply { force: true })>"Force apply"</button>
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
            <CodeEditor text=editor_text on_change=edit.on_change diagnostics=diagnostics set_text=edit.replaced_text/>
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
