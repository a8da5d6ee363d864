use serde_json::json;

use super::*;
use crate::object::terminal::test_support::pods_tree;

fn busybox(name: &str, target: Option<&str>) -> DebugContainer {
    DebugContainer {
        name: name.into(),
        image: DEFAULT_DEBUG_IMAGE.into(),
        target: target.map(str::to_string),
        command: vec![],
        interactive: true,
        image_pull_policy: None,
        profile: DebugProfile::Legacy,
    }
}

fn pod_without_debuggers() -> Value {
    json!({
        "metadata": {"name": "tty", "namespace": "default"},
        "spec": {"containers": [{"name": "main", "image": "busybox"}]}
    })
}

#[test]
fn the_first_debug_container_is_patched_in_as_kubectl_does() {
    // kubectl v1.32 `debug -it tty --image=busybox`, as recorded.
    let patch =
        ephemeral_container_patch(&pod_without_debuggers(), &busybox("debugger-vs68s", None));
    assert_eq!(
        patch.to_string(),
        r#"{"spec":{"ephemeralContainers":[{"image":"busybox","name":"debugger-vs68s","resources":{},"stdin":true,"terminationMessagePolicy":"File","tty":true}]}}"#
    );
}

#[test]
fn later_ones_keep_the_order_of_the_existing_and_the_general_profile_adds_ptrace() {
    let mut pod = pod_without_debuggers();
    pod["spec"]["ephemeralContainers"] = json!([{"name": "debugger-vs68s", "image": "busybox"}]);
    let container = DebugContainer {
        command: vec!["true".into()],
        interactive: false,
        profile: DebugProfile::General,
        ..busybox("debugger-lhcmv", Some("main"))
    };
    // kubectl v1.32 `debug tty --image=busybox --profile=general --target=main -- true`.
    assert_eq!(
        ephemeral_container_patch(&pod, &container).to_string(),
        r#"{"spec":{"$setElementOrder/ephemeralContainers":[{"name":"debugger-vs68s"},{"name":"debugger-lhcmv"}],"ephemeralContainers":[{"command":["true"],"image":"busybox","name":"debugger-lhcmv","resources":{},"securityContext":{"capabilities":{"add":["SYS_PTRACE"]}},"targetContainerName":"main","terminationMessagePolicy":"File"}]}}"#
    );
    let pinned = DebugContainer {
        image_pull_policy: Some("IfNotPresent".into()),
        ..busybox("debugger-x", None)
    };
    let patch = ephemeral_container_patch(&pod, &pinned);
    assert_eq!(
        patch["spec"]["ephemeralContainers"][0]["imagePullPolicy"],
        "IfNotPresent"
    );
    // Without a target there is nothing to trace: the general profile adds nothing.
    let general = DebugContainer {
        profile: DebugProfile::General,
        ..busybox("debugger-y", None)
    };
    let patch = ephemeral_container_patch(&pod, &general);
    assert!(patch["spec"]["ephemeralContainers"][0]
        .get("securityContext")
        .is_none());
}

#[test]
fn the_request_is_a_strategic_merge_patch_of_the_subresource() {
    let tree = pods_tree(&["ephemeralcontainers", "exec"]);
    let request = debug_container_request(
        &tree,
        &pod_without_debuggers(),
        &busybox("debugger-a", None),
    )
    .expect("served");
    assert_eq!(request.method(), "PATCH");
    assert_eq!(
        request.url(),
        "/api/v1/namespaces/default/pods/tty/ephemeralcontainers"
    );
    assert_eq!(
        request.content_type(),
        Some("application/strategic-merge-patch+json")
    );
    let refused = debug_container_request(
        &pods_tree(&["exec"]),
        &pod_without_debuggers(),
        &busybox("d", None),
    );
    assert_eq!(
        refused,
        Err(TerminalRequestError::NotServed(
            PodSubresource::EphemeralContainers
        ))
    );
}

#[test]
fn names_look_like_kubectls_and_never_collide() {
    let pod = pod_without_debuggers();
    let name = debug_container_name(&pod, 12345);
    assert!(name.starts_with("debugger-") && name.len() == "debugger-".len() + 5);
    assert!(name["debugger-".len()..]
        .bytes()
        .all(|b| SUFFIX_ALPHABET.contains(&b)));
    assert_eq!(
        debug_container_name(&pod, 12345),
        name,
        "same entropy, same name"
    );
    let mut taken = pod.clone();
    taken["spec"]["ephemeralContainers"] = json!([{ "name": name }]);
    let other = debug_container_name(&taken, 12345);
    assert_ne!(other, name);
    assert!(other.starts_with("debugger-"));
}

#[test]
fn the_state_says_when_to_attach() {
    let pod = |state: Value| {
        json!({"status": {"ephemeralContainerStatuses": [
            {"name": "other", "state": {"running": {}}},
            {"name": "debugger-a", "state": state}
        ]}})
    };
    assert_eq!(
        debug_container_state(&pod_without_debuggers(), "debugger-a"),
        DebugContainerState::NotReported
    );
    let running = debug_container_state(
        &pod(json!({"running": {"startedAt": "2026-12-07T01:18:24Z"}})),
        "debugger-a",
    );
    assert!(running.is_running());
    assert_eq!(
        debug_container_state(
            &pod(json!({"waiting": {"reason": "ErrImagePull", "message": "no such image"}})),
            "debugger-a"
        ),
        DebugContainerState::Waiting {
            reason: Some("ErrImagePull".into()),
            message: Some("no such image".into())
        }
    );
    assert_eq!(
        debug_container_state(&pod(json!({"terminated": {"exitCode": 0}})), "debugger-a"),
        DebugContainerState::Terminated { exit_code: Some(0) }
    );
    // A status with an empty state: created but not yet reported as anything.
    assert_eq!(
        debug_container_state(&pod(json!({})), "debugger-a"),
        DebugContainerState::Waiting {
            reason: None,
            message: None
        }
    );
}
