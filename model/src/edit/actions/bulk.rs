//! One action on many selected objects: the bar offers the actions that apply to every
//! selected row ([`bar_actions`]); the preview ([`plan_bulk`]) gives each object its
//! request, or why the action does not apply to it, or why the user may not (the
//! permissions model's no, per object: a Role's `resourceNames` may cover some of them);
//! "3 of 20 you may not delete".

use serde_json::Value;

use super::action::{Action, MetadataEdit, NotApplicable};
use super::target::{ActionOptions, Target};
use crate::api::errors::ApiError;
use crate::api::request::{ApiRequest, PropagationPolicy};
use crate::permissions::{Permission, Permissions, Question};

/// The bar's actions, before their parameters are asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BarAction {
    Delete,
    Label,
    Annotate,
    Restart,
    Scale,
    Cordon,
    Uncordon,
    Evict,
}

impl BarAction {
    pub const ALL: [BarAction; 8] = [
        BarAction::Delete,
        BarAction::Label,
        BarAction::Annotate,
        BarAction::Restart,
        BarAction::Scale,
        BarAction::Cordon,
        BarAction::Uncordon,
        BarAction::Evict,
    ];

    pub fn label(self) -> &'static str {
        match self {
            BarAction::Delete => "Delete",
            BarAction::Label => "Label",
            BarAction::Annotate => "Annotate",
            BarAction::Restart => "Restart",
            BarAction::Scale => "Scale",
            BarAction::Cordon => "Cordon",
            BarAction::Uncordon => "Uncordon",
            BarAction::Evict => "Evict",
        }
    }

    pub fn applies_to(self, kind: &str) -> bool {
        match self {
            BarAction::Delete | BarAction::Label | BarAction::Annotate => true,
            BarAction::Restart => Action::Restart { at: String::new() }.applies_to(kind),
            BarAction::Scale => Action::Scale { replicas: 0 }.applies_to(kind),
            BarAction::Cordon => Action::Cordon.applies_to(kind),
            BarAction::Uncordon => Action::Uncordon.applies_to(kind),
            BarAction::Evict => Action::Evict.applies_to(kind),
        }
    }

    /// The action with stand-in parameters: what permission it needs on an object does not
    /// depend on them.
    pub fn sample(self) -> Action {
        let edit = MetadataEdit::Remove { key: String::new() };
        match self {
            BarAction::Delete => Action::Delete {
                propagation: PropagationPolicy::Background,
            },
            BarAction::Label => Action::Label(edit),
            BarAction::Annotate => Action::Annotate(edit),
            BarAction::Restart => Action::Restart { at: String::new() },
            BarAction::Scale => Action::Scale { replicas: 0 },
            BarAction::Cordon => Action::Cordon,
            BarAction::Uncordon => Action::Uncordon,
            BarAction::Evict => Action::Evict,
        }
    }
}

/// Why the bar's `action` is disabled: the user may do it to none of the selected `targets`
/// (`may` answers each object's question; unknown counts as allowed). None when the user may
/// act on any of them: the preview says which ones not.
pub fn bar_denial(
    action: BarAction,
    targets: &[Target],
    may: impl Fn(&Question) -> Permission,
) -> Option<String> {
    let sample = action.sample();
    let first = targets.first()?;
    let all_denied = targets
        .iter()
        .all(|target| may(&sample.question(target)).is_denied());
    all_denied.then(|| {
        let reason = sample.question(first).denial(first.namespace.is_some());
        match targets.len() {
            1 => reason,
            n => format!(
                "You may not {} any of the {n} selected: {reason}",
                sample.verb()
            ),
        }
    })
}

/// The bar's actions that apply to every one of the selected rows' kinds (none for an empty
/// selection).
pub fn bar_actions(kinds: &[&str]) -> Vec<BarAction> {
    if kinds.is_empty() {
        return Vec::new();
    }
    BarAction::ALL
        .into_iter()
        .filter(|action| kinds.iter().all(|kind| action.applies_to(kind)))
        .collect()
}

/// What the action will do to one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// This request is sent.
    Send(ApiRequest),
    /// The action does not apply to it (its kind, or its state: a label it already has).
    NotApplicable(String),
    /// The user may not: the reason, as the write controls say it.
    Denied(String),
}

/// One selected object in the preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub target: Target,
    pub verdict: Verdict,
    /// The kubectl command for it.
    pub kubectl: String,
    /// The same request as a server dry run (`dryRun=All`), for objects whose request could
    /// be built (sent, or denied: the server's own words are asked for).
    pub dry_run: Option<ApiRequest>,
    pub checked: DryRun,
}

/// What the server's dry run said of one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DryRun {
    /// Not asked (yet), or nothing to ask.
    Unasked,
    /// The server would do it.
    Passed,
    /// The server would refuse it, in its words (the request is still sent for errors the
    /// run may not meet again: a 409 is retried from the latest).
    Refused { code: Option<u16>, message: String },
}

/// The preview of one action on the selection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkPlan {
    pub action: Action,
    pub objects: Vec<Planned>,
}

/// The plan of `action` on `selected` (each object's target and live state), with what the
/// user may do as `permissions` knows it (unknown counts as allowed: the server decides).
pub fn plan_bulk(
    action: &Action,
    selected: &[(Target, Value)],
    permissions: &Permissions,
    options: &ActionOptions,
) -> BulkPlan {
    let objects = selected
        .iter()
        .map(|(target, object)| {
            let (verdict, dry_run) = match action.request(target, object, options) {
                Err(NotApplicable(reason)) => (Verdict::NotApplicable(reason), None),
                Ok(request) => {
                    let dry_run = Some(super::target::dry_run(request.clone()));
                    let question = action.question(target);
                    if permissions.may(&question).is_denied() {
                        let reason = question.denial(target.namespace.is_some());
                        (Verdict::Denied(reason), dry_run)
                    } else {
                        (Verdict::Send(request), dry_run)
                    }
                }
            };
            Planned {
                target: target.clone(),
                verdict,
                kubectl: action.kubectl(target),
                dry_run: dry_run.filter(|_| !options.dry_run),
                checked: DryRun::Unasked,
            }
        })
        .collect();
    BulkPlan {
        action: action.clone(),
        objects,
    }
}

impl BulkPlan {
    /// The requests to send, with their objects.
    pub fn requests(&self) -> Vec<(&Target, &ApiRequest)> {
        self.objects
            .iter()
            .filter_map(|planned| match &planned.verdict {
                Verdict::Send(request) => Some((&planned.target, request)),
                _ => None,
            })
            .collect()
    }

    pub fn denied(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Denied(_)))
    }

    pub fn not_applicable(&self) -> usize {
        self.count(|v| matches!(v, Verdict::NotApplicable(_)))
    }

    fn count(&self, which: impl Fn(&Verdict) -> bool) -> usize {
        self.objects.iter().filter(|p| which(&p.verdict)).count()
    }

    /// "3 of 20 you may not delete", or None when the user may act on every object.
    pub fn denial_sentence(&self) -> Option<String> {
        let denied = self.denied();
        (denied > 0).then(|| {
            format!(
                "{denied} of {} you may not {}",
                self.objects.len(),
                self.action.verb()
            )
        })
    }

    /// The dry runs to send, by object index.
    pub fn dry_runs(&self) -> Vec<(usize, ApiRequest)> {
        self.objects
            .iter()
            .enumerate()
            .filter_map(|(index, planned)| Some((index, planned.dry_run.clone()?)))
            .collect()
    }

    /// Object `index`'s dry run was answered. A refusal (403) makes it denied in the
    /// server's words; a 404 (gone meanwhile) not applicable; other refusals are shown and
    /// the request is still sent (a 409 is met again from the latest version).
    pub fn dry_run_answered(&mut self, index: usize, answer: Result<(), &ApiError>) {
        let Some(planned) = self.objects.get_mut(index) else {
            return;
        };
        planned.checked = match answer {
            Ok(()) => DryRun::Passed,
            Err(ApiError::Aborted) => DryRun::Unasked,
            Err(error) => {
                let message = server_words(error);
                match (error.code(), &planned.verdict) {
                    (Some(403), _) => planned.verdict = Verdict::Denied(message.clone()),
                    (Some(404), _) => planned.verdict = Verdict::NotApplicable(message.clone()),
                    _ => {}
                }
                DryRun::Refused {
                    code: error.code(),
                    message,
                }
            }
        };
    }

    /// Whether every dry run was answered.
    pub fn checked(&self) -> bool {
        self.objects
            .iter()
            .all(|p| p.dry_run.is_none() || p.checked != DryRun::Unasked)
    }

    /// Whether anything would be sent (the confirm button's state).
    pub fn sends_anything(&self) -> bool {
        !self.requests().is_empty()
    }
}

/// The server's own words for a refusal.
pub(crate) fn server_words(error: &ApiError) -> String {
    match error {
        ApiError::Status { message, .. } if !message.is_empty() => message.clone(),
        other => other.to_string(),
    }
}
