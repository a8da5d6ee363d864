//! One health for a controller wherever it is shown: its object page ([`super::diagnose`]),
//! the overview's workload counts ([`crate::overview::workload_summary`]) and a list of
//! whole objects (a Deployments list's Health column) all read it from here.
//!
//! A controller's verdict is the worst of its own findings and those of everything it
//! controls transitively (a Deployment's ReplicaSets and their Pods, a CronJob's Jobs and
//! theirs, a StatefulSet's Pods; any kind that owns others through controller
//! ownerReferences), by [`super::rules::object_findings`] with the Event objects about each.
//! It is the health [`super::diagnose`] gives the same object with the same objects loaded,
//! and its reason is the first cause `diagnose` lists (worst first, then the deepest, the root
//! cause).
//!
//! Made for lists of 10,000 rows: the Events are indexed once by the object they are about,
//! every object's findings are read once, and each owned object walks its controller chain
//! once (at most [`MAX_DEPTH`] links), so the work grows with the objects and Events, never
//! with their product.
//!
//! Not judged here: a Service, whose pods are chosen by label selector rather than owned
//! (`diagnose` reads that rule from the pods it is given).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::rules::object_findings;
use super::{Finding, Health, Subject};
use crate::object::events::EventRecord;
use crate::object::meta::controller_uid;
use crate::object::pointer::Pointer;
use crate::time::age::EpochMillis;

/// How far up the controller chain an owned object is followed (as `diagnose` follows it).
pub const MAX_DEPTH: usize = 16;

/// A controller's health and the finding that decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub health: Health,
    /// What the worst finding is about: the controller itself or something it controls (a
    /// Pod that cannot pull its image). The controller itself when nothing was found.
    pub about: Subject,
    /// The finding's words after its subject (`container web cannot pull its image …`);
    /// empty when nothing was found.
    pub sentence: String,
}

/// The verdict on each of `controllers` (whole objects of any kind), by uid: the worst of its
/// own findings and those of everything it controls transitively among `controllers` and
/// `owned` (ReplicaSets, Jobs, Pods: whole objects), with the Event objects about any of them,
/// at wall-clock time `now`.
///
/// A controller's verdict is what `diagnose(controller, loaded, events, now)` says of it, with
/// `loaded` the other controllers and `owned`: its `.health()`, and as `about` and `sentence`
/// the subject and sentence of its first cause. Controllers without a uid, kind or name get
/// none.
pub fn controller_health<'a>(
    controllers: impl IntoIterator<Item = &'a Value>,
    owned: impl IntoIterator<Item = &'a Value>,
    events: &[EventRecord],
    now: EpochMillis,
) -> HashMap<String, Verdict> {
    let mut judges: HashMap<&'a str, Judge> = HashMap::new();
    // Every object once, controllers first (their uid wins, as `diagnose`'s root does), in
    // the order given: the order `diagnose` meets siblings in.
    let mut objects: Vec<(&'a str, &'a Value)> = Vec::new();
    let mut by_uid: HashMap<&'a str, &'a Value> = HashMap::new();
    for controller in controllers {
        let Some(uid) = uid_of(controller) else {
            continue;
        };
        if judges.contains_key(uid) {
            continue;
        }
        let Some(subject) = Subject::of(controller) else {
            continue;
        };
        judges.insert(uid, Judge::new(subject));
        by_uid.insert(uid, controller);
        objects.push((uid, controller));
    }
    for object in owned {
        let Some(uid) = uid_of(object) else {
            continue;
        };
        if let std::collections::hash_map::Entry::Vacant(entry) = by_uid.entry(uid) {
            entry.insert(object);
            objects.push((uid, object));
        }
    }
    let events = EventIndex::new(events);
    let mut ancestors: Vec<(&'a str, usize)> = Vec::new();
    for (uid, object) in objects {
        if !has_subject(object) {
            continue;
        }
        ancestors.clear();
        if judges.contains_key(uid) {
            ancestors.push((uid, 0));
        }
        // Up the controllers (a pod's ReplicaSet's Deployment), to every judged one on the way.
        let mut current = object;
        for depth in 1..MAX_DEPTH {
            let Some((owner_uid, owner)) = controller_uid(current)
                .and_then(|owner| by_uid.get_key_value(owner))
                .map(|(uid, owner)| (*uid, *owner))
            else {
                break;
            };
            // `diagnose` follows a chain only through owners it can name.
            if !has_subject(owner) {
                break;
            }
            if judges.contains_key(owner_uid) {
                ancestors.push((owner_uid, depth));
            }
            current = owner;
        }
        if ancestors.is_empty() {
            continue;
        }
        let findings = object_findings(object, &events.about(object), now);
        if findings.is_empty() {
            continue;
        }
        let parent = controller_uid(object).unwrap_or_default();
        for &(ancestor, depth) in &ancestors {
            let Some(judge) = judges.get_mut(ancestor) else {
                continue;
            };
            // `diagnose` groups an object's findings with its siblings' under the same owner;
            // the object asked about has none.
            let group_owner = if depth == 0 { "" } else { parent };
            for finding in &findings {
                judge.offer(finding, depth, group_owner);
            }
        }
    }
    judges
        .into_iter()
        .map(|(uid, judge)| (uid.to_string(), judge.verdict()))
        .collect()
}

fn uid_of(object: &Value) -> Option<&str> {
    object.at("/metadata/uid").and_then(Value::as_str)
}

/// Whether [`Subject::of`] can name it (a kind and a name).
fn has_subject(object: &Value) -> bool {
    object.at("/kind").and_then(Value::as_str).is_some()
        && object
            .at("/metadata/name")
            .and_then(Value::as_str)
            .is_some()
}

/// The Event objects by the object they are about, looked up as
/// [`Subject::is_regarded_by`] matches them: by uid, and by kind, namespace and name.
struct EventIndex<'e> {
    events: &'e [EventRecord],
    by_uid: HashMap<&'e str, Vec<usize>>,
    by_name: HashMap<(&'e str, Option<&'e str>, &'e str), Vec<usize>>,
}

impl<'e> EventIndex<'e> {
    fn new(events: &'e [EventRecord]) -> Self {
        let mut by_uid: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut by_name: HashMap<(&str, Option<&str>, &str), Vec<usize>> = HashMap::new();
        for (at, event) in events.iter().enumerate() {
            let r = &event.regarding;
            if let Some(uid) = &r.uid {
                by_uid.entry(uid.as_str()).or_default().push(at);
            }
            by_name
                .entry((r.kind.as_str(), r.namespace.as_deref(), r.name.as_str()))
                .or_default()
                .push(at);
        }
        EventIndex {
            events,
            by_uid,
            by_name,
        }
    }

    /// Every Event that may be about `object`, in the order given (the rules pick among them
    /// with [`Subject::is_regarded_by`], so they find what they would in all of them).
    fn about(&self, object: &Value) -> Vec<EventRecord> {
        let text = |p: &str| object.at(p).and_then(Value::as_str);
        let (Some(kind), Some(name)) = (text("/kind"), text("/metadata/name")) else {
            return Vec::new();
        };
        let by_name = self.by_name.get(&(kind, text("/metadata/namespace"), name));
        let by_uid = uid_of(object)
            .filter(|uid| !uid.is_empty())
            .and_then(|uid| self.by_uid.get(uid));
        let mut at: Vec<usize> = by_name
            .into_iter()
            .chain(by_uid)
            .flatten()
            .copied()
            .collect();
        if by_name.is_some() && by_uid.is_some() {
            crate::list::stable_sort::sort(&mut at);
            at.dedup();
        }
        at.into_iter().map(|i| self.events[i].clone()).collect()
    }
}

/// Siblings' findings `diagnose` tells as one cause: (owner uid, kind, rule, sentence).
type Group = (String, String, &'static str, String);

/// One controller's worst finding so far, chosen as `diagnose` orders its causes: worst
/// health, then the deepest, then by subject (of a group of siblings, the first met), rule
/// and sentence.
struct Judge {
    controller: Subject,
    best: Option<Best>,
}

struct Best {
    health: Health,
    depth: usize,
    subject: Subject,
    rule: &'static str,
    sentence: String,
    /// The groups met at this health and depth.
    groups: HashSet<Group>,
}

impl Judge {
    fn new(controller: Subject) -> Self {
        Judge {
            controller,
            best: None,
        }
    }

    fn offer(&mut self, finding: &Finding, depth: usize, group_owner: &str) {
        let group = || -> Group {
            (
                group_owner.to_string(),
                finding.subject.kind.clone(),
                finding.rule,
                finding.sentence.clone(),
            )
        };
        let fresh = || Best {
            health: finding.health,
            depth,
            subject: finding.subject.clone(),
            rule: finding.rule,
            sentence: finding.sentence.clone(),
            groups: HashSet::from([group()]),
        };
        let Some(best) = &mut self.best else {
            self.best = Some(fresh());
            return;
        };
        match (finding.health, depth).cmp(&(best.health, best.depth)) {
            std::cmp::Ordering::Less => {}
            std::cmp::Ordering::Greater => *best = fresh(),
            std::cmp::Ordering::Equal => {
                // A later sibling of a group met before is told under the first one.
                if !best.groups.insert(group()) {
                    return;
                }
                let ahead = (&finding.subject, finding.rule, &finding.sentence)
                    < (&best.subject, best.rule, &best.sentence);
                if ahead {
                    best.subject = finding.subject.clone();
                    best.rule = finding.rule;
                    best.sentence = finding.sentence.clone();
                }
            }
        }
    }

    fn verdict(self) -> Verdict {
        match self.best {
            Some(best) => Verdict {
                health: best.health,
                about: best.subject,
                sentence: best.sentence,
            },
            None => Verdict {
                health: Health::Ok,
                about: self.controller,
                sentence: String::new(),
            },
        }
    }
}
