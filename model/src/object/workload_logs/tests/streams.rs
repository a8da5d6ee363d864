use serde_json::json;

use super::{running_pod, status_of};
use crate::object::pod_logs::ContainerKind;
use crate::object::workload_logs::streams::{
    pod_path, stream_request, streamed_containers, ContainerRun, Since, StreamKey, StreamStart,
};

#[test]
fn requests_follow_with_timestamps_from_their_start() {
    let path = pod_path("shop", "web-7d4b9c-x2x9q");
    assert_eq!(path, "/api/v1/namespaces/shop/pods/web-7d4b9c-x2x9q");
    let url = |start: StreamStart| stream_request(&path, "app", &start).url();
    let base = "/api/v1/namespaces/shop/pods/web-7d4b9c-x2x9q/log?container=app&follow=true\
                &timestamps=true";
    assert_eq!(
        url(StreamStart::Since(Since::FiveMinutes)),
        format!("{base}&sinceSeconds=300")
    );
    assert_eq!(
        url(StreamStart::Since(Since::OneHour)),
        format!("{base}&sinceSeconds=3600")
    );
    assert_eq!(url(StreamStart::Since(Since::All)), base);
    assert_eq!(
        url(StreamStart::At("2026-12-07T01:02:03Z".into())),
        format!("{base}&sinceTime=2026-12-07T01%3A02%3A03Z")
    );
    assert_eq!(url(StreamStart::Beginning), base);
    // No tail: the start bounds what is read.
    let request = stream_request(&path, "app", &StreamStart::Beginning);
    assert_eq!(request.query_value("tailLines"), None);
    assert_eq!(
        pod_path("a b", "x/y"),
        "/api/v1/namespaces/a%20b/pods/x%2Fy"
    );
}

#[test]
fn since_choices_round_trip() {
    for since in Since::CHOICES {
        assert_eq!(Since::from_param(since.param()), Some(since));
    }
    assert_eq!(Since::default(), Since::FiveMinutes);
    assert_eq!(Since::OneHour.label(), "Last hour");
    assert_eq!(Since::from_param("2d"), None);
    assert_eq!(StreamKey::new("web-1", "app").to_string(), "web-1/app");
}

#[test]
fn regular_containers_always_init_ones_once_started_never_ephemeral() {
    let mut pod = running_pod("web-1", "2026-12-07T01:00:00Z", &["app", "sidecar"]);
    pod["spec"]["initContainers"] = json!([{"name": "migrate"}, {"name": "warm"}]);
    pod["spec"]["ephemeralContainers"] = json!([{"name": "debugger"}]);
    pod["status"]["initContainerStatuses"] = json!([
        {"name": "migrate", "restartCount": 0,
         "state": {"terminated": {"exitCode": 0, "startedAt": "2026-12-07T00:59:00Z"}}},
        {"name": "warm", "restartCount": 0, "state": {"waiting": {"reason": "PodInitializing"}}},
    ]);
    *status_of(&mut pod, "sidecar") = json!({"name": "sidecar", "restartCount": 0,
        "state": {"waiting": {"reason": "ContainerCreating"}}});
    let containers = streamed_containers(&pod);
    let names: Vec<(&str, ContainerKind)> = containers
        .iter()
        .map(|c| (c.name.as_str(), c.kind))
        .collect();
    assert_eq!(
        names,
        [
            ("migrate", ContainerKind::Init),
            ("app", ContainerKind::Regular),
            ("sidecar", ContainerKind::Regular)
        ]
    );
    assert_eq!(
        containers[0].run,
        ContainerRun::Terminated {
            restarts: 0,
            started_at: Some("2026-12-07T00:59:00Z".into()),
            exit_code: Some(0)
        }
    );
    assert_eq!(containers[1].run.started_at(), Some("2026-12-07T01:00:00Z"));
    assert_eq!(containers[2].run, ContainerRun::NotStarted);
}

#[test]
fn a_crash_looping_container_has_its_last_run_to_read() {
    let mut pod = running_pod("web-1", "2026-12-07T01:00:00Z", &["app"]);
    *status_of(&mut pod, "app") = json!({"name": "app", "restartCount": 4,
        "state": {"waiting": {"reason": "CrashLoopBackOff"}},
        "lastState": {"terminated": {"exitCode": 2, "startedAt": "2026-12-07T01:05:00Z"}}});
    let run = &streamed_containers(&pod)[0].run;
    assert!(run.has_started());
    assert_eq!(run.restarts(), 4);
    assert!(matches!(
        run,
        ContainerRun::Terminated {
            exit_code: Some(2),
            ..
        }
    ));
}

#[test]
fn without_container_statuses_the_phase_decides() {
    let mut pod = running_pod("web-1", "2026-12-07T01:00:00Z", &["app"]);
    pod["status"] = json!({"phase": "Running", "startTime": "2026-12-07T01:00:00Z"});
    assert_eq!(
        streamed_containers(&pod)[0].run,
        ContainerRun::Running {
            restarts: 0,
            started_at: Some("2026-12-07T01:00:00Z".into())
        }
    );
    pod["status"] = json!({"phase": "Pending"});
    assert_eq!(streamed_containers(&pod)[0].run, ContainerRun::NotStarted);
    // A status of another shape is read as nothing, not a panic.
    pod["status"] = json!({"containerStatuses": "odd"});
    assert_eq!(streamed_containers(&pod)[0].run, ContainerRun::NotStarted);
}
