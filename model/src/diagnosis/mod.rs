//! "Why is this not ready?": findings about an object and everything it owns, from their
//! status, conditions, container states and the Event objects about them, with the root cause
//! first and the chain of owners it travels up.
//!
//! The rules for one object are in [`rules`] (kind-specific rules on a generic core of
//! conditions); scheduler messages are read in [`scheduling`]. [`diagnose`] walks the owner
//! chain down from an object (Deployment -> ReplicaSets -> Pods, any kind through
//! ownerReferences), groups the same finding on sibling pods ("2 of 3 pods of ReplicaSet x
//! cannot be scheduled"), and orders root causes first. [`controller_health`] gives the same
//! verdict for many controllers at once (a list's Health column, the overview's counts), in
//! [`verdicts`]. Usage rules (OOMKilled near the memory limit, CPU at its limit, a node under
//! pressure with its top consumers) take the metrics API's samples beside the object, in
//! [`usage`]. Nothing here knows a page.

pub mod rows;
pub mod rules;
pub mod scheduling;
pub mod usage;
pub mod verdicts;

pub use verdicts::{controller_health, Verdict};

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::object::events::EventRecord;
use crate::object::meta::controller_uid;
use crate::object::pointer::Pointer;
use crate::time::age::EpochMillis;

/// How an object is doing, worst last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Health {
    Ok,
    /// Not known (no status yet, a kind without rules).
    Unknown,
    /// On its way (a rollout, a pod starting): nothing is wrong yet.
    Progressing,
    Warning,
    Failing,
}

impl Health {
    /// The word shown with its icon (never colour alone).
    pub fn label(self) -> &'static str {
        match self {
            Health::Ok => "OK",
            Health::Unknown => "Unknown",
            Health::Progressing => "Progressing",
            Health::Warning => "Warning",
            Health::Failing => "Failing",
        }
    }

    pub fn is_unhealthy(self) -> bool {
        self >= Health::Warning
    }
}

/// The object a finding is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Subject {
    pub kind: String,
    pub api_version: String,
    pub namespace: Option<String>,
    pub name: String,
    pub uid: String,
}

impl Subject {
    pub fn of(object: &Value) -> Option<Subject> {
        let text = |p: &str| object.at(p).and_then(Value::as_str).map(str::to_string);
        Some(Subject {
            kind: text("/kind")?,
            api_version: text("/apiVersion").unwrap_or_default(),
            namespace: text("/metadata/namespace"),
            name: text("/metadata/name")?,
            uid: text("/metadata/uid").unwrap_or_default(),
        })
    }

    /// `Pod demo/web-1`.
    pub fn describe(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{} {ns}/{}", self.kind, self.name),
            None => format!("{} {}", self.kind, self.name),
        }
    }

    /// `kubectl <verb> pod web-1 -n demo`: how to look by hand.
    pub fn kubectl(&self, verb: &str) -> String {
        let target = if verb == "logs" {
            self.name.clone()
        } else {
            format!("{} {}", self.kind.to_lowercase(), self.name)
        };
        match &self.namespace {
            Some(ns) => format!("kubectl {verb} {target} -n {ns}"),
            None => format!("kubectl {verb} {target}"),
        }
    }

    /// Whether `event` is about this object (by uid when both have one, else by kind and
    /// name).
    pub fn is_regarded_by(&self, event: &EventRecord) -> bool {
        let regarding = &event.regarding;
        match (&regarding.uid, self.uid.is_empty()) {
            (Some(uid), false) => *uid == self.uid,
            _ => {
                regarding.kind == self.kind
                    && regarding.name == self.name
                    && regarding.namespace == self.namespace
            }
        }
    }
}

/// What a finding rests on, to show beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evidence {
    Condition {
        type_: String,
        status: String,
        reason: String,
        message: String,
        /// lastTransitionTime.
        since: Option<String>,
    },
    Event {
        reason: String,
        message: String,
        count: u32,
        last_seen_ms: Option<EpochMillis>,
        warning: bool,
    },
    ContainerState {
        container: String,
        /// The waiting reason (CrashLoopBackOff, ImagePullBackOff, ...).
        reason: String,
        message: String,
        /// The last terminated instance's exit code and reason (OOMKilled, Error).
        exit_code: Option<i64>,
        last_reason: Option<String>,
        restarts: i64,
    },
    Field {
        path: String,
        value: String,
    },
}

/// One thing wrong (or still on its way) with one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub subject: Subject,
    pub health: Health,
    /// Plain words, after the subject: "cannot be scheduled: no node of 3 fits: ...".
    pub sentence: String,
    pub evidence: Vec<Evidence>,
    /// How to check it by hand.
    pub check: String,
    /// Which rule found it: findings of the same rule on sibling pods are grouped.
    pub rule: &'static str,
}

/// A finding on one or more siblings, with the owners it travels up to the object asked
/// about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    pub finding: Finding,
    /// The siblings with the same finding (the finding's subject first).
    pub affected: Vec<Subject>,
    /// Of how many siblings of that kind under the same owner.
    pub of: usize,
    /// From the finding's owner up to the object asked about.
    pub chain: Vec<Subject>,
}

impl Cause {
    /// "2 of 3 Pods of ReplicaSet demo/web-5d8 cannot be scheduled: …", or "Pod demo/web-1
    /// cannot be scheduled: …" for one.
    pub fn headline(&self) -> String {
        let owner = self.chain.first();
        match (self.affected.len(), owner) {
            (n, Some(owner)) if n > 1 || self.of > 1 => format!(
                "{n} of {} {}s of {} {}",
                self.of,
                self.finding.subject.kind,
                owner.describe(),
                self.finding.sentence
            ),
            _ => format!(
                "{} {}",
                self.finding.subject.describe(),
                self.finding.sentence
            ),
        }
    }
}

/// What is wrong with an object and what it owns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Diagnosis {
    /// Root causes first: the deepest failing objects, then warnings, then what is still
    /// progressing.
    pub causes: Vec<Cause>,
    /// The objects under it with nothing wrong, by kind: `("Pod", 2)`.
    pub fine: Vec<(String, usize)>,
    /// The worst health found (Ok when nothing was).
    pub health: Option<Health>,
}

impl Diagnosis {
    pub fn health(&self) -> Health {
        self.health.unwrap_or(Health::Ok)
    }

    /// Whether there is anything to say (nothing shown when all is well).
    pub fn is_clean(&self) -> bool {
        self.causes.is_empty()
    }

    /// The diagnosis with findings about the object itself that need more than the objects
    /// (the usage rules, which read the metrics API), each a cause of its own, ordered with
    /// the rest by health, the worst first (a stable sort: root causes stay before their
    /// peers of the same health).
    pub fn with_findings(mut self, findings: Vec<Finding>) -> Diagnosis {
        if findings.is_empty() {
            return self;
        }
        for finding in findings {
            self.health = Some(
                self.health
                    .map_or(finding.health, |h| h.max(finding.health)),
            );
            self.causes.push(Cause {
                affected: vec![finding.subject.clone()],
                of: 1,
                chain: Vec::new(),
                finding,
            });
        }
        self.causes
            .sort_by_key(|cause| std::cmp::Reverse(cause.finding.health));
        self
    }
}

/// How an object is doing on its own (a list row's health): the worst of its findings.
pub fn health_of(object: &Value, events: &[EventRecord], now: EpochMillis) -> Health {
    rules::object_findings(object, events, now)
        .iter()
        .map(|f| f.health)
        .max()
        .unwrap_or(Health::Ok)
}

/// Diagnoses `root` and what it owns among `loaded` (whole objects of the kinds it may own:
/// its ReplicaSets and Pods, say), with the Event objects about any of them, at wall-clock
/// time `now`.
pub fn diagnose(
    root: &Value,
    loaded: &[Value],
    events: &[EventRecord],
    now: EpochMillis,
) -> Diagnosis {
    let Some(root_subject) = Subject::of(root) else {
        return Diagnosis::default();
    };
    let by_uid: HashMap<&str, &Value> = loaded
        .iter()
        .chain(std::iter::once(root))
        .filter_map(|o| Some((o.at("/metadata/uid")?.as_str()?, o)))
        .collect();
    // Each loaded object's path up to the root (None: not under the root).
    let chain_to_root = |object: &Value| -> Option<Vec<Subject>> {
        let mut chain = Vec::new();
        let mut current = object;
        for _ in 0..16 {
            let uid = current.at("/metadata/uid").and_then(Value::as_str)?;
            if uid == root_subject.uid {
                return Some(chain);
            }
            let owner = *by_uid.get(controller_uid(current)?)?;
            chain.push(Subject::of(owner)?);
            current = owner;
        }
        None
    };
    let mut depth_of: HashMap<String, usize> = HashMap::new();
    // (owner uid, kind, rule) -> the cause gathering siblings.
    let mut grouped: BTreeMap<(String, String, &'static str, String), Cause> = BTreeMap::new();
    let mut siblings: HashMap<(String, String), usize> = HashMap::new();
    let mut fine: BTreeMap<String, usize> = BTreeMap::new();
    let objects = std::iter::once(root).chain(loaded.iter().filter(|o| {
        o.at("/metadata/uid").and_then(Value::as_str) != Some(root_subject.uid.as_str())
    }));
    for object in objects {
        let Some(chain) = chain_to_root(object) else {
            continue;
        };
        let Some(subject) = Subject::of(object) else {
            continue;
        };
        let owner_uid = chain.first().map(|s| s.uid.clone()).unwrap_or_default();
        *siblings
            .entry((owner_uid.clone(), subject.kind.clone()))
            .or_default() += 1;
        depth_of.insert(subject.uid.clone(), chain.len());
        let findings = rules::object_findings(object, events, now);
        if findings.is_empty() && subject.uid != root_subject.uid {
            *fine.entry(subject.kind.clone()).or_default() += 1;
        }
        for finding in findings {
            // Pods of one owner with the same rule and the same words are one cause.
            let key = (
                owner_uid.clone(),
                subject.kind.clone(),
                finding.rule,
                finding.sentence.clone(),
            );
            match grouped.get_mut(&key) {
                Some(cause) => cause.affected.push(subject.clone()),
                None => {
                    grouped.insert(
                        key,
                        Cause {
                            affected: vec![subject.clone()],
                            finding,
                            of: 0,
                            chain: chain.clone(),
                        },
                    );
                }
            }
        }
    }
    let mut causes: Vec<Cause> = grouped
        .into_iter()
        .map(|((owner, kind, _, _), mut cause)| {
            cause.of = siblings.get(&(owner, kind)).copied().unwrap_or(1);
            cause
        })
        .collect();
    let depth = |c: &Cause| depth_of.get(&c.finding.subject.uid).copied().unwrap_or(0);
    // Failing before warning before progressing; within each, the deepest (the root cause)
    // first.
    crate::list::stable_sort::sort_by(&mut causes, |a, b| {
        b.finding
            .health
            .cmp(&a.finding.health)
            .then(depth(b).cmp(&depth(a)))
            .then(a.finding.subject.cmp(&b.finding.subject))
    });
    // A workload "progressing" because its pods fail says nothing the pods' causes do not.
    let has_failure = causes.iter().any(|c| c.finding.health.is_unhealthy());
    if has_failure {
        causes.retain(|c| c.finding.health != Health::Progressing);
    }
    // "2 of 3 ready" said by the ReplicaSet need not be said again by its Deployment.
    let mut said_ready_count = false;
    causes.retain(|c| {
        if c.finding.rule != "not-all-ready" {
            return true;
        }
        !std::mem::replace(&mut said_ready_count, true)
    });
    if root_subject.kind == "Service" {
        causes.extend(service_cause(root, &root_subject, loaded));
    }
    let health = causes.iter().map(|c| c.finding.health).max();
    Diagnosis {
        causes,
        fine: fine.into_iter().collect(),
        health,
    }
}

/// A Service whose selector matches no ready pod among `loaded` (its namespace's pods):
/// traffic to it goes nowhere. A Service without a selector (its endpoints written by hand)
/// is not judged.
fn service_cause(service: &Value, subject: &Subject, loaded: &[Value]) -> Option<Cause> {
    let selector = service.at("/spec/selector")?.as_object()?;
    if selector.is_empty() {
        return None;
    }
    let wanted: Vec<(&str, &str)> = selector
        .iter()
        .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?)))
        .collect();
    let selected: Vec<&Value> = loaded
        .iter()
        .filter(|o| o.get("kind").and_then(Value::as_str) == Some("Pod"))
        .filter(|o| o.at("/metadata/namespace") == service.at("/metadata/namespace"))
        .filter(|pod| {
            wanted.iter().all(|(key, value)| {
                pod.at("/metadata/labels")
                    .and_then(|labels| labels.get(*key))
                    .and_then(Value::as_str)
                    == Some(*value)
            })
        })
        .collect();
    let ready = selected
        .iter()
        .filter(|pod| {
            pod.at("/status/conditions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .any(|c| {
                    c.get("type") == Some(&"Ready".into())
                        && c.get("status") == Some(&"True".into())
                })
        })
        .count();
    if ready > 0 {
        return None;
    }
    let selector_text = wanted
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    let sentence = if selected.is_empty() {
        format!("selects no pod: none has the labels {selector_text}")
    } else {
        let count = selected.len();
        let (pods, none) = if count == 1 {
            ("pod", "not ready")
        } else {
            ("pods", "none of them ready")
        };
        format!("selects {count} {pods}, {none}: its traffic goes nowhere")
    };
    Some(Cause {
        finding: Finding {
            subject: subject.clone(),
            health: Health::Warning,
            sentence,
            evidence: vec![Evidence::Field {
                path: "spec.selector".into(),
                value: selector_text.clone(),
            }],
            check: match &subject.namespace {
                Some(ns) => format!("kubectl get pods -n {ns} -l {selector_text}"),
                None => format!("kubectl get pods -l {selector_text}"),
            },
            rule: "service-no-ready-pods",
        },
        affected: vec![subject.clone()],
        of: 1,
        chain: Vec::new(),
    })
}

#[cfg(test)]
mod tests;
