//! A bulk action under way: every object's request is sent (a failure never stops the
//! others), each answer folded into that object's result: done, refused with the server's
//! Status message, or, on a 409 (written meanwhile), read again and sent once more from the
//! latest version; a second 409 is a refusal.

use serde_json::Value;

use super::action::{Action, NotApplicable};
use super::bulk::{BulkPlan, Verdict};
use super::target::{ActionOptions, Target};
use crate::api::errors::ApiError;
use crate::api::request::ApiRequest;

/// Where one object of a bulk action stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectResult {
    /// Not sent (yet).
    Waiting,
    Sent,
    /// 409: the object is being read again, to be sent once more from the latest.
    NeedsLatest,
    Done,
    /// Refused, with the server's words (or why it was not sent: denied, not applicable).
    Refused {
        code: Option<u16>,
        message: String,
    },
}

impl ObjectResult {
    pub fn is_settled(&self) -> bool {
        matches!(self, ObjectResult::Done | ObjectResult::Refused { .. })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunItem {
    pub target: Target,
    pub request: Option<ApiRequest>,
    pub result: ObjectResult,
    /// Sent again after a 409.
    pub retried: bool,
}

/// A bulk action's results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkRun {
    action: Action,
    options: ActionOptions,
    pub items: Vec<RunItem>,
}

impl BulkRun {
    /// The run of a previewed plan: objects denied or not applicable start refused with
    /// their reason (nothing is sent for them).
    pub fn start(plan: &BulkPlan, options: &ActionOptions) -> BulkRun {
        let items = plan
            .objects
            .iter()
            .map(|planned| {
                let (request, result) = match &planned.verdict {
                    Verdict::Send(request) => (Some(request.clone()), ObjectResult::Waiting),
                    Verdict::Denied(reason) | Verdict::NotApplicable(reason) => (
                        None,
                        ObjectResult::Refused {
                            code: None,
                            message: reason.clone(),
                        },
                    ),
                };
                RunItem {
                    target: planned.target.clone(),
                    request,
                    result,
                    retried: false,
                }
            })
            .collect();
        BulkRun {
            action: plan.action.clone(),
            options: options.clone(),
            items,
        }
    }

    /// Every request waiting to be sent (they are marked sent), by item index.
    pub fn to_send(&mut self) -> Vec<(usize, ApiRequest)> {
        let mut out = Vec::new();
        for (index, item) in self.items.iter_mut().enumerate() {
            if item.result != ObjectResult::Waiting {
                continue;
            }
            if let Some(request) = &item.request {
                out.push((index, request.clone()));
                item.result = ObjectResult::Sent;
            }
        }
        out
    }

    /// Item `index`'s request was answered.
    pub fn answered(&mut self, index: usize, answer: Result<(), &ApiError>) {
        let Some(item) = self.items.get_mut(index) else {
            return;
        };
        if item.result != ObjectResult::Sent {
            return;
        }
        item.result = match answer {
            Ok(()) => ObjectResult::Done,
            Err(error) if error.is_conflict() && !item.retried => ObjectResult::NeedsLatest,
            Err(ApiError::Aborted) => ObjectResult::Waiting,
            Err(error) => ObjectResult::Refused {
                code: error.code(),
                message: message_of(error),
            },
        };
    }

    /// The objects to read again after a 409.
    pub fn needing_latest(&self) -> Vec<(usize, &Target)> {
        self.items
            .iter()
            .enumerate()
            .filter(|(_, item)| item.result == ObjectResult::NeedsLatest)
            .map(|(index, item)| (index, &item.target))
            .collect()
    }

    /// Item `index` read again as `latest` (or failed to be read: `Err`): its request is
    /// built again from it and waits to be sent, once.
    pub fn latest(&mut self, index: usize, latest: Result<&Value, &ApiError>) {
        let Some(item) = self.items.get_mut(index) else {
            return;
        };
        if item.result != ObjectResult::NeedsLatest {
            return;
        }
        item.retried = true;
        item.result = match latest {
            Err(error) => ObjectResult::Refused {
                code: error.code(),
                message: message_of(error),
            },
            Ok(object) => match self.action.request(&item.target, object, &self.options) {
                Ok(request) => {
                    item.request = Some(request);
                    ObjectResult::Waiting
                }
                Err(NotApplicable(reason)) => ObjectResult::Refused {
                    code: None,
                    message: reason,
                },
            },
        };
    }

    pub fn is_finished(&self) -> bool {
        self.items.iter().all(|item| item.result.is_settled())
    }

    pub fn done(&self) -> usize {
        self.items
            .iter()
            .filter(|i| i.result == ObjectResult::Done)
            .count()
    }

    /// The refused objects with their reasons.
    pub fn refused(&self) -> Vec<(&Target, &str)> {
        self.items
            .iter()
            .filter_map(|item| match &item.result {
                ObjectResult::Refused { message, .. } => Some((&item.target, message.as_str())),
                _ => None,
            })
            .collect()
    }

    /// "10 done, 2 refused" (and how many are still under way).
    pub fn summary(&self) -> String {
        let done = self.done();
        let refused = self.refused().len();
        let pending = self.items.len() - done - refused;
        let mut text = format!("{done} done, {refused} refused");
        if pending > 0 {
            text.push_str(&format!(", {pending} under way"));
        }
        text
    }
}

fn message_of(error: &ApiError) -> String {
    super::bulk::server_words(error)
}
