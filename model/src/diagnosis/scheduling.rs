//! The scheduler's "0/3 nodes are available: …" message, read into its reasons, so a finding
//! can say in plain words why a pod has no node.

/// Why some nodes were not fit for a pod, as the scheduler counted them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRejection {
    /// How many nodes gave this reason.
    pub nodes: u32,
    pub reason: RejectionKind,
    /// The scheduler's words for it (`node(s) had untolerated taint {dedicated: gpu}`).
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RejectionKind {
    /// A taint the pod does not tolerate (its key and value in the text).
    Taint,
    /// `nodeSelector` or required node affinity.
    NodeAffinity,
    /// Not enough of a resource (`cpu`, `memory`, `pods`, an extended resource).
    Insufficient(String),
    /// A PersistentVolume's node affinity rules the node out.
    VolumeNodeAffinity,
    /// Ports the pod asks for on the host are taken.
    HostPorts,
    /// Pod (anti-)affinity or topology spread rules.
    PodAffinity,
    /// The node is not ready, unreachable or cordoned (unschedulable).
    NodeUnavailable,
    Other,
}

/// A pod the scheduler could not place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedulingFailure {
    /// Nodes that would have fitted (0 unless preemption is pending).
    pub available: u32,
    pub total: u32,
    pub rejections: Vec<NodeRejection>,
    /// Claims the pod waits for ("pod has unbound immediate PersistentVolumeClaims").
    pub unbound_claims: bool,
}

impl SchedulingFailure {
    /// One sentence: "no node of 3 fits: 2 don't match its node selector or affinity, 1 has a
    /// taint it does not tolerate".
    pub fn summary(&self) -> String {
        if self.unbound_claims && self.rejections.is_empty() {
            return "it waits for a PersistentVolumeClaim to be bound".into();
        }
        if self.total == 0 {
            return "the cluster has no node to run it on".into();
        }
        let reasons: Vec<String> = self
            .rejections
            .iter()
            .map(|r| {
                let (has, does) = if r.nodes == 1 {
                    ("has", "does")
                } else {
                    ("have", "do")
                };
                let what = match &r.reason {
                    RejectionKind::Taint => format!("{has} a taint it does not tolerate"),
                    RejectionKind::NodeAffinity => {
                        format!("{does} not match its node selector or affinity")
                    }
                    RejectionKind::Insufficient(resource) => format!("{has} not enough {resource}"),
                    RejectionKind::VolumeNodeAffinity => {
                        "cannot reach its volume (volume node affinity)".to_string()
                    }
                    RejectionKind::HostPorts => format!("{has} its host ports taken"),
                    RejectionKind::PodAffinity => {
                        "ruled out by pod affinity or topology spread".to_string()
                    }
                    RejectionKind::NodeUnavailable => "not ready or cordoned".to_string(),
                    RejectionKind::Other => r.text.clone(),
                };
                format!("{} {what}", r.nodes)
            })
            .collect();
        format!(
            "no node of {} fits: {}",
            self.total,
            if reasons.is_empty() {
                "the scheduler gave no reason".to_string()
            } else {
                reasons.join(", ")
            }
        )
    }
}

/// Reads a FailedScheduling message (the PodScheduled condition's, or its Event's); None
/// when it is not one.
pub fn parse_scheduling_failure(message: &str) -> Option<SchedulingFailure> {
    let message = message.trim();
    if message.starts_with("no nodes available to schedule pods") {
        return Some(SchedulingFailure {
            available: 0,
            total: 0,
            rejections: Vec::new(),
            unbound_claims: false,
        });
    }
    if message.contains("unbound immediate PersistentVolumeClaims") {
        return Some(SchedulingFailure {
            available: 0,
            total: 0,
            rejections: Vec::new(),
            unbound_claims: true,
        });
    }
    let (counts, rest) = message.split_once(" nodes are available")?;
    let (available, total) = counts.split_once('/')?;
    let available: u32 = available.trim().parse().ok()?;
    let total: u32 = total.trim().parse().ok()?;
    let rest = rest.trim_start_matches(':').trim();
    // The reasons end at the first ". " outside braces: what follows is other plugins'
    // notes ("no new claims to deallocate", v1.36's dynamic resources) and preemption's
    // own verdict, not why nodes did not fit.
    let reasons = first_sentence(rest).trim_end_matches('.');
    let rejections = split_reasons(reasons)
        .into_iter()
        .filter_map(|item| {
            let (count, text) = item.trim().split_once(' ')?;
            let nodes: u32 = count.parse().ok()?;
            let text = text.trim().to_string();
            Some(NodeRejection {
                nodes,
                reason: kind_of(&text),
                text,
            })
        })
        .collect();
    Some(SchedulingFailure {
        available,
        total,
        rejections,
        unbound_claims: false,
    })
}

/// `text` up to its first ". " (or its end) outside braces: a taint's value may hold dots.
fn first_sentence(text: &str) -> &str {
    let mut depth = 0_i32;
    let mut previous = ' ';
    for (at, c) in text.char_indices() {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            ' ' if previous == '.' && depth == 0 => return &text[..at - 1],
            _ => {}
        }
        previous = c;
    }
    text
}

/// Splits "1 node(s) had untolerated taint {a: b}, 2 Insufficient cpu" at the commas that
/// separate reasons, not those inside a taint's braces.
fn split_reasons(text: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let mut depth = 0_i32;
    let mut start = 0;
    for (at, c) in text.char_indices() {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(&text[start..]);
    items.into_iter().filter(|i| !i.trim().is_empty()).collect()
}

fn kind_of(text: &str) -> RejectionKind {
    let lower = text.to_ascii_lowercase();
    if let Some(resource) = text.strip_prefix("Insufficient ") {
        return RejectionKind::Insufficient(resource.trim().to_string());
    }
    if lower.contains("too many pods") {
        return RejectionKind::Insufficient("pods".into());
    }
    if lower.contains("taint") {
        return RejectionKind::Taint;
    }
    if lower.contains("volume node affinity") {
        return RejectionKind::VolumeNodeAffinity;
    }
    if lower.contains("node affinity/selector") || lower.contains("node affinity") {
        return RejectionKind::NodeAffinity;
    }
    if lower.contains("free ports") || lower.contains("host port") {
        return RejectionKind::HostPorts;
    }
    if lower.contains("pod affinity")
        || lower.contains("anti-affinity")
        || lower.contains("topology spread")
    {
        return RejectionKind::PodAffinity;
    }
    if lower.contains("unschedulable")
        || lower.contains("not ready")
        || lower.contains("unreachable")
    {
        return RejectionKind::NodeUnavailable;
    }
    RejectionKind::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selector_no_node_matches_and_a_control_plane_taint() {
        // As kube-scheduler v1.36 words it.
        let failure = parse_scheduling_failure(
            "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, \
             2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: \
             3 Preemption is not helpful for scheduling.",
        )
        .expect("a scheduling failure");
        assert_eq!((failure.available, failure.total), (0, 3));
        assert_eq!(failure.rejections.len(), 2, "{failure:?}");
        assert_eq!(failure.rejections[0].reason, RejectionKind::Taint);
        assert_eq!(failure.rejections[0].nodes, 1);
        assert!(failure.rejections[0].text.contains("control-plane"));
        assert_eq!(failure.rejections[1].reason, RejectionKind::NodeAffinity);
        assert_eq!(
            failure.summary(),
            "no node of 3 fits: 1 has a taint it does not tolerate, 2 do not match its node selector or affinity"
        );
    }

    #[test]
    fn v1_36_notes_after_the_reasons_are_not_reasons() {
        // As recorded from kube-scheduler v1.36.2 (model/tests/fixtures/diagnosis/real).
        let failure = parse_scheduling_failure(
            "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, \
             preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
        )
        .expect("a scheduling failure");
        assert_eq!(
            failure.rejections[0].reason,
            RejectionKind::Insufficient("cpu".into())
        );
        assert_eq!(
            failure.summary(),
            "no node of 3 fits: 3 have not enough cpu"
        );
        let taint = parse_scheduling_failure(
            "0/1 nodes are available: 1 node(s) had untolerated taint {example.com/zone: eu.west. 1}. \
             no new claims to deallocate, preemption: 0/1 nodes are available.",
        )
        .expect("a scheduling failure");
        assert!(
            taint.rejections[0].text.ends_with("eu.west. 1}"),
            "{taint:?}"
        );
    }

    #[test]
    fn resources_volumes_ports_and_cordoned_nodes() {
        let failure = parse_scheduling_failure(
            "0/5 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) had volume node affinity conflict, \
             1 node(s) didn't have free ports for the requested pod ports, 1 node(s) were unschedulable.",
        )
        .expect("a scheduling failure");
        let kinds: Vec<RejectionKind> = failure
            .rejections
            .iter()
            .map(|r| r.reason.clone())
            .collect();
        assert_eq!(
            kinds,
            [
                RejectionKind::Insufficient("cpu".into()),
                RejectionKind::Insufficient("memory".into()),
                RejectionKind::VolumeNodeAffinity,
                RejectionKind::HostPorts,
                RejectionKind::NodeUnavailable,
            ]
        );
        assert!(failure.summary().contains("1 has not enough memory"));
    }

    #[test]
    fn no_nodes_and_unbound_claims() {
        let none = parse_scheduling_failure("no nodes available to schedule pods").expect("parsed");
        assert_eq!(none.summary(), "the cluster has no node to run it on");
        let claims = parse_scheduling_failure(
            "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
        )
        .expect("parsed");
        assert!(claims.unbound_claims);
        assert_eq!(
            claims.summary(),
            "it waits for a PersistentVolumeClaim to be bound"
        );
    }

    #[test]
    fn other_messages_are_not_scheduling_failures() {
        assert_eq!(
            parse_scheduling_failure("Back-off pulling image \"x\""),
            None
        );
        assert_eq!(
            parse_scheduling_failure("x/y nodes are available: 1 a"),
            None
        );
        assert_eq!(parse_scheduling_failure(""), None);
    }
}
