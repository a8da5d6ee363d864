//! One action on many selected objects: the bar offers the actions that apply to every
//! selected row ([`bar_actions`]); the preview ([`plan_bulk`]) gives each object its
//! request, or why the action does not apply to it, or why the user may not (the
//! permissions model's no, per object: a Role's `resourceNames` may cover some of them);
//! "3 of 20 you may not delete".

use serde_json::Value;

use super::action::{Action, NotApplicable};
use super::target::{ActionOptions, Target};
use crate::api::request::ApiRequest;
use crate::permissions::Permissions;

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
            let verdict = match action.request(target, object, options) {
                Err(NotApplicable(reason)) => Verdict::NotApplicable(reason),
                Ok(request) => {
                    let question = action.question(target);
                    if permissions.may(&question).is_denied() {
                        Verdict::Denied(question.denial(target.namespace.is_some()))
                    } else {
                        Verdict::Send(request)
                    }
                }
            };
            Planned {
                target: target.clone(),
                verdict,
                kubectl: action.kubectl(target),
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

    /// Whether anything would be sent (the confirm button's state).
    pub fn sends_anything(&self) -> bool {
        !self.requests().is_empty()
    }
}
