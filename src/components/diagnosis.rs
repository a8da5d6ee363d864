//! The Diagnosis section of an object page: what is wrong with the object and what it owns,
//! root cause first, each with the chain of owners it travels up, its evidence and the
//! `kubectl` command to check it by hand. Drawn only when something is wrong; it follows the
//! shared watches, so a cause that goes disappears.

use leptos::prelude::*;

use crate::components::Copyable;
use crate::model::api::endpoints::{kind_to_resource, split_api_version};
use crate::model::diagnosis::{Cause, Diagnosis, Evidence, Health, Subject};
use crate::model::navigation::route::{ObjectRoute, Page};
use crate::model::ApiTree;

/// The icon beside a health's word (the word is always shown: never colour alone).
pub fn health_icon(health: Health) -> &'static str {
    match health {
        Health::Ok => "✔",
        Health::Unknown => "?",
        Health::Progressing => "◔",
        Health::Warning => "⚠",
        Health::Failing => "✖",
    }
}

/// A health as an icon with its word, for lists and the diagnosis.
#[component]
pub fn HealthBadge(health: Health) -> impl IntoView {
    view! {
        <span class="health-badge" data-health=health.label().to_lowercase()>
            <span aria-hidden="true">{health_icon(health)}</span>
            " "
            {health.label()}
        </span>
    }
}

/// The object page of `subject`, when discovery maps its kind.
pub fn subject_href(subject: &Subject, tree: &ApiTree) -> Option<String> {
    let (group, version) = split_api_version(&subject.api_version);
    let found = kind_to_resource(tree, group, version, &subject.kind).ok()?;
    let namespace = subject
        .namespace
        .clone()
        .filter(|_| found.resource.namespaced);
    Some(
        Page::Object(ObjectRoute::new(
            found.id(),
            namespace,
            subject.name.clone(),
        ))
        .to_hash(),
    )
}

fn subject_link(subject: &Subject, tree: &ApiTree) -> AnyView {
    match subject_href(subject, tree) {
        Some(href) => view! { <a href=href>{subject.describe()}</a> }.into_any(),
        None => subject.describe().into_any(),
    }
}

fn evidence_view(evidence: &Evidence) -> AnyView {
    match evidence.clone() {
        Evidence::Condition {
            type_,
            status,
            reason,
            message,
            since,
        } => view! {
            <li>
                "Condition "<strong>{type_}</strong>{format!(" = {status}")}
                {(!reason.is_empty()).then(|| format!(" ({reason})"))}
                {(!message.is_empty()).then(|| format!(": {message}"))}
                {since.map(|s| format!(" since {s}"))}
            </li>
        }
        .into_any(),
        Evidence::Event {
            reason,
            message,
            count,
            warning,
            ..
        } => view! {
            <li>
                {if warning { "Warning Event " } else { "Event " }}<strong>{reason}</strong>
                {(count > 1).then(|| format!(" (×{count})"))}
                {format!(": {message}")}
            </li>
        }
        .into_any(),
        Evidence::ContainerState {
            container,
            reason,
            message,
            exit_code,
            last_reason,
            restarts,
        } => view! {
            <li>
                "Container "<strong>{container}</strong>{format!(" waiting: {reason}")}
                {(!message.is_empty()).then(|| format!(" ({message})"))}
                {exit_code.map(|c| format!("; last exit code {c}"))}
                {last_reason.map(|r| format!(" ({r})"))}
                {(restarts > 0).then(|| format!("; {restarts} restarts"))}
            </li>
        }
        .into_any(),
        Evidence::Field { path, value } => view! {
            <li><span class="mono">{path}</span>": "{value}</li>
        }
        .into_any(),
    }
}

fn cause_view(cause: Cause, tree: &ApiTree) -> impl IntoView {
    let health = cause.finding.health;
    let chain = (!cause.chain.is_empty()).then(|| {
        let links = cause
            .chain
            .iter()
            .map(|s| view! { " ← " {subject_link(s, tree)} })
            .collect_view();
        view! { <p class="diagnosis-chain">{subject_link(&cause.finding.subject, tree)}{links}</p> }
    });
    let evidence = cause
        .finding
        .evidence
        .iter()
        .map(evidence_view)
        .collect_view();
    view! {
        <li class="diagnosis-cause" data-health=health.label().to_lowercase() data-rule=cause.finding.rule>
            <HealthBadge health=health/>
            " "
            <strong class="diagnosis-headline">{cause.headline()}</strong>
            {chain}
            <details class="diagnosis-evidence">
                <summary>"Evidence"</summary>
                <ul>{evidence}</ul>
            </details>
            <div class="diagnosis-check"><span>"Check by hand:"</span><Copyable text=cause.finding.check.clone() label="command"/></div>
        </li>
    }
}

/// What is wrong, root cause first; nothing when all is well.
#[component]
pub fn DiagnosisPanel(diagnosis: Signal<Diagnosis>, tree: ApiTree) -> impl IntoView {
    move || {
        let diagnosis = diagnosis.get();
        if diagnosis.is_clean() {
            return None;
        }
        let health = diagnosis.health();
        let fine = (!diagnosis.fine.is_empty()).then(|| {
            let kinds: Vec<String> = diagnosis
                .fine
                .iter()
                .map(|(kind, n)| format!("{n} {kind}{}", if *n == 1 { "" } else { "s" }))
                .collect();
            view! { <p class="diagnosis-fine">{format!("Still fine: {}.", kinds.join(", "))}</p> }
        });
        let causes = diagnosis
            .causes
            .into_iter()
            .map(|cause| cause_view(cause, &tree))
            .collect_view();
        Some(view! {
            <section class="diagnosis" aria-label="Diagnosis" data-health=health.label().to_lowercase()>
                <h2>"Diagnosis " <HealthBadge health=health/></h2>
                <p class="muted">"Root cause first, with the objects it travels up through."</p>
                <ol class="diagnosis-causes">{causes}</ol>
                {fine}
            </section>
        })
    }
}
