use serde_json::json;

use super::*;

fn pod() -> Value {
    json!({
        "metadata": {"name": "web", "annotations": {}},
        "spec": {
            "initContainers": [{"name": "setup"}, {"name": "proxy"}],
            "containers": [
                {"name": "app", "stdin": true, "tty": true},
                {"name": "worker"},
                {"name": ""},
                {"name": "pending"}
            ],
            "ephemeralContainers": [{"name": "debugger-ab2cd", "stdin": true, "tty": true}]
        },
        "status": {
            "initContainerStatuses": [
                {"name": "setup", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}},
                {"name": "proxy", "state": {"running": {"startedAt": "2026-12-07T01:20:46Z"}}}
            ],
            "containerStatuses": [
                {"name": "app", "state": {"running": {}}},
                {"name": "worker", "state": {"waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": "back-off 20s restarting failed container=worker"}}}
            ],
            "ephemeralContainerStatuses": [
                {"name": "debugger-ab2cd", "state": {"terminated": {"exitCode": 137, "reason": "Error"}}}
            ]
        }
    })
}

#[test]
fn every_container_is_listed_with_its_state() {
    let containers = terminal_containers(&pod());
    let rows: Vec<(String, String)> = containers
        .iter()
        .map(|c| (c.label(), c.state.text()))
        .collect();
    let expected = [
        ("setup (init)", "Terminated: Completed, exit code 0"),
        ("proxy (init)", "Running"),
        ("app", "Running"),
        ("worker", "Waiting: CrashLoopBackOff"),
        ("pending", "Not started"),
        (
            "debugger-ab2cd (ephemeral)",
            "Terminated: Error, exit code 137",
        ),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(rows, expected);
}

#[test]
fn only_running_containers_take_a_terminal() {
    let containers = terminal_containers(&pod());
    let reason = |name: &str| {
        containers
            .iter()
            .find(|c| c.name == name)
            .and_then(TerminalContainer::unavailable_reason)
    };
    assert_eq!(reason("app"), None);
    assert_eq!(reason("proxy"), None);
    assert_eq!(
        reason("worker").as_deref(),
        Some("worker is not running (Waiting: CrashLoopBackOff)")
    );
    assert_eq!(
        reason("pending").as_deref(),
        Some("pending is not running (Not started)")
    );
    assert_eq!(
        reason("setup").as_deref(),
        Some("setup (init) is not running (Terminated: Completed, exit code 0)")
    );
}

#[test]
fn attach_uses_a_terminal_only_where_the_container_has_one() {
    let containers = terminal_containers(&pod());
    let app = &containers[2];
    assert_eq!(
        app.attach_options(),
        AttachOptions {
            container: "app".into(),
            stdin: true,
            tty: true
        }
    );
    let worker = &containers[3];
    assert!(!worker.attach_options().tty && !worker.attach_options().stdin);
}

#[test]
fn the_default_is_a_running_container_the_annotation_first() {
    let mut pod = pod();
    let containers = terminal_containers(&pod);
    assert_eq!(
        default_terminal_container(&pod, &containers).map(|c| c.name.as_str()),
        Some("app")
    );
    pod["metadata"]["annotations"][DEFAULT_CONTAINER_ANNOTATION] = json!("proxy");
    assert_eq!(
        default_terminal_container(&pod, &containers).map(|c| c.name.as_str()),
        Some("proxy")
    );
    // An annotated container that is not running is passed over for one that is.
    pod["metadata"]["annotations"][DEFAULT_CONTAINER_ANNOTATION] = json!("worker");
    assert_eq!(
        default_terminal_container(&pod, &containers).map(|c| c.name.as_str()),
        Some("app")
    );
}

#[test]
fn with_nothing_running_the_default_is_still_chosen_and_a_pod_without_status_lists_specs() {
    let pod = json!({"spec": {"containers": [{"name": "a"}, {"name": "b"}]}});
    let containers = terminal_containers(&pod);
    assert!(containers
        .iter()
        .all(|c| c.state == ContainerState::NotStarted));
    assert_eq!(
        default_terminal_container(&pod, &containers).map(|c| c.name.as_str()),
        Some("a")
    );
    assert!(terminal_containers(&json!({})).is_empty());
    assert_eq!(default_terminal_container(&json!({}), &[]), None);
}
