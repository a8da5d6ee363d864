//! Randomized (property) tests of the workload logs: whatever the streams send, in whatever
//! chunks, and whatever objects a watch delivers, nothing panics and the merged lines stay
//! in order within their bound.

#![cfg(not(target_arch = "wasm32"))]

use kube_atlas_model::object::workload_logs::filter::{TextMode, TextPattern};
use kube_atlas_model::object::workload_logs::severity::detect_severity;
use kube_atlas_model::object::workload_logs::timestamp::split_timestamp;
use kube_atlas_model::object::workload_logs::{
    LineFilter, Membership, MembershipOptions, PodCoverage, StreamKey, WorkloadLog,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// A line as streams send them: mostly stamped, some not, some odd.
fn any_line() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..60, 0u32..1_000_000_000, "[ -~]{0,20}").prop_map(|(second, nanos, text)| format!(
            "2026-12-07T01:00:{second:02}.{nanos:09}Z {text}"
        )),
        "[ -~é✓\t]{0,30}",
        any::<String>(),
    ]
}

/// A pod-ish object: metadata, containers and statuses of any shape now and then.
fn any_pod() -> impl Strategy<Value = Value> {
    (
        "[a-c]-[0-9]",
        prop::option::of("[a-z]{1,3}"),
        prop::collection::vec("[a-b]", 0..3),
        0u64..3,
        prop::sample::select(vec!["running", "terminated", "waiting", "odd"]),
    )
        .prop_map(|(name, uid, containers, restarts, state)| {
            let specs: Vec<Value> = containers.iter().map(|c| json!({"name": c})).collect();
            let statuses: Vec<Value> = containers
                .iter()
                .map(|c| {
                    let state = match state {
                        "odd" => json!("odd"),
                        state => json!({ state: {"startedAt": "2026-12-07T01:00:00Z"} }),
                    };
                    json!({"name": c, "restartCount": restarts, "state": state})
                })
                .collect();
            json!({"metadata": {"name": name, "namespace": "ns", "uid": uid},
                   "spec": {"containers": specs, "initContainers": [{"name": "init"}]},
                   "status": {"startTime": "2026-12-07T01:00:00Z", "containerStatuses": statuses}})
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn any_streamed_text_merges_in_order_within_the_bound(
        arrivals in prop::collection::vec((0usize..3, any_line(), 0usize..8), 0..60),
        capacity in 1usize..20,
    ) {
        let mut log = WorkloadLog::with_limits(capacity, 25);
        let mut taken = 0;
        for (stream, line, take) in &arrivals {
            let key = StreamKey::new(format!("pod-{stream}"), "app");
            // Cut anywhere on a character boundary: the line is whole only with both halves.
            let mut cut = line.len() / 2;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            log.push_chunk(&key, &line[..cut]);
            log.push_chunk(&key, &format!("{}\n", &line[cut..]));
            if *take > 0 {
                taken += log.merge_pending(*take).merged.added.len();
            }
        }
        taken += log.merge_pending(usize::MAX).merged.added.len();
        let keys: Vec<_> = log.merged().iter().map(|line| line.key()).collect();
        prop_assert!(keys.windows(2).all(|pair| pair[0] < pair[1]));
        prop_assert!(log.merged().len() <= capacity);
        prop_assert!(taken >= log.merged().len());
        // Every line that went in is held or counted as dropped, in the buffer or before it.
        let total = log.merged().len() as u64 + log.merged().dropped() + log.intake().dropped();
        prop_assert_eq!(total, arrivals.len() as u64 + count_newlines(&arrivals));
        prop_assert_eq!(log.view().len(), log.merged().len());
    }

    #[test]
    fn any_text_is_read_without_a_panic(text in any::<String>(), pattern in "[ -~]{0,12}") {
        let (_, message) = split_timestamp(&text);
        prop_assert!(text.ends_with(message));
        detect_severity(&text);
        if let Ok(Some(pattern)) = TextPattern::new(&pattern, TextMode::Regex) {
            let filter = LineFilter { text: Some(pattern), ..LineFilter::default() };
            let joined: String = filter.segments(&text).iter().map(|s| s.text).collect();
            prop_assert_eq!(joined, text);
        }
    }

    #[test]
    fn any_pods_give_a_consistent_membership(
        snapshots in prop::collection::vec(prop::collection::vec(any_pod(), 0..5), 1..6),
        max_pods in 1usize..4,
    ) {
        let mut membership = Membership::new(MembershipOptions {
            max_pods,
            ..MembershipOptions::default()
        });
        for pods in &snapshots {
            let change = membership.apply(pods);
            // Every stream opened is of a streamed pod, and there are at most max_pods of those.
            let streamed: Vec<&str> = membership.streamed_pods().collect();
            prop_assert!(streamed.len() <= max_pods);
            for open in &change.open {
                prop_assert!(streamed.contains(&open.key.pod.as_str()));
            }
            PodCoverage::of(&pods.first().cloned().unwrap_or_default());
        }
    }
}

/// Lines inside a line: a generated text may hold newlines of its own.
fn count_newlines(arrivals: &[(usize, String, usize)]) -> u64 {
    arrivals
        .iter()
        .map(|(_, line, _)| line.matches('\n').count() as u64)
        .sum()
}
