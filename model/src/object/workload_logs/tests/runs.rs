//! A stream as its container starts, exits, restarts, and as the server answers.

use serde_json::json;

use super::{key, membership, opened, running_pod, status_of};
use crate::api::errors::ApiError;
use crate::object::workload_logs::membership::Membership;
use crate::object::workload_logs::status::{EndReason, StreamStatus};
use crate::object::workload_logs::streams::StreamStart;

#[test]
fn a_container_is_opened_once_it_starts() {
    let mut streams = membership(20);
    let mut pod = running_pod("web-1", "2026-12-07T01:00:00Z", &["app", "sidecar"]);
    *status_of(&mut pod, "sidecar") = json!({"name": "sidecar", "restartCount": 0,
        "state": {"waiting": {"reason": "ContainerCreating"}}});
    let change = streams.apply([&pod]);
    assert_eq!(change.open.len(), 1);
    let sidecar = key("web-1", "sidecar");
    assert_eq!(streams.status(&sidecar), Some(&StreamStatus::NotStarted));
    assert!(streams.several_containers("web-1"));
    *status_of(&mut pod, "sidecar") = json!({"name": "sidecar", "restartCount": 0,
        "state": {"running": {"startedAt": "2026-12-07T01:00:30Z"}}});
    let change = streams.apply([&pod]);
    assert_eq!(change.open.len(), 1);
    assert_eq!(change.open[0].key, sidecar);
    assert_eq!(streams.status(&sidecar), Some(&StreamStatus::Joined));
}

#[test]
fn an_exit_ends_a_stream_without_closing_it_and_a_restart_reopens() {
    let mut streams = membership(20);
    let app = key("web-1", "app");
    let mut pod = running_pod("web-1", "2026-12-07T01:00:00Z", &["app"]);
    streams.apply([&pod]);
    *status_of(&mut pod, "app") = json!({"name": "app", "restartCount": 0,
        "state": {"terminated": {"exitCode": 137, "startedAt": "2026-12-07T01:00:00Z"}}});
    let change = streams.apply([&pod]);
    // The server ends the stream after its last line: closing could cut lines on their way.
    assert!(change.close.is_empty());
    assert_eq!(change.ended, [key("web-1", "app")]);
    assert_eq!(
        streams
            .status(&app)
            .map(|s| s.sentence(&app, "shop"))
            .as_deref(),
        Some("web-1/app ended: the container exited with code 137")
    );
    *status_of(&mut pod, "app") = json!({"name": "app", "restartCount": 1,
        "state": {"running": {"startedAt": "2026-12-07T01:03:00Z"}}});
    let change = streams.apply([&pod]);
    assert!(change.close.is_empty(), "the ended stream is not open");
    assert_eq!(
        opened(&change),
        [(
            "web-1/app".to_string(),
            StreamStart::At("2026-12-07T01:03:00Z".into())
        )]
    );
    // A run missed between two events (restarted while the stream was open): the old
    // stream closes, the new run opens.
    *status_of(&mut pod, "app") = json!({"name": "app", "restartCount": 2,
        "state": {"running": {"startedAt": "2026-12-07T01:09:00Z"}}});
    let change = streams.apply([&pod]);
    assert_eq!(change.close, [key("web-1", "app")]);
    assert_eq!(change.open.len(), 1);
}

#[test]
fn a_stream_that_finishes_ends_and_learns_why_from_the_next_event() {
    let mut streams = membership(20);
    let app = key("web-1", "app");
    let mut pod = running_pod("web-1", "2026-12-07T01:00:00Z", &["app"]);
    streams.apply([&pod]);
    streams.stream_finished(&app);
    assert_eq!(
        streams.status(&app),
        Some(&StreamStatus::Ended(EndReason::Closed))
    );
    *status_of(&mut pod, "app") = json!({"name": "app", "restartCount": 0,
        "state": {"terminated": {"exitCode": 0}}});
    assert!(streams.apply([&pod]).is_empty());
    assert_eq!(
        streams.status(&app),
        Some(&StreamStatus::Ended(EndReason::Exited {
            exit_code: Some(0)
        }))
    );
    // A container exited before the view opened (a finished Job's pod) is read, and a
    // stream that finishes after its exit was seen says so.
    let mut finished = Membership::default();
    let change = finished.apply([&pod]);
    assert_eq!(change.open.len(), 1);
    finished.stream_finished(&app);
    assert!(matches!(
        finished.status(&app),
        Some(StreamStatus::Ended(EndReason::Exited { .. }))
    ));
}

#[test]
fn refusals_stay_and_waiting_to_start_is_tried_again() {
    let mut streams = membership(20);
    let app = key("web-1", "app");
    let pod = running_pod("web-1", "2026-12-07T01:00:00Z", &["app"]);
    streams.apply([&pod]);
    let waiting = ApiError::from_response(
        400,
        r#"{"kind":"Status","message":"container \"app\" in pod \"web-1\" is waiting to start: ContainerCreating","code":400}"#,
    );
    streams.stream_failed(&app, &waiting);
    assert_eq!(streams.status(&app), Some(&StreamStatus::WaitingToStart));
    assert_eq!(
        StreamStatus::WaitingToStart.sentence(&app, "shop"),
        "web-1/app is waiting to start: its lines follow once it runs"
    );
    let change = streams.apply([&pod]);
    assert_eq!(change.open.len(), 1, "tried again");
    streams.stream_failed(&app, &ApiError::Aborted);
    assert_eq!(
        streams.status(&app),
        Some(&StreamStatus::Joined),
        "a cancel changes nothing"
    );
    let forbidden = ApiError::from_response(
        403,
        r#"{"kind":"Status","message":"pods \"web-1\" is forbidden: User \"viewer\" cannot get resource \"pods/log\" in API group \"\" in the namespace \"shop\"","reason":"Forbidden","code":403}"#,
    );
    streams.stream_failed(&app, &forbidden);
    assert!(
        streams.apply([&pod]).is_empty(),
        "a refusal is not asked again"
    );
    let sentence = streams
        .status(&app)
        .map(|s| s.sentence(&app, "shop"))
        .unwrap_or_default();
    assert!(
        sentence.starts_with(
            "web-1/app refused: reading logs needs permission to get pods/log in namespace shop"
        ),
        "{sentence}"
    );
    let other = StreamStatus::from_error(&ApiError::from_response(500, "boom"));
    assert_eq!(
        other.map(|s| s.sentence(&app, "shop")).as_deref(),
        Some("web-1/app refused (HTTP 500): boom")
    );
    let unreachable = StreamStatus::from_error(&ApiError::Unreachable("offline".into()));
    assert!(unreachable.is_some_and(|s| s
        .sentence(&app, "shop")
        .starts_with("web-1/app could not be read")));
}
