//! A drain under way, pod by pod, as a reducer: which evictions to send now, what each
//! answer means, when a pod is gone, and what *Stop* leaves behind. A 429 is a
//! PodDisruptionBudget (or the server's throttling) saying "not now": the pod is tried again
//! with backoff (kubectl waits 5 s; here 5 s doubling up to a minute) and never deleted
//! instead. A 404 means the pod is already gone; any other refusal fails that pod with the
//! server's reason, and the others go on.

use serde_json::Value;

use super::target::Target;
use crate::api::errors::ApiError;
use crate::time::clock::Monotonic;

/// kubectl's pause between evictions a budget refused.
pub const FIRST_RETRY_MS: f64 = 5_000.0;
/// The longest pause between two tries.
pub const MAX_RETRY_MS: f64 = 60_000.0;

/// Where one pod of the drain stands.
#[derive(Debug, Clone, PartialEq)]
pub enum PodProgress {
    /// Not asked yet.
    Pending,
    /// The eviction is on its way (`attempt`: 1 for the first).
    Evicting {
        attempt: u32,
    },
    /// Evicted: the server is deleting it (its grace period runs); gone when the watch says.
    Evicted,
    /// A PodDisruptionBudget refused it (429); tried again at `retry_at`.
    RefusedByBudget {
        /// The budget's name, from the server's cause.
        budget: Option<String>,
        /// The budget's `status.disruptionsAllowed`, once read ([`DrainProgress::note_budgets`]).
        disruptions_allowed: Option<i64>,
        /// The server's message.
        message: String,
        attempt: u32,
        retry_at: Monotonic,
    },
    /// Throttled or unreachable; tried again at `retry_at`.
    Retrying {
        message: String,
        attempt: u32,
        retry_at: Monotonic,
    },
    Gone,
    /// Refused for good, with the server's reason (not retried).
    Failed {
        reason: String,
    },
}

impl PodProgress {
    /// Whether nothing more will happen to it.
    pub fn is_settled(&self) -> bool {
        matches!(self, PodProgress::Gone | PodProgress::Failed { .. })
    }
}

/// What *Stop* leaves: the node stays cordoned, and these pods remain on it.
#[derive(Debug, Clone, PartialEq)]
pub struct StopSummary {
    pub node: String,
    pub remaining: Vec<(Target, PodProgress)>,
}

impl StopSummary {
    /// "Stopped: node-1 stays cordoned; 2 pods remain: default/web-1 (refused by budget
    /// web-pdb), default/db-0."
    pub fn sentence(&self) -> String {
        if self.remaining.is_empty() {
            return format!("Stopped: {} stays cordoned; no pod remains.", self.node);
        }
        let pods: Vec<String> = self
            .remaining
            .iter()
            .map(|(target, state)| {
                let name = format!(
                    "{}/{}",
                    target.namespace.as_deref().unwrap_or(""),
                    target.name
                );
                match state {
                    PodProgress::RefusedByBudget {
                        budget: Some(b), ..
                    } => {
                        format!("{name} (refused by budget {b})")
                    }
                    PodProgress::Failed { reason } => format!("{name} (failed: {reason})"),
                    _ => name,
                }
            })
            .collect();
        let count = self.remaining.len();
        let noun = if count == 1 {
            "pod remains"
        } else {
            "pods remain"
        };
        format!(
            "Stopped: {} stays cordoned; {count} {noun}: {}.",
            self.node,
            pods.join(", ")
        )
    }
}

/// A drain's progress.
#[derive(Debug, Clone, PartialEq)]
pub struct DrainProgress {
    pub node: String,
    pub pods: Vec<(Target, PodProgress)>,
    stopped: bool,
}

/// The budget named in a 429's cause ("The disruption budget web-pdb needs 2 healthy pods
/// and has 2 currently").
fn budget_name(error: &ApiError) -> Option<String> {
    error
        .causes()
        .iter()
        .filter(|cause| cause.reason.as_deref() == Some("DisruptionBudget"))
        .filter_map(|cause| cause.message.as_deref())
        .find_map(|message| {
            let rest = message.strip_prefix("The disruption budget ")?;
            rest.split_whitespace().next().map(str::to_string)
        })
}

fn backoff_ms(attempt: u32, retry_after_s: Option<u32>) -> f64 {
    let doubled = FIRST_RETRY_MS * 2f64.powi(attempt.saturating_sub(1).min(16) as i32);
    let wait = doubled.min(MAX_RETRY_MS);
    retry_after_s.map_or(wait, |s| wait.max(f64::from(s) * 1000.0))
}

impl DrainProgress {
    /// A drain of `node` that evicts `pods` (from [`super::DrainPlan::evictions`]); the
    /// node is cordoned first.
    pub fn start(node: &str, pods: Vec<Target>) -> DrainProgress {
        DrainProgress {
            node: node.into(),
            pods: pods
                .into_iter()
                .map(|t| (t, PodProgress::Pending))
                .collect(),
            stopped: false,
        }
    }

    /// The pods to send an eviction to now (marked Evicting): the pending ones, and those
    /// whose retry time has come. Nothing once stopped.
    pub fn due(&mut self, now: impl Into<Monotonic>) -> Vec<Target> {
        let now = now.into();
        if self.stopped {
            return Vec::new();
        }
        let mut due = Vec::new();
        for (target, state) in &mut self.pods {
            let attempt = match state {
                PodProgress::Pending => 1,
                PodProgress::RefusedByBudget {
                    attempt, retry_at, ..
                }
                | PodProgress::Retrying {
                    attempt, retry_at, ..
                } if retry_at.ms() <= now.ms() => *attempt + 1,
                _ => continue,
            };
            *state = PodProgress::Evicting { attempt };
            due.push(target.clone());
        }
        due
    }

    /// The eviction of `pod` was answered: `Ok` (201), or the error.
    pub fn answered(
        &mut self,
        pod: &Target,
        answer: Result<(), &ApiError>,
        now: impl Into<Monotonic>,
    ) {
        let now = now.into();
        let Some((_, state)) = self.pods.iter_mut().find(|(t, _)| t == pod) else {
            return;
        };
        let attempt = match state {
            PodProgress::Evicting { attempt } => *attempt,
            _ => return,
        };
        *state = match answer {
            Ok(()) => PodProgress::Evicted,
            Err(error) => match error {
                ApiError::Status { code: 404, .. } => PodProgress::Gone,
                ApiError::Status {
                    code: 429,
                    message,
                    details,
                    ..
                } => {
                    let retry_after = details.as_ref().and_then(|d| d.retry_after_seconds);
                    let retry_at = Monotonic(now.ms() + backoff_ms(attempt, retry_after));
                    match budget_name(error) {
                        Some(budget) => PodProgress::RefusedByBudget {
                            budget: Some(budget),
                            disruptions_allowed: None,
                            message: message.clone(),
                            attempt,
                            retry_at,
                        },
                        None => PodProgress::Retrying {
                            message: message.clone(),
                            attempt,
                            retry_at,
                        },
                    }
                }
                ApiError::Unreachable(detail) => PodProgress::Retrying {
                    message: detail.clone(),
                    attempt,
                    retry_at: Monotonic(now.ms() + backoff_ms(attempt, None)),
                },
                ApiError::Status { message, .. } => PodProgress::Failed {
                    reason: message.clone(),
                },
                ApiError::Aborted => PodProgress::Pending,
            },
        };
    }

    /// The node's pods as the watch has them now: an evicted pod no longer among them (or
    /// there under another uid, recreated by its StatefulSet) is gone.
    pub fn observe_pods(&mut self, pods: &[Value]) {
        for (target, state) in &mut self.pods {
            if state.is_settled() {
                continue;
            }
            let present = pods.iter().any(|pod| match Target::of(pod) {
                Some(t) => {
                    t.namespace == target.namespace && t.name == target.name && t.uid == target.uid
                }
                None => false,
            });
            if !present {
                *state = PodProgress::Gone;
            }
        }
    }

    /// The namespace's PodDisruptionBudgets as read: each refused pod gets its budget's
    /// `status.disruptionsAllowed`.
    pub fn note_budgets(&mut self, budgets: &[Value]) {
        for (target, state) in &mut self.pods {
            let PodProgress::RefusedByBudget {
                budget: Some(name),
                disruptions_allowed,
                ..
            } = state
            else {
                continue;
            };
            let found = budgets.iter().find(|b| {
                b.pointer("/metadata/name").and_then(Value::as_str) == Some(name.as_str())
                    && b.pointer("/metadata/namespace").and_then(Value::as_str)
                        == target.namespace.as_deref()
            });
            if let Some(allowed) = found
                .and_then(|b| b.pointer("/status/disruptionsAllowed"))
                .and_then(Value::as_i64)
            {
                *disruptions_allowed = Some(allowed);
            }
        }
    }

    /// When [`DrainProgress::due`] next has something (the earliest retry), if ever.
    pub fn next_wake(&self) -> Option<Monotonic> {
        if self.stopped {
            return None;
        }
        self.pods
            .iter()
            .filter_map(|(_, state)| match state {
                PodProgress::RefusedByBudget { retry_at, .. }
                | PodProgress::Retrying { retry_at, .. } => Some(*retry_at),
                _ => None,
            })
            .min_by(|a, b| a.ms().total_cmp(&b.ms()))
    }

    /// Every pod gone (or failed for good).
    pub fn is_finished(&self) -> bool {
        self.pods.iter().all(|(_, state)| state.is_settled())
    }

    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// *Stop*: no more evictions are sent; the node stays cordoned; the pods not gone are
    /// listed.
    pub fn stop(&mut self) -> StopSummary {
        self.stopped = true;
        StopSummary {
            node: self.node.clone(),
            remaining: self
                .pods
                .iter()
                .filter(|(_, state)| *state != PodProgress::Gone)
                .cloned()
                .collect(),
        }
    }
}
