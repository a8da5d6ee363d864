use serde_json::{json, Value};

use super::*;

fn pod(name: &str, phase: &str, ready_since: Option<&str>, created: &str) -> Value {
    let conditions = match ready_since {
        Some(at) => json!([{"type": "Ready", "status": "True", "lastTransitionTime": at}]),
        None => json!([{"type": "Ready", "status": "False"}]),
    };
    json!({
        "metadata": {"name": name, "namespace": "default", "creationTimestamp": created},
        "spec": {"containers": [{"name": "web", "ports": [{"name": "http", "containerPort": 8080}]}]},
        "status": {"phase": phase, "conditions": conditions},
    })
}

#[test]
fn the_pod_ready_for_longest_is_picked_and_unready_or_excluded_ones_never() {
    let pods = vec![
        pod(
            "web-3",
            "Running",
            Some("2026-01-01T00:00:03Z"),
            "2026-01-01T00:00:00Z",
        ),
        pod(
            "web-1",
            "Running",
            Some("2026-01-01T00:00:01Z"),
            "2026-01-01T00:00:01Z",
        ),
        pod("web-0", "Running", None, "2025-01-01T00:00:00Z"),
        pod("web-p", "Pending", None, "2025-01-01T00:00:00Z"),
        pod(
            "web-2",
            "Running",
            Some("2026-01-01T00:00:01Z"),
            "2026-01-01T00:00:00Z",
        ),
    ];
    let name = |picked: Option<&Value>| picked.map(|p| p["metadata"]["name"].clone());
    // Same readiness time: the older one.
    assert_eq!(name(pick_pod(&pods, &[])), Some(json!("web-2")));
    assert_eq!(name(pick_pod(&pods, &["web-2"])), Some(json!("web-1")));
    assert_eq!(name(pick_pod(&pods, &["web-1", "web-2", "web-3"])), None);
    let mut deleting = pods[1].clone();
    deleting["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:01:00Z");
    assert_eq!(pick_pod(&[deleting], &[]), None);
}

#[test]
fn a_pod_is_gone_when_deleted_being_deleted_or_no_longer_running() {
    let running = pod("web-1", "Running", Some("2026-01-01T00:00:00Z"), "");
    assert_eq!(pod_gone(Some(&running), true), None);
    assert_eq!(pod_gone(None, false), Some(PodGone::Deleted));
    let mut deleting = running.clone();
    deleting["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:01:00Z");
    assert_eq!(pod_gone(Some(&deleting), false), Some(PodGone::Deleted));
    let done = pod("web-1", "Succeeded", None, "");
    assert_eq!(
        pod_gone(Some(&done), false),
        Some(PodGone::NotRunning {
            phase: "Succeeded".into()
        })
    );
    let unready = pod("web-1", "Running", None, "");
    assert_eq!(pod_gone(Some(&unready), false), None);
    assert_eq!(pod_gone(Some(&unready), true), Some(PodGone::NotReady));
    assert_eq!(
        PodGone::Deleted.sentence("default", "web-1"),
        "pod default/web-1 was deleted"
    );
    assert_eq!(
        moved_note("web-2", "web-1", &PodGone::Deleted),
        "moved to pod web-2: web-1 was deleted"
    );
}

#[test]
fn a_service_port_maps_to_its_target_port_by_number_or_name() {
    let service = json!({
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"selector": {"app": "web"}, "ports": [
            {"name": "http", "port": 80, "targetPort": 8080},
            {"name": "admin", "port": 9000, "targetPort": "http"},
            {"name": "same", "port": 7000},
        ]},
    });
    let number = |n| PortRef::Number(n);
    assert_eq!(service_target_port(&service, &number(80)), Ok(number(8080)));
    assert_eq!(
        service_target_port(&service, &PortRef::Name("http".into())),
        Ok(number(8080))
    );
    assert_eq!(
        service_target_port(&service, &number(9000)),
        Ok(PortRef::Name("http".into()))
    );
    assert_eq!(
        service_target_port(&service, &number(7000)),
        Ok(number(7000))
    );
    let missing = service_target_port(&service, &number(81)).expect_err("no port 81");
    assert_eq!(missing.to_string(), "service default/web has no port 81");
    assert_eq!(
        selector_of(TargetKind::Service, &service),
        Ok(Some("app=web".to_string()))
    );
    // A named target port is the picked pod's container port of that name.
    let picked = pod("web-1", "Running", None, "");
    assert_eq!(
        container_port(&picked, &PortRef::Name("http".into())),
        Ok(8080)
    );
    assert_eq!(container_port(&picked, &number(5432)), Ok(5432));
    let no_name = container_port(&picked, &PortRef::Name("grpc".into())).expect_err("no grpc");
    assert_eq!(
        no_name.to_string(),
        "pod default/web-1 has no port \"grpc\""
    );
}

#[test]
fn a_deployments_selector_is_read_with_its_expressions_and_a_bare_service_has_none() {
    let deployment = json!({"spec": {"selector": {
        "matchLabels": {"app": "web"},
        "matchExpressions": [{"key": "tier", "operator": "In", "values": ["front"]}],
    }}});
    let selector = selector_of(TargetKind::Deployment, &deployment).expect("a selector");
    assert_eq!(selector, Some("app=web,tier in (front)".to_string()));
    assert_eq!(
        selector_of(TargetKind::Service, &json!({"spec": {}})),
        Ok(None)
    );
}

#[test]
fn every_refusal_is_said_in_words_with_its_status() {
    let cases = [
        (
            ForwardError::LocalPortTaken { port: 8080 },
            409,
            "local port 8080 is already in use",
        ),
        (
            ForwardError::PodNotRunning {
                namespace: "default".into(),
                name: "web-1".into(),
                phase: "Pending".into(),
            },
            409,
            "pod default/web-1 is not running (phase Pending)",
        ),
        (
            ForwardError::NoReadyPod {
                kind: TargetKind::Service,
                namespace: "default".into(),
                name: "web".into(),
                selector: "app=web".into(),
            },
            503,
            "service default/web has no ready endpoints",
        ),
        (
            ForwardError::Forbidden {
                namespace: "team-a".into(),
            },
            403,
            "create pods/portforward in namespace team-a",
        ),
        (
            ForwardError::PortError {
                namespace: "default".into(),
                pod: "web-1".into(),
                port: 81,
                message: "connection refused".into(),
            },
            502,
            "nothing answers on port 81 of pod default/web-1: connection refused",
        ),
    ];
    for (error, status, words) in cases {
        assert_eq!(error.status(), status, "{error}");
        assert!(error.to_string().contains(words), "{error}");
    }
}

#[test]
fn ports_are_asked_by_number_or_name_in_json() {
    assert_eq!(
        serde_json::from_value::<PortRef>(json!(80)).ok(),
        Some(PortRef::Number(80))
    );
    assert_eq!(
        serde_json::from_value::<PortRef>(json!("http")).ok(),
        Some(PortRef::Name("http".into()))
    );
    assert!(serde_json::from_value::<PortRef>(json!(70000)).is_err());
    assert_eq!(
        serde_json::from_value::<TargetKind>(json!("Service")).ok(),
        Some(TargetKind::Service)
    );
}
