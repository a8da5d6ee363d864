//! "What can I do here?" (`#/permissions?ns=default`): who the server says the user is
//! (`kubectl auth whoami`), and what they may do in a namespace (`kubectl auth can-i --list`)
//! as a table: the resources the server serves as rows, verbs as columns, from the
//! namespace's SelfSubjectRulesReview; then the rules themselves as the server sent them.

use leptos::prelude::*;

use crate::model::navigation::route::{Page, PermissionsRoute};
use crate::model::permissions::matrix::{permission_matrix, Cell, VERBS};
use crate::model::permissions::{PolicyRule, RulesReview};
use crate::state::discovery::DiscoveryState;
use crate::state::navigation::use_navigation;
use crate::state::permissions::{last_namespace, use_permissions};

#[component]
pub fn PermissionsPage(namespace: Option<String>) -> impl IntoView {
    let permissions = use_permissions();
    let discovery = expect_context::<DiscoveryState>();
    let navigation = use_navigation();
    let tree = discovery.tree_now();
    let chosen = namespace
        .clone()
        .or_else(last_namespace)
        .unwrap_or_else(|| "default".into());
    let typed = RwSignal::new(chosen.clone());
    let only_allowed = RwSignal::new(true);
    let go = move |_| {
        let namespace = typed.get_untracked().trim().to_string();
        if !namespace.is_empty() {
            navigation.go(Page::Permissions(PermissionsRoute {
                namespace: Some(namespace),
            }));
        }
    };
    let user = move || {
        match permissions.whoami() {
        None => view! { <p class="loading">"Asking who you are…"</p> }.into_any(),
        Some(Err(error)) => view! {
            <p class="muted">{format!("The server did not say who you are ({error}).")}</p>
        }
        .into_any(),
        Some(Ok(user)) => view! {
            <table class="props whoami" aria-label="Signed in as">
                <tr><th>"Username"</th><td class="mono">{user.username.clone()}</td></tr>
                {user.uid.clone().map(|uid| view! { <tr><th>"UID"</th><td class="mono">{uid}</td></tr> })}
                <tr><th>"Groups"</th><td class="mono">{user.groups.join(", ")}</td></tr>
            </table>
        }
        .into_any(),
    }
    };
    let shown_namespace = chosen.clone();
    let rules = Memo::new(move |_| permissions.rules(&shown_namespace));
    let failure = {
        let namespace = chosen.clone();
        move || {
            permissions.failures.with(|failures| {
                failures
                    .iter()
                    .find(|(ns, _)| *ns == namespace)
                    .map(|(_, error)| error.clone())
            })
        }
    };
    let body = move || {
        if let Some(error) = failure() {
            return view! {
                <p class="error" role="alert">{format!("The server did not answer the rules review: {error}")}</p>
            }
            .into_any();
        }
        let Some(rules) = rules.get() else {
            return view! { <p class="loading">"Asking the server…"</p> }.into_any();
        };
        let mut rows = permission_matrix(&tree, &rules);
        if only_allowed.get() {
            rows.retain(|row| row.any_allowed());
        }
        let count = rows.len();
        view! {
            {rules.incomplete.then(|| view! {
                <p class="warning" role="status">
                    "The server's rules are incomplete (an authorizer could not list its rules): "
                    "what is not shown as allowed may still be; the server decides when you try."
                    {rules.evaluation_error.clone().map(|e| format!(" ({e})"))}
                </p>
            })}
            <table class="permissions-matrix" aria-label="Permissions by resource">
                <thead>
                    <tr>
                        <th scope="col">"Resource"</th>
                        {VERBS.iter().map(|verb| view! { <th scope="col">{*verb}</th> }).collect_view()}
                    </tr>
                </thead>
                <tbody>
                    {rows.into_iter().map(|row| {
                        // kubectl's spelling: `deployments.apps/scale`.
                        let name = match (row.group.is_empty(), row.resource.split_once('/')) {
                            (true, _) => row.resource.clone(),
                            (false, Some((resource, sub))) => format!("{resource}.{}/{sub}", row.group),
                            (false, None) => format!("{}.{}", row.resource, row.group),
                        };
                        view! {
                            <tr data-resource=name.clone()>
                                <th scope="row" class="mono">{name.clone()}</th>
                                {row.cells.into_iter().zip(VERBS).map(|(cell, verb)| cell_view(cell, verb)).collect_view()}
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            <p class="muted">{format!("{count} resource(s) shown.")}</p>
            <h2>"The rules, as the server sent them"</h2>
            {rules_view(&rules)}
        }
        .into_any()
    };
    view! {
        <section class="permissions-page" aria-label="Permissions">
            <h1>"What can I do here? " <span class="kind">{format!("namespace {chosen}")}</span></h1>
            <p class="subtitle">
                "Who the server says you are, and what its authorizer lets you do in a namespace, "
                "from a SelfSubjectRulesReview (what `kubectl auth can-i --list` reads). Write "
                "controls elsewhere are disabled where this says no."
            </p>
            {user}
            <div class="list-toolbar">
                <label>
                    "Namespace "
                    <input type="text" aria-label="Namespace to check" prop:value=move || typed.get()
                        on:input=move |e| typed.set(event_target_value(&e))
                        on:keydown=move |e| if e.key() == "Enter" { go(()) }/>
                </label>
                <button type="button" on:click=move |_| go(())>"Check"</button>
                <label class="check">
                    <input type="checkbox" aria-label="Only what I may do"
                        prop:checked=move || only_allowed.get()
                        on:change=move |e| only_allowed.set(event_target_checked(&e))/>
                    "Only what I may do"
                </label>
                <button type="button" on:click=move |_| permissions.refresh()>"Ask again"</button>
            </div>
            {body}
        </section>
    }
}

fn cell_view(cell: Cell, verb: &'static str) -> impl IntoView {
    let (state, text, title) = match cell {
        Cell::Allowed => (
            "allowed",
            "yes".to_string(),
            format!("You may {verb} these."),
        ),
        Cell::OnlyNamed(names) => (
            "named",
            format!("only {}", names.join(", ")),
            format!(
                "You may {verb} only the objects named {}.",
                names.join(", ")
            ),
        ),
        Cell::Denied => (
            "denied",
            "no".to_string(),
            format!("You may not {verb} these."),
        ),
        Cell::Unknown => (
            "unknown",
            "?".to_string(),
            "The rules are incomplete: the server decides.".to_string(),
        ),
        Cell::NotServed => (
            "not-served",
            "—".to_string(),
            format!("The server does not serve {verb} here."),
        ),
    };
    view! { <td class="permission-cell" data-state=state title=title>{text}</td> }
}

fn rules_view(rules: &RulesReview) -> impl IntoView {
    let line = |rule: &PolicyRule| {
        let list = |items: &[String]| {
            if items.is_empty() {
                "—".to_string()
            } else {
                items.join(", ")
            }
        };
        view! {
            <tr>
                <td class="mono">{list(&rule.resources)}</td>
                <td class="mono">{list(&rule.non_resource_urls)}</td>
                <td class="mono">{list(&rule.resource_names)}</td>
                <td class="mono">{list(&rule.api_groups)}</td>
                <td class="mono">{list(&rule.verbs)}</td>
            </tr>
        }
    };
    view! {
        <table class="rules" aria-label="Rules">
            <thead>
                <tr><th>"Resources"</th><th>"Non-resource URLs"</th><th>"Resource names"</th><th>"API groups"</th><th>"Verbs"</th></tr>
            </thead>
            <tbody>
                {rules.resource_rules.iter().map(line).collect_view()}
                {rules.non_resource_rules.iter().map(line).collect_view()}
            </tbody>
        </table>
    }
}
