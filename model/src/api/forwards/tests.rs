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

#[test]
fn a_pod_offers_its_containers_ports_by_name_and_udp_ones_cannot_be_forwarded() {
    let pod = json!({"spec": {"containers": [
        {"name": "web", "ports": [{"name": "http", "containerPort": 8080}, {"containerPort": 9090}]},
        {"name": "dns", "ports": [{"name": "dns", "containerPort": 53, "protocol": "UDP"}]},
        {"name": "sidecar"}
    ]}});
    let offered = offered_ports(TargetKind::Pod, &pod);
    let labels: Vec<String> = offered.iter().map(OfferedPort::label).collect();
    assert_eq!(labels, ["8080 (http)", "9090", "53 (dns)"]);
    assert_eq!(offered[0].port, PortRef::Name("http".into()));
    assert_eq!(offered[1].port, PortRef::Number(9090));
    assert_eq!(offered[0].detail, "container web");
    assert!(offered[0].forwardable() && !offered[2].forwardable());
}

#[test]
fn a_service_offers_its_ports_by_number_with_where_they_lead() {
    let service = json!({"spec": {"ports": [
        {"name": "http", "port": 80, "targetPort": "http"},
        {"port": 443, "targetPort": 8443},
        {"port": 9000}
    ]}});
    let offered = offered_ports(TargetKind::Service, &service);
    let details: Vec<(&PortRef, &str)> = offered
        .iter()
        .map(|p| (&p.port, p.detail.as_str()))
        .collect();
    assert_eq!(
        details,
        [
            (&PortRef::Number(80), "to the pod's port http"),
            (&PortRef::Number(443), "to the pod's port 8443"),
            (&PortRef::Number(9000), "to the pod's port 9000"),
        ]
    );
}

#[test]
fn a_deployment_offers_its_pod_templates_ports_and_other_kinds_none() {
    let deployment = json!({"spec": {"template": {"spec": {"containers": [
        {"name": "web", "ports": [{"name": "http", "containerPort": 80}]}
    ]}}}});
    assert_eq!(offered_ports(TargetKind::Deployment, &deployment).len(), 1);
    assert_eq!(target_kind("Deployment"), Some(TargetKind::Deployment));
    assert_eq!(target_kind("ConfigMap"), None);
}

#[test]
fn open_goes_through_the_proxy_subresource_of_pods_and_services_only() {
    assert_eq!(
        proxy_path(TargetKind::Pod, "default", "web-1", 8080).as_deref(),
        Some("/api/v1/namespaces/default/pods/web-1:8080/proxy/")
    );
    assert_eq!(
        proxy_path(TargetKind::Service, "shop", "front", 80).as_deref(),
        Some("/api/v1/namespaces/shop/services/front:80/proxy/")
    );
    assert_eq!(
        proxy_path(TargetKind::Deployment, "shop", "front", 80),
        None
    );
}

#[test]
fn the_forward_request_is_the_json_kube_atlas_reads() {
    let request = ForwardRequest {
        context: "kind".into(),
        namespace: "default".into(),
        target: Target {
            kind: TargetKind::Service,
            name: "web".into(),
        },
        port: PortRef::Name("http".into()),
        local_port: None,
        keep_after_page_closes: false,
        session: Some("s1".into()),
    };
    let sent = serde_json::to_value(&request).expect("serializes");
    assert_eq!(
        sent,
        json!({"context": "kind", "namespace": "default",
               "target": {"kind": "Service", "name": "web"}, "port": "http",
               "keepAfterPageCloses": false, "session": "s1"})
    );
    let read: ForwardRequest = serde_json::from_value(sent).expect("reads back");
    assert_eq!(read, request);
}
