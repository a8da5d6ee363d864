//! Which pods are streamed as they come and go: rollouts, the cap, replaced pods.

use serde_json::{json, Value};

use super::{key, membership, opened, running_pod};
use crate::object::workload_logs::membership::{
    Membership, MembershipOptions, MAX_GONE_STREAMS_KEPT,
};
use crate::object::workload_logs::status::{EndReason, StreamStatus};
use crate::object::workload_logs::streams::{Since, StreamStart};

#[test]
fn a_rollout_ends_the_old_pods_and_joins_the_new_from_their_start() {
    let mut streams = membership(20);
    let old_a = running_pod("web-6c5d8-aaaaa", "2026-12-07T01:00:00Z", &["app"]);
    let old_b = running_pod("web-6c5d8-bbbbb", "2026-12-07T01:00:01Z", &["app"]);
    let first = streams.apply([&old_a, &old_b]);
    // The pods there when the view opened are read from the "since" choice.
    let since = StreamStart::Since(Since::FiveMinutes);
    assert_eq!(
        opened(&first),
        [
            ("web-6c5d8-aaaaa/app".to_string(), since.clone()),
            ("web-6c5d8-bbbbb/app".to_string(), since)
        ]
    );
    assert_eq!(
        first.open[0].request.url(),
        "/api/v1/namespaces/shop/pods/web-6c5d8-aaaaa/log?container=app&follow=true\
         &timestamps=true&sinceSeconds=300"
    );
    assert!(first.close.is_empty() && first.ended.is_empty());
    assert!(
        streams.apply([&old_a, &old_b]).is_empty(),
        "nothing changed"
    );

    // The new ReplicaSet's pod starts; then an old pod goes.
    let new_a = running_pod("web-7d4b9c-x2x9q", "2026-12-07T02:00:00Z", &["app"]);
    let joined = streams.apply([&old_a, &old_b, &new_a]);
    assert_eq!(
        opened(&joined),
        [(
            "web-7d4b9c-x2x9q/app".to_string(),
            StreamStart::At("2026-12-07T02:00:00Z".into())
        )]
    );
    let rolled = streams.apply([&old_b, &new_a]);
    assert_eq!(rolled.close, [key("web-6c5d8-aaaaa", "app")]);
    assert_eq!(rolled.ended, [key("web-6c5d8-aaaaa", "app")]);
    assert!(rolled.open.is_empty());
    let gone = key("web-6c5d8-aaaaa", "app");
    assert_eq!(
        streams.status(&gone),
        Some(&StreamStatus::Ended(EndReason::PodGone))
    );
    assert_eq!(
        streams
            .status(&gone)
            .map(|s| s.sentence(&gone, "shop"))
            .as_deref(),
        Some("web-6c5d8-aaaaa/app ended: the pod went away")
    );
    let streamed: Vec<&str> = streams.streamed_pods().collect();
    assert_eq!(streamed, ["web-6c5d8-bbbbb", "web-7d4b9c-x2x9q"]);
    assert_eq!(streams.summary(), "Streaming 2 pods");
}

#[test]
fn past_the_cap_the_newest_pods_stream_and_the_rest_are_offered() {
    let mut streams = membership(2);
    let pods: Vec<Value> = (0..4)
        .map(|i| {
            running_pod(
                &format!("web-{i}"),
                &format!("2026-12-07T01:0{i}:00Z"),
                &["app"],
            )
        })
        .collect();
    let change = streams.apply(&pods);
    let names: Vec<String> = opened(&change).into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["web-2/app", "web-3/app"], "the newest two");
    assert_eq!(streams.offered(), ["web-1", "web-0"]);
    assert_eq!(streams.summary(), "Streaming 2 of 4 pods; 2 not streamed");
    // A newer pod does not push out a streamed one: it is offered first.
    let newest = running_pod("web-9", "2026-12-07T01:09:00Z", &["app"]);
    let with_newest: Vec<&Value> = pods.iter().chain([&newest]).collect();
    assert!(streams.apply(with_newest.clone()).open.is_empty());
    assert_eq!(streams.offered(), ["web-9", "web-1", "web-0"]);
    // A streamed pod goes: its place goes to the newest offered, read from its start.
    let without_3: Vec<&Value> = with_newest
        .into_iter()
        .filter(|p| p["metadata"]["name"] != "web-3")
        .collect();
    let change = streams.apply(without_3);
    assert_eq!(change.ended, [key("web-3", "app")]);
    assert_eq!(
        opened(&change),
        [(
            "web-9/app".to_string(),
            StreamStart::At("2026-12-07T01:09:00Z".into())
        )]
    );
    // A pod offered since the view opened keeps the "since" choice when it gets a place.
    let change = streams.apply(&pods[..2]);
    let starts: Vec<StreamStart> = change.open.iter().map(|o| o.start.clone()).collect();
    assert_eq!(starts, vec![StreamStart::Since(Since::FiveMinutes); 2]);
    assert_eq!(
        Membership::new(MembershipOptions {
            max_pods: 0,
            ..MembershipOptions::default()
        })
        .options()
        .max_pods,
        1
    );
}

#[test]
fn a_pod_replaced_under_its_name_ends_and_the_new_one_joins() {
    let mut streams = membership(20);
    let db = running_pod("db-0", "2026-12-07T01:00:00Z", &["postgres"]);
    streams.apply([&db]);
    let mut again = running_pod("db-0", "2026-12-07T01:10:00Z", &["postgres"]);
    again["metadata"]["uid"] = json!("uid-db-0-second");
    let change = streams.apply([&again]);
    let postgres = key("db-0", "postgres");
    assert_eq!(change.close, [key("db-0", "postgres")]);
    assert_eq!(change.ended, [key("db-0", "postgres")]);
    assert_eq!(
        opened(&change),
        [(
            "db-0/postgres".to_string(),
            StreamStart::At("2026-12-07T01:10:00Z".into())
        )]
    );
    assert_eq!(streams.status(&postgres), Some(&StreamStatus::Joined));
}

#[test]
fn gone_streams_are_kept_for_their_status_up_to_a_bound() {
    let mut streams = membership(1);
    let total = MAX_GONE_STREAMS_KEPT + 5;
    for i in 0..total {
        let pod = running_pod(&format!("job-{i}"), "2026-12-07T01:00:00Z", &["run"]);
        streams.apply([&pod]);
    }
    streams.apply(std::iter::empty());
    assert_eq!(streams.streams().count(), MAX_GONE_STREAMS_KEPT);
    assert_eq!(
        streams.status(&key("job-0", "run")),
        None,
        "the oldest forgotten"
    );
    assert!(streams
        .status(&key(&format!("job-{}", total - 1), "run"))
        .is_some());
    assert_eq!(streams.summary(), "No pods yet");
}
